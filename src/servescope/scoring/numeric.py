"""numeric: a number equal to the expected one (exact rationals, or within ``rel_tol``).

Reads signs (also the Unicode minus), thousands commas, currency symbols, percentages,
decimals, ``a/b`` and ``\\frac{a}{b}`` (``\\dfrac``, ``\\tfrac``), so "Answer: -5",
"3/4", "$1,200.00" and "\\boxed{\\frac{1}{2}}" all read as numbers. No computer
algebra: the suites' answers are generated integers, decimals and fractions, which
:class:`fractions.Fraction` represents exactly (so no dependency outside the allowed set).
Mixed numbers ("1 1/2") and the Unicode vulgar fractions ("¾", "1½") read as one value,
as do thousands grouped by a space of any kind ("1 100", "5 824"; three-digit groups only)
and a sign in words ("negative 24", "moins 5"); an answer with no digit
reads its number words ("twelve", "cinq"; :mod:`.number_words`), flexibly only.

Which number is the answer (:mod:`.answer` gives the committed span): within an anchored
span, the number after its last correction ("Answer: 12, sorry, 14"), else after its last
"=" ("Answer: 4 + 3 = 7"), else its first; without an anchor, the last number of the
answer. Parenthesised asides are set apart first, so a converted unit ("5 km (3.1 mi)")
or a worked step in brackets is never taken for the answer while a number stands outside
them; so is a conversion after it ("6°C, which is about 43°F"). Strict: the number came from an answer anchor or ``\\boxed{}``; flexible: read from
the unanchored answer. With ``score_args.unit`` (the unit the expected number is in: "°C",
"km", "kg"), the right number given in another unit of the same quantity ("6 °F" for a
reading of 6 °C) is wrong.
"""

from __future__ import annotations

import re
import unicodedata
from fractions import Fraction

from servescope.scoring.answer import CORRECTION, answer_span, answer_text, first_clause, without_parentheticals
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.number_words import sign_words_to_minus, words_to_digits

_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*([-+]?[\d.,]+)\s*\}\s*\{\s*([-+]?[\d.,]+)\s*\}")
_NUMBER = re.compile(
    r"(?P<sign>[-+−–]?)\s*(?P<cur>[$€£¥])?\s*(?P<sign2>[-+−]?)"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?(?P<exp>[eE][-+]?\d+)?\s*(?P<pct>%|percent\b)?"
)


# Thousands grouped by a space of any kind ("1 100", "12 500 000", "5 824"), as French and SI style write
# them: only where every group after the first has exactly three digits ("1 2 3", "12 34" and "0 500" stay apart).
_SPACES = "\u0020\u00a0\u1680\u2000-\u200a\u202f\u205f\u3000"
_SPACED_THOUSANDS = re.compile(rf"(?<![\d.,/])(?:[1-9]\d{{0,2}})(?:[{_SPACES}]\d{{3}})+(?![\d/]|[{_SPACES}]*/)")
# A conversion after the answer ("6°C, which is about 43°F"): an aside, like a bracketed one.
_CONVERSION = re.compile(
    r"(?:,\s*|\s+)(?:which\s+is|that\s+is|that's|or)\s+(?:about|approximately|approx\.|roughly|around|nearly|almost|~|≈)\s*"
    r"[-−]?[$€£]?\d[\d,.]*\s*(?:°\s*[CFK]\b|[A-Za-z%]+)?",
    re.IGNORECASE,
)
# A value restated in other units after it ("32 °F, which is 0 °C or 273.15 K", "5 km, i.e. 3.1 miles"):
# the restatements are asides when each names a unit other than the first value's.
# A number's first digit: not inside a longer run of digits (a match may start only where a number
# does, so a runaway line of digits is scanned once, not from each of its digits).
_AT_NUMBER = r"(?<![\d,.])"
_VALUE_UNIT = r"[-−]?[$€£]?\d[\d,.]*+\s*(°\s*[CFK]\b|[A-Za-zµ%]+\b)"
_VALUE_UNIT_NC = _VALUE_UNIT.replace("(", "(?:")  # the same, capturing nothing
_RESTATED = re.compile(
    rf"{_AT_NUMBER}(?P<first>{_VALUE_UNIT})(?P<rest>(?:,\s*|\s+)(?:which\s+is|that\s+is|that's|i\.e\.,?|or|=)\s+"
    rf"(?:(?:about|approximately|roughly|around|~|≈)\s*)?{_VALUE_UNIT_NC}"
    rf"(?:\s*(?:,|\bor\b|\band\b)\s*{_VALUE_UNIT_NC})*)",
    re.IGNORECASE,
)
_UNIT_IN = re.compile(_AT_NUMBER + _VALUE_UNIT, re.IGNORECASE)


def _unit(raw: str) -> str:
    return re.sub(r"\s+", "", raw).casefold()


# Words that can follow a number without being its unit ("14 if you count ...", "3 and 4").
_NOT_UNITS = frozenset(["if", "when", "but", "and", "or", "so", "to", "in", "of", "for", "the", "a", "at", "on", "is", "are", "was", "were", "with", "by"])


def _without_restatements(text: str) -> str:
    def keep(m: re.Match[str]) -> str:
        first = _unit(m.group(2))
        others = [_unit(u.group(1)) for u in _UNIT_IN.finditer(m.group("rest"))]
        restated = others and first not in others and not ({first, *others} & _NOT_UNITS)
        return m.group("first") if restated else m.group(0)

    return _RESTATED.sub(keep, text)


# "5.66 × 10³", "5.66 x 10^3", "5.66·10^{3}": scientific notation written out
_TIMES_TEN = re.compile(r"(?<![\d.])(\d++(?:\.\d++)?)\s*[×x·*]\s*10\s*(?:\^\s*\{?\s*([-−+]?\d+)\s*\}?|([⁻⁺]?[⁰¹²³⁴⁵⁶⁷⁸⁹]+))")
# two values hedged: "14 or 16", "4 o 3": no single number committed to
# ... also with the same unit after each ("3 hours or 4 hours"; "5 km, or roughly 3 miles" is a restatement)
_HEDGED = re.compile(
    r"(?<![\d,./%])\d[\d,./%]*+(?:\s+(?P<unit>[^\W\d_]+))?\s*(?:,\s*)?(?:or|and/or|oder|ou|o)\s+(?:maybe\s+|perhaps\s+|possibly\s+)?[-−$€£]?\d[\d,./%]*"
    r"(?(unit)\s+(?P=unit)\b)",
    re.IGNORECASE,
)
_MIXED = re.compile(r"(?<![\d.,/])(\d+)[ \t]+(\d+)[ \t]*/[ \t]*(\d+)(?![\d/.])")
_CORRECTION = re.compile(r"\b(?:actually|wait|correction|sorry|i mean|no,)\W", re.IGNORECASE)
# "14, not 12", "14 rather than 12": a number named only to deny it is not a candidate.
_DENIED = re.compile(r"\b(?:not|rather than|instead of|other than|isn't|is not)\s+[-−$€£]?\d[\d,./]*%?", re.IGNORECASE)


def _vulgar(text: str) -> str:
    """ "1½" -> "1 1/2", "¾" -> "3/4"."""
    out = []
    for ch in text:
        if unicodedata.decomposition(ch).startswith("<fraction>"):
            value = Fraction(unicodedata.numeric(ch)).limit_denominator(1000)
            out.append(f" {value.numerator}/{value.denominator}")
        else:
            out.append(ch)
    return "".join(out)


def _mixed(m: re.Match[str]) -> str:
    whole, num, den = (int(g) for g in m.groups())
    if den == 0 or num >= den:  # "3 5/2" is not a mixed number: leave both numbers to be read
        return m.group(0)
    return f"{whole * den + num}/{den}"


def _fraction(num: str) -> Fraction:
    return Fraction(num.replace(",", ""))


def numbers(text: str) -> list[tuple[Fraction, bool]]:
    """Every number in ``text`` in order, as (value, was a percentage)."""
    text = _FRAC.sub(lambda m: f"{m.group(1)}/{m.group(2)}", text)
    text = _TIMES_TEN.sub(lambda m: f"{m.group(1)}e{unicodedata.normalize('NFKC', m.group(2) or m.group(3)).replace('−', '-')}", text)
    text = _SPACED_THOUSANDS.sub(lambda m: re.sub(rf"[{_SPACES}]", "", m.group(0)), sign_words_to_minus(text))
    text = _MIXED.sub(_mixed, _vulgar(text))
    out = []
    for m in _NUMBER.finditer(text):
        try:
            value = _fraction(m.group("num"))
            if m.group("den"):
                den = _fraction(m.group("den"))
                if den == 0:
                    continue
                value /= den
            if m.group("exp"):
                value *= Fraction(10) ** int(m.group("exp")[1:])
        except (ValueError, ZeroDivisionError):
            continue
        if (m.group("sign") or m.group("sign2")) in ("-", "−", "–"):
            value = -value
        out.append((value, bool(m.group("pct"))))
    return out


def parse_number(text: str) -> Fraction | None:
    """The single number ``text`` states (the last one), or None."""
    found = numbers(text)
    return found[-1][0] if found else None


def _equal(got: Fraction, pct: bool, want: Fraction, rel_tol: float) -> bool:
    candidates = [got, got / 100] if pct else [got]
    return any(c == want or (rel_tol > 0 and abs(c - want) <= Fraction(rel_tol) * max(abs(want), Fraction(1, 10**9))) for c in candidates)


def _outside_asides(text: str) -> list[tuple[Fraction, bool]]:
    """The numbers outside parentheses and denials, or all of them when every number is inside one."""
    text = _DENIED.sub(" ", text)
    return numbers(without_parentheticals(_CONVERSION.sub(" ", _without_restatements(text)))) or numbers(text)


def _committed(span: str) -> list[tuple[Fraction, bool]]:
    corrections = list(_CORRECTION.finditer(span))
    if corrections:
        after = _outside_asides(span[corrections[-1].end() :])
        if after:
            return after
    if "=" in span:
        after = _outside_asides(span[span.rindex("=") + 1 :])
        if after:
            return after
    return _outside_asides(span)


def _final_hedge(text: str) -> re.Match[str] | None:
    """Two values hedged as the answer's last numbers ("14 or 16"), not a hedge before it ("2 or 3 ate, so 5 are left")."""
    last = None
    for m in _HEDGED.finditer(text):
        last = m
    return last if last is not None and not re.search(r"\d", text[last.end() :]) else None


def _last_sentence(text: str) -> str:
    parts = [p for p in re.split(r"(?<=[.!?])\s+|\n+", text.strip()) if p.strip()]
    return parts[-1] if parts else ""


_ENDS_WITH_NUMBER = re.compile(r"[-−]?\d[\d,./]*\s*(?:[^\W\d_]+)?\W*$")


def _ends_in_words(text: str) -> str | None:
    """``text`` with its final sentence's number words as digits, when that sentence ends in a
    spelled-out number while digits stand elsewhere ("A quarter of 124 is thirty-one."); else None."""
    last = _last_sentence(text)
    if not last or _ENDS_WITH_NUMBER.search(last):
        return None
    converted = words_to_digits(last)
    if not _ENDS_WITH_NUMBER.search(converted):
        return None
    cut = text.rstrip()
    return cut[: len(cut) - len(last)] + converted if cut.endswith(last) else None


# A bare number opening the answer, set off by an em dash from what explains it ("4 — 3 small squares plus the
# border", "**12** — one per month"): the number is the answer; the numbers of the explanation are not.
# ... unless the explanation works toward, revises or hedges it ("3 — or rather 4", "1 — 9 plus 4, so 13 in total",
# "7 — though it could be 8"): then the usual reading decides.
_LEAD_REVISED = re.compile(
    r"[=≈]|\b(?:or|rather|make\s+that|recount\w*|in\s+total|totals?|so|hence|therefore|thus|gives?|makes?|comes?\s+to|"
    r"could|might|maybe|perhaps|possibly|hmm|instead)\b",
    re.IGNORECASE,
)
_LEAD = re.compile(r"^[\s*_]*(?P<num>[-−]?\d[\d,.]*%?)[\s*_]*—\s*(?P<why>\S.*)", re.DOTALL)


# ``score_args.unit``: the unit the expected number is in. An answer that states the right number in another
# unit of the same quantity ("6 °F" for a reading of 6 °C) is wrong; one in no unit, or the asked one, is judged
# by its number. Units outside these families are compared by the number alone.
_UNIT_FAMILIES: dict[str, dict[str, str]] = {
    "temperature": {"c": "C", "celsius": "C", "centigrade": "C", "f": "F", "fahrenheit": "F", "k": "K", "kelvin": "K"},
    "length": {
        "km": "km",
        "kilometre": "km",
        "kilometer": "km",
        "mi": "mi",
        "mile": "mi",
        "m": "m",
        "metre": "m",
        "meter": "m",
        "ft": "ft",
        "foot": "ft",
        "feet": "ft",
    },
    "mass": {"kg": "kg", "kilogram": "kg", "g": "g", "gram": "g", "lb": "lb", "pound": "lb", "oz": "oz", "ounce": "oz"},
}
_UNIT_AFTER = re.compile(r"\s*(?:°\s*|º\s*|degrees?\s+|deg\s+)?([A-Za-z]+)", re.IGNORECASE)


def _canonical_unit(raw: str) -> tuple[str, str] | None:
    word = re.sub(r"^(?:°|º|degrees?\s+|deg\s+)\s*", "", raw.strip(), flags=re.IGNORECASE).casefold()
    word = word[:-1] if len(word) > 3 and word.endswith("s") else word  # "miles", "kilograms"
    return next(((fam, table[word]) for fam, table in _UNIT_FAMILIES.items() if word in table), None)


def unit_problem(unit: object) -> str | None:
    """What is wrong with a row's ``score_args.unit`` (absent is fine), in a phrase; None when it is usable."""
    if unit is None or (isinstance(unit, str) and _canonical_unit(unit) is not None):
        return None
    known = sorted({u for table in _UNIT_FAMILIES.values() for u in table.values()})
    return f'score_args.unit {unit!r} is not a unit the numeric scorer compares (one of {", ".join(known)}, e.g. "°C")'


def _other_unit(text: str, want: Fraction, asked: str, rel_tol: float) -> str | None:
    """The unit of ``asked``'s quantity that the answer attaches to the expected number, when it is another one."""
    target = _canonical_unit(asked)
    if target is None:
        return None
    body = without_parentheticals(_CONVERSION.sub(" ", _without_restatements(text)))
    for m in _NUMBER.finditer(body):
        value = parse_number(m.group(0))
        after = _UNIT_AFTER.match(body, m.end())
        if value is None or after is None or not _equal(value, False, want, rel_tol):
            continue
        said = _canonical_unit(after.group(0))
        if said is not None and said[0] == target[0] and said[1] != target[1]:
            return after.group(0).strip()
    return None


def score(output: Output, expected: object, args: Args) -> Score:
    unit = args.get("unit")
    if (problem := unit_problem(unit)) is not None:  # the row's fault: named, never a silent number-only check
        return wrong(problem)
    judged = _score(output, expected, args)
    if judged.correct and isinstance(unit, str) and expected is not None and (want := parse_number(str(expected))) is not None:
        other = _other_unit(answer_text(output.text), want, unit, float(args.get("rel_tol", 1e-6)))
        if other is not None:
            return wrong(f"the number is given in {other!r}, not in {unit!r}", judged.predicted, strict=False)
    return judged


def _score(output: Output, expected: object, args: Args) -> Score:
    want = parse_number(str(expected)) if expected is not None else None
    if want is None:
        return wrong(f"expected answer {expected!r} is not a number")
    rel_tol = float(args.get("rel_tol", 1e-6))
    spelled = not re.search(r"\d", answer_text(output.text))
    if spelled:  # "Answer: twelve", "Cinq.": the number words read as digits, flexibly only
        output = Output(words_to_digits(output.text), output.tool_calls)
    elif (ended := _ends_in_words(output.text)) is not None:  # "A quarter of 124 is thirty-one."
        output, spelled = Output(ended, output.tool_calls), True
    span = answer_span(output.text)
    hedged = _final_hedge(span.text if span.anchored else _last_sentence(answer_text(output.text)))
    if hedged:
        return wrong(f"two values hedged ({hedged.group(0)!r}): no single number committed to", span.text[:80] or None, strict=False)
    if span.anchored:
        found = _committed(span.text)
        if found:
            value, pct = found[0]
            return verdict(_equal(value, pct, want, rel_tol), span.text[:80], strict=not spelled)
    text = answer_text(output.text)
    lead = _LEAD.match(text)  # "4 — 3 small squares plus the border": the number said first, then why
    if lead and not _LEAD_REVISED.search(lead.group("why")) and not CORRECTION.search(lead.group("why")) and (led := numbers(lead.group("num"))):
        return verdict(_equal(*led[0], want, rel_tol), lead.group("num"), strict=False)
    clause = first_clause(span.text)  # "The first shell holds 2; the second holds 8.": the remark after ";" is not the answer
    if clause is not None and len(in_clause := _outside_asides(clause)) == 1:
        return verdict(_equal(*in_clause[0], want, rel_tol), str(in_clause[0][0]), strict=False)
    found = _outside_asides(text)
    if not found:
        return wrong("no number in the answer", text[:80] or None, strict=False)
    value, pct = found[-1]
    return verdict(_equal(value, pct, want, rel_tol), str(value), strict=False)
