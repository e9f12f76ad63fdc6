"""needle: the expected code appears in the answer, ignoring case, spaces, dashes and
other separators ("7-4-1-9" and "7 419" both match "7419"); two codes offered as
alternatives ("either 6424 or 6442") commit to neither."""

from __future__ import annotations

import re

from servescope.scoring.answer import negated_before
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import strip_thinking


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


# two codes hedged ("either 6424 or 6442"): no single needle committed to
_HEDGED = re.compile(r"\b\w*\d[\w-]*\s*,?\s+(?:or|and/or)\s+(?:maybe\s+|perhaps\s+)?\w*\d", re.IGNORECASE)


def score(output: Output, expected: object, args: Args) -> Score:
    want = _squash(str(expected or ""))
    if not want:
        return wrong(f"no expected needle ({expected!r})")
    text = strip_thinking(output.text)
    if _HEDGED.search(text):
        return wrong("two codes hedged: no single needle committed to", text[:80] or None)
    if want in _squash(text) and _only_denied(text, want):
        return wrong("the code is named only to be denied", text[:80] or None)
    return verdict(want in _squash(text), text[:80] or None)


def _only_denied(text: str, want: str) -> bool:
    """Every mention of the code ("7-4-1-9" and "7 419" too) sits in a clause that denies it ("It's not 7419")."""
    mention = re.compile(r"(?<![^\W_])" + r"[\W_]*".join(re.escape(c) for c in want) + r"(?![^\W_])")
    found = list(mention.finditer(text.casefold()))
    return bool(found) and all(negated_before(text[: m.start()]) for m in found)
