"""needle: the expected code appears in the answer, ignoring case, spaces, dashes and
other separators ("7-4-1-9" and "7 419" both match "7419")."""

from __future__ import annotations

import re

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import strip_thinking


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def score(output: Output, expected: object, args: Args) -> Score:
    want = _squash(str(expected or ""))
    if not want:
        return wrong(f"no expected needle ({expected!r})")
    text = strip_thinking(output.text)
    return verdict(want in _squash(text), text[:80] or None)
