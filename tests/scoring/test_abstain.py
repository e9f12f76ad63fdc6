"""abstain pitfalls: the many ways of saying "the passage does not say"."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.abstain import is_abstention
from servescope.scoring.base import Output

CASES = [
    ("The passage does not mention his age.", True),
    ("That is not stated in the text.", True),
    ("I don't know.", True),
    ("It cannot be determined from the passage.", True),
    ("There is no information about that.", True),
    ("He was 42 years old.", False),
    ("<think>not mentioned?</think>He was 42.", False),
]


@pytest.mark.parametrize(("text", "abstains"), CASES)
def test_abstention_pitfalls(text: str, abstains: bool) -> None:
    assert is_abstention(text) is abstains
    assert score_item("abstain", Output(text), None).correct is abstains
