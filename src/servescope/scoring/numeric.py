"""numeric: a number equal to the expected one (exact rationals, or within ``rel_tol``).

Reads signs (also the Unicode minus), thousands commas, currency symbols, percentages,
decimals, ``a/b`` and ``\\frac{a}{b}`` (``\\dfrac``, ``\\tfrac``), so "Answer: -5",
"3/4", "$1,200.00" and "\\boxed{\\frac{1}{2}}" all read as numbers. No computer
algebra: the suites' answers are generated integers, decimals and fractions, which
:class:`fractions.Fraction` represents exactly (so no dependency outside the allowed set).
Strict: the number came from an answer anchor or ``\\boxed{}``; flexible: the last
number anywhere in the answer.
"""

from __future__ import annotations

import re
from fractions import Fraction

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import anchored, strip_thinking

_FRAC = re.compile(r"\\[dt]?frac\s*\{\s*([-+]?[\d.,]+)\s*\}\s*\{\s*([-+]?[\d.,]+)\s*\}")
_NUMBER = re.compile(
    r"(?P<sign>[-+−–]?)\s*(?P<cur>[$€£¥])?\s*(?P<sign2>[-+−]?)"
    r"(?P<num>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?|\.\d+)"
    r"(?:\s*/\s*(?P<den>\d+(?:\.\d+)?))?(?P<exp>[eE][-+]?\d+)?\s*(?P<pct>%|percent\b)?"
)


def _fraction(num: str) -> Fraction:
    return Fraction(num.replace(",", ""))


def numbers(text: str) -> list[tuple[Fraction, bool]]:
    """Every number in ``text`` in order, as (value, was a percentage)."""
    text = _FRAC.sub(lambda m: f"{m.group(1)}/{m.group(2)}", text)
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


def score(output: Output, expected: object, args: Args) -> Score:
    want = parse_number(str(expected)) if expected is not None else None
    if want is None:
        return wrong(f"expected answer {expected!r} is not a number")
    rel_tol = float(args.get("rel_tol", 1e-6))
    text = strip_thinking(output.text)
    anchor = anchored(text)
    if anchor is not None:
        found = numbers(anchor)
        if found:
            value, pct = found[0]
            return verdict(_equal(value, pct, want, rel_tol), anchor[:80], strict=True)
    found = numbers(text)
    if not found:
        return wrong("no number in the answer", text[:80] or None, strict=False)
    value, pct = found[-1]
    return verdict(_equal(value, pct, want, rel_tol), str(value), strict=False)
