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


#: (index, request_id, phase, point, concurrency, prompt_tokens, max_tokens, target): what a
#: synthetic workload gives a request (``workload_input.phases_synthetic``)
RequestRow = tuple[int, str, str, int, int, int, int, int]

_new = object.__new__
_COMPILED = not __file__.endswith(".py")


def requests_from_rows(rows: list[RequestRow]) -> list[SimRequest]:
    """``SimRequest(index, request_id, phase, point, concurrency, prompt_tokens, max_tokens,
    target=target)`` for each row, every other field at its default, without the
    dataclass constructor's cost per call (half of it: search makes ~17,600 requests per
    sweep). Every field is set here (an unset slot would raise on its first read);
    ``tests/predict/test_workload_input.py`` checks them against the constructor's, field by field."""
    if _COMPILED:  # (compiled by mypyc, servescope.native_sim: the constructor is a C call, and object.__new__ is refused)
        return [
            SimRequest(index, request_id, phase, point, concurrency, prompt_tokens, max_tokens, target=target)
            for index, request_id, phase, point, concurrency, prompt_tokens, max_tokens, target in rows
        ]
    out: list[SimRequest] = []
    append = out.append
    for index, request_id, phase, point, concurrency, prompt_tokens, max_tokens, target in rows:
        r = _new(SimRequest)
        r.index = index
        r.request_id = request_id
        r.phase = phase
        r.point = point
        r.concurrency = concurrency
        r.prompt_tokens = prompt_tokens
        r.max_tokens = max_tokens
        r.block_hashes = ()
        r.prompt_id = None
        r.group = None
        r.context_tokens = None
        r.start_ns = 0
        r.arrival_ns = 0
        r.enqueued_step = -1
        r.replica = -1
        r.slot = -1
        r.computed = 0
        r.target = target
        r.generated = 0
        r.cached_tokens = 0
        r.hit_counted = False
        r.preemptions = 0
        r.hashed = []
        r.segments = []
        r.failure = None
        r.done = False
        append(r)
    return out
