"""abstain: for a question the passage cannot answer, the right answer is to say so.

:func:`is_abstention` is also used on answerable rows of a grounded suite, so that
abstaining there counts against the model (``abstained`` is recorded either way)."""

from __future__ import annotations

import re

from servescope.scoring.base import Args, Output, Score, verdict
from servescope.scoring.text import strip_thinking

_PHRASES = re.compile(
    r"not (?:mentioned|stated|given|provided|specified|say|said|included|in the (?:passage|text|context))"
    r"|(?:does|do|did)n[o']?t (?:say|mention|state|specify|provide|include|tell)"
    r"|(?:does|do|did) not (?:say|mention|state|specify|provide|include|tell)"
    r"|no (?:information|mention|details?|data)\b|cannot be (?:determined|answered|found)|can(?:'|no)t (?:be )?(?:determine|answer|tell|know)"
    r"|unanswerable|insufficient information|not enough information|i don'?t know|unknown from|isn'?t (?:mentioned|stated|given)"
    r"|the (?:passage|text|context) (?:does not|doesn'?t) (?:say|mention|contain|state)",
    re.IGNORECASE,
)


def is_abstention(text: str) -> bool:
    return _PHRASES.search(strip_thinking(text)) is not None


def score(output: Output, expected: object, args: Args) -> Score:
    said = is_abstention(output.text)
    return verdict(said, strip_thinking(output.text)[:80] or None, abstained=said)
