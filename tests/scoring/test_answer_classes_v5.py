"""Answer styles a careful grader reads one way and the scorers once read another (issue 33,
the classes the fourth blind set showed), one table per class. The cases are written for the
change, not copied from the set; each table holds cases that failed before its fix and
cases that must keep their verdict (the neighbours a loose fix would break)."""

from __future__ import annotations

import json

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

Case = tuple[str, str, object, dict[str, object], bool]  # scorer, answer text, expected, score_args, correct

# An XML-ish answer tag holds the committed answer, for every scorer that reads an answer span.
ANSWER_TAG: list[Case] = [
    ("exact", "<answer>Lisbon</answer>", "Lisbon", {}, True),
    ("exact", "Porto is its second city.\n<final_answer>Lisbon</final_answer>", "Lisbon", {}, True),
    ("exact", "<final>nitrogen</final>", "nitrogen", {}, True),
    ("exact", "<ANSWER> Answer: Nile </ANSWER>", "Nile", {}, True),
    ("exact", "<answer>Porto</answer>", "Lisbon", {}, False),
    ("exact", "<answer>Porto</answer>\nAnswer: Lisbon", "Lisbon", {}, True),  # a later anchor wins
    ("mc", "<answer>C</answer>", "C", {}, True),
    ("mc", "Option A looks tempting, but no.\n<answer>D</answer>", "D", {}, True),
    ("mc", "<final_answer>(B)</final_answer>", "B", {}, True),
    ("mc", "<answer>A</answer>", "D", {}, False),
    ("numeric", "<answer>42</answer>", "42", {}, True),
    ("numeric", "12 + 30 = 42\n<final>41</final>", "42", {}, False),
]

# A refusal that then guesses anyway, or whose TL;DR states a fabricated answer, is not an abstention;
# a TL;DR that refuses and then lists what the passage does say (but not the asked fact) is one.
ABSTAIN_SUMMARY_AND_GUESS: list[Case] = [
    ("abstain", "The text doesn't say so explicitly, but reading between the lines: Marta, the first owner.", None, {}, False),
    ("abstain", "The passage does not state who built it. My best guess: Hugo Brandt.", None, {}, False),
    ("abstain", "I'm not sure about this.\n\nTL;DR: Pieter Janssen", None, {}, False),
    ("abstain", "I don't know for certain.\n\nSummary: the Lindqvist Prize", None, {}, False),
    (
        "abstain",
        "TL;DR: not stated.\n\nThe passage gives the town (Oulu), the founding year (1971) and the head count (64), "
        'but nothing about "Who designed the logo?" The passage does not say.',
        None,
        {},
        True,
    ),
    ("abstain", "TL;DR: the passage does not say.\n\nThe text mentions the river (Tay) and the bridge (1878), but not its architect.", None, {}, True),
    ("abstain", "I don't know.\n\nTL;DR: unknown.", None, {}, True),
    ("abstain", "I don't know who wrote it.", None, {}, True),
    ("abstain", "The passage does not say; it was founded in 1911.", None, {}, False),
]

TABLES = {"answer_tag": ANSWER_TAG, "abstain_summary_and_guess": ABSTAIN_SUMMARY_AND_GUESS}
CASES = [(name, *case) for name, table in TABLES.items() for case in table]


@pytest.mark.parametrize(("cls", "scorer", "text", "expected", "args", "correct"), CASES, ids=[f"{c[0]}:{c[2][:30]}" for c in CASES])
def test_graders_reading(cls: str, scorer: str, text: str, expected: object, args: dict[str, object], correct: bool) -> None:
    got = score_item(scorer, Output(text, []), expected, args)
    assert got.correct is correct, f"{cls}: {scorer} read {text!r} as {got.predicted!r} ({got.detail})"


def _calls(*calls: tuple[str, dict[str, object]]) -> list[dict[str, object]]:
    return [{"type": "function", "function": {"name": n, "arguments": json.dumps(a)}} for n, a in calls]


# The call set must be the expected one: an extra call to an expected function with other
# arguments (the value the user took back, called beside the revised one) is wrong.
WANT_BERN = {"name": "get_weather", "arguments": {"city": "Bern"}}
TOOL_CALL_SET: list[tuple[list[dict[str, object]], object, bool]] = [
    (_calls(("get_weather", {"city": "Bern"}), ("get_weather", {"city": "Accra"})), WANT_BERN, False),
    (_calls(("get_weather", {"city": "Accra"}), ("get_weather", {"city": "Bern"})), WANT_BERN, False),
    (_calls(("get_weather", {"city": "Bern"}), ("get_weather", {"city": "Bern", "unit": "c"})), WANT_BERN, True),
    (_calls(("get_weather", {"city": "Bern"})), WANT_BERN, True),
    (_calls(("get_weather", {"city": "Bern"}), ("get_time", {"city": "Bern"})), WANT_BERN, True),
    (
        _calls(("get_weather", {"city": "Bern"}), ("get_weather", {"city": "Accra"})),
        [WANT_BERN, {"name": "get_weather", "arguments": {"city": "Accra"}}],
        True,
    ),
]


@pytest.mark.parametrize(("tool_calls", "expected", "correct"), TOOL_CALL_SET)
def test_tool_call_set(tool_calls: list[dict[str, object]], expected: object, correct: bool) -> None:
    got = score_item("tool_call", Output("", tool_calls), expected, {})
    assert got.correct is correct, f"read {got.predicted!r} ({got.detail})"


def test_tool_call_set_written_in_text() -> None:
    text = '[{"name": "get_weather", "arguments": {"city": "Bern"}}, {"name": "get_weather", "arguments": {"city": "Accra"}}]'
    assert score_item("tool_call", Output(text, []), WANT_BERN, {}).correct is False
