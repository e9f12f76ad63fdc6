"""The plan of an image workload: one point at concurrency 1, warm-up renders first,
each prompt ``repeat`` times, reference images checked against ``ref_images``."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from servescope.catalog.store import Catalog
from servescope.documents import DatasetRow
from servescope.errors import CatalogError
from servescope.workload.plan import plan


def test_image_plan_warms_up_then_repeats_each_prompt() -> None:
    cat = Catalog.load()
    w = cat.workload("image-t2i-64-s4-v1")
    [point] = plan(w, cat.dataset_rows(w.dataset_id))
    assert point.concurrency == 1
    phases = [r.phase for r in point.requests]
    assert phases == ["warmup"] + ["measured"] * 16
    measured = [r for r in point.requests if r.phase == "measured"]
    assert [r.prompt_id for r in measured[:4]] == ["t2i-0", "t2i-0", "t2i-1", "t2i-1"]
    assert len({r.request_id for r in point.requests}) == 17


def test_an_edit_workload_needs_rows_with_reference_images() -> None:
    cat = Catalog.load()
    edit = cat.workload("image-edit-64-s4-v1")
    [point] = plan(edit, cat.dataset_rows(edit.dataset_id))
    assert all(r.row is not None and len(r.row.ref_images or []) >= 1 for r in point.requests)
    wrong = edit.model_copy(update={"dataset_id": "t2i-prompts-v1"})
    with pytest.raises(CatalogError, match=r"params\.ref_images is 1 but row"):
        plan(wrong, cat.dataset_rows("t2i-prompts-v1"))


def test_a_reference_image_that_is_not_base64_is_a_document_error() -> None:
    with pytest.raises(ValidationError, match=r"ref_images\[1\] is not base64"):
        DatasetRow.model_validate({"id": "e", "text": "edit", "ref_images": ["iVBORw0KGgo=", "not base64!"]})
