"""exact pitfalls: case, punctuation, aliases, a sentence ending in the answer, thinking."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("Paris", "Paris", {}, True, True),
    ("paris.", "Paris", {}, True, True),
    ("**Paris**", "Paris", {}, True, True),
    ("The capital of France is Paris.", "Paris", {}, True, False),
    ("Paris is not it; the answer is Lyon", "Paris", {}, False, False),
    ("Answer: USA", "United States", {"aliases": ["USA", "U.S."]}, True, False),
    ("Comparison", "Paris", {}, False, False),  # no substring matches
    ("<think>Paris?</think>Lyon", "Paris", {}, False, False),
    ("Au", ["Au", "gold"], {}, True, True),
]


@pytest.mark.parametrize(("text", "expected", "args", "correct", "strict"), CASES)
def test_exact_pitfalls(text: str, expected: object, args: dict, correct: bool, strict: bool) -> None:
    s = score_item("exact", Output(text), expected, args)
    assert (s.correct, bool(s.strict)) == (correct, strict), s
