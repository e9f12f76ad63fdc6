"""Answer styles a careful grader reads one way and the scorers once read another (issue 33,
the classes the fifth blind set showed), one table per class. The cases are written for the
change, not copied from the set; each table holds cases that failed before its fix and
cases that must keep their verdict (the neighbours a loose fix would break)."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output
from tests.scoring.user_suite import run_one_row_suite

Case = tuple[str, str, object, dict[str, object], bool]  # scorer, answer text, expected, score_args, correct


def _lines(n: int, word: str = "ok", form: str = "{i}. {w}", swap: dict[int, str] | None = None) -> str:
    swap = swap or {}
    return "\n".join(swap.get(i, form.format(i=i, w=word)) for i in range(1, n + 1))


INTEGRITY_ARGS: dict[str, object] = {"lines": 40, "word": "ok"}
# A foreign digit in a line's number, a letter of another case mid-word, a line joined unlike the others:
# tokens spliced in. The whole word in capitals, or a generation that joins every line its own way, is clean.
TOKEN_INTEGRITY: list[Case] = [
    ("token_integrity", _lines(40, swap={23: "2３. ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={7: "٧. ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={31: "31. Ok", 32: "32. okK"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={12: "12. Ok"}), None, INTEGRITY_ARGS, True),  # capitalised: a style
    ("token_integrity", _lines(40, swap={18: "18. oK"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={9: "9.ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={9: "9) ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, form="{i}.{w}"), None, INTEGRITY_ARGS, True),
    ("token_integrity", _lines(40, form="{i}) {w}"), None, INTEGRITY_ARGS, True),
    ("token_integrity", _lines(40, word="OK"), None, INTEGRITY_ARGS, True),
    ("token_integrity", _lines(40, form="{i}.  {w}"), None, INTEGRITY_ARGS, True),
]

# The code inside a longer run of digits or letters is another code.
NEEDLE_WHOLE: list[Case] = [
    ("needle", "The code is 52417.", "5241", {}, False),
    ("needle", "Code: 95241", "5241", {}, False),
    ("needle", "It was box A5241.", "5241", {}, False),
    ("needle", "The code is 5241.", "5241", {}, True),
    ("needle", "5-2-4-1", "5241", {}, True),
    ("needle", "The secret number: 52 41 (as written in the memo).", "5241", {}, True),
    ("needle", "(5241)", "5241", {}, True),
]

# Refusals in the inverted German order and "no information" in other languages; a "reasonable estimate" is a
# guess, not a refusal; a sentence naming what the passage covers (with its numbers) beside a refusal is not a claim.
ABSTAIN: list[Case] = [
    ("abstain", "Weiß ich leider nicht.", None, {}, True),
    ("abstain", "Darüber habe ich keine gesicherten Informationen.", None, {}, True),
    ("abstain", "Je n'ai aucune information fiable sur ce prix.", None, {}, True),
    ("abstain", "No tengo información sobre ese río.", None, {}, True),
    ("abstain", "Das weiß ich nicht, aber es war 1912.", None, {}, False),
    ("abstain", "The text is silent on it; a rough estimate: 40 people.", None, {}, False),
    ("abstain", "Not stated. My guess is Porto.", None, {}, False),
    ("abstain", "The passage mentions when the mill opened (1904) and how many looms it runs. It does not say who owns it.", None, {}, True),
    ("abstain", "Nicht erwähnt, aber vermutlich Hamburg.", None, {}, False),
]

# A clarifying request without a question mark, or with a fullwidth one; a closing pleasantry still asks for nothing.
CLARIFY: list[Case] = [
    ("tool_call", "どの都市の天気か教えてください。", {"clarify": True}, {}, True),
    ("tool_call", "どの都市ですか？", {"clarify": True}, {}, True),
    ("tool_call", "Please tell me which city you mean.", {"clarify": True}, {}, True),
    ("tool_call", "I need the city name to look that up.", {"clarify": True}, {}, True),
    ("tool_call", "请告诉我城市名称。", {"clarify": True}, {}, True),
    ("tool_call", "It is sunny. Let me know if you need anything else.", {"clarify": True}, {}, False),
    ("tool_call", "Sure, here is the forecast: mild and dry.", {"clarify": True}, {}, False),
]

# The answer anchor in Japanese and Korean.
ANCHOR: list[Case] = [
    ("exact", "火曜日から13日後です。\n答え：Monday", "Monday", {}, True),
    ("exact", "계산하면 다음과 같습니다.\n정답: Monday", "Monday", {}, True),
    ("exact", "答え：Sunday", "Monday", {}, False),
]


# The sixth blind set's classes. A closing word followed by an emoticon or a mark set apart does not end the answer.
ENDS_WITH_DONE: dict[str, object] = {"rules": [{"rule": "ends_with", "value": "done"}]}
SIXTH: list[Case] = [
    ("instruction", "The harbour sleeps and I am done. ;-)", None, ENDS_WITH_DONE, False),
    ("instruction", "The harbour sleeps and I am done :(", None, ENDS_WITH_DONE, False),
    ("instruction", "The harbour sleeps and I am done. !", None, ENDS_WITH_DONE, False),
    ("instruction", "The harbour sleeps and I am done.", None, ENDS_WITH_DONE, True),
    ("instruction", "The harbour sleeps and I am *done*!", None, ENDS_WITH_DONE, True),
    ("instruction", "“The harbour sleeps and I am done.” ", None, ENDS_WITH_DONE, True),
    # a token before a template line (a byte-order mark, a pad token) is spliced in, not drift
    ("token_integrity", _lines(40, swap={14: "\ufeff14. ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", _lines(40, swap={30: "<pad>30. ok"}), None, INTEGRITY_ARGS, False),
    ("token_integrity", "Here you go:\n" + _lines(40), None, INTEGRITY_ARGS, True),  # a preamble is drift
    # a bare number set off by an em dash from its explanation is the answer
    ("numeric", "5 — 4 circles plus the ring around them.", "4", {}, False),
    ("numeric", "**4** — three on the left and one on the right.", "4", {}, True),
    ("numeric", "4 — no, wait: 5.", "5", {}, True),  # a correction after the dash
    ("numeric", "7 — 3 + 4 = 7", "7", {}, True),
]


# score_args.unit: the right number in another unit of the same quantity is wrong (a Celsius reading given in °F);
# no unit, the asked one, or an aside converting it are judged by the number.
IN_CELSIUS: dict[str, object] = {"unit": "°C"}
UNIT: list[Case] = [
    ("numeric", "Right now it's 14 °F in Quito.", "14", IN_CELSIUS, False),
    ("numeric", "14 degrees Fahrenheit and cloudy.", "14", IN_CELSIUS, False),
    ("numeric", "Answer: 14 K", "14", IN_CELSIUS, False),
    ("numeric", "Right now it's 14 °C in Quito.", "14", IN_CELSIUS, True),
    ("numeric", "14 degrees Celsius (57 °F).", "14", IN_CELSIUS, True),
    ("numeric", "It is 14.", "14", IN_CELSIUS, True),
    ("numeric", "It is 14 degrees.", "14", IN_CELSIUS, True),
    ("numeric", "Right now it's 14 °F in Quito.", "14", {}, True),  # no unit asked: the number alone
    ("numeric", "About 8 miles.", "8", {"unit": "km"}, False),
    ("numeric", "About 8 km.", "8", {"unit": "km"}, True),
]


# The seventh blind set's classes: refusals with the verb first (Dutch, Scandinavian) and "the source does not say"
# in the suites' languages; a claim after them is still a claim. A "•" line is not a markdown bullet.
SEVENTH: list[Case] = [
    ("abstain", "Dat weet ik helaas niet.", None, {}, True),
    ("abstain", "Daar heb ik geen informatie over.", None, {}, True),
    ("abstain", "Det vet jag inte.", None, {}, True),
    ("abstain", "Dat weet ik niet, maar het was 1912.", None, {}, False),
    ("abstain", "El texto no lo menciona.", None, {}, True),
    ("abstain", "Le passage ne le précise pas.", None, {}, True),
    ("abstain", "O texto não diz quem fundou a empresa.", None, {}, True),
    ("abstain", "Il testo non lo dice.", None, {}, True),
    ("abstain", "Der Text sagt das nicht.", None, {}, True),
    ("abstain", "El pasaje no lo dice, pero probablemente fue Marta.", None, {}, False),
    ("instruction", "• Snow.\n• Ice.\n• Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, False),
    ("instruction", "* Snow.\n* Ice.\n* Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, True),
]


# A review of the fixes above found answers they scored the wrong way; each must keep the careful grader's verdict.
REVIEW: list[Case] = [
    # a request-shaped sentence inside an answer that states the value is no clarifying question
    ("tool_call", "La temperatura precisa en Madrid es de 21 °C.", {"clarify": True}, {}, False),
    ("tool_call", "I need a moment to think. The weather in Paris is 18°C.", {"clarify": True}, {}, False),
    ("tool_call", "朋友告诉我今天巴黎是晴天，18度。", {"clarify": True}, {}, False),
    ("tool_call", "Your flight is booked. Please confirm the details in your email.", {"clarify": True}, {}, False),
    ("tool_call", "The forecast: 18°C and sunny. Let me know when you travel.", {"clarify": True}, {}, False),
    # a refusal in another language, then the answer named anyway, is a fabrication
    ("abstain", "Der Text sagt das nicht direkt, aber der Erfinder war Hans Müller.", None, {}, False),
    ("abstain", "El pasaje no lo dice explícitamente, pero el inventor fue Juan Pérez.", None, {}, False),
    ("abstain", "Le passage ne le précise pas, mais c'était Jean Dupont.", None, {}, False),
    ("abstain", "Der Text nennt ihn nicht, doch es war Hans Müller.", None, {}, False),
    ("abstain", "Es gibt keine weiteren Informationen, der Gründer war Karl Weber.", None, {}, False),
    ("abstain", "There is no further information, the founder was Karl Weber.", None, {}, False),
    ("abstain", "The passage explains how it was Karl Weber who founded it. I don't know when.", None, {}, False),
    ("abstain", "I don't know if it was Karl Weber.", None, {}, True),
    ("abstain", "I have no information about who won it in 1987.", None, {}, True),
    # a bare number before a dash that the explanation then revises, totals or hedges is not the answer
    ("numeric", "3 — or rather 4, since the corner counts twice.", "3", {}, False),
    ("numeric", "1 — Count the small squares: 9, plus 4 larger ones, so 13 in total.", "1", {}, False),
    ("numeric", "**7** — that is my estimate, though it could be 8", "7", {}, False),
    # a sentence quoting the template, or a markdown list of template lines, is drift, not a splice
    ("token_integrity", "Sure, here you go: 1. ok\n" + _lines(40), None, INTEGRITY_ARGS, True),
    ("token_integrity", _lines(40) + "\nThat is all 40 lines, ending with 40. ok", None, INTEGRITY_ARGS, True),
    # a code beside CJK text stands whole
    ("needle", "密码是7419。", "7419", {}, True),
    ("needle", "コードは7419です", "7419", {}, True),
    # an asked closing phrase that ends in an emoticon can be met
    ("instruction", "Bye for now, see you soon :)", None, {"rules": [{"rule": "ends_with", "value": "See you soon :)"}]}, True),
]


CASES = [
    (name, *case)
    for name, table in (
        ("integrity", TOKEN_INTEGRITY),
        ("needle", NEEDLE_WHOLE),
        ("abstain", ABSTAIN),
        ("clarify", CLARIFY),
        ("anchor", ANCHOR),
        ("sixth", SIXTH),
        ("unit", UNIT),
        ("seventh", SEVENTH),
        ("review", REVIEW),
    )
    for case in table
]


@pytest.mark.parametrize(("cls", "scorer", "text", "expected", "args", "correct"), CASES, ids=[f"{c[0]}:{c[2][:30]}" for c in CASES])
def test_graders_reading(cls: str, scorer: str, text: str, expected: object, args: dict[str, object], correct: bool) -> None:
    got = score_item(scorer, Output(text, []), expected, args)
    assert bool(got.correct) is correct, f"{cls}: {text[:80]!r} -> {got}"


@pytest.mark.parametrize("unit", [5, "furlongs", "", ["°C"]])
def test_a_unit_the_scorer_cannot_compare_is_named_not_dropped(unit: object) -> None:
    from servescope.scoring.numeric import unit_problem

    got = score_item("numeric", Output("It is 6 °C.", []), "6", {"unit": unit})
    assert got.correct is False and "score_args.unit" in (got.detail or "") + (got.predicted or "")
    assert unit_problem(unit) is not None and unit_problem("°C") is None and unit_problem(None) is None


def test_a_runaway_generation_is_scored_in_linear_time() -> None:
    """A 200 KB line of digits (a degenerate generation) once took minutes in token_integrity's template
    search; each scorer that reads long outputs stays well under a second on it. A guard against a
    regex that backtracks, not a speed goal (those live in benchmarks/)."""
    import time

    runaway = "x" + "1" * 200_000
    for scorer, expected, args in (
        ("token_integrity", None, INTEGRITY_ARGS),
        ("tool_call", {"clarify": True}, {}),
        ("needle", "7419", {}),
        ("numeric", "3", {}),
        ("exact", "Monday", {}),
        ("mc", "B", {}),
        ("abstain", None, {}),
        ("contains", "ok", {}),
    ):
        started = time.perf_counter()
        score_item(scorer, Output(runaway, []), expected, args)
        assert time.perf_counter() - started < 15.0, scorer  # quadratic ones took minutes


def test_a_suite_whose_row_names_a_unit_the_scorer_cannot_compare_is_refused_in_one_line(tmp_path: Path) -> None:
    """A user's numeric row with ``"unit": "furlongs"``: one line naming the dataset, the row and what is
    wrong, exit 1, nothing sent or written (every answer would otherwise score 0 for the row's fault)."""
    row = {"id": "mine-000", "text": "How far is it?", "scorer": "numeric", "answer": "6", "score_args": {"unit": "furlongs"}}
    done, out = run_one_row_suite(tmp_path, row, "eval-math-v3")
    assert done.returncode == 1, done.stdout + done.stderr
    errors = [ln for ln in (done.stdout + done.stderr).splitlines() if ln.startswith("error")]
    assert len(errors) == 1 and errors[0].startswith("error: dataset eval-mine-v1: row mine-000: score_args.unit 'furlongs'"), errors
    assert errors[0].endswith("; fix the row")
    assert "Traceback" not in done.stderr and not out.exists()
