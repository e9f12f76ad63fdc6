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


def test_a_wrong_answer_that_declines_is_a_false_abstention_whatever_its_scorer() -> None:
    """An answerable row of the grounded suite (scored by contains) answered "The passage
    does not say." abstained: scores_block counts it in false_abstention."""
    from servescope.scoring.abstain import with_abstention

    declined = score_item("contains", Output("The passage does not say."), "Quito")
    assert declined.abstained is None  # contains says nothing of abstaining
    assert with_abstention(declined, "The passage does not say.").abstained is True
    answered = score_item("contains", Output("Quito. The passage says nothing else."), "Quito")
    assert with_abstention(answered, "Quito. The passage says nothing else.").abstained is False
    wrong = score_item("contains", Output("Lima"), "Quito")
    assert with_abstention(wrong, "Lima").abstained is False
