"""contains: the answer mentions all (``mode: all``, the default) or any
(``mode: any``) of the expected phrases, casefolded, as whole words."""

from __future__ import annotations

import re

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import strip_thinking


def mentions(text: str, phrase: str) -> bool:
    words = phrase.casefold().split()
    if not words:
        return False
    pattern = r"(?<!\w)" + r"\s+".join(re.escape(w) for w in words) + r"(?!\w)"
    return re.search(pattern, text.casefold()) is not None


def score(output: Output, expected: object, args: Args) -> Score:
    phrases = [str(p) for p in (expected if isinstance(expected, list) else [expected]) if p is not None and str(p).strip()]
    phrases += [str(a) for a in args.get("aliases") or []]
    if not phrases:
        return wrong(f"no expected phrase ({expected!r})")
    text = strip_thinking(output.text)
    hits = [p for p in phrases if mentions(text, p)]
    mode = args.get("mode", "all" if isinstance(expected, list) else "any")
    ok = len(hits) == len(phrases) if mode == "all" else bool(hits)
    return verdict(ok, text[:80] or None, detail=f"mentions {len(hits)}/{len(phrases)}")
