"""needle: the expected code appears in the answer, ignoring case, spaces, dashes and
other separators ("7-4-1-9" and "7 419" both match "7419"), as a whole: not inside a
longer run of letters or digits ("11138" and "x1138" are not "1138"); two codes offered as
alternatives ("either 6424 or 6442") commit to neither."""

from __future__ import annotations

import re

from servescope.scoring.answer import negated_before
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import strip_thinking


def _squash(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


# two codes hedged ("either 6424 or 6442"): no single needle committed to
# (possessive: a runaway run of digits is scanned once, not once per split of it)
_HEDGED = re.compile(r"\b(?=[\w-]*\d)[\w-]++\s*,?\s+(?:or|and/or)\s+(?:maybe\s+|perhaps\s+)?\w*\d", re.IGNORECASE)


def score(output: Output, expected: object, args: Args) -> Score:
    want = _squash(str(expected or ""))
    if not want:
        return wrong(f"no expected needle ({expected!r})")
    text = strip_thinking(output.text)
    if _HEDGED.search(text):
        return wrong("two codes hedged: no single needle committed to", text[:80] or None)
    found = _mentions(text, want)
    if found and all(negated_before(text[: m.start()]) for m in found):
        return wrong("the code is named only to be denied", text[:80] or None)
    if not found and want in _squash(text):
        return wrong("the code appears only inside a longer code or word", text[:80] or None)
    return verdict(bool(found), text[:80] or None)


def _mentions(text: str, want: str) -> list[re.Match[str]]:
    """Each mention of the code as a whole ("7-4-1-9" and "7 419" too): no ASCII letter or digit
    right before or after it, where another code's would be ("11138" holds no "1138")."""
    # ASCII letters and digits only: a code beside CJK text ("密码是7419。") stands whole
    mention = re.compile(r"(?<![0-9A-Za-z])" + r"[\W_]*".join(re.escape(c) for c in want) + r"(?![0-9A-Za-z])")
    return list(mention.finditer(text.casefold()))
