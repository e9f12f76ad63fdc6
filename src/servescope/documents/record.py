"""Per-request records: what the harness writes as each request ends, and what
the simulator writes for each simulated request — one shape, so one metric code
computes TTFT/ITL/TPOT/E2E/throughput for both.

Times are integer nanoseconds on one monotonic clock, relative to the run's
start (``time.perf_counter_ns`` in the harness, simulated time in the
simulator). ``start_ns`` is the reference latency is measured from: the
*scheduled* send time in open loop (so client-side queueing is never hidden),
the actual send time in closed loop.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, fields
from typing import Any, Literal

Phase = Literal["warmup", "measured"]


@dataclass(slots=True)
class RequestRecord:
    request_id: str
    phase: Phase = "measured"
    concurrency: int | None = None
    point: int | None = None
    context_tokens: int | None = None
    prompt_id: str | None = None
    group: str | None = None
    start_ns: int = 0
    sent_ns: int = 0
    first_token_ns: int | None = None
    end_ns: int | None = None
    chunk_ns: list[int] = field(default_factory=list)
    chunk_tokens: list[int] | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    reasoning_tokens: int | None = None
    token_count_source: str | None = None
    cached_tokens: int | None = None
    ok: bool = True
    http_status: int | None = None
    stage: str | None = None
    category: str | None = None
    error: str | None = None
    finish_reason: str | None = None
    output_text: str | None = None
    expected: str | None = None
    server_timings: dict[str, Any] | None = None
    # Sends of this request: > 1 when a send never reached the server (a pooled connection
    # it had closed) and was sent again; None in records written before it was counted.
    attempts: int | None = None
    tool_calls: list[dict[str, Any]] | None = None  # eval: the streamed calls, reassembled
    score: dict[str, Any] | None = None  # eval: the scorer's verdict, written with the record
    # image: what the lane answered, as numbers (raw.payload: timing_source, s_per_image, ...); never the image
    raw: dict[str, Any] | None = None

    @property
    def ttft_ns(self) -> int | None:
        return None if self.first_token_ns is None else self.first_token_ns - self.start_ns

    @property
    def e2e_ns(self) -> int | None:
        return None if self.end_ns is None else self.end_ns - self.start_ns

    def to_json(self) -> str:
        # Not dataclasses.asdict: it deep-copies every list (7x slower; on the client's hot path).
        return json.dumps({n: getattr(self, n) for n in _FIELD_ORDER}, separators=(",", ":"), ensure_ascii=False)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RequestRecord:
        known = _FIELD_NAMES
        return cls(**{k: v for k, v in data.items() if k in known})


_FIELD_ORDER = tuple(f.name for f in fields(RequestRecord))
_FIELD_NAMES = frozenset(_FIELD_ORDER)
