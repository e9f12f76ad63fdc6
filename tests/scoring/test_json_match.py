"""json pitfalls: fences, prose around JSON, subset vs exact, types, broken JSON."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

CASES = [
    ('{"name": "Alice", "age": 30}', {"name": "alice"}, {}, True, True),
    ('```json\n{"name": "Alice"}\n```', {"name": "Alice"}, {}, True, True),
    ('Here you go: {"name": "Alice"} hope it helps', {"name": "Alice"}, {}, True, False),
    ('{"name": "Alice", "age": 30}', {"name": "Alice"}, {"mode": "exact"}, False, False),
    ('{"age": "30"}', {"age": 30}, {}, False, False),  # a string is not a number
    ('{"age": 30.0}', {"age": 30}, {}, True, True),
    ('{"ok": 1}', {"ok": True}, {}, False, False),
    ('{"name": "Alice",}', {"name": "Alice"}, {}, False, False),  # trailing comma: not JSON
    ("no json", {"a": 1}, {}, False, False),
    ('[{"a": 1}, {"a": 2}]', [{"a": 1}, {"a": 2}], {}, True, True),
]


@pytest.mark.parametrize(("text", "expected", "args", "correct", "strict"), CASES)
def test_json_pitfalls(text: str, expected: object, args: dict, correct: bool, strict: bool) -> None:
    s = score_item("json", Output(text), expected, args)
    assert (s.correct, bool(s.strict)) == (correct, strict), s
