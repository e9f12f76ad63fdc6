"""token-integrity: a long templated generation came back with no spliced token.

The row asks for ``args.lines`` lines of the form ``<n><sep> <word>`` (``args.word``,
e.g. ``17. ok``). A *spliced token* is a piece of text inside a line that started in
that form but does not belong there: a second number, a foreign word, a fragment
glued to the word ("okay" for "ok", "ok17"), a letter of another case mid-word ("oK"; the
whole word in capitals or capitalised is a style, not a splice), a digit that is not an
ASCII digit in the line's number ("5９"), or a line whose number and word are joined
unlike the generation's other lines ("57.ok" among "57. ok"). That is the signature of
KV-cache or batching corruption: text from another position or stream landing mid-line.
What is *not* a splice, and is counted separately: lines that are missing, repeated
or out of order (``counting``) and lines that left the template entirely (``drift``;
a small model wandering off into prose). accuracy = share of generations with no
splice among the *long* ones: a generation that came back with fewer than
:data:`MIN_LINE_SHARE` of the asked lines in the template form shows nothing about
integrity and scores 0 with the reason ("too short to judge"), rather than passing.
A generation the engine cut at its token limit (``finish_reason: length``) ends in a
partial line ("36" of "360. ok"); that last line is not judged. A clean run is not
proof of absence (workloads.txt), so the result reports the run, not the absence.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass

from servescope.scoring.base import Args, Output, Score
from servescope.scoring.text import strip_thinking

MIN_LINE_SHARE = 0.9
# ASCII digits only: a fullwidth or other script's digit inside the number is a foreign token
_LINE_START = re.compile(r"^\s*([0-9]+)(\s*[.:)]?)(\s*)")
_FOREIGN_NUMBER = re.compile(r"^\s*\d+\s*[.:)]")


@dataclass(frozen=True)
class Integrity:
    lines: int
    splices: list[str]
    drift: int
    counting: int


def inspect(text: str, word: str, cut: bool = False) -> Integrity:
    """``cut``: the generation stopped at the token limit, so its last line is partial and not judged."""
    splices: list[str] = []
    drift = counting = 0
    previous = 0
    lines = [ln for ln in strip_thinking(text).splitlines() if ln.strip()]
    if cut and lines:
        lines.pop()
    forms = {word, word.lower(), word.upper(), word.capitalize()}
    template = re.compile(rf"[0-9]+\s*[.:)]\s*{re.escape(word)}(?!\w)", re.IGNORECASE) if word.strip() else None
    parsed: list[tuple[str, re.Match[str], tuple[str, bool]]] = []  # (line, its start, how it joins number and word)
    for ln in lines:
        m = _LINE_START.match(ln)
        if m is None:
            # "٧. ok" (a foreign digit for its number) or "\ufeff77. ok", "<pad>77. ok" (a token before a
            # template line): the template with something spliced in, not a line that left it
            if _FOREIGN_NUMBER.match(ln) or (template is not None and _token_before_template(ln, template)):
                splices.append(ln.strip()[:60])
            else:
                drift += 1
            continue
        parsed.append((ln, m, _join(m)))
    # how this generation joins a line's number to its word ("17. ok", "17) ok", "17.ok"):
    # the form most of its lines take; a line joined otherwise has a token spliced in or out
    joins = Counter(join for _, _, join in parsed)
    usual = joins.most_common(1)[0][0] if joins else None
    for ln, m, join in parsed:
        n = int(m.group(1))
        if n != previous + 1:
            counting += 1
        previous = n
        rest = ln[m.end() :].strip().rstrip(".")
        if rest not in forms or join != usual:
            splices.append(ln.strip()[:60])
    return Integrity(len(lines), splices, drift, counting)


def _token_before_template(line: str, template: re.Pattern[str]) -> bool:
    """A template line with one short token glued before it ("<pad>30. ok", a byte-order mark), not a
    sentence that quotes the template ("Sure, here you go: 1. ok") or a markdown list mark ("- 1. ok")."""
    if len(line) > 100:  # far longer than a token and a template line (and keeps the search linear)
        return False
    m = template.search(line)
    if m is None or line[m.end() :].strip(" ."):
        return False
    prefix = line[: m.start()].strip()
    return bool(prefix) and len(prefix) <= 20 and " " not in prefix and not re.fullmatch(r"[-*+>#•]+", prefix)


def _join(m: re.Match[str]) -> tuple[str, bool]:
    """A line's separator after its number and whether a space follows it."""
    return m.group(2).strip(), bool(m.group(3)) or m.group(2)[:1].isspace()


def score(output: Output, expected: object, args: Args) -> Score:
    word = str(args.get("word", "ok"))
    cut = output.finish_reason == "length"
    found = inspect(output.text, word, cut=cut)
    want = int(args.get("lines", 0) or 0)
    detail = f"{found.lines} lines (asked {want}), {len(found.splices)} spliced, {found.drift} drift, {found.counting} counting"
    if cut:
        detail += "; cut at the token limit (its partial last line not judged)"
    if found.splices:
        detail += f"; first splice: {found.splices[0]!r}"
    if found.lines == 0:
        return Score(False, 0.0, None, detail="no lines came back")
    templated = found.lines - found.drift
    if want and templated < MIN_LINE_SHARE * want:
        return Score(
            False, 0.0, f"{found.lines} lines", strict=False, detail=f"too short to judge: {templated} of {want} lines in the template form; " + detail
        )
    clean = not found.splices
    return Score(
        clean, 1.0 if clean else 0.0, f"{found.lines} lines", strict=clean and found.drift == 0 and found.counting == 0 and found.lines == want, detail=detail
    )
