"""instruction pitfalls: partial credit, unknown rules, thinking stripped before checking."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ("three short words", [{"rule": "max_words", "value": 3}], True, 1.0),
    ("four short words here", [{"rule": "max_words", "value": 3}], False, 0.0),
    ("all lower case", [{"rule": "lowercase"}, {"rule": "no_commas"}], True, 1.0),
    ("All lower, case", [{"rule": "lowercase"}, {"rule": "no_commas"}], False, 0.0),
    ("all lower, case", [{"rule": "lowercase"}, {"rule": "no_commas"}], False, 0.5),
    ("- a\n- b\n- c", [{"rule": "bullet_count", "value": 3}], True, 1.0),
    ('{"a": 1}', [{"rule": "json"}], True, 1.0),
    ("<think>Long, Long thoughts</think>short", [{"rule": "lowercase"}, {"rule": "no_commas"}], True, 1.0),
    ("x", [{"rule": "rhyme"}], False, 0.0),
    ("x", [], False, 0.0),
    ("Done. END", [{"rule": "ends_with", "value": "end"}], True, 1.0),
]


@pytest.mark.parametrize(("text", "rules", "correct", "value"), CASES)
def test_instruction_pitfalls(text: str, rules: list, correct: bool, value: float) -> None:
    s = score_item("instruction", Output(text), None, {"rules": rules})
    assert (s.correct, s.score) == (correct, value), s
