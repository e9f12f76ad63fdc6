"""mc: the chosen option letter. Reads "(D)", "D)", "D.", "**D**", "[D]", "Answer: d",
"The answer is D", "Option D", "B is the correct answer", "I'd go with C" and a bare "D"; the last stated choice wins (a late
correction). A lower-case "a" outside an answer anchor is the article, never a choice. The
options echoed one a line with exactly one ticked ("C) helium ✓", "- [x] C)", "<- my pick"),
or all but one crossed out, choose that one.
Strict: the whole answer is the letter (with optional brackets/period)."""

from __future__ import annotations

import re

from servescope.scoring.answer import NEGATION, answer_text, json_answer
from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import anchored, normalize, strip_thinking

_BARE = re.compile(r"^\(?\[?\*{0,2}([A-Ja-j])\*{0,2}\]?\)?[.:)]?$")
_ANCHORED_LETTER = re.compile(r"^[\s*\"'(\[]*(?:option\s+|choice\s+)?([A-Ja-j])(?![A-Za-z])")
# "B is the correct answer", "the correct option is B", "I'd go with B", "I choose (C)": upper-case only.
_DECLARED = re.compile(
    r"(?<![A-Za-z'’])([A-J])\b\)?\s+(?:is|would be|seems)\s+(?:the\s+)?(?:correct|right|best|answer|most\s+\w+)"
    r"|(?:correct|right|best)\s+(?:answer|option|choice)\s*(?:is|would be|:)\s*\(?\**([A-J])\b"
    r"|(?:go\s+with|choose|pick|select|opt\s+for)\s+(?:option\s+|choice\s+|answer\s+)?\(?\**([A-J])\b"
    r"|(?:正确)?(?:答案|选项)\s*(?:是|为|：|:)\s*\(?([A-J])"
)
_TWO_LETTERS = re.compile(r"^[\s*\"'(\[]*([A-J])\b[\s*)\].]*(?i:or|and|/|und|oder|ou|o)\s*[\s*\"'(\[]*([A-J])\b")
# a choice stated last, on its own after the work: "... = 91 (odd). B", "Sonata No. 14 → C", "Es par → A"
_TRAILING_LETTER = re.compile(r"(?:^|[\s.→:>)])\(?([A-J])\)?[.!]?\s*$")
_MARKED = re.compile(r"\(([A-J])\)|\[([A-J])\]|\*\*([A-J])\*\*|(?:option|choice)\s+([A-J])\b|(?<![A-Za-z])([A-J])[).:](?=\s|$)", re.IGNORECASE)


def letter(text: str) -> tuple[str | None, bool]:
    """(the chosen letter or None, whether it was given strictly)."""
    t = answer_text(text).strip()
    stated = json_answer(t)
    if stated is not None and isinstance(stated[1], str):
        t = stated[1].strip()  # {"answer": "B"}: the answer key's value is the answer
    m = _BARE.match(t.replace(" ", ""))
    if m and (m.group(1).isupper() or len(t) <= 3):
        return m.group(1).upper(), True
    lines = [ln.strip() for ln in t.splitlines() if ln.strip()]
    first = _BARE.match(lines[0].replace(" ", "")) if len(lines) > 1 else None
    if first and first.group(1).isupper() and anchored(t) is None and not _MARKED.search("\n".join(lines[1:])) and not _DECLARED.search("\n".join(lines[1:])):
        return first.group(1), False  # "B\n\nBecause ...": the letter, then its explanation
    anchor = anchored(t)
    if anchor is not None:
        if _TWO_LETTERS.match(anchor):
            return None, False  # "Answer: C or D": two choices hedged is no choice
        m = _ANCHORED_LETTER.match(anchor)
        if m:
            return m.group(1).upper(), False
    found: list[tuple[int, str]] = []
    ticked = _ticked(t)
    if ticked is not None:
        found.append(ticked)  # "A) ... ✗\nB) ... ✓": the options listed, one ticked; a later stated choice still wins
    listed = _listed_options(t)
    for m in _MARKED.finditer(t):
        g = next(x for x in m.groups() if x)
        if m.start() in listed:
            continue  # "A) a swimsuit\nB) pajamas\n...": the options echoed, not a choice
        if g.isupper() or m.group(0).lower().startswith(("option", "choice")):
            found.append((m.start(), g.upper()))
    for m in _DECLARED.finditer(t):
        at = next(i for i in range(1, len(m.groups()) + 1) if m.group(i))
        if m.start(at) not in listed:  # "... <- my pick\nC) helium": the next option's marker is no choice
            found.append((m.start(), m.group(at)))
    if (last := _TRAILING_LETTER.search(t)) is not None:
        found.append((last.start(1), last.group(1)))  # "24 + 12 + ... = 91 (odd). B", "Sonata No. 14 → C"
    return (max(found)[1] if found else None), False


# An option line ("B) Jupiter", "- [x] (B) Jupiter") and a tick on it: a check mark or a checked box.
_OPTION_LINE = re.compile(r"^\s*(?:[-*•]\s+)?(?P<box>\[[ xX✓✔]\]\s*)?(?:[✓✔☑✅🗸]\s*)?\(?(?P<letter>[A-J])[).:]\s+\S", re.MULTILINE)
_TICK = re.compile(
    r"[✓✔☑✅🗸]|^\s*(?:[-*•]\s+)?\[[xX✓✔]\]"
    r"|(?:<-+|←|⬅|👈)[^\n]*$|\((?:my\s+(?:pick|answer|choice)|this\s+one|correct|the\s+answer)\)",  # "B) copper <- my pick", "(correct)"
    re.IGNORECASE,
)
_CROSS = re.compile(r"[✗✘❌❎☒]")


def _ticked(text: str) -> tuple[int, str] | None:
    """(where, which) for the one option ticked in a list of two or more options, each on its
    line; None when no such list, or when it ticks none or several."""
    lines: dict[str, tuple[int, str]] = {}
    for m in _OPTION_LINE.finditer(text):
        end = text.find("\n", m.start())
        lines[m.group("letter")] = (m.start("letter"), text[m.start() : end if end >= 0 else len(text)])
    ticked = [(at, letter) for letter, (at, line) in lines.items() if _TICK.search(line)]
    if not ticked:  # "A) ... ✗\nB) ...\nC) ... ✗": every option crossed out but one
        ticked = [(at, letter) for letter, (at, line) in lines.items() if not _CROSS.search(line)]
    return ticked[0] if len(lines) >= 2 and len(ticked) == 1 else None


def _listed_options(text: str) -> set[int]:
    """Where lines start with option markers of two or more different letters (an echoed list
    of the options, not a choice): the markers' positions."""
    marks = {m.start(1): m.group(2) for m in re.finditer(r"^\s*(\(?([A-J])[).:])\s+\S", text, re.MULTILINE)}
    return set(marks) if len(set(marks.values())) >= 2 else set()


# What comes after these in a clause is what the answer sets its choice against, not the choice:
# "A car weighs more than a bicycle, a book or a cat", "Everest, ahead of K2", "Bach rather than Handel".
# A fronted "Unlike Mars, ..." / "Compared with Mars, ..." ends at its comma; "more than a, b or c" does not;
# a "but" ends either ("I'm not sure, but I think Jupiter").
_SET_AGAINST = re.compile(
    rf"(?<!\w)(?:(?:unlike|compared (?:to|with))(?!\w)[^,.;!?\n]*|(?:{NEGATION}|than|ahead of|followed by|not|nor)(?!\w)(?:(?!\bbut\b)[^.;!?\n])*)",
    re.IGNORECASE,
)
_OPTION_WORD = re.compile(r"\w+")
_FUNCTION_WORDS = frozenset(
    ["a", "an", "the", "of", "and", "or", "to", "in", "on", "at", "for", "by", "with", "it", "its", "is", "are", "was", "be", "this", "that", "these", "those"]
)


def _words(text: str) -> set[str]:
    return {w for w in _OPTION_WORD.findall(normalize(text)) if w not in _FUNCTION_WORDS}


def named_options(text: str, choices: list[str]) -> list[int]:
    """The options an answer without a letter names: an option's whole text, or a word of it that no
    other option has ("Vivaldi" for "Antonio Vivaldi", "help her pick them up" paraphrased) — read
    outside what the answer sets against its choice ("more than a bicycle", "ahead of K2")."""
    norm = normalize(text)
    against = [(m.start(), m.end()) for m in _SET_AGAINST.finditer(norm)]
    said_words = _words(_SET_AGAINST.sub(" ", norm))
    option_words = [_words(c) for c in choices]
    hits = []
    for i, (choice, words) in enumerate(zip(choices, option_words, strict=True)):
        others = set().union(*(w for j, w in enumerate(option_words) if j != i))
        whole = normalize(choice)
        # the option's own text may hold a "not" ("it will not run"): only what precedes it in its clause sets it against
        named = whole and any(not any(a < m.start() < b for a, b in against) for m in re.finditer(rf"(?<!\w){re.escape(whole)}(?!\w)", norm))
        if named or (words - others) & said_words:
            hits.append(i)
    return hits


def score(output: Output, expected: object, args: Args) -> Score:
    want = normalize(str(expected or "")).upper()
    if len(want) != 1 or not "A" <= want <= "J":
        return wrong(f"expected answer {expected!r} is not an option letter")
    got, strict = letter(output.text)
    if got is None:
        choices = args.get("choices")
        if isinstance(choices, list) and 0 <= ord(want) - 65 < len(choices):
            # No letter, but exactly the right option named: flexible only.
            hits = named_options(answer_text(output.text), [str(c) for c in choices])
            if hits == [ord(want) - 65]:
                return verdict(True, str(choices[hits[0]])[:80], strict=False)
        return wrong("no option letter in the answer", strip_thinking(output.text)[:80] or None, strict=False)
    return verdict(got == want, got, strict=strict)
