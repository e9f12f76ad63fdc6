"""needle pitfalls: separators, case, thinking."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("The code is 7419.", "7419", True),
    ("The code is 7-4-1-9", "7419", True),
    ("the code is 7 419", "7419", True),
    ("code: AX-91", "ax91", True),
    ("The code is 7418.", "7419", False),
    ("<think>7419</think>I do not know", "7419", False),
]


@pytest.mark.parametrize(("text", "expected", "correct"), CASES)
def test_needle_pitfalls(text: str, expected: str, correct: bool) -> None:
    assert score_item("needle", Output(text), expected).correct is correct
