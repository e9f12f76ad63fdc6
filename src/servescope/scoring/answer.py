"""The one answer-extraction path every scorer uses.

A careful grader reads an answer the same way whatever the suite: thinking is not the
answer, a stated confidence ("(I am 70% confident)", "Confidence: 9/10") is not the
answer, and where the answer says "Answer: X" (or boxes X) the last such span is what
it committed to; a reply that is only a JSON object commits to its answer key's value
(``{"answer": "Rome"}``); without an anchor, its final line is; a one-line answer is itself.
:func:`answer_text` is the text with thinking and confidence statements taken out;
:func:`answer_span` the committed span within it. Scorers then apply their own reading
(a number, a letter, a name) to that span, so one answer style is read one way in every
suite.
"""

from __future__ import annotations

import json
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


# Keys under which a JSON reply states its answer ({"answer": "Rome"}, {"final_answer": 42}).
ANSWER_KEYS = ("answer", "final_answer", "final answer", "result", "response", "value", "réponse", "respuesta", "antwort")
_FENCED = re.compile(r"^```[\w-]*\s*(.*?)\s*```$", re.DOTALL)


def json_object(text: str) -> dict[str, object] | None:
    """``text`` as a JSON object when it is nothing else (a code fence allowed), else None."""
    body = text.strip()
    fenced = _FENCED.match(body)
    if fenced:
        body = fenced.group(1)
    if not body.startswith("{"):
        return None
    try:
        value = json.loads(body)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def json_answer(text: str) -> tuple[bool, object] | None:
    """(True, the value) when ``text`` is a JSON object with one answer key (``{"answer":
    "Rome"}``; the value may be null, an abstention); None when it is not such an object."""
    obj = json_object(text)
    if obj is None:
        return None
    keys = [k for k in obj if str(k).strip().casefold() in ANSWER_KEYS]
    return (True, obj[keys[0]]) if len(keys) == 1 else None


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
    stated = json_answer(body)
    if stated is not None and isinstance(stated[1], str | int | float) and not isinstance(stated[1], bool):
        return AnswerSpan(str(stated[1]), True)  # {"answer": "Rome"}: the answer key's value is the answer
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


# A clause that denies what it names: "does not employ 57", "it's not 6424", "was never founded in 1987".
# Up to three words between the negation and the mention, no clause break; "not only/just" does not deny.
_DENIED_BEFORE = re.compile(
    rf"(?:(?<!\w){NEGATION}|(?<!\w)cannot|n't|n’t)(?!\s+(?:only|just|merely|simply|even)\b)(?P<gap>(?:\s+[^\s.,;:!?—–]+){{0,3}})\s+$",
    re.IGNORECASE,
)


# Words in that gap that make it a bound or a hedge, not a denial: "not until 1987", "not less than 57", "not sure it's 57".
_NOT_A_DENIAL = re.compile(r"\b(?:until|till|before|after|less|fewer|more|later|earlier|sure|certain)\b", re.IGNORECASE)


def negated_before(before: str) -> bool:
    """Whether the text just before a mention (its own clause) denies it."""
    clause = re.split(r"[.;:!?\n]|,\s|\s[—–-]\s|—|\b(?:but|however|though|although)\b", before[-120:])[-1]
    m = _DENIED_BEFORE.search(clause)
    return m is not None and not _NOT_A_DENIAL.search(m.group("gap"))


# A footnote marker glued to a word: superscript digits or letters after a letter ("kettle¹", "Rome²³", "Oslo ᵃ" not).
# Only the marks a word boundary misses (they are word characters); "*", "†" and "[1]" already end a word.
FOOTNOTE_MARK = re.compile(r"(?<=[^\W\d_])[⁰¹²³⁴⁵⁶⁷⁸⁹ᵃᵇᶜᵈᵉⁱⁿ]+(?!\w)")


def without_footnote_marks(text: str) -> str:
    """``text`` without footnote markers glued to the end of a word ("the kettle¹." -> "the kettle.")."""
    return FOOTNOTE_MARK.sub("", text)


__all__ = [
    "CORRECTION",
    "NEGATION",
    "AnswerSpan",
    "answer_span",
    "answer_text",
    "first_clause",
    "fold",
    "json_answer",
    "json_object",
    "negated_before",
    "without_footnote_marks",
    "without_parentheticals",
]
