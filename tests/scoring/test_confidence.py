"""Reading a stated confidence: the pitfall table, and what is kept out of the answer."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.confidence import read

CASES = [
    ("Answer: Paris\nConfidence: 80%", 0.8),
    ("Answer: Paris\nconfidence 0.8", 0.8),
    ("Answer: Paris\nConfidence: 80 percent", 0.8),
    ("Answer: Paris\nConfidence: 80 per cent", 0.8),
    ("Answer: Paris\nConfidence: 80", 0.8),  # a bare number above 1 is a percentage
    ("Answer: Paris\nConfidence: 1", 1.0),  # ... at most 1, a fraction
    ("Answer: Paris\nConfidence: .35", 0.35),
    ("Answer: Paris\nConfidence: 0%", 0.0),
    ("Answer: Paris\nConfidence: 100%", 1.0),
    ("Answer: Paris\n**Confidence:** **95%**", 0.95),  # markdown bold
    ("Answer: Paris (confidence: 70%)", 0.7),
    ("Answer: Paris\nConfidence level: 65%", 0.65),
    ("Answer: Paris\nMy confidence is about 90%.", 0.9),
    ("Paris. I am 90% confident.", 0.9),
    ("Paris, 75 percent sure.", 0.75),
    ("Answer: 42", None),  # missing
    ("Answer: Paris\nConfidence: high", None),  # a word, not a number
    ("Answer: Paris\nConfidence: 120%", None),  # above 100: unreadable, never clamped
    ("Answer: Paris\nConfidence: 250", None),
    ("Answer: Paris\nConfidence: -20%", None),  # negative: not read
    ("Answer: Paris\nConfidence -20%", None),
    ("About 80 percent of the sky is cloud. Answer: 80", None),  # a percentage is not a confidence
    ("<think>Confidence: 99%</think>Answer: Paris", None),  # thinking stripped
    ("<think>Confidence: 99%</think>Answer: Paris\nConfidence: 60%", 0.6),
    ("<think>Confidence: 99%", None),  # unterminated thinking: nothing said
    ("Confidence: 90%. Hmm, actually the answer is Lyon. Confidence: 40%", 0.4),  # the last one wins
    ("Answer: Paris\nConfidence: 80% confident", 0.8),  # one statement, not two
    ("", None),
    # What SmolLM2-135M wrote on eval-calibration-v1:
    ("64 × 91 ≡ 5142 ≡ 1 (100% confidence)", 1.0),
    ("36 × 22 = 720\nYour answer is 36 × 22 = 720\nYour confidence is 36 × 22 = 720", None),  # the answer restated
    ("22 × 60 = 1200\nYour answer is 1200\nConfidence: 1200", None),  # above 100
    ("62 × 98 = 516\nYour answer is 98% correct.", None),  # grading, not a confidence word
    ("2 + 2 = 4\nConfidence: 4%\n\nYour answer is correct", 0.04),
    ("Confidence: 8 + 6", None),
    ("Confidence: 0.8.", 0.8),  # a sentence's full stop is not a decimal
]


@pytest.mark.parametrize(("text", "expected"), CASES)
def test_confidence_pitfalls(text: str, expected: float | None) -> None:
    got = read(text).value
    assert got == (pytest.approx(expected) if expected is not None else None), text


def test_missing_and_unreadable_say_why() -> None:
    assert read("Answer: 5").problem == "no confidence stated"
    above = read("Answer: 5\nConfidence: 120%")
    assert above.value is None and "120%" in (above.problem or "")


def test_the_confidence_is_kept_out_of_the_answer() -> None:
    """The numeric scorer falls back to the last number of the text: without the cut it
    would read 80 (the confidence) as the answer to 12 + 7. Every scorer reads answers
    through scoring.answer, which takes confidence statements out, in any suite."""
    text = "12 + 7 is 19\nConfidence: 80%"
    assert not score_item("numeric", Output(text), "80").correct
    assert score_item("numeric", Output(text), "19").correct
    stated = read(text)
    assert "80" not in stated.answer_text and "19" in stated.answer_text
    assert score_item("numeric", Output(stated.answer_text), "19").correct
    assert not score_item("numeric", Output(stated.answer_text), "80").correct


def test_answer_text_drops_thinking_and_an_emptied_bracket() -> None:
    assert read("<think>hm</think>Answer: Paris (confidence: 70%)").answer_text == "Answer: Paris"


@pytest.mark.parametrize(
    ("text", "value", "answer"),
    [
        ("Ulaanbaatar (I am 70% confident)", 0.7, "Ulaanbaatar"),
        ("Answer: 7 (I'm about 60% sure).", 0.6, "Answer: 7."),
        ("Paris\nConfidence: 9/10", 0.9, "Paris"),
        ("Answer: B\nConfidence: 4 out of 5", 0.8, "Answer: B"),
    ],
)
def test_a_statement_inside_the_answer_leaves_no_debris_and_scales_are_read(text: str, value: float, answer: str) -> None:
    stated = read(text)
    assert stated.value == pytest.approx(value) and stated.answer_text == answer
