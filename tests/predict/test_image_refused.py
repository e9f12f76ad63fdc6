"""The simulator models LLM serving: image workloads and scored image suites are
refused in one line, before anything is simulated."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.errors import NotModelledError
from servescope.predict.coverage import check_workload


@pytest.mark.parametrize(("workload", "what"), [("image-t2i-64-s4-v1", "an image workload"), ("eval-t2i-ocr-v1", "a scored image suite")])
def test_image_workloads_are_refused(workload: str, what: str) -> None:
    w = Catalog.load().workload(workload)
    with pytest.raises(NotModelledError, match=f"is {what}: the simulator models LLM serving") as exc:
        check_workload(w)
    assert "\n" not in str(exc.value)


def test_text_workloads_pass() -> None:
    cat = Catalog.load()
    for workload in ("serve-chat-c8-i1k-o256-v1", "eval-math-v1"):
        check_workload(cat.workload(workload))
