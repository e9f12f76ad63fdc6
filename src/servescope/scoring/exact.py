"""exact: the answer equals the expected text or one of its aliases (casefolded,
whitespace and surrounding punctuation ignored). Strict: the whole answer is it;
flexible: the anchored answer (or the last line) is it, or ends with it
("The capital of France is Paris.")."""

from __future__ import annotations

from servescope.scoring.base import Args, Output, Score, verdict, wrong
from servescope.scoring.text import anchored, normalize, strip_thinking


def aliases(expected: object, args: Args) -> list[str]:
    base = expected if isinstance(expected, list) else [expected]
    extra = args.get("aliases") or []
    return [normalize(str(a)) for a in [*base, *extra] if a is not None and normalize(str(a))]


def score(output: Output, expected: object, args: Args) -> Score:
    names = aliases(expected, args)
    if not names:
        return wrong(f"no expected answer ({expected!r})")
    text = strip_thinking(output.text)
    whole = normalize(text)
    if whole in names:
        return verdict(True, text[:80], strict=True)
    lines = [ln for ln in text.splitlines() if ln.strip()]
    candidate = anchored(text) or (lines[-1] if lines else "")
    cand = normalize(candidate)
    ok = cand in names or any(cand.endswith(" " + n) for n in names)
    return verdict(ok, candidate[:80] or None, strict=False)
