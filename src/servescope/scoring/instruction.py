"""instruction: the answer follows the row's rules (``args.rules``: a list of
``{"rule": NAME, "value": ...}``). Score = share of rules kept; correct = all kept.

Rules: max_words, min_words, max_chars, lowercase, uppercase, no_commas, starts_with,
ends_with, contains, not_contains, line_count, bullet_count, json, language_ascii.
An unknown rule counts as broken (the row is wrong, not the model) and is named."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from servescope.scoring.base import Args, Output, Score
from servescope.scoring.text import strip_thinking


def _words(t: str) -> int:
    return len(re.findall(r"\b[\w'-]+\b", t))


def _is_json(t: str) -> bool:
    body = re.sub(r"^```(?:json)?\s*|\s*```$", "", t.strip())
    try:
        json.loads(body)
    except ValueError:
        return False
    return True


def _lines(t: str) -> list[str]:
    return [ln for ln in t.splitlines() if ln.strip()]


RULES: dict[str, Callable[[str, Any], bool]] = {
    "max_words": lambda t, v: _words(t) <= int(v),
    "min_words": lambda t, v: _words(t) >= int(v),
    "max_chars": lambda t, v: len(t) <= int(v),
    "lowercase": lambda t, v: t == t.lower() and any(c.isalpha() for c in t),
    "uppercase": lambda t, v: t == t.upper() and any(c.isalpha() for c in t),
    "no_commas": lambda t, v: "," not in t,
    "starts_with": lambda t, v: t.lstrip().lower().startswith(str(v).lower()),
    "ends_with": lambda t, v: t.rstrip().lower().endswith(str(v).lower()),
    "contains": lambda t, v: str(v).lower() in t.lower(),
    "not_contains": lambda t, v: str(v).lower() not in t.lower(),
    "line_count": lambda t, v: len(_lines(t)) == int(v),
    "bullet_count": lambda t, v: sum(1 for ln in _lines(t) if re.match(r"^\s*(?:[-*•]|\d+[.)])\s+", ln)) == int(v),
    "json": lambda t, v: _is_json(t),
    "language_ascii": lambda t, v: all(ord(c) < 128 for c in t) == bool(v),
}


def score(output: Output, expected: object, args: Args) -> Score:
    rules = args.get("rules") or []
    text = strip_thinking(output.text)
    if not rules:
        return Score(False, 0.0, text[:80] or None, detail="the row names no rules")
    broken = []
    for rule in rules:
        name = rule.get("rule") if isinstance(rule, dict) else None
        check = RULES.get(str(name))
        try:
            ok = check is not None and check(text, rule.get("value"))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            broken.append(str(name) if check is not None else f"unknown rule {name!r}")
    kept = len(rules) - len(broken)
    return Score(
        correct=not broken,
        score=kept / len(rules),
        predicted=text[:80] or None,
        strict=not broken,
        detail=("broken: " + ", ".join(broken)) if broken else None,
    )
