"""Answer styles a careful grader reads one way and the scorers once read another (issue 33,
the classes the first blind set showed): number words and spaced thousands, a conversion
after the answer, emphasis and quotation marks of other scripts around it, an answer
anchor in the suite's language, two letters hedged, refusals in other languages, and a
phrase that is denied, hedged, corrected away, pluralised or inside a larger number."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.number_words import words_to_digits

CASES = [
    # numeric
    ("numeric", "Answer: twelve", "12", {}, True),
    ("numeric", "Answer: thirteen", "12", {}, False),
    ("numeric", "Quatre.", "4", {}, True),
    ("numeric", "Drei plus vier ist sieben.", "7", {}, True),
    ("numeric", "Diciotto", "18", {}, True),
    ("numeric", "A triangle has three hundred and five sides.", "305", {}, True),
    ("numeric", "Answer: 12\u202f500 people", "12500", {}, True),
    ("numeric", "Answer: 2\u00a0048", "2048", {}, True),
    ("numeric", "It is 20°C, which is about 68°F.", "20", {}, True),
    ("numeric", "It is 20°C, which is about 68°F.", "68", {}, False),
    ("numeric", "The trip is 10 km, or roughly 6 miles.", "10", {}, True),
    ("numeric", "Answer: 7 (seven)", "7", {}, True),
    # exact: emphasis and quotes around the answer
    ("exact", "Answer: *Lisbon*", "Lisbon", {}, True),
    ("exact", "Answer: _Lisbon_", "Lisbon", {}, True),
    ("exact", "«chat»", "chat", {}, True),
    ("exact", "„Haus“", "Haus", {}, True),
    ("exact", "Answer: *Porto*", "Lisbon", {}, False),
    # mc: an anchor in the asked language; two letters hedged
    ("mc", "Réponse : D", "D", {}, True),
    ("mc", "Respuesta: C", "C", {}, True),
    ("mc", "Antwort: B", "B", {}, True),
    ("mc", "Réponse : A", "D", {}, False),
    ("mc", "Answer: B or C", "B", {}, False),
    ("mc", "Answer: (B) / (C)", "C", {}, False),
    ("mc", "Answer: B, a bird", "B", {}, True),
    # abstain in other languages, and colloquially
    ("abstain", "Aucune idée, désolé.", None, {}, True),
    ("abstain", "No tengo idea.", None, {}, True),
    ("abstain", "Keine Ahnung.", None, {}, True),
    ("abstain", "Not a clue, I'm afraid.", None, {}, True),
    ("abstain", "Es war Paris.", None, {}, False),
    # contains
    ("contains", "The shop sells lamps.", "lamp", {}, True),
    ("contains", "It has forty-two staff.", "42", {}, True),
    ("contains", "It has 2,042 staff.", "42", {}, False),
    ("contains", "It has 42.5 staff on average.", "42", {}, False),
    ("contains", "It is not in Bergen; it is in Oslo.", "Bergen", {}, False),
    ("contains", "It isn't Bergen but Oslo.", "Oslo", {}, True),
    ("contains", "Either Bergen or Oslo, I cannot tell.", "Bergen", {}, False),
    ("contains", "It's in Bergen. Actually, no, the passage says Oslo.", "Bergen", {}, False),
    ("contains", "It's in Bergen. Actually, no, the passage says Oslo.", "Oslo", {}, True),
    # the second blind set's classes (cases written for the change, not copied from the set)
    ("numeric", "Answer: ~~12~~ 21", "21", {}, True),
    ("numeric", "Answer: ~~12~~ 21", "12", {}, False),
    ("numeric", "Answer: 30 or 35", "30", {}, False),
    ("numeric", "Two or three of them broke, so 9 are left.", "9", {}, True),
    ("numeric", "Answer: three and a half", "3.5", {}, True),
    ("numeric", "Answer: three quarters", "0.75", {}, True),
    ("numeric", "Half of 70 is thirty-five.", "35", {}, True),
    ("numeric", "Answer: 1.2 × 10⁴", "12000", {}, True),
    ("numeric", "Answer: 1.2 x 10^4", "12000", {}, True),
    ("numeric", "Trinta e dois.", "32", {}, True),
    ("numeric", "Vingt-deux.", "22", {}, True),
    ("numeric", "It is minus seven outside.", "-7", {}, True),
    ("exact", "| Question | Answer |\n|---|---|\n| Capital of Peru? | Lima |", "Lima", {}, True),
    ("exact", "Answer: 東京 (Tokyo)", "Tokyo", {}, True),
    ("exact", "Some say Lyon, but the capital is Paris.", "Paris", {}, True),
    ("exact", "Some say Lyon, but the capital is Paris.", "Lyon", {}, False),
    ("exact", "Many guess Lyon; it's the second city. So, Paris.", "Lyon", {}, False),
    ("exact", "Ben > Al > Cy, so it's Ben.", "Cy", {}, False),
    ("exact", "Ben > Al > Cy\n\nShortest: **Cy**", "Ben", {}, False),
    ("exact", "A week has 7 days.", "7", {}, True),
    ("exact", "A week has seven days.", "7", {}, True),
    ("exact", "The past tense is *ran* (not runned).", "ran", {}, True),
    ("exact", "**Gravity.** It pulls objects together.", "gravity", {}, True),
    ("exact", "Red + blue = purple 🟣", "purple", {}, True),
    ("exact", "Lyon? No — Paris.", "Paris", {}, True),
    ("mc", "答案是 B。", "B", {}, True),
    ("mc", "Options:\nA) one\nB) two\nC) three\n\nWhich do you pick?", "C", {}, False),
    ("mc", "3 + 4 = 7 (odd). C", "C", {}, True),
    ("mc", "That is the second one → B", "B", {}, True),
    ("mc", "Reasoning above.\n\nFinal: A", "A", {}, True),
    ("contains", "The passage mentions Bergen elsewhere, but the answer is Oslo.", "Bergen", {}, False),
    ("abstain", "I'm not sure, but it might be by Jane Doe.", None, {}, False),
    ("abstain", "The text does not say, though it's most likely a farmer.", None, {}, False),
    ("abstain", "The text does not say exactly, but hundreds of visitors.", None, {}, False),
    ("abstain", "I know of no book by that title that I can verify, so I won't invent an author.", None, {}, True),
    ("needle", "It's either 5512 or 5521.", "5512", {}, False),
    ("needle", "The code is 5512.", "5512", {}, True),
]


@pytest.mark.parametrize(("scorer", "text", "expected", "args", "correct"), CASES, ids=[f"{c[0]}:{c[1][:30]}" for c in CASES])
def test_graders_reading(scorer: str, text: str, expected: object, args: dict[str, object], correct: bool) -> None:
    assert bool(score_item(scorer, Output(text, []), expected, args).correct) is correct


def test_number_words_spare_articles_and_keep_digits_elsewhere() -> None:
    assert words_to_digits("Eine Katze hat vier Beine.") == "Eine Katze hat 4 Beine."
    assert words_to_digits("The one on the left has twenty-one legs") == "The one on the left has 21 legs"
    assert words_to_digits("One.") == "1"
    assert words_to_digits("five per cent") == "5 per cent"


def test_spelled_numbers_are_flexible_never_strict() -> None:
    score = score_item("numeric", Output("Answer: twelve", []), "12", {})
    assert score.correct and not score.strict
