"""json: the answer's JSON object equals the expected one (``mode: exact``) or holds
every expected key with an equal value (``mode: subset``, the default; strings
compared casefolded and trimmed, numbers by value). Strict: the answer is nothing but
the JSON (a code fence allowed); flexible: the first parseable object inside the text."""

from __future__ import annotations

import json
import re
from typing import Any

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import strip_thinking

_FENCE = re.compile(r"^```(?:json)?\s*(.*?)\s*```$", re.DOTALL | re.IGNORECASE)


def first_json(text: str) -> tuple[Any, bool] | None:
    """(the first JSON object/array in ``text``, whether it was all of it), or None."""
    t = text.strip()
    fenced = _FENCE.match(t)
    if fenced:
        t = fenced.group(1)
    try:
        return json.loads(t), True
    except ValueError:
        pass
    decoder = json.JSONDecoder()
    for i, ch in enumerate(t):
        if ch in "{[":
            try:
                value, _end = decoder.raw_decode(t, i)
                return value, False
            except ValueError:
                continue
    return None


def same(got: Any, want: Any, subset: bool) -> bool:
    if isinstance(want, dict):
        if not isinstance(got, dict):
            return False
        if not subset and set(got) != set(want):
            return False
        return all(k in got and same(got[k], v, subset) for k, v in want.items())
    if isinstance(want, list):
        return isinstance(got, list) and len(got) == len(want) and all(same(g, w, subset) for g, w in zip(got, want, strict=True))
    if isinstance(want, bool) or isinstance(got, bool):
        return got is want
    if isinstance(want, int | float) and isinstance(got, int | float):
        return float(got) == float(want)
    if isinstance(want, str) and isinstance(got, str):
        return got.strip().casefold() == want.strip().casefold()
    return bool(got == want)


def score(output: Output, expected: object, args: Args) -> Score:
    text = strip_thinking(output.text)
    found = first_json(text)
    if found is None:
        return wrong("no JSON in the answer", text[:80] or None, strict=False)
    value, whole = found
    ok = same(value, expected, subset=args.get("mode", "subset") != "exact")
    return verdict(ok, json.dumps(value, ensure_ascii=False)[:200], strict=whole)
