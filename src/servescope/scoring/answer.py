"""The one answer-extraction path every scorer uses.

A careful grader reads an answer the same way whatever the suite: thinking is not the
answer, a stated confidence ("(I am 70% confident)", "Confidence: 9/10") is not the
answer, and where the answer says "Answer: X" (or boxes X) the last such span is what
it committed to; without an anchor, its final line is; a one-line answer is itself.
:func:`answer_text` is the text with thinking and confidence statements taken out;
:func:`answer_span` the committed span within it. Scorers then apply their own reading
(a number, a letter, a name) to that span, so one answer style is read one way in every
suite.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from servescope.scoring import confidence
from servescope.scoring.text import anchored, strip_thinking

NEGATION = r"(?:not|isn't|is not|isn’t|never|rather than|instead of|other than|except|no longer|wasn't|was not)"  # words that deny what follows them
CORRECTION = re.compile(
    r"\b(?:actually|wait|correction|sorry|i mean|on second thought|scratch that|no,|no\s*[—–]|no\s+-\s)\W?", re.IGNORECASE
)  # where a late correction starts


@dataclass(frozen=True)
class AnswerSpan:
    text: str  # the committed span
    anchored: bool  # it came from an answer anchor or \boxed{}, the asked-for form


_STRUCK = re.compile(r"~~[^~\n]*~~")  # markdown strikethrough: text the answer took back
_TABLE_ROW = re.compile(r"^\s*\|(.+)\|\s*$")


def table_answer(text: str) -> str | None:
    """The last row's cell under an "Answer" column of a markdown table in ``text``, if any."""
    rows = [[c.strip() for c in m.group(1).split("|")] for line in text.splitlines() if (m := _TABLE_ROW.match(line))]
    rows = [r for r in rows if not all(re.fullmatch(r":?-{2,}:?", c) for c in r)]  # the |---|---| line
    if len(rows) < 2:
        return None
    header = [c.strip("* ").casefold() for c in rows[0]]
    col = next((i for i, c in enumerate(header) if c in ("answer", "final answer", "réponse", "respuesta", "antwort", "risposta", "resposta", "答案")), None)
    if col is None or col >= len(rows[-1]):
        return None
    return rows[-1][col] or None


def answer_text(text: str) -> str:
    """``text`` without thinking, without struck-through text (``~~73~~ 74`` says 74) and
    without its confidence statements."""
    body = _STRUCK.sub("", strip_thinking(text or ""))
    stated = confidence.read(body)
    return stated.answer_text if stated.value is not None or stated.problem != "no confidence stated" else body


def answer_span(text: str) -> AnswerSpan:
    """The last answer-anchored span, else a markdown table's answer cell, else the final
    non-empty line, else the whole text."""
    body = answer_text(text)
    span = anchored(body)
    if span is not None:
        return AnswerSpan(span, True)
    cell = table_answer(body)
    if cell is not None:  # | Question | Answer | ... | Rome |: the answer column is the answer
        return AnswerSpan(cell, True)
    lines = [ln for ln in body.splitlines() if ln.strip()]
    return AnswerSpan(lines[-1].strip() if lines else "", False)


# What makes a clause after ";" part of the working rather than a remark: a sign, or a word that carries a result on.
_WORKING = re.compile(r"[=+×*/÷→]|\b(?:so|therefore|thus|hence|then|total|left|answer|result|gives?|makes?|equals?)\b", re.IGNORECASE)


_PLAIN_WORD = re.compile(r"[^\W\d_]{2,}")
_NOT_PARALLEL = frozenset(
    [
        "the",
        "an",
        "of",
        "to",
        "in",
        "on",
        "at",
        "by",
        "for",
        "with",
        "and",
        "or",
        "it",
        "its",
        "he",
        "she",
        "they",
        "we",
        "you",
        "his",
        "her",
        "their",
        "most",
        "least",
    ]
)


def first_clause(line: str) -> str | None:
    """The clause before a line's first ";" when what follows is a parallel remark about something
    else ("Spiders have 8 legs; insects have 6.", "The first shell holds 2; the second holds 8."): the
    rest repeats a word of it (the verb: "have", "holds"), and neither works toward a result (a sign,
    "so", "then", "total") nor corrects. None otherwise ("She had 12; she gave 4 away and kept 8")."""
    parts = re.split(r";\s+", line.strip(), maxsplit=1)
    if len(parts) < 2 or not parts[0].strip() or _WORKING.search(parts[1]) or CORRECTION.search(parts[1]):
        return None
    first, rest = ({w.casefold() for w in _PLAIN_WORD.findall(p)} - _NOT_PARALLEL for p in parts)
    return parts[0] if first & rest else None


_PAREN = re.compile(r"\s*[\(\[][^()\[\]]*[\)\]]")


def without_parentheticals(text: str) -> str:
    """``text`` with its (parenthesised) and [bracketed] asides removed, innermost first."""
    previous = None
    while previous != text:
        previous, text = text, _PAREN.sub("", text)
    return text


def fold(text: str) -> str:
    """Compatibility forms folded: subscripts and superscripts to digits (CO₂ -> CO2),
    full-width letters, ligatures; the vulgar fractions are left to the numeric reader."""
    return "".join(ch if unicodedata.decomposition(ch).startswith("<fraction>") else unicodedata.normalize("NFKC", ch) for ch in text or "")


__all__ = ["CORRECTION", "NEGATION", "AnswerSpan", "answer_span", "answer_text", "first_clause", "fold", "without_parentheticals"]
