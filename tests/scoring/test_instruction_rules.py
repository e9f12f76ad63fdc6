"""Every instruction rule, kept and broken; the phrase rules on natural answers; the loose variants."""

from __future__ import annotations

import json
from typing import Any

import pytest

from servescope.catalog.store import packaged_root
from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.instruction import RULES, loose_variants

# rule, value, an answer that keeps it, an answer that breaks it
KEPT_AND_BROKEN: list[tuple[str, Any, str, str]] = [
    ("max_words", 5, "The sea is grey today.", "The sea is very grey today."),
    ("min_words", 5, "The sea is grey today.", "Grey sea today."),
    ("max_chars", 10, "Short one.", "Longer than ten."),
    ("max_sentences", 2, "One. Two!", "One. Two. Three?"),
    ("min_sentences", 3, "Rain fell. It stopped. We left.", "Rain fell. It stopped."),
    ("sentence_count", 2, 'She said "stop." Then she left.', "One sentence only."),
    ("paragraph_count", 2, "First block here.\n\nSecond block here.", "Only one block\nover two lines."),
    ("paragraph_count", 3, "One.\n***\nTwo.\n***\nThree.", "One.\n***\nTwo."),
    ("line_count", 2, "a\nb", "a\nb\nc\nd\ne"),
    ("lowercase", None, "all small letters here.", "Not all small."),
    ("uppercase", None, "ALL CAPS HERE!", "ALL CAPS but one"),
    ("no_commas", None, "No commas at all.", "One, two."),
    ("quotation", None, '"Quoted from start to end."', 'Not "quoted" around.'),
    ("starts_with", "Today", "Today, the trains run late.", "The trains run late today."),
    ("ends_with", "done", "And with that, we were done.", "Done, we were not."),
    ("contains", "lighthouse", "The Lighthouse stands tall.", "The light house stands tall."),
    ("not_contains", "sea", "The season is long.", "The sea is long."),
    ("keyword_count", {"word": "rain", "min": 2}, "Rain, rain, go away.", "Rain goes away. Raining stops."),
    ("keyword_count", {"word": "rain", "max": 1}, "Rain stops.", "Rain, rain."),
    ("bullet_count", 3, "- a\n- b\n* c", "- a\n- b"),
    ("title", None, "<<Autumn Notes>>\nLeaves fall.", "Autumn Notes\nLeaves fall."),
    ("placeholder_count", 2, "Dear [name], see you at [address].", "Dear [name], see you soon."),
    ("highlight_count", 2, "*First* and **second** points.", "*First* point only."),
    ("section_count", {"marker": "SECTION", "count": 2}, "SECTION 1\nIntro.\nSECTION 2\nEnd.", "SECTION 1\nIntro only."),
    ("postscript", "P.S.", "Thanks.\n\nP.S. Bring an umbrella.", "Thanks. PS bring an umbrella."),
    ("json", None, '```json\n{"a": 1}\n```', "{'a': 1}"),
    ("json_keys", ["topic", "mood"], '{"topic": "rain", "mood": "calm"}', '{"topic": "rain"}'),
    ("language_ascii", True, "Plain ASCII text.", "Café au lait."),
]


def test_every_rule_has_a_kept_and_a_broken_case() -> None:
    assert {r for r, *_ in KEPT_AND_BROKEN} == set(RULES)


@pytest.mark.parametrize(("rule", "value", "kept", "broken"), KEPT_AND_BROKEN, ids=[f"{r}-{i}" for i, (r, *_) in enumerate(KEPT_AND_BROKEN)])
def test_rule_keeps_and_breaks(rule: str, value: Any, kept: str, broken: str) -> None:
    rules = [{"rule": rule, "value": value}]
    good = score_item("instruction", Output(kept), None, {"rules": rules})
    bad = score_item("instruction", Output(broken), None, {"rules": rules})
    assert (good.strict, good.correct, good.score) == (True, True, 1.0), good
    assert (bad.strict, bad.correct, bad.score) == (False, False, 0.0), bad


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("We finished the work and we were done.", "done"),
        ('He said, "I am done!"', "done"),
        ("The race is over. Done!", "Done"),
        ("It was all *done*.", "done"),
        ("Is there anything else I can help with?", "Is there anything else I can help with?"),
        ("…and the lamp went out.\u201d", "the lamp went out."),
    ],
)
def test_ends_with_ignores_the_punctuation_and_quotes_after_the_phrase(answer: str, value: str) -> None:
    """The most natural answer ends in a full stop or a closing quote after the word."""
    s = score_item("instruction", Output(answer), None, {"rules": [{"rule": "ends_with", "value": value}]})
    assert s.strict is True and s.correct is True, s


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ("Is there anything else I can help with", "Is there anything else I can help with?"),
        ("Write soon. See you soon!", "See you soon."),
        ("Write soon. See you soon.", "See you soon!"),
    ],
)
def test_a_phrase_ending_in_a_punctuation_mark_must_end_with_that_mark(answer: str, value: str) -> None:
    s = score_item("instruction", Output(answer), None, {"rules": [{"rule": "ends_with", "value": value}]})
    assert s.strict is False and s.correct is False, s


@pytest.mark.parametrize(
    ("answer", "ok"),
    [
        ("Hi Dana,\n\nThe library opens on Sundays now.\n\nBest,\nLeo\n\nP.S. Bring a bag.", True),
        ("Hi Dana,\n\nOpen on Sundays.\n\nP.S. Bring a bag.\nAnd a pen.\n\nP.P.S. And snacks.", True),
        ("Hi Dana,\n\nP.S. Bring a bag.\n\nThe library opens on Sundays now.\n\nBest,\nLeo", False),
    ],
)
def test_a_postscript_comes_at_the_end(answer: str, ok: bool) -> None:
    s = score_item("instruction", Output(answer), None, {"rules": [{"rule": "postscript", "value": "P.S."}]})
    assert s.correct is ok and s.strict is ok, s


@pytest.mark.parametrize(("answer", "value"), [("The knot came undone.", "done"), ("Done was the word we used.", "done"), ("", "done")])
def test_ends_with_needs_the_whole_word_at_the_end(answer: str, value: str) -> None:
    s = score_item("instruction", Output(answer), None, {"rules": [{"rule": "ends_with", "value": value}]})
    assert s.correct is False, s


def test_starts_with_skips_opening_quotes_and_markdown_but_not_a_longer_word() -> None:
    rules = [{"rule": "starts_with", "value": "Today"}]
    assert score_item("instruction", Output('"Today the sea is calm."'), None, {"rules": rules}).strict is True
    assert score_item("instruction", Output("**Today** the sea is calm."), None, {"rules": rules}).strict is True
    assert score_item("instruction", Output("Todays are calm."), None, {"rules": rules}).correct is False


def test_two_rules_are_both_checked() -> None:
    rules = [{"rule": "ends_with", "value": "done"}, {"rule": "lowercase"}]
    s = score_item("instruction", Output("We were Done."), None, {"rules": rules})
    assert (s.correct, s.score) == (False, 0.5) and s.detail is not None and "lowercase" in s.detail


def test_ifeval_loose_forgives_a_preamble_line_but_a_careful_grader_does_not() -> None:
    """'Answer in lowercase' is broken by a capitalised 'Sure! Here it is:' line: the held-out
    grader said so on every such case, so ``correct`` never drops a line; IFEval's loose
    verdict, which does, stays in ``detail`` for comparison with published figures."""
    rules = [{"rule": "lowercase"}]
    s = score_item("instruction", Output("Sure! Here it is:\nthe sea is grey and calm."), None, {"rules": rules})
    assert (s.strict, s.correct, s.score) == (False, False, 0.0), s
    assert s.detail is not None and s.detail.startswith("strict 0/1; flexible 0/1; IFEval loose 1/1")


def test_loose_strips_markdown_stars() -> None:
    rules = [{"rule": "starts_with", "value": "Today is"}]
    s = score_item("instruction", Output("Today *is* the day."), None, {"rules": rules})
    assert (s.strict, s.correct) == (False, True), s


def test_loose_never_passes_on_an_empty_remainder() -> None:
    """A one-line answer has no 'without its first line' variant: nothing left is not a kept format."""
    assert loose_variants("Only one line") == ["Only one line"]
    s = score_item("instruction", Output("This one line has far too many words for the rule"), None, {"rules": [{"rule": "max_words", "value": 3}]})
    assert s.correct is False


def test_a_rule_value_the_rule_cannot_use_is_broken_not_a_crash() -> None:
    for rule in ({"rule": "keyword_count", "value": "rain"}, {"rule": "section_count", "value": 3}, {"rule": "json_keys", "value": "a"}, {"rule": "ends_with"}):
        s = score_item("instruction", Output("rain"), None, {"rules": [rule]})
        assert s.correct is False and s.detail is not None and rule["rule"] in s.detail, s


NATURAL_FORMAT_V2_ANSWERS = {
    "max_words": "Grey waves, cold wind, and gulls over the harbour.",
    "lowercase": "the sea was calm and grey this morning.",
    "bullets": "- Rain is water.\n- It falls from clouds.\n- It fills rivers.",
    "no_commas": "Autumn leaves fall slowly. The air smells of smoke and rain.",
    "ends_with": "We cleaned the last cup and the coffee was done.",
    "json": '```json\n{"topic": "trains", "mood": "calm"}\n```',
    "uppercase": "THE LAST TRAIN HOME",
    "starts_with": "Today, the library was quiet.",
}


def test_natural_answers_keep_every_rule_of_eval_format_v2() -> None:
    """Each kind of eval-format-v2 row, answered the way a person would: kept strictly."""
    rows = [json.loads(line) for line in (packaged_root() / "datasets" / "eval-format-v2.jsonl").read_text().splitlines()]
    for category, answer in NATURAL_FORMAT_V2_ANSWERS.items():
        row = next(r for r in rows if r["category"] == category)
        s = score_item("instruction", Output(answer), None, row["score_args"])
        assert (s.strict, s.correct) == (True, True), (row["text"], s)


def test_a_loose_reading_never_drops_a_line_to_excuse_a_forbidden_word_or_a_size_limit() -> None:
    """IFEval's loose reading drops a chatty first or last line; for a rule of the whole answer
    that would excuse the violation itself (the forbidden word sits in the first line)."""
    from servescope.scoring import score_item
    from servescope.scoring.base import Output

    text = "I really love my garden.\nIt has tomatoes and beans.\nThey grow well in summer."
    s = score_item("instruction", Output(text), None, {"rules": [{"rule": "not_contains", "value": "really"}]})
    assert not s.correct and not s.strict
    ascii_rule = {"rules": [{"rule": "language_ascii", "value": True}]}
    assert not score_item("instruction", Output("Bonjour!\nMeet me at the café.\nBye"), None, ascii_rule).correct
    # nor a positive rule: "start with 'Dear'" is broken by a chatty opener (IFEval loose excuses it)
    starts = {"rules": [{"rule": "starts_with", "value": "Dear"}]}
    s = score_item("instruction", Output("Sure, here it is:\nDear Sam, thank you."), None, starts)
    assert not s.correct and s.detail is not None and "IFEval loose 1/1" in s.detail
