"""Text helpers every scorer shares: strip thinking, find the last anchored answer,
read a brace-balanced ``\\boxed{...}``."""

from __future__ import annotations

import re
import unicodedata

_THINK_BLOCK = re.compile(r"<(think|thinking|reasoning)>.*?</\1>", re.DOTALL | re.IGNORECASE)
_THINK_OPEN = re.compile(r"<(think|thinking|reasoning)>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"</(think|thinking|reasoning)>", re.IGNORECASE)

# "Answer: X", "The answer is X", "final answer: X" — the last one wins (a late correction);
# also the word in the languages the suites ask in ("Réponse : B", "Antwort: 7", "答案：C").
ANSWER_ANCHOR = re.compile(
    r"(?:final\s+answer|answer|final(?=\s*[:：])|r[ée]ponse(?:\s+finale)?|respuesta(?:\s+final)?|antwort|risposta|resposta|ответ|答案|回答|答え|解答|정답)"
    r"\s*(?:\bis\b|[:：=]|是|为|[-–](?!\d))+\s*(?=(?P<rest>[^\n]*))",
    re.IGNORECASE,
)


def strip_thinking(text: str) -> str:
    """Drop ``<think>...</think>`` blocks; an unterminated ``<think>`` drops everything after it,
    a stray closing tag drops everything before it (templates that open the block themselves)."""
    out = _THINK_BLOCK.sub("", text or "")
    closes = list(_THINK_CLOSE.finditer(out))
    if closes:
        out = out[closes[-1].end() :]
    opened = _THINK_OPEN.search(out)
    if opened:
        out = out[: opened.start()]
    return out.strip()


def boxed(text: str) -> str | None:
    """The content of the last ``\\boxed{...}`` (or ``\\fbox{...}``), braces balanced."""
    last = None
    for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        depth, i = 1, m.end()
        while i < len(text) and depth:
            depth += {"{": 1, "}": -1}.get(text[i], 0)
            i += 1
        if depth == 0:
            last = text[m.end() : i - 1]
    return last


# LaTeX wrappers that only set how their argument looks (\text{Rome}, \mathrm{B}, \textbf{\text{x}}): the argument is what is written.
_LATEX_WRAPPER = re.compile(r"\\(?:text(?:bf|it|rm|sf|tt|up|normal)?|math(?:rm|bf|it|sf|tt|normal)|mbox|emph|operatorname|boldsymbol|bm|textsc)\s*\{([^{}]*)\}")


def latex_unwrapped(text: str) -> str:
    """``text`` with its LaTeX text and font wrappers replaced by their arguments, innermost first."""
    previous = None
    while previous != text:
        previous, text = text, _LATEX_WRAPPER.sub(lambda m: m.group(1), text)
    return text


# An XML-ish answer tag (<answer>B</answer>, <final_answer>Rome</final_answer>, <final>42</final>): its content is the answer.
_ANSWER_TAG = re.compile(r"<(answer|final_answer|final)>\s*(.*?)\s*</\1\s*>", re.IGNORECASE | re.DOTALL)


def anchored(text: str) -> str | None:
    """What follows the last answer anchor, or the last ``\\boxed{}``, whichever is later; an
    answer tag after both (or holding them) is its content, read the same way."""
    tags = [m for m in _ANSWER_TAG.finditer(text) if m.group(2)]
    if tags:
        tag = tags[-1]
        after = text[tag.end() :]
        if not ANSWER_ANCHOR.search(after) and not re.search(r"\\(?:boxed|fbox)\s*\{", after):
            return anchored(tag.group(2)) or tag.group(2)
    best: tuple[int, str] | None = None
    for m in ANSWER_ANCHOR.finditer(text):
        rest = m.group("rest").strip()
        if rest:
            best = (m.start(), rest)
    box = None
    for m in re.finditer(r"\\(?:boxed|fbox)\s*\{", text):
        box = m.start()
    if box is not None and (best is None or box > best[0]):
        inner = boxed(text[box:])
        if inner is not None:
            return latex_unwrapped(inner).strip()
    return best[1] if best else None


def normalize(text: str) -> str:
    """Casefold, collapse whitespace, drop surrounding punctuation and quotes, markdown bold."""
    t = (text or "").replace("**", "").replace("__", "").casefold()
    t = re.sub(r"(?<!\w)[*_]+(?=\w)|(?<=\w)[*_]+(?!\w)", "", t)  # *mice* inside a sentence
    t = "".join(ch for ch in t if unicodedata.category(ch) != "So")  # emoji and other symbols (🟢)
    t = re.sub(r"\s+", " ", t).strip()
    # markdown emphasis (*Rome*, _Rome_) and quotation marks of every script («dog», „water“) too
    return t.strip(" .,:;!?\"'`()[]{}*_«»„“”‘’‚‹›「」『』")
