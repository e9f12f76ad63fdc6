"""tool-call pitfalls: invalid argument JSON, wrong tool, chains, clarify, calls written as text."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output


def call(name: str, arguments: str) -> dict:
    return {"type": "function", "function": {"name": name, "arguments": arguments}}


WEATHER = {"name": "get_weather", "arguments": {"city": "Paris"}}
CASES = [
    (Output("", [call("get_weather", '{"city": "Paris"}')]), WEATHER, True, True),
    (Output("", [call("get_weather", '{"city": "paris", "unit": "c"}')]), WEATHER, True, True),
    (Output("", [call("get_weather", '{"city": "Paris"')]), WEATHER, False, False),  # invalid JSON: wrong, no crash
    (Output("", [call("get_time", '{"city": "Paris"}')]), WEATHER, False, False),
    (Output('{"name": "get_weather", "arguments": {"city": "Paris"}}'), WEATHER, True, False),
    (Output("It is sunny in Paris."), WEATHER, False, False),
    (Output("", [call("find", '{"q": "x"}'), call("open", '{"id": 3}')]), [{"name": "find"}, {"name": "open", "arguments": {"id": 3}}], True, True),
    (Output("", [call("open", '{"id": 3}')]), [{"name": "find"}, {"name": "open"}], False, False),
    (Output("Which city do you mean?"), {"clarify": True}, True, True),
    (Output("", [call("get_weather", '{"city": "Paris"}')]), {"clarify": True}, False, False),
    (Output("", [{"function": {"arguments": "{}"}}]), WEATHER, False, False),
]


@pytest.mark.parametrize(("output", "expected", "correct", "strict"), CASES)
def test_tool_call_pitfalls(output: Output, expected: object, correct: bool, strict: bool) -> None:
    s = score_item("tool-call", output, expected)
    assert (s.correct, bool(s.strict)) == (correct, strict), s
