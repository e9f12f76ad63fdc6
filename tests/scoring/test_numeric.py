"""numeric pitfalls: signs, fractions, LaTeX, commas, currency, percentages, late corrections."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("Answer: -5", "-5", True, True),
    ("Answer: 5", "-5", False, False),
    ("3/4", "0.75", True, False),
    ("The answer is 72.", "72", True, True),
    ("The answer is 72.5", "72", False, False),
    ("so x = \\boxed{\\frac{1}{2}}", "1/2", True, True),
    ("\\boxed{\\dfrac{3}{4}} and later 9", "0.75", True, True),
    ("It costs $1,200.00 in total.", "1200", True, False),
    ("Answer: 12.5%", "12.5", True, True),
    ("Answer: 12.5%", "0.125", True, True),
    ("First I got 18. Wait, that is wrong. Answer: 19", "19", True, True),
    ("Answer: 18. Actually, final answer: 19", "19", True, True),
    ("12 + 7 = 9", "19", False, False),
    ("<think>it is 4</think>The answer is 5", "5", True, True),
    ("<think>the answer is 5, or maybe", "5", False, False),  # unterminated thinking: nothing answered
    ("Answer: −3", "-3", True, True),  # Unicode minus
    ("no numbers here", "3", False, False),
    ("1e3", "1000", True, False),
]


@pytest.mark.parametrize(("text", "expected", "correct", "strict"), CASES)
def test_numeric_pitfalls(text: str, expected: str, correct: bool, strict: bool) -> None:
    s = score_item("numeric", Output(text), expected)
    assert (s.correct, bool(s.strict)) == (correct, strict), s


def test_expected_that_is_not_a_number_is_a_wrong_item_not_a_crash() -> None:
    assert score_item("numeric", Output("5"), "five").correct is False
