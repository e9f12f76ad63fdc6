"""contains pitfalls: whole words, all vs any, case."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("Water boils at 100 degrees.", ["100", "degrees"], {}, True),
    ("Water boils at 1000 degrees.", ["100", "degrees"], {}, False),  # 100 inside 1000 is not 100
    ("It is blue.", ["red", "blue"], {"mode": "any"}, True),
    ("It is BLUE and Red.", ["red", "blue"], {"mode": "all"}, True),
    ("It is blueish.", "blue", {}, False),
    ("<think>red</think>green", "red", {}, False),
]


@pytest.mark.parametrize(("text", "expected", "args", "correct"), CASES)
def test_contains_pitfalls(text: str, expected: object, args: dict, correct: bool) -> None:
    assert score_item("contains", Output(text), expected, args).correct is correct
