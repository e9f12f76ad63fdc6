"""A scored image case (a dataset row of a kind: eval image suite): the render
frozen in its row, what is asked of the lane for it, and its render digest."""

from __future__ import annotations

import base64
from typing import Any

from servescope.bench.images.lane import ImageAsk
from servescope.documents import DatasetRow
from servescope.documents.dataset import RenderSpec
from servescope.errors import CatalogError, UsageError
from servescope.scoring.image import render_digest


def case_render(row: DatasetRow, overrides: dict[str, Any] | None = None) -> dict[str, Any]:
    """The row's render spec (every field), with ``overrides`` applied (a reference spec's)."""
    if row.render is None:
        raise CatalogError(f"dataset row {row.id}: a scored image case needs its render frozen in the row (render: {{width, height, steps, seed, ...}})")
    merged = row.render.model_dump(mode="json") | (overrides or {})
    try:
        return RenderSpec.model_validate(merged).model_dump(mode="json")
    except ValueError as exc:
        first = str(exc).splitlines()
        raise UsageError(f"render overrides for case {row.id}: {first[1].strip() if len(first) > 1 else exc}") from None


def case_refs(row: DatasetRow) -> list[bytes]:
    """The reference images an edit case conditions on (its row's, all of them)."""
    return [base64.b64decode(s) for s in row.ref_images or []]


def case_digest(row: DatasetRow, render: dict[str, Any]) -> str:
    return render_digest(row.text, render, row.ref_images)


def case_ask(row: DatasetRow, render: dict[str, Any], endpoint_model: str | None) -> ImageAsk:
    return ImageAsk(
        prompt=row.text,
        width=render["width"],
        height=render["height"],
        steps=render["steps"],
        seed=render["seed"],
        n=1,
        guidance=render.get("guidance"),
        model=render.get("model") or endpoint_model,
        background=render.get("background"),
    )
