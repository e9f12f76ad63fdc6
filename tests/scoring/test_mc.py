"""mc pitfalls: every common letter form, the article "a", late corrections."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("(D)", "D", True, True),
    ("D", "D", True, True),
    ("d", "D", True, True),
    ("**B**", "B", True, True),
    ("Answer: c", "C", True, False),
    ("The answer is (B) because ...", "B", True, False),
    ("A) Mars", "B", False, False),
    ("B) Mars", "B", True, False),
    ("This is a hard one. I pick option C.", "C", True, False),
    ("This is a hard one, a real puzzle.", "A", False, False),  # the article is not a choice
    ("I first thought (A). Final answer: D", "D", True, False),
    ("<think>maybe (A)</think>(C)", "C", True, True),
    ("Mars", "B", True, False),  # the right option's text, no letter (choices given)
    ("Mars or Venus", "B", False, False),
    ("", "A", False, False),
]


@pytest.mark.parametrize(("text", "expected", "correct", "strict"), CASES)
def test_mc_pitfalls(text: str, expected: str, correct: bool, strict: bool) -> None:
    s = score_item("mc", Output(text), expected, {"choices": ["Venus", "Mars", "Jupiter", "Saturn"]})
    assert (s.correct, bool(s.strict)) == (correct, strict), s
