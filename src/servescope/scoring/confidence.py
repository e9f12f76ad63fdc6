"""Read the confidence an answer states ("Confidence: 80%") for calibration (ECE/MCE).

Only suites whose workload says ``eval.confidence: true`` are read. Thinking is
stripped first, and the last statement wins (a late correction). Forms read:
``Confidence: 80%``, ``confidence 0.8``, ``Confidence: 80 percent``,
``confidence level: 75``, ``I am 90% confident`` / ``sure`` / ``certain``,
``(100% confidence)``, ``Confidence: 9/10`` (a scale: 9 of 10). A number with
``%``/``percent`` is a percentage; a bare number is a fraction when it is at most 1
(``0.8``, ``1``) and a percentage otherwise (``80``). Above 100 % the statement is unreadable: the item
has no confidence (never clamped, never guessed). A negative number is not read, and
a percentage mentioned without a confidence word ("80 percent of the sky", SmolLM2's
"Your answer is 98% correct.") is not a confidence, nor is an expression after the
word ("Your confidence is 36 × 22 = 720", SmolLM2 restating its answer).

``answer_text`` is the output with thinking and every confidence statement removed,
so the answer's own scorer never reads the confidence as the answer (the numeric
scorer falls back to the last number in the text).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from servescope.scoring.text import strip_thinking

_NUMBER = r"(?P<num>\d+(?:\.\d+)?|\.\d+)"
# "9/10", "4 out of 5": a score on a scale, read as num/den
_SCALE = r"(?:\s*(?:/|out\s+of)\s*(?P<den>10|5|100)\b)?"
_UNIT = r"(?:\s*(?P<unit>%|percent\b|per\s?cent\b))?"
# ... and not the start of an expression: "Your confidence is 36 × 22 = 720" restates the answer
_NOT_AN_EXPRESSION = r"(?!\d|\.\d)(?!\s*[×x*+\-−/÷=≡^]\s*\d)"
# "Confidence: 80%", "confidence 0.8", "Confidence level = 75 percent", "confidence is about 90%"
_LABELLED = re.compile(
    r"\bconfidence(?:\s+(?:level|score))?\b\s*(?:[:：=]|\bis\b|\bof\b)?\s*(?:\b(?:about|around|approximately|roughly)\b\s*|~\s*)?"
    + _NUMBER
    + _SCALE
    + _UNIT
    + _NOT_AN_EXPRESSION,
    re.IGNORECASE,
)
# "I am 90% confident", "80 percent sure", "(100% confidence)"; the "I am"/"I'm about" before
# the number belongs to the statement, so taking it out leaves no debris ("Ulaanbaatar (I am )").
_STATED = re.compile(
    r"(?:\b(?:I\s+am|I'm|I’m|I\s+would\s+say|I'd\s+say)\s+(?:about\s+|around\s+|roughly\s+|approximately\s+)?)?"
    r"(?<!\d)(?<!\d\.)" + _NUMBER + r"\s*(?P<unit>%|percent\b|per\s?cent\b)\s*(?:confident|confidence|sure|certain)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class StatedConfidence:
    value: float | None  # in [0, 1]; None when the answer gave no readable confidence
    problem: str | None  # why value is None
    answer_text: str  # the output without thinking and without its confidence statements


def _value(num: str, unit: str | None, den: str | None = None) -> float | None:
    x = float(num)
    if den:
        return x / float(den) if x <= float(den) else None
    if unit:
        return x / 100.0 if x <= 100.0 else None
    if x <= 1.0:
        return x
    return x / 100.0 if x <= 100.0 else None


def read(text: str) -> StatedConfidence:
    """Never raises."""
    body = strip_thinking(text or "").replace("**", "").replace("__", "")
    matches: list[re.Match[str]] = []
    for m in sorted([*_LABELLED.finditer(body), *_STATED.finditer(body)], key=lambda m: m.start()):
        if not matches or m.start() >= matches[-1].end():  # "Confidence: 80% confident" is one statement
            matches.append(m)
    answer = body
    for m in reversed(matches):  # cut from the end so earlier offsets stay valid
        answer = answer[: m.start()] + answer[m.end() :]
    answer = re.sub(r"[ \t]*\(\s*[,;:.]?\s*\)|[ \t]*\[\s*\]", "", answer).strip()
    if not matches:
        return StatedConfidence(None, "no confidence stated", answer)
    last = matches[-1]
    value = _value(last.group("num"), last.group("unit"), last.groupdict().get("den"))
    if value is None:
        return StatedConfidence(None, f"unreadable confidence {last.group(0).strip()!r} (above 100 %)", answer)
    return StatedConfidence(value, None, answer)
