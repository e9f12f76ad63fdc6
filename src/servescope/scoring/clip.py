"""clip: prompt-image agreement by a CLIP model — refused, never faked.

The scorer would need a small CLIP model whose weights ship inside a PyPI wheel, so
that ``pip install`` alone makes it work offline. None was found: the packages that
run CLIP (open_clip_torch, clip-anytorch, transformers) download their weights at
first use, and a download is not part of a pinned, offline measurement. A suite
that asks for ``clip`` is refused before anything is sent (``check``).
"""

from __future__ import annotations

from servescope.errors import UsageError
from servescope.scoring.base import Args, Score, wrong
from servescope.scoring.image import Render

REFUSAL = (
    "the clip scorer is not available: no small CLIP model ships inside a PyPI wheel "
    "(open_clip_torch, clip-anytorch and transformers download weights at first use); "
    "score renders with ocr, rgba or fidelity instead"
)


def check() -> None:
    raise UsageError(REFUSAL)


def score(render: Render, expected: object, args: Args) -> Score:
    return wrong(REFUSAL)
