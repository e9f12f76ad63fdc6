"""exact: the answer equals the expected text or one of its aliases (casefolded,
whitespace and surrounding punctuation ignored, compatibility forms folded: CO₂ = CO2).

Strict: the whole answer is it. Flexible: the committed span (:mod:`.answer`: the last
anchored answer, else the final line) is it once asides are set apart — a parenthesised
justification ("Sunday (13 days after …)"), a clause after a comma, dash or "because"
("Saturday, not Friday" commits to Saturday), a unit or noun after it ("8 legs") — or
a sentence ending in it ("The capital of France is Paris."), or its last quoted term ("The
past tense of 'go' is 'went'."). A hyphen between letters reads as a space ("Ulan-Bator"), a
time in words as digits ("half past three in the afternoon" = "3:30 pm"). Naming the answer
and then denying it ("not Friday", "rather than Friday") never counts.
"""

from __future__ import annotations

import re

from servescope.scoring.answer import CORRECTION as _CORRECTION
from servescope.scoring.answer import NEGATION as _NEGATION
from servescope.scoring.answer import answer_span, answer_text, first_clause, fold, negated_before, without_footnote_marks, without_parentheticals
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.clock_words import clock_to_digits
from servescope.scoring.number_words import words_to_digits
from servescope.scoring.text import normalize

# Where the committed head of an answer ends and its justification begins.
_ASIDE = re.compile(r"\s*(?:[,;:]\s|\s[-–—]\s|—|\bbecause\b|\bsince\b|\bas\b|\bwhich\b|\bthat is\b|\bi\.e\.|\be\.g\.)", re.IGNORECASE)
# A head may carry a short unit or noun after the answer ("8 legs", "1945 AD", "Paris, France" is cut at the comma).
_MAX_TRAILING_WORDS = 2


# A hyphen between letters spells the same name as a space ("Ulan-Bator" = "Ulan Bator").
_WORD_HYPHEN = re.compile(r"(?<=[^\W\d_])[-\u2010\u2011](?=[^\W\d_])")


def _clean(text: str) -> str:
    return normalize(_WORD_HYPHEN.sub(" ", clock_to_digits(fold(text))))


def aliases(expected: object, args: Args) -> list[str]:
    base = expected if isinstance(expected, list) else [expected]
    extra = args.get("aliases") or []
    return [_clean(str(a)) for a in [*base, *extra] if a is not None and _clean(str(a))]


_HEDGE = re.compile(r"(?<!\w)(?:or|either|and/or|vs\.?|versus)(?!\w)")
_COPULA = re.compile(r"^(?:is|was|are|were|has been|had been|would be|will be)\b")


def _denied(text: str, name: str) -> bool:
    """The answer names ``name`` only to deny it ("not Friday", "Friday is not right")."""
    n = re.escape(name)
    mentions = list(re.finditer(rf"(?<!\w){n}(?!\w)", text))
    return (
        re.search(rf"(?<!\w){_NEGATION}\s+(?:the\s+|a\s+|an\s+)?{n}(?!\w)", text) is not None
        or re.search(rf"(?<!\w){n}\s+(?:is|was|are)\s*(?:not|n't|n’t)\b", text) is not None
        or (bool(mentions) and all(negated_before(text[: m.start()]) for m in mentions))  # "it does not border France"
    )


# Openers that carry no answer ("Sure!", "Great question.", "Let me think.").
_FILLER = re.compile(
    r"^(?:sure|of course|okay|ok|certainly|absolutely|great|good|yes|well|hmm+|alright|hello|hi|no problem|"
    r"(?:that's a |what a )?(?:great|good|nice|interesting) question|let me (?:think|see|check)|let's see)\b[^.!?]{0,20}[.!?:]*$",
    re.IGNORECASE,
)


# A conclusion that commits after the reasoning: "So, Sydney.", "..., so it's Fay.", "Therefore Lima."
_CONCLUSION = re.compile(r"(?:^|[.!?;,]\s*|\s[-–—]\s)(?:so|therefore|thus|hence|in short|in the end|so the answer is)\b[,:]?\s*", re.IGNORECASE)
# "Toronto is the largest city, but Ottawa is the capital": the clause after "but" is the one committed to
_BUT = re.compile(r",?\s+but\s+(?!not\b|also\b)", re.IGNORECASE)


def _committed(text: str) -> str:
    """What a span commits to: after its last correction ("Paris. Actually, Lyon."), else after
    its last conclusion ("..., so it's Fay."), else its first sentence that is not a filler
    opener ("Sure! It's Paris. Anything else?"), read from after a "but" when it has one."""
    corrections = list(_CORRECTION.finditer(text))
    if corrections:
        return text[corrections[-1].end() :]
    conclusions = [m for m in _CONCLUSION.finditer(text) if text[m.end() :].strip()]
    if conclusions:
        return text[conclusions[-1].end() :]
    sentences = [s for s in re.split(r"(?<=[.!?])\s+", text.strip()) if s.strip()]
    first = next((s for s in sentences if not _FILLER.match(s.strip())), sentences[0] if sentences else "")
    parts = _BUT.split(first)
    return parts[-1] if len(parts) > 1 and parts[-1].strip() else first


def _head_matches(head: str, names: list[str]) -> bool:
    if head in names or any(head.endswith(" " + n) for n in names):
        return True
    for n in names:
        if head.startswith(n + " "):
            rest = head[len(n) :].split()
            if _COPULA.match(" ".join(rest)):  # "Paris is the capital of France."
                return True
            if len(rest) <= _MAX_TRAILING_WORDS and not any(_clean(w) in names for w in rest) and not re.search(_NEGATION, " ".join(rest)):
                return True
    return False


def score(output: Output, expected: object, args: Args) -> Score:
    names = aliases(expected, args)
    if not names:
        return wrong(f"no expected answer ({expected!r})")
    text = answer_text(output.text)
    whole = _clean(text)
    if whole in names:
        return verdict(True, text[:80], strict=True)
    span = answer_span(output.text)
    candidates = [span.text]
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    if not span.anchored and len(lines) > 1 and not _CORRECTION.search("\n".join(lines[1:])) and _short_answer(lines[0]):
        candidates.append(lines[0])  # "Paris\n\nParis is the capital and largest city of France."
    if not span.anchored and (lead := _LEADING_BOLD.match(text)):
        candidates.append(lead.group(1))  # "**Friction.** It acts opposite to ..."
    if not span.anchored:
        bold = _BOLD.findall(span.text)
        candidates += bold if len(bold) == 1 else []  # "| Monday | **Sunday** |": the one term bolded in the final line
        arrowed = [m.group(1) for m in _ARROWED.finditer(text) if not re.search(_NEGATION, m.group(0), re.IGNORECASE)]
        if len(arrowed) == 1:
            candidates = [arrowed[0]]  # "5. Dev ← shortest": the line the answer points at, not the list's last one
    candidates += [unmarked for c in candidates if (unmarked := without_footnote_marks(c)) != c]  # "Rome¹": a footnote marker
    if any(_denied(_clean(_QUOTE_MARKS.sub("", text)), n) for n in names):  # "not 'Paris'" denies as "not Paris" does
        return verdict(False, span.text[:80] or None, strict=False, detail="names the answer only to deny it")
    for candidate in candidates:
        if _clean(candidate) in names:
            return verdict(True, candidate[:80], strict=False)
        committed = _committed(without_parentheticals(fold(candidate)))
        bare = _clean(first_clause(committed) or committed)  # "Spiders have 8 legs; insects have 6.": the remark is not the answer
        if _HEDGE.search(bare) and not any(_HEDGE.search(n) for n in names):
            continue  # "Paris or Lyon", "Paris, or maybe Lyon": no single answer committed to
        head = _clean(_ASIDE.split(bare, maxsplit=1)[0])
        if head and (_head_matches(head, names) or _head_matches(bare, names)):
            return verdict(True, candidate[:80], strict=False)
        said = _committed(fold(candidate))
        if _gloss_matches(candidate, names) or _number_matches(first_clause(said) or said, names) or _quoted_matches(candidate, names):
            return verdict(True, candidate[:80], strict=False)
    return verdict(False, span.text[:80] or None, strict=False)


_LEADING_BOLD = re.compile(r"^\s*\*\*([^*\n]{1,60})\*\*")
_QUOTE_MARKS = re.compile(r"[\"«»„“”‘’‚‹›「」『』]|(?<!\w)'|'(?!\w)")
_BOLD = re.compile(r"\*\*([^*\n]{1,60})\*\*")
# A list item or line the answer points at: "5. Dev ← shortest", "- Lima <- this one"
_ARROWED = re.compile(r"^\s*(?:\d+[.)]|[-*•])?\s*([^\n←⟵]+?)\s*(?:←|⟵|<-+)[^\n]*$", re.MULTILINE)
_GLOSS = re.compile(r"^\s*([^()\[\]]+?)\s*[(\[]([^()\[\]]+)[)\]]\W*$")


def _short_answer(line: str) -> bool:
    """A first line that can be the answer on its own: a few words, not a worked chain ("Cara > Ana > Fay")."""
    return len(line.split()) <= 4 and not re.search(r"[<>=→]", line)


def _gloss_matches(candidate: str, names: list[str]) -> bool:
    """ "Москва (Moscow)": a one-term answer glossed in brackets, the gloss being the expected term."""
    m = _GLOSS.match(fold(candidate))
    if m is None:
        return False
    return len(m.group(1).split()) <= 3 and _clean(m.group(2)) in names and not re.search(_NEGATION, m.group(2), re.IGNORECASE)


# A term quoted in any script's marks; a single quote only where it is not an apostrophe ("it's").
_QUOTED = re.compile(r"\"([^\"\n]+)\"|(?<!\w)'([^'\n]+)'(?!\w)|«\s*([^»\n]+?)\s*»|„([^“”\n]+)[“”]|“([^”\n]+)”|‘([^’\n]+)’|「([^」\n]+)」|『([^』\n]+)』")


def _quoted_matches(sentence: str, names: list[str]) -> bool:
    """A sentence that ends in its answer as its last quoted term ("The past tense of 'go' is 'went'.",
    "In inglese si dice \"book\"."): that term, unless a denial leads into it ("…, not 'Paris'.").
    A quoted term that opens the sentence ("'Paris' is what many say; …") is not its answer."""
    text = fold(sentence).strip()
    found = list(_QUOTED.finditer(text))
    if not found or re.search(r"\w", text[found[-1].end() :]):
        return False
    term = next(g for g in found[-1].groups() if g is not None)
    return _clean(term) in names and not re.search(rf"(?<!\w){_NEGATION}\W*$", text[: found[-1].start()], re.IGNORECASE)


def _number_matches(sentence: str, names: list[str]) -> bool:
    """An expected number stated in a sentence, in digits or words ("There are 26 letters.",
    "Three hundred sixty-six.", "Spiders have eight (8) legs."): the sentence's only number."""
    wanted = {n for n in names if re.fullmatch(r"-?\d+(?:\.\d+)?", n)}
    if not wanted:
        return False
    found = {m.group(0) for m in re.finditer(r"-?\d+(?:\.\d+)?", words_to_digits(without_parentheticals(sentence)).replace(",", ""))}
    return len(found) == 1 and found <= wanted
