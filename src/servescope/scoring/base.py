"""What every scorer takes and returns, as plain values (openai/simple-evals style).

A scorer is a pure function ``score(output, expected, args) -> Score`` that never
raises: an output it cannot read scores 0 with a ``detail`` saying why. ``correct``
is the flexible verdict (the answer found anywhere it may reasonably be); ``strict``
is whether it was also given in the asked-for form (an anchored ``Answer:`` line, a
bare letter, pure JSON); ``None`` where a scorer has no strict form.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Output:
    """What the model sent back: its text (thinking included) and any tool calls."""

    text: str = ""
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str | None = None


@dataclass(frozen=True)
class Score:
    correct: bool
    score: float
    predicted: str | None = None
    strict: bool | None = None
    detail: str | None = None
    abstained: bool | None = None
    # a row of several checked parts (the instruction scorer's rules): how many, and how many kept
    parts: int | None = None
    parts_kept: int | None = None
    parts_kept_strict: int | None = None


Args = Mapping[str, Any]


def wrong(detail: str, predicted: str | None = None, **kw: Any) -> Score:
    return Score(correct=False, score=0.0, predicted=predicted, detail=detail, **kw)


def verdict(ok: bool, predicted: str | None, strict: bool | None = None, detail: str | None = None, **kw: Any) -> Score:
    return Score(correct=ok, score=1.0 if ok else 0.0, predicted=predicted, strict=strict if ok else False if strict is not None else None, detail=detail, **kw)
