"""Scorers: one small pure module per scorer, each ``score(output, expected, args) -> Score``.

Names: workloads use the kebab-case vocabulary (``code-exec``), dataset rows the
snake_case module name (``code_exec``); both are accepted and mean the same scorer.
The row's own scorer wins over the workload's (workloads.txt). :func:`score_item`
never raises: a scorer that fails is a wrong answer with the reason in ``detail``.

Image scorers (``fidelity``, ``ocr``, ``rgba``, ``clip``) read a render instead of
text (``scoring.image``): :func:`score_render` calls them, never raising either.
"""

from __future__ import annotations

from collections.abc import Callable

from servescope.scoring import abstain, clip, contains, exact, fidelity, instruction, json_match, mc, needle, numeric, ocr, rgba, token_integrity, tool_call
from servescope.scoring.base import Args, Output, Score, wrong
from servescope.scoring.image import Render

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


ImageScorer = Callable[[Render, object, Args], Score]

IMAGE_SCORERS: dict[str, ImageScorer] = {
    "clip": clip.score,
    "fidelity": fidelity.score,
    "ocr": ocr.score,
    "rgba": rgba.score,
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
    return resolve(name) is not None or is_image_scorer(name)


def is_image_scorer(name: str) -> bool:
    return canonical_name(name) in IMAGE_SCORERS


def score_render(scorer: str, render: Render, expected: object, args: Args | None = None) -> Score:
    fn = IMAGE_SCORERS.get(canonical_name(scorer))
    if fn is None:
        return wrong(f"{scorer!r} is not an image scorer")
    try:
        return fn(render, expected, args or {})
    except Exception as exc:  # a scorer must never take a run down; the item is wrong, and says why
        return wrong(f"scorer {scorer} failed: {type(exc).__name__}: {exc}")


def score_item(scorer: str, output: Output, expected: object, args: Args | None = None) -> Score:
    fn = resolve(scorer)
    if fn is None:
        return wrong(f"unknown scorer {scorer!r}")
    try:
        return fn(output, expected, args or {})
    except Exception as exc:  # a scorer must never take a run down; the item is wrong, and says why
        return wrong(f"scorer {scorer} failed: {type(exc).__name__}: {exc}")


__all__ = [
    "IMAGE_SCORERS",
    "SCORERS",
    "ImageScorer",
    "Output",
    "Render",
    "Score",
    "Scorer",
    "canonical_name",
    "is_image_scorer",
    "known",
    "resolve",
    "score_item",
    "score_render",
]
