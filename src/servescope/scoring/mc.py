"""mc: the chosen option letter. Reads "(D)", "D)", "D.", "**D**", "[D]", "Answer: d",
"The answer is D", "Option D" and a bare "D"; the last stated choice wins (a late
correction). A lower-case "a" outside an answer anchor is the article, never a choice.
Strict: the whole answer is the letter (with optional brackets/period)."""

from __future__ import annotations

import re

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import anchored, normalize, strip_thinking

_BARE = re.compile(r"^\(?\[?\*{0,2}([A-Ja-j])\*{0,2}\]?\)?[.:)]?$")
_ANCHORED_LETTER = re.compile(r"^[\s*\"'(\[]*(?:option\s+|choice\s+)?([A-Ja-j])(?![A-Za-z])")
_MARKED = re.compile(r"\(([A-J])\)|\[([A-J])\]|\*\*([A-J])\*\*|(?:option|choice)\s+([A-J])\b|(?<![A-Za-z])([A-J])[).:](?=\s|$)", re.IGNORECASE)


def letter(text: str) -> tuple[str | None, bool]:
    """(the chosen letter or None, whether it was given strictly)."""
    t = strip_thinking(text).strip()
    m = _BARE.match(t.replace(" ", ""))
    if m and (m.group(1).isupper() or len(t) <= 3):
        return m.group(1).upper(), True
    anchor = anchored(t)
    if anchor is not None:
        m = _ANCHORED_LETTER.match(anchor)
        if m:
            return m.group(1).upper(), False
    last = None
    for m in _MARKED.finditer(t):
        g = next(x for x in m.groups() if x)
        if g.isupper() or m.group(0).lower().startswith(("option", "choice")):
            last = g.upper()
    return last, False


def score(output: Output, expected: object, args: Args) -> Score:
    want = normalize(str(expected or "")).upper()
    if len(want) != 1 or not "A" <= want <= "J":
        return wrong(f"expected answer {expected!r} is not an option letter")
    got, strict = letter(output.text)
    if got is None:
        choices = args.get("choices")
        if isinstance(choices, list) and 0 <= ord(want) - 65 < len(choices):
            # No letter, but the text of exactly the right option: flexible only.
            text = normalize(strip_thinking(output.text))
            hits = [i for i, c in enumerate(choices) if normalize(str(c)) and normalize(str(c)) in text]
            if hits == [ord(want) - 65]:
                return verdict(True, str(choices[hits[0]])[:80], strict=False)
        return wrong("no option letter in the answer", strip_thinking(output.text)[:80] or None, strict=False)
    return verdict(got == want, got, strict=strict)
