"""Answer styles a careful grader reads one way and the scorers once read another (issue 33,
the classes the third blind set showed), one table per class. The cases are written for the
change, not copied from the set; each table holds cases that failed before its fix and
cases that must keep their verdict (the neighbours a loose fix would break)."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output

Case = tuple[str, str, object, dict[str, object], bool]  # scorer, answer text, expected, score_args, correct

# Every LaTeX text or font wrapper inside \boxed{} is the text it wraps.
LATEX_WRAPPED_IN_BOXED: list[Case] = [
    ("exact", r"$\boxed{\text{Lisbon}}$", "Lisbon", {}, True),
    ("exact", r"\[\boxed{\mathrm{Nile}}\]", "Nile", {}, True),
    ("exact", r"$\boxed{\textbf{\textit{sulfur dioxide}}}$", "sulfur dioxide", {}, True),
    ("exact", r"$\boxed{\text{Porto}}$", "Lisbon", {}, False),
    ("mc", r"\(\boxed{\text{C}}\)", "C", {}, True),
    ("mc", r"$\boxed{\mathbf{D}}$", "D", {}, True),
    ("mc", r"\(\boxed{\textrm{ A }}\)", "A", {}, True),
    ("mc", r"\(\boxed{\text{C}}\)", "B", {}, False),
    ("numeric", r"$\boxed{\text{42}}$", "42", {}, True),
    ("numeric", r"$\boxed{\frac{3}{4}}$", "0.75", {}, True),
]

# A JSON object that is the whole reply states its answer under an answer key.
JSON_ANSWER_KEY: list[Case] = [
    ("exact", '{"answer": "Nairobi"}', "Nairobi", {}, True),
    ("exact", '```json\n{"final_answer": "oxygen"}\n```', "oxygen", {}, True),
    ("exact", '{"Answer": "Lagos"}\nConfidence: 80%', "Lagos", {}, True),
    ("exact", '{"answer": "Mombasa"}', "Nairobi", {}, False),
    ("mc", '{"answer": "D"}', "D", {}, True),
    ("mc", '{"answer": "(B)"}', "B", {}, True),
    ("mc", '{"answer": "A"}', "D", {}, False),
    ("numeric", '{"answer": 36, "confidence": 0.8}', "36", {}, True),
    ("numeric", '{"answer": 35, "confidence": 0.8}', "36", {}, False),
    ("contains", '{"answer": "It has 61 rooms."}', "61", {}, True),
]

# "I don't know" in the other scripts and languages a refusal comes in.
ABSTAIN_OTHER_LANGUAGES: list[Case] = [
    ("abstain", "لا أعلم شيئًا عن هذا الكتاب.", None, {}, True),
    ("abstain", "ليس لدي أي معلومات عن هذه الجائزة.", None, {}, True),
    ("abstain", "لا أعرف.", None, {}, True),
    ("abstain", "मुझे नहीं पता।", None, {}, True),
    ("abstain", "Bilmiyorum, bu konuda bilgim yok.", None, {}, True),
    ("abstain", "Ik weet het niet.", None, {}, True),
    ("abstain", "Nie wiem.", None, {}, True),
    ("abstain", "Saya tidak tahu.", None, {}, True),
    ("abstain", "Δεν ξέρω.", None, {}, True),
    ("abstain", "تأسست الشركة عام 1950.", None, {}, False),
]

# A JSON reply whose answer is null or empty declines to answer; a stated value answers.
ABSTAIN_JSON_NULL: list[Case] = [
    ("abstain", '{"answer": null, "confidence": 0}', None, {}, True),
    ("abstain", '```json\n{"answer": "", "reason": "nothing reliable on this"}\n```', None, {}, True),
    ("abstain", '{"result": null}', None, {}, True),
    ("abstain", '{"answer": "unknown"}', None, {}, True),
    ("abstain", '{"author": null, "year": null}', None, {}, True),
    ("abstain", '{"known": false, "note": "no record of this prize"}', None, {}, True),
    ("abstain", '{"author": "Ida Holm", "year": null}', None, {}, False),
    ("abstain", '{"answer": "Marta Olsen", "known": true}', None, {}, False),
    ("abstain", '{"answer": 1911}', None, {}, False),
]

# A refusal that is itself denied, then a claim: a fabricated answer, not an abstention.
NEGATED_ABSTENTION: list[Case] = [
    ("abstain", "It's not that I don't know: the bridge opened in 1931.", None, {}, False),
    ("abstain", "It is not that I cannot answer — she was born in Bergen.", None, {}, False),
    ("abstain", "Not because I can't find it; it was painted by Ida Holm.", None, {}, False),
    ("abstain", "It's not unknown: the bridge opened in 1931.", None, {}, False),
    ("abstain", "I don't know, and it's not that I'm hiding anything.", None, {}, True),
    ("abstain", "I don't know who painted it.", None, {}, True),
]

# The right answer named only in a clause that denies it, in every scorer that finds a mention.
ANSWER_NEGATED: list[Case] = [
    ("contains", "The shop does not sell 48 kinds of tea; it sells twelve.", "48", {}, False),
    ("contains", "It was never located in Tromsø, it is in Bodø.", "Tromsø", {}, False),
    ("contains", "It cannot be 48; the passage says 84.", "48", {}, False),
    ("contains", "It sells 48 kinds of tea, not 84.", "48", {}, True),
    ("contains", "It wasn't until 1962 that it opened.", "1962", {}, True),
    ("contains", "Not only tea: it sells 48 kinds of it.", "48", {}, True),
    ("needle", "Don't use 5190 — that is the old one. The code is 8832.", "5190", {}, False),
    ("needle", "It isn't 5-1-9-0; the code is 8832.", "5190", {}, False),
    ("needle", "Not 8832. The code is 5190.", "5190", {}, True),
    ("needle", "The code is 5190, not 8832.", "5190", {}, True),
    ("exact", "It is definitely not located in Oslo.", "Oslo", {}, False),
    ("exact", "Oslo, not Bergen.", "Oslo", {}, True),
    ("needle", "Any code except 5190 opens it.", "5190", {}, False),
]

# Scripts written without spaces run straight into the answer.
UNSPACED_SCRIPTS: list[Case] = [
    ("contains", "店は2004年に開店しました。", "2004", {}, True),
    ("contains", "这家店有312名员工。", "312", {}, True),
    ("contains", "ร้านเปิดในปี 1975ครับ", "1975", {}, True),
    ("contains", "店は12004年に開店しました。", "2004", {}, False),
    ("contains", "店は2014年に開店しました。", "2004", {}, False),
    ("contains", "首都は東京です。", "東京", {}, True),
    ("contains", "東京都にあります。", "京都", {}, False),
]

# A footnote marker glued to the answer is not part of it.
FOOTNOTE_MARKS: list[Case] = [
    ("contains", "The workshop builds one thing: a bicycle².\n\n² Passage, line 2.", "bicycle", {}, True),
    ("contains", "It makes lanternsᵃ.", "lantern", {}, True),
    ("contains", "It makes lamps³.", "bicycle", {}, False),
    ("exact", "Answer: Helsinki¹", "Helsinki", {}, True),
    ("exact", "Helsinki¹\n\n¹ Capital since 1812.", "Helsinki", {}, True),
    ("exact", "Answer: Tampere¹", "Helsinki", {}, False),
]

# An opening word followed by an apostrophe and more letters is another word form.
OPENER_WITH_CLITIC: list[Case] = [
    ("instruction", "Tomorrow's market will be busy.", None, {"rules": [{"rule": "starts_with", "value": "Tomorrow"}]}, False),
    ("instruction", "Maria’s garden is full of roses.", None, {"rules": [{"rule": "starts_with", "value": "Maria"}]}, False),
    ("instruction", "Tomorrow, the market will be busy.", None, {"rules": [{"rule": "starts_with", "value": "Tomorrow"}]}, True),
    ("instruction", "Tomorrowland is a park.", None, {"rules": [{"rule": "starts_with", "value": "Tomorrow"}]}, False),
    ("instruction", "**Tomorrow** the market opens.", None, {"rules": [{"rule": "starts_with", "value": "Tomorrow"}]}, True),
    ("instruction", "It's a quiet town.", None, {"rules": [{"rule": "starts_with", "value": "It"}]}, True),
    ("instruction", "We'll meet at noon.", None, {"rules": [{"rule": "starts_with", "value": "We"}]}, True),
]

# The options listed with one ticked (or all but one crossed out): that one is the choice.
TICKED_OPTION: list[Case] = [
    ("mc", "A) iron ✗\nB) copper ✗\nC) helium ✔\nD) lead ✗", "C", {}, True),
    ("mc", "A) iron\nB) copper ✅\nC) helium\nD) lead", "B", {}, True),
    ("mc", "- [ ] A) iron\n- [ ] B) copper\n- [x] C) helium", "C", {}, True),
    ("mc", "A) iron ✗\nB) copper ✗\nC) helium\nD) lead ✗", "C", {}, True),
    ("mc", "A) iron\nB) copper  <- my pick\nC) helium", "B", {}, True),
    ("mc", "A) iron\nB) copper\nC) helium (my answer)", "C", {}, True),
    ("mc", "A) iron ✗\nB) copper ✗\nC) helium ✔\nD) lead ✗", "D", {}, False),
    ("mc", "A) iron ✔\nB) copper\nC) helium ✔", "A", {}, False),
    ("mc", "A) iron\nB) copper\nC) helium", "A", {}, False),
    ("mc", "A) iron ✗\nB) copper\nC) helium ✗\n\nOn reflection, the answer is C.", "C", {}, True),
]

# A sign said in words, in the languages the number-words module reads.
SIGN_IN_WORDS: list[Case] = [
    ("numeric", "Answer: negative 38", "-38", {}, True),
    ("numeric", "Answer: minus 7.5", "-7.5", {}, True),
    ("numeric", "Réponse : moins 12", "-12", {}, True),
    ("numeric", "Respuesta: menos 40", "-40", {}, True),
    ("numeric", "Risposta: meno 9", "-9", {}, True),
    ("numeric", "Answer: negative 38", "38", {}, False),
    ("numeric", "15 minus 4 = 11", "11", {}, True),
    ("numeric", "Answer: 15 minus 4", "-4", {}, False),
]

# Thousands grouped by any kind of space, only where every later group has three digits.
SPACED_THOUSANDS: list[Case] = [
    ("numeric", "Answer: 7 315", "7315", {}, True),
    ("numeric", "Answer: 12 480 000", "12480000", {}, True),
    ("numeric", "Answer: 3\u2007250", "3250", {}, True),
    ("numeric", "Answer: 3\u2002250", "3250", {}, True),
    ("numeric", "Answer: 7 31", "731", {}, False),
    ("numeric", "Answer: 7 3150", "73150", {}, False),
    ("numeric", "Answer: 0 500", "500", {}, False),
    ("numeric", "Answer: 2 1/4", "2.25", {}, True),
]

TABLES = {
    "latex_wrapped_in_boxed": LATEX_WRAPPED_IN_BOXED,
    "json_answer_key": JSON_ANSWER_KEY,
    "abstain_other_languages": ABSTAIN_OTHER_LANGUAGES,
    "abstain_json_null": ABSTAIN_JSON_NULL,
    "negated_abstention": NEGATED_ABSTENTION,
    "answer_negated": ANSWER_NEGATED,
    "unspaced_scripts": UNSPACED_SCRIPTS,
    "footnote_marks": FOOTNOTE_MARKS,
    "opener_with_clitic": OPENER_WITH_CLITIC,
    "ticked_option": TICKED_OPTION,
    "sign_in_words": SIGN_IN_WORDS,
    "spaced_thousands": SPACED_THOUSANDS,
}
CASES = [(name, *case) for name, table in TABLES.items() for case in table]


@pytest.mark.parametrize(("cls", "scorer", "text", "expected", "args", "correct"), CASES, ids=[f"{c[0]}:{c[2][:30]}" for c in CASES])
def test_graders_reading(cls: str, scorer: str, text: str, expected: object, args: dict[str, object], correct: bool) -> None:
    got = score_item(scorer, Output(text, []), expected, args)
    assert got.correct is correct, f"{cls}: {scorer} read {text!r} as {got.predicted!r} ({got.detail})"
