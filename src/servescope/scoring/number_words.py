"""Number words read as digits ("twelve" -> 12, "fifty-seven" -> 57, "sieben" -> 7), for
answers that spell their number out. English up to the hundreds ("three hundred and
five"); French, Spanish, German, Italian and Portuguese from zero to twenty and the
tens. A word that is also an article ("one", "un", "eine", "uno") counts only when it
is the whole answer ("One.", "Un.") or follows a numbering word ("number one", "numéro un"),
so "Eine Katze hat vier Beine" reads as 4, not 1.
Callers apply it only to an answer with no digit in it: digits always win."""

from __future__ import annotations

import re

_EN_UNITS = [
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
]
_EN_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90}
_OTHER: dict[str, int] = {}
for words in (
    # French, Spanish, German, Italian, Portuguese: 0..20 then tens
    "zéro un deux trois quatre cinq six sept huit neuf dix onze douze treize quatorze quinze seize dix-sept dix-huit dix-neuf vingt",
    "cero uno dos tres cuatro cinco seis siete ocho nueve diez - doce trece catorce quince dieciséis diecisiete dieciocho diecinueve veinte",
    "null eins zwei drei vier fünf sechs sieben acht neun zehn - zwölf dreizehn vierzehn fünfzehn sechzehn siebzehn achtzehn neunzehn zwanzig",
    "zero uno due tre quattro cinque sei sette otto nove dieci undici dodici tredici quattordici quindici sedici diciassette diciotto diciannove venti",
    "zero um dois três quatro cinco seis sete oito nove dez onze doze treze catorze quinze dezesseis dezessete dezoito dezenove vinte",
):
    for value, word in enumerate(words.split()):
        if word != "-":  # "-": a number word that is also an English word (es "once", de "elf"), left out
            _OTHER.setdefault(word, value)
for word, value in {
    "trente": 30,
    "quarante": 40,
    "cinquante": 50,
    "soixante": 60,
    "treinta": 30,
    "cuarenta": 40,
    "cincuenta": 50,
    "sesenta": 60,
    "dreißig": 30,
    "dreissig": 30,
    "vierzig": 40,
    "fünfzig": 50,
    "sechzig": 60,
    "trenta": 30,
    "quaranta": 40,
    "cinquanta": 50,
    "sessanta": 60,
    "trinta": 30,
    "quarenta": 40,
    "cinquenta": 50,
    "sessenta": 60,
}.items():  # fmt: skip  (no hundreds: "cent" and "cento" are English words, as in "per cent")
    _OTHER.setdefault(word, value)
_EN = {w: i for i, w in enumerate(_EN_UNITS)} | _EN_TENS
_ARTICLES = frozenset({"one", "un", "une", "uno", "una", "ein", "eine", "eins", "um", "uma"})

_WORD = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*", re.UNICODE)


def _english(tokens: list[str]) -> int | None:
    """A run of English number words ("three hundred and five", "fifty-seven") as one value."""
    total, current, seen = 0, 0, False
    for token in tokens:
        for part in token.split("-"):
            if part in _EN:
                current += _EN[part]
            elif part == "hundred" and seen:
                current *= 100
            elif part == "thousand" and seen:
                total, current = total + current * 1000, 0
            elif part == "and" and seen:
                continue
            else:
                return None
            seen = True
    return total + current if seen else None


_FRACTION_WORDS = {"half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4, "fifth": 5, "fifths": 5}
# "two and a half" (after the words became digits: "2 and a half"), "one half", "a quarter", "three quarters"
_AND_A = re.compile(r"(?<!\d)(\d++)\s+and\s+(?:a|one)\s+(half|third|quarter)\b", re.IGNORECASE)
_FRACTION = re.compile(r"\b(a|an|one|\d+)[\s-]+(halfs?|halves|thirds?|quarters?|fourths?|fifths?)\b", re.IGNORECASE)
# Romance compounds: "vinte e quatro", "treinta y dos", "vingt-quatre", "vingt et un"
_COMPOUND = re.compile(r"\b(\d0)(?:\s+(?:e|y|et)\s+|-)(\d)\b")
_MINUS = re.compile(r"\b(?:minus|negative)\s+(?=\d)", re.IGNORECASE)


# A sign said in words before a number, in the languages above: "negative 24", "moins 5", "menos 3".
_SIGN_WORD = re.compile(r"(?<![\w-])(?:minus|negative|negativ|moins|n[ée]gatif|menos|negativo|meno)\s+(?=\d)", re.IGNORECASE)


def sign_words_to_minus(text: str) -> str:
    """``text`` with a sign word before a number as "-" ("Answer: negative 24" -> "Answer: -24");
    not after an operand ("10 minus 4" is a subtraction, left as it is)."""

    def one(m: re.Match[str]) -> str:
        return m.group(0) if re.search(r"[\d)\]}]\s*$", text[: m.start()]) else "-"

    return _SIGN_WORD.sub(one, text)


def _fractions(text: str) -> str:
    text = _AND_A.sub(lambda m: f"{m.group(1)} 1/{_FRACTION_WORDS[m.group(2).casefold()]}", text)

    def one(m: re.Match[str]) -> str:
        count = m.group(1).casefold()
        num = 1 if count in ("a", "an", "one") else int(count)
        return f"{num}/{_FRACTION_WORDS[m.group(2).casefold().rstrip('s') if m.group(2).casefold() not in _FRACTION_WORDS else m.group(2).casefold()]}"

    return _FRACTION.sub(one, text)


def words_to_digits(text: str) -> str:
    """``text`` with its number words replaced by digits (see the module docstring), fractions
    in words ("two and a half", "three quarters") as a/b and "minus four" as -4."""
    return _MINUS.sub("-", _fractions(_COMPOUND.sub(lambda m: str(int(m.group(1)) + int(m.group(2))), _words_to_digits(text))))


# After a numbering word an article-like "one" is the number ("element number one", "numéro un", "Nummer eins").
_NUMBERED_ONE = re.compile(r"(?<!\w)(number|numéro|número|numero|nummer|no\.|nr\.|n°)\s+(?:one|un|une|uno|una|ein|eins|um|uma)(?!\w)", re.IGNORECASE)


def _words_to_digits(text: str) -> str:
    whole = text.strip().strip(".!*_ ").casefold()
    if whole in _ARTICLES:
        return "1"
    text = _NUMBERED_ONE.sub(lambda m: f"{m.group(1)} 1", text)
    out: list[str] = []
    last = 0
    matches = list(_WORD.finditer(text))
    i = 0
    while i < len(matches):
        m = matches[i]
        word = m.group(0).casefold()
        # the longest run of English number words from here ("three hundred and five")
        j = i
        while j < len(matches) and all(p in _EN or p in ("hundred", "thousand", "and") for p in matches[j].group(0).casefold().split("-")):
            if text[matches[j - 1].end() : matches[j].start()].strip() if j > i else False:
                break  # a comma or stop between words ends the run
            j += 1
        while j > i and matches[j - 1].group(0).casefold() == "and":
            j -= 1
        run = [x.group(0).casefold() for x in matches[i:j]]
        value = _english(run) if run and run != ["one"] else None
        if value is not None:
            out.append(text[last : m.start()] + str(value))
            last = matches[j - 1].end()
            i = j
            continue
        parts = word.split("-")
        if word in _OTHER and word not in _ARTICLES:
            out.append(text[last : m.start()] + str(_OTHER[word]))
            last = m.end()
        elif len(parts) == 2 and all(p in _OTHER for p in parts) and _OTHER[parts[0]] % 10 == 0 and _OTHER[parts[1]] < 10:
            out.append(text[last : m.start()] + str(_OTHER[parts[0]] + _OTHER[parts[1]]))  # "vingt-quatre"
            last = m.end()
        i += 1
    out.append(text[last:])
    return "".join(out)


__all__ = ["sign_words_to_minus", "words_to_digits"]
