"""Answer styles a careful grader reads one way and the scorers once read another (issue 33, the
classes left after the second blind set's fixes): an option named by a word only it has or set
against the others; a name hyphenated where the expected one has a space; a time said in words;
a term given as the last quoted one of a sentence; a value restated in other units after it; a
numbered list where bullet points were asked; a bolded or arrowed pick; "number one"; abbreviations
in word and sentence counts. Every case is written here, none copied from a set."""

from __future__ import annotations

import pytest

from servescope.scoring import score_item
from servescope.scoring.base import Output
from servescope.scoring.clock_words import clock_to_digits

PLANETS = {"choices": ["Venus", "Jupiter", "Mars", "Saturn"]}
PAINTERS = {"choices": ["Claude Monet", "Vincent van Gogh", "Rembrandt van Rijn", "Frida Kahlo"]}
ACTIONS = {"choices": ["Ignore the alarm.", "Leave the building calmly.", "Hide under the stairs.", "Call a friend first."]}
ANIMALS = {"choices": ["a mouse", "an elephant", "a rabbit", "a fox"]}
NEGATED = {"choices": ["the lamp will light", "the lamp will not light", "the fuse melts", "nothing changes"]}

CASES = [
    # mc: the option named by a word only it has
    ("mc", "Van Gogh, in 1889.", "B", PAINTERS, True),
    ("mc", "Kahlo painted it.", "D", PAINTERS, True),
    ("mc", "Kahlo painted it.", "B", PAINTERS, False),
    ("mc", "Van Gogh or Rembrandt, I think.", "B", PAINTERS, False),  # two named: no choice ("van" is shared, not read)
    ("mc", "You should calmly leave the building.", "B", ACTIONS, True),  # paraphrased
    ("mc", "Do not hide under the stairs; leave calmly.", "B", ACTIONS, True),
    ("mc", "Don't leave; hide under the stairs.", "B", ACTIONS, False),
    # ... and set against the others: what follows than / ahead of / unlike / not is not the choice
    ("mc", "An elephant is far heavier than a mouse, a rabbit or a fox.", "B", ANIMALS, True),
    ("mc", "A fox is heavier than a mouse.", "B", ANIMALS, False),
    ("mc", "Jupiter, well ahead of Saturn.", "B", PLANETS, True),
    ("mc", "Unlike Mars, Venus is hotter.", "A", PLANETS, True),
    ("mc", "Not Jupiter but Saturn.", "B", PLANETS, False),
    ("mc", "Not Jupiter but Saturn.", "D", PLANETS, True),
    ("mc", "I'm not sure, but I think Jupiter.", "B", PLANETS, True),
    # an option whose own text holds a "not" is still named whole
    ("mc", "Then the lamp will not light.", "B", NEGATED, True),
    ("mc", "Then the lamp will not light.", "A", NEGATED, False),
    # exact: a hyphen between letters spells the same name as a space
    ("exact", "Answer: Port-au Prince", "Port au Prince", {}, True),
    ("exact", "Answer: Abu Dhabi", "Abu-Dhabi", {}, True),
    ("exact", "Answer: Saint-Denis", "Saint-Malo", {}, False),
    # exact: a time said in words
    ("exact", "The bus leaves at quarter past seven.", "7:15", {}, True),
    ("exact", "Answer: quarter to nine in the evening", "8:45 pm", {}, True),
    ("exact", "Answer: ten o'clock in the morning", "10:00 am", {"aliases": ["10 am"]}, True),
    ("exact", "Answer: half past four", "5:30", {}, False),
    ("exact", "Answer: half past four in the morning", "4:30 pm", {}, False),
    # exact: the last quoted term of a sentence
    ("exact", "The plural of 'mouse' is 'mice'.", "mice", {}, True),
    ("exact", "En français on dit « pomme ».", "pomme", {}, True),
    ("exact", "Auf Deutsch heißt es „Hund“.", "Hund", {}, True),
    ("exact", "The plural of 'mouse' is 'mice'.", "mouse", {}, False),
    ("exact", "It's not 'goed'; it's 'went'.", "goed", {}, False),
    ("exact", "The answer is 'Oslo', not 'Bergen'.", "Bergen", {}, False),  # a denial leads into the last quoted term
    ("exact", "The answer is 'Oslo', not 'Bergen'.", "Oslo", {}, True),
    ("exact", "'Bergen' is what many guess; the capital is Oslo.", "Bergen", {}, False),  # a quoted opener is not the answer
    ("exact", "It is not «Bergen».", "Bergen", {}, False),
    # numeric: a value restated in other units after it
    ("numeric", "Water boils at 212 °F, which is 100 °C or 373.15 K.", "212", {}, True),
    ("numeric", "Water boils at 212 °F, which is 100 °C or 373.15 K.", "373.15", {}, False),
    ("numeric", "The track is 400 m, i.e. 0.4 km.", "400", {}, True),
    ("numeric", "It weighs 2 kg, that is 2000 g.", "2", {}, True),
    ("numeric", "It takes 3 hours or 4 hours.", "4", {}, False),
    (
        "numeric",
        "There are 12 apples, or 14 if you count the two rotten ones.",
        "12",
        {},
        False,
    ),  # "if" is no unit  # the same unit twice is a hedge, not a restatement
    # exact: the one term bolded in the final line, the one line an arrow points at
    ("exact", "Counting on from June:\n\n| Start | End |\n|---|---|\n| June | **October** |", "October", {}, True),
    ("exact", "Counting on from June:\n\n| Start | End |\n|---|---|\n| **June** | October |", "October", {}, False),
    ("exact", "| **June** | **October** |", "October", {}, False),  # two bolded: no single pick
    ("exact", "Lightest first:\n1. Oslo\n2. Rome <- lightest of the big ones\n3. Lima", "Rome", {}, True),
    ("exact", "Ranked:\n- Kim\n- Lee ← winner\n- Ray", "Ray", {}, False),  # the pointed-at line, not the list's last
    ("exact", "Ranked:\n- Kim\n- Lee ← winner\n- Ray", "Lee", {}, True),
    ("exact", "Ranked:\n- Kim ←\n- Lee ←\n- Ray", "Kim", {}, False),  # two arrows: no single pick
    ("exact", "Ranked:\n- Kim\n- Lee <- not this one\n- Ray", "Lee", {}, False),  # an arrow that denies
    # numeric: after a numbering word, "one" is the number, not an article
    ("numeric", "Carbon sits in group fourteen; hydrogen is element number one.", "1", {}, True),
    ("numeric", "C'est le numéro un.", "1", {}, True),
    ("numeric", "It is one of the noble gases.", "1", {}, False),
    # numeric and exact: a parallel remark after ";" about something else is not the answer
    ("numeric", "A hexagon has 6 sides; an octagon has 8.", "6", {}, True),
    ("numeric", "A hexagon has 6 sides; an octagon has 8.", "8", {}, False),
    ("numeric", "Tom had 15; he sold 6 and kept 9.", "9", {}, True),  # not parallel: the working goes on
    ("numeric", "Tom had 15; he sold 6, so 9 remain.", "15", {}, False),
    ("numeric", "Mars has 2 moons; no wait, Mars has 3.", "2", {}, False),  # a correction, not a remark
    ("exact", "A week has 7 days; a fortnight has 14.", "7", {"aliases": ["seven"]}, True),
    ("exact", "A week has 7 days; a fortnight has 14.", "14", {}, False),
    # instruction: an abbreviation with inner dots is one word and ends no sentence
    ("instruction", "Rain helps crops, e.g. wheat and rice. It cools the air.", None, {"rules": [{"rule": "sentence_count", "value": 2}]}, True),
    ("instruction", "Dr. Lee likes rain vs. snow. It is calm.", None, {"rules": [{"rule": "sentence_count", "value": 2}]}, True),
    ("instruction", "Rain helps crops. Wheat and rice. It cools the air.", None, {"rules": [{"rule": "sentence_count", "value": 2}]}, False),
    ("instruction", "See you in the U.S. soon.\n\nP.S. Call me.", None, {"rules": [{"rule": "max_words", "value": 9}]}, True),
    ("instruction", "See you in the U.S. soon.\n\nP.S. Call me now.", None, {"rules": [{"rule": "max_words", "value": 9}]}, False),
    # instruction: bullet points are markdown bullets, not a numbered list
    ("instruction", "1. Snow.\n2. Ice.\n3. Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, False),
    ("instruction", "1) Snow.\n2) Ice.\n3) Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, False),
    ("instruction", "- Snow.\n* Ice.\n+ Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, True),
    ("instruction", "- Snow.\n- Ice.\n• Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, False),  # "•" is not markdown (set 7)
    ("instruction", "+ Snow.\n+ Ice.\n+ Wind.", None, {"rules": [{"rule": "bullet_count", "value": 3}]}, True),
]


@pytest.mark.parametrize(("scorer", "text", "expected", "args", "correct"), CASES, ids=[f"{c[0]}:{c[1][:30]}" for c in CASES])
def test_graders_reading(scorer: str, text: str, expected: object, args: dict[str, object], correct: bool) -> None:
    s = score_item(scorer, Output(text), expected, args)
    assert s.correct is correct, s


@pytest.mark.parametrize(
    ("text", "digits"),
    [
        ("half past three", "3:30"),
        ("Quarter past twelve", "12:15"),
        ("quarter to one", "12:45"),
        ("5 o'clock in the afternoon", "5:00 pm"),
        ("eleven o’clock at night", "11:00 pm"),
        ("half past 6 a.m.", "6:30 am"),
        ("at a quarter past seven", "at 7:15"),
        ("three thirty in the afternoon", "3:30 pm"),
        ("eleven forty-five p.m.", "11:45 pm"),
        ("It ends at noon.", "It ends at 12:00 pm."),
        ("by midnight", "by 12:00 am"),
        ("three fifteen-minute breaks", "three fifteen-minute breaks"),  # a count, not a time
        ("one of the three", "one of the three"),  # no clock phrase: untouched
    ],
)
def test_clock_words(text: str, digits: str) -> None:
    assert clock_to_digits(text) == digits


def test_words_said_outside_an_option_never_name_it() -> None:
    from servescope.scoring.mc import named_options

    assert named_options("I am not sure.", PLANETS["choices"]) == []  # type: ignore[arg-type]
    assert named_options("Mars and Venus are both rocky.", PLANETS["choices"]) == [0, 2]  # type: ignore[arg-type]
