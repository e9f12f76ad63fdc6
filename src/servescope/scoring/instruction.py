"""instruction: the answer follows the row's rules (``args.rules``: a list of
``{"rule": NAME, "value": ...}``), IFEval-style verifiable instructions.

Each rule is checked three ways. *Strict*: on the answer as sent (thinking stripped).
*Flexible*: also on the answer without markdown ``*`` (a bolded keyword is the keyword),
except for the rules about markup; no line is ever dropped. *IFEval loose*: IFEval's
own loose reading — the answer and its variants with the first line, the last line or
both removed, each also without ``*`` (a rule of the whole answer — a word it must not
hold, no commas, ASCII only, a size limit — is read on the whole answer only). A
held-out grader (benchmarks/docs/scorer-blind.md) called every answer wrong that only
IFEval's loose reading kept — a greeting before the asked-for first word, a remark after
the asked-for last one, a fourth bullet — so it is reported, not scored. ``strict`` =
every rule kept strictly (IFEval prompt-level strict); ``correct`` = every rule kept
flexibly; ``score`` = share of rules kept flexibly (instruction level); ``detail`` gives
the three counts, ``strict k/n; flexible m/n; IFEval loose l/n``, and names the broken
rules.

Rules (value in brackets):
  words: max_words, min_words [n]; max_chars [n]
  sentences: max_sentences, min_sentences, sentence_count [n]
  paragraphs: paragraph_count [n] (blocks split by blank lines or ``***`` lines)
  lines: line_count [n] (non-empty lines)
  case: lowercase, uppercase
  punctuation: no_commas; quotation (the whole answer in double quotes)
  phrases: starts_with, ends_with [text] (compared without the surrounding quotes,
    punctuation, markdown and whitespace, case-insensitive, on a word boundary)
  keywords: contains, not_contains [word or phrase; a word matches whole words];
    keyword_count [{"word": w, "min": n} and/or "max": n]
  structure: bullet_count [n] (markdown ``-``, ``*`` or ``+`` lines, not ``•``; a numbered
    list is not bullet points, as in IFEval); title (a
    ``<<title>>``); placeholder_count [n] (at least n ``[name]`` placeholders);
    highlight_count [n] (at least n ``*highlighted*`` sections); section_count
    [{"marker": "SECTION", "count": n}] (exactly n parts headed ``SECTION 1``, ...);
    postscript [marker, default "P.S."] (a line starting with the marker, and nothing
    after its paragraph but a P.P.S.); ends_with with a final punctuation mark needs that mark
  JSON: json (the answer, fences allowed, parses); json_keys [keys] (a JSON object
    with at least those keys)
  script: language_ascii [true/false]
An unknown rule, or a value the rule cannot use, counts as broken (the row is wrong, not
the model) and is named."""

from __future__ import annotations

import json
import re
import unicodedata
from collections.abc import Callable
from typing import Any

from servescope.scoring.base import Args, Output, Score
from servescope.scoring.text import strip_thinking

# A word; an abbreviation with inner dots ("P.S.", "e.g.", "U.S.") is one word, as a reader counts it.
_WORD = re.compile(r"\b[\w'-]+(?:\.[\w'-]+)*\b")
_JSON_FENCE = re.compile(r"^```(?:json)?\s*|\s*```$", re.IGNORECASE)
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"'”’)\]]*\s+|\n+")
# markdown list bullets, as IFEval counts them; "•" is a typographic bullet, not markdown (a row's
# "bullet points starting with '- '" is not met by one)
_BULLET = re.compile(r"^\s*[-*+]\s+")
_PLACEHOLDER = re.compile(r"\[[^\[\]\n]*\w[^\[\]\n]*\]")
_HIGHLIGHT = re.compile(r"\*\*[^\n*]*\w[^\n*]*\*\*|(?<!\*)\*[^\n*]*\w[^\n*]*\*(?!\*)")
_TITLE = re.compile(r"<<[^\n<>]*\w[^\n<>]*>>")
_PARAGRAPH_BREAK = re.compile(r"\n\s*\n|^\s*\*\*\*\s*$", re.MULTILINE)
_EDGE_EXTRA = set("`~^")


def _words(t: str) -> int:
    return len(_WORD.findall(t))


# Abbreviations that always lead into more of the same sentence: their periods end nothing.
_ABBREVIATION = re.compile(r"(?<!\w)(?:e\.g|i\.e|cf|vs|viz|mr|mrs|ms|dr|prof|approx)\.(?=\s)", re.IGNORECASE)


def _sentences(t: str) -> int:
    t = _ABBREVIATION.sub(lambda m: m.group(0).replace(".", "\u00b7"), t)  # "e.g. after" goes on; a middle dot ends nothing
    return sum(1 for part in _SENTENCE_END.split(t.strip()) if re.search(r"\w", part))


def _paragraphs(t: str) -> int:
    return sum(1 for part in _PARAGRAPH_BREAK.split(t) if part.strip())


def _lines(t: str) -> list[str]:
    return [ln for ln in t.splitlines() if ln.strip()]


def _json_body(t: str) -> Any:
    """The parsed answer (one ``` fence allowed); ValueError when it is not JSON."""
    return json.loads(_JSON_FENCE.sub("", t.strip()))


def _is_json(t: str, _v: Any) -> bool:
    try:
        _json_body(t)
    except ValueError:
        return False
    return True


def _json_keys(t: str, v: Any) -> bool:
    if not isinstance(v, list) or not v:
        raise ValueError("json_keys needs a list of keys")
    try:
        body = _json_body(t)
    except ValueError:
        return False
    return isinstance(body, dict) and all(str(k) in body for k in v)


def _edge(c: str) -> bool:
    """Quotes, punctuation, markdown marks and whitespace around a phrase."""
    return c.isspace() or unicodedata.category(c)[0] in "PZ" or c in _EDGE_EXTRA


def _trim(t: str) -> str:
    start, end = 0, len(t)
    while start < end and _edge(t[start]):
        start += 1
    while end > start and _edge(t[end - 1]):
        end -= 1
    return t[start:end].lower()


def _phrase(v: Any) -> str:
    phrase = _trim(str(v if v is not None else ""))
    if not phrase:
        raise ValueError("the rule needs a word or phrase")
    return phrase


def _starts_with(t: str, v: Any) -> bool:
    """'Today, the sea...' starts with 'Today'; 'Todays' and "Today's" do not (a word boundary:
    a clitic after an apostrophe makes another word form, as an inflection does)."""
    body, phrase = _trim(t), _phrase(v)
    rest = body[len(phrase) :]
    return body.startswith(phrase) and not (phrase[-1].isalnum() and (rest[:1].isalnum() or _other_form(phrase, rest)))


_CLITIC = re.compile(r"['’ʼ`´](\w+)")
# Contractions that keep the word itself ("I'm", "It's", "Today'll"): a verb after it, not another form of it.
_VERB_CLITICS = frozenset({"m", "re", "ve", "ll", "d"})
_S_IS_A_VERB = frozenset({"i", "it", "he", "she", "that", "this", "there", "here", "what", "who", "where", "how", "let", "everyone", "nobody"})


def _other_form(phrase: str, rest: str) -> bool:
    """Whether an apostrophe right after the word makes another form of it ("Today's", "Marias'")
    rather than a contraction with a verb ("It's", "We're")."""
    m = _CLITIC.match(rest)
    if m is None:
        return False
    clitic = m.group(1)
    return clitic not in _VERB_CLITICS and not (clitic == "s" and phrase.split()[-1] in _S_IS_A_VERB)


def _unquoted(t: str) -> str:
    """``t`` without the quotes, markdown marks and whitespace around it; its punctuation kept."""
    return t.strip().strip("\"'“”‘’`*_~ \n\t").lower()


# What may not follow the last word even though it is all punctuation: an emoticon (":)", ";-(") or
# marks set apart by a space ("done. :)", "done! !!"); a closing quote or markdown mark right after is fine.
_AFTER_THE_END = re.compile(r"[:;=]-?[()\[\]/|\\]|\S\s+[^\s\"'”’»*_`~]")


def _tail(t: str) -> str:
    """The punctuation, quotes and markdown that ``_trim`` drops from the end of ``t``."""
    end = len(t)
    while end > 0 and _edge(t[end - 1]):
        end -= 1
    return t[end:].strip()


def _ends_with(t: str, v: Any) -> bool:
    """'... and then we were done.' ends with 'done'; '... undone' does not. A phrase that
    ends in punctuation ends the answer with it: 'See you soon!' does not end with
    'See you soon.'."""
    body, phrase = _trim(t), _phrase(v)
    asked = _unquoted(str(v if v is not None else ""))
    if asked and unicodedata.category(asked[-1])[0] == "P" and not _unquoted(t).endswith(asked):
        return False
    if _AFTER_THE_END.search(_tail(t)) and not _AFTER_THE_END.search(_tail(asked)):  # "... done. :)" (unless the phrase ends so)
        return False
    return body.endswith(phrase) and not (len(body) > len(phrase) and phrase[0].isalnum() and body[-len(phrase) - 1].isalnum())


def _occurrences(t: str, v: Any) -> int:
    """Whole-word matches for a word or phrase of words ('sea' is not in 'season'), else substrings."""
    needle = str(v if v is not None else "").strip()
    if not needle:
        raise ValueError("the rule needs a word or phrase")
    pattern = re.escape(needle)
    if needle[0].isalnum():
        pattern = r"(?<!\w)" + pattern
    if needle[-1].isalnum():
        pattern += r"(?!\w)"
    return len(re.findall(pattern, t, re.IGNORECASE))


def _keyword_count(t: str, v: Any) -> bool:
    if not isinstance(v, dict) or "word" not in v or not ({"min", "max"} & set(v)):
        raise ValueError('keyword_count needs {"word": ..., "min": n and/or "max": n}')
    n = _occurrences(t, v["word"])
    return n >= int(v.get("min", 0)) and ("max" not in v or n <= int(v["max"]))


def _section_count(t: str, v: Any) -> bool:
    if not isinstance(v, dict) or not v.get("marker") or "count" not in v:
        raise ValueError('section_count needs {"marker": ..., "count": n}')
    headers = re.findall(r"(?:^|\s)" + re.escape(str(v["marker"])) + r"\s*(\d+)", t, re.IGNORECASE)
    return [int(h) for h in headers] == list(range(1, int(v["count"]) + 1))


def _postscript(t: str, v: Any) -> bool:
    """A line starting with the marker, at the end: after it, only more of the postscript
    (no later paragraph but another P.P.S.). A 'P.S.' above the letter is not a postscript."""
    marker = str(v or "P.S.").strip()
    # "P.S.", "P. S." and "p.s." are one marker: letters compared case-free, spaces optional.
    pattern = r"\s*".join(re.escape(c) for c in marker.replace(" ", ""))
    found = list(re.finditer(r"^[\s*_>#-]*" + pattern, t, re.IGNORECASE | re.MULTILINE))
    if not found:
        return False
    later = [p for p in _PARAGRAPH_BREAK.split(t[found[-1].end() :])[1:] if p.strip()]
    return all(re.match(r"[\s*_>#-]*p\.?\s*p\.?\s*s\b", p, re.IGNORECASE) for p in later)


def _quotation(t: str, _v: Any) -> bool:
    body = t.strip()
    return len(body) > 2 and body[0] in '"“' and body[-1] in '"”'


RULES: dict[str, Callable[[str, Any], bool]] = {
    "max_words": lambda t, v: _words(t) <= int(v),
    "min_words": lambda t, v: _words(t) >= int(v),
    "max_chars": lambda t, v: len(t) <= int(v),
    "max_sentences": lambda t, v: _sentences(t) <= int(v),
    "min_sentences": lambda t, v: _sentences(t) >= int(v),
    "sentence_count": lambda t, v: _sentences(t) == int(v),
    "paragraph_count": lambda t, v: _paragraphs(t) == int(v),
    "line_count": lambda t, v: len(_lines(t)) == int(v),
    "lowercase": lambda t, v: t == t.lower() and any(c.isalpha() for c in t),
    "uppercase": lambda t, v: t == t.upper() and any(c.isalpha() for c in t),
    "no_commas": lambda t, v: "," not in t and "，" not in t,
    "quotation": _quotation,
    "starts_with": _starts_with,
    "ends_with": _ends_with,
    "contains": lambda t, v: _occurrences(t, v) > 0,
    "not_contains": lambda t, v: _occurrences(t, v) == 0,
    "keyword_count": _keyword_count,
    "bullet_count": lambda t, v: sum(1 for ln in _lines(t) if _BULLET.match(ln)) == int(v),
    "title": lambda t, v: _TITLE.search(t) is not None,
    "placeholder_count": lambda t, v: len(_PLACEHOLDER.findall(t)) >= int(v),
    "highlight_count": lambda t, v: len(_HIGHLIGHT.findall(t)) >= int(v),
    "section_count": _section_count,
    "postscript": _postscript,
    "json": _is_json,
    "json_keys": _json_keys,
    "language_ascii": lambda t, v: all(ord(c) < 128 for c in t) == bool(v),
}


# Rules that hold of the whole answer: something it must not contain, an upper bound on its size.
# Dropping a line can only make them easier, so a loose reading never drops one for them ("really"
# in a chatty first line is still the forbidden word); it only reads past markdown ``*``.
WHOLE_ANSWER_RULES = frozenset({"not_contains", "no_commas", "language_ascii", "max_words", "max_chars", "max_sentences"})


def loose_variants(text: str) -> list[str]:
    """The answer, without its first line, its last line, or both; each also without
    markdown ``*``. Empty cuts are dropped (nothing left is not a kept format)."""
    lines = text.split("\n")
    cuts = [text, "\n".join(lines[1:]), "\n".join(lines[:-1]), "\n".join(lines[1:-1])]
    variants = [text]  # always: what passes strictly passes loosely
    for cut in cuts:
        for v in (cut.strip(), cut.replace("*", "").strip()):
            if v and v not in variants:
                variants.append(v)
    return variants


# Rules about markup itself: markdown ``*`` is what they count, so no reading strips it.
MARKUP_RULES = frozenset({"bullet_count", "highlight_count", "title", "json", "json_keys"})


def flexible_readings(text: str, rule: str) -> list[str]:
    """The answer as sent and, unless the rule is about markup, without markdown emphasis
    (``*``): a bolded keyword is the keyword. No line is ever dropped — a greeting before
    the asked-for first word, a remark after the asked-for last one, a fourth bullet, all
    break the rule for a careful grader (IFEval's loose reading excuses them)."""
    if rule in MARKUP_RULES:
        return [text]
    return [text, text.replace("*", "").strip()]


def _kept(check: Callable[[str, Any], bool], text: str, value: Any) -> bool:
    try:
        return bool(check(text, value))
    except (TypeError, ValueError, KeyError):
        return False


def score(output: Output, expected: object, args: Args) -> Score:
    rules = args.get("rules") or []
    text = strip_thinking(output.text)
    if not rules:
        return Score(False, 0.0, text[:80] or None, detail="the row names no rules")
    variants = loose_variants(text)
    strict_broken: list[str] = []
    flexible_broken: list[str] = []
    loose_broken: list[str] = []
    for rule in rules:
        name = rule.get("rule") if isinstance(rule, dict) else None
        check = RULES.get(str(name))
        if check is None:
            strict_broken.append(f"unknown rule {name!r}")
            flexible_broken.append(f"unknown rule {name!r}")
            loose_broken.append(f"unknown rule {name!r}")
            continue
        value = rule.get("value") if isinstance(rule, dict) else None
        if not _kept(check, text, value):
            strict_broken.append(str(name))
        if not any(_kept(check, v, value) for v in flexible_readings(text, str(name))):
            flexible_broken.append(str(name))
        readings = [text, text.replace("*", "").strip()] if name in WHOLE_ANSWER_RULES else variants
        if not any(_kept(check, v, value) for v in readings):
            loose_broken.append(str(name))
    n = len(rules)
    detail = f"strict {n - len(strict_broken)}/{n}; flexible {n - len(flexible_broken)}/{n}; IFEval loose {n - len(loose_broken)}/{n}"
    if strict_broken:
        detail += "; broken: " + ", ".join(strict_broken)
    if flexible_broken:
        detail += "; broken flexibly too: " + ", ".join(flexible_broken)
    return Score(
        correct=not flexible_broken,
        score=(n - len(flexible_broken)) / n,
        predicted=text[:80] or None,
        strict=not strict_broken,
        detail=detail,
        parts=n,
        parts_kept=n - len(flexible_broken),
        parts_kept_strict=n - len(strict_broken),
    )
