"""A simulated request: what was asked (prompt length, output budget, prefix
blocks) and what happened to it (when it reached the engine, which iterations
produced its tokens, prefix hits, preemptions)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(slots=True, eq=False)
class SimRequest:
    index: int
    request_id: str
    phase: str
    point: int
    concurrency: int
    prompt_tokens: int
    max_tokens: int
    block_hashes: tuple[int, ...] = ()
    prompt_id: str | None = None
    group: str | None = None
    context_tokens: int | None = None
    # --- filled in by the simulation ---
    start_ns: int = 0
    arrival_ns: int = 0
    enqueued_step: int = -1  # the replica's iteration count when a plan first saw it queued (batch waiting)
    replica: int = -1
    slot: int = -1
    computed: int = 0
    target: int = 0
    generated: int = 0
    cached_tokens: int = 0
    hit_counted: bool = False
    preemptions: int = 0
    hashed: list[int] = field(default_factory=list)
    segments: list[tuple[int, int]] = field(default_factory=list)
    failure: tuple[str, str, str, int | None] | None = None  # (stage, category, message, http status)
    done: bool = False
