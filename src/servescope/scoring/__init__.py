"""Scorers: one small pure module per scorer, each ``score(output, expected, args) -> Score``.

Names: workloads use the kebab-case vocabulary (``code-exec``), dataset rows the
snake_case module name (``code_exec``); both are accepted and mean the same scorer.
The row's own scorer wins over the workload's (workloads.txt). :func:`score_item`
never raises: a scorer that fails is a wrong answer with the reason in ``detail``.
"""

from __future__ import annotations

from collections.abc import Callable

from servescope.scoring import abstain, contains, exact, instruction, json_match, mc, needle, numeric, token_integrity, tool_call
from servescope.scoring.base import Args, Output, Score, wrong

Scorer = Callable[[Output, object, Args], Score]

SCORERS: dict[str, Scorer] = {
    "abstain": abstain.score,
    "contains": contains.score,
    "exact": exact.score,
    "instruction": instruction.score,
    "json": json_match.score,
    "mc": mc.score,
    "needle": needle.score,
    "numeric": numeric.score,
    "token_integrity": token_integrity.score,
    "tool_call": tool_call.score,
}


def canonical_name(name: str) -> str:
    """``code-exec`` and ``code_exec`` are one scorer: the snake_case module name."""
    return name.strip().lower().replace("-", "_")


def resolve(name: str) -> Scorer | None:
    canon = canonical_name(name)
    if canon == "code_exec":
        from servescope.scoring import code_exec  # imports the sandbox only when needed

        return code_exec.score
    return SCORERS.get(canon)


def known(name: str) -> bool:
    return resolve(name) is not None


def score_item(scorer: str, output: Output, expected: object, args: Args | None = None) -> Score:
    fn = resolve(scorer)
    if fn is None:
        return wrong(f"unknown scorer {scorer!r}")
    try:
        return fn(output, expected, args or {})
    except Exception as exc:  # a scorer must never take a run down; the item is wrong, and says why
        return wrong(f"scorer {scorer} failed: {type(exc).__name__}: {exc}")


__all__ = ["SCORERS", "Output", "Score", "Scorer", "canonical_name", "known", "resolve", "score_item"]
