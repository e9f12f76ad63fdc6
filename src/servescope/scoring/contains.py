"""contains: the answer mentions all (``mode: all``, the default) or any
(``mode: any``) of the expected phrases, casefolded, as whole words.

Read the way a grader reads it (:mod:`.answer`): in the anchored answer where there is
one ("..., but the answer is Oslo"), after the answer's last correction
("Quito — actually, the passage says Oslo" commits to Oslo), a phrase named only to be
denied ("not in Perth") or hedged between two ("Quito or Lima") is not mentioned. A word
may take its plural ("kettles" for kettle), a number its spelled-out form ("fifty-seven"
for 57), and a number is never found inside a larger one ("1,130" does not mention 130).
"""

from __future__ import annotations

import re

from servescope.scoring.answer import CORRECTION, NEGATION, answer_span, answer_text, negated_before, without_footnote_marks
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.number_words import words_to_digits

# Scripts written without spaces between words (Han, kana, Thai, and Hangul's particles): a
# character of theirs next to the phrase is not part of it ("1987年に開業" mentions 1987), unless
# it is of the phrase's own script ("京都" is not in "東京都").
_UNSPACED = {
    "han": "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff",
    "kana": "\u3040-\u30ff\uff66-\uff9f",
    "thai": "\u0e00-\u0e7f",
    "hangul": "\uac00-\ud7af",
}


def _word(edge: str) -> str:
    """A word character that would run on into a phrase whose edge character is ``edge``."""
    own = next((name for name, chars in _UNSPACED.items() if re.fullmatch(f"[{chars}]", edge)), None)
    return "[^\\W" + "".join(chars for name, chars in _UNSPACED.items() if name != own) + "]"


def _pattern(phrase: str) -> str | None:
    words = phrase.casefold().split()
    if not words:
        return None
    body = r"\s+".join(re.escape(w) for w in words)
    if re.fullmatch(r"[\d.,]+", phrase.strip()):
        return rf"(?<!{_word('0')})(?<![.,])(?<!\d[.,])" + body + rf"(?![.,]?\d)(?!{_word('0')})"  # 130 is not in 1,130 nor in 130.5
    if words[-1].isalpha():
        body += r"(?:s|es)?"  # a plural names the same thing
    return rf"(?<!{_word(words[0][0])})" + body + rf"(?!{_word(words[-1][-1])})"


def _committed_mention(text: str, phrase: str) -> bool:
    """Mentioned, and not only to be denied or hedged."""
    pattern = _pattern(phrase)
    if pattern is None:
        return False
    folded = text.casefold()
    for m in re.finditer(pattern, folded):
        before, after = folded[max(0, m.start() - 40) : m.start()], folded[m.end() : m.end() + 40]
        if re.search(rf"(?<!\w){NEGATION}\s+(?:(?:in|at|on|from|by|to|of|for|with|the|a|an)\s+){{0,2}}$", before):
            continue  # "not in Perth", "isn't Perth"
        if negated_before(folded[: m.start()]):
            continue  # "it does not employ 57 people"
        if re.match(r"\s+(?:or|and/or)\s+(?:maybe\s+|perhaps\s+)?\w", after) or re.search(r"\w\s+or\s+(?:maybe\s+|perhaps\s+)?$", before):
            continue  # "Quito or Lima"
        return True
    return False


def score(output: Output, expected: object, args: Args) -> Score:
    phrases = [str(p) for p in (expected if isinstance(expected, list) else [expected]) if p is not None and str(p).strip()]
    phrases += [str(a) for a in args.get("aliases") or []]
    if not phrases:
        return wrong(f"no expected phrase ({expected!r})")
    text = answer_text(output.text)
    span = answer_span(output.text)
    if span.anchored:  # "The passage mentions 57 elsewhere, but the answer is 58.": the anchored answer is the answer
        text = span.text
    corrections = list(CORRECTION.finditer(text))
    if corrections:
        text = text[corrections[-1].end() :]
    spelled = words_to_digits(text)
    unmarked = without_footnote_marks(text)  # "the kettle¹.": a footnote marker glued to the answer
    hits = [p for p in phrases if _committed_mention(text, p) or _committed_mention(spelled, p) or _committed_mention(unmarked, p)]
    mode = args.get("mode", "all" if isinstance(expected, list) else "any")
    ok = len(hits) == len(phrases) if mode == "all" else bool(hits)
    return verdict(ok, text[:80] or None, detail=f"mentions {len(hits)}/{len(phrases)}")
