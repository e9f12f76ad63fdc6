"""Multi-turn sessions (``run --sessions S --turns N --think-time-ms T``): S conversations
at once, each sending its turns one after another. Turn k is sent with the whole history
before it — the session's system message if it has one, every earlier user message and
the model's real answer to it — then the
session waits the think time before its next turn. Latency starts at each turn's send
(closed loop within a session).

A turn that fails ends its session: the model's answer is the next turn's history, so
the turns after it are not sent; each is still a record (failed, category ``cancelled``,
saying why), so nothing planned goes missing.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from collections.abc import Awaitable, Callable
from typing import Any

from servescope.analysis.metrics import turn_rows
from servescope.bench.load import LoadOutcome
from servescope.bench.outcome import PointOutcome, planned_record
from servescope.documents.record import RequestRecord
from servescope.workload.plan import PlannedPoint, PlannedRequest


def _not_sent(req: PlannedRequest, point: PlannedPoint, now_ns: int, failed: str) -> RequestRecord:
    record = planned_record(req, point, now_ns)
    record.sent_ns = record.end_ns = now_ns
    record.ok = False
    record.stage = "send"
    record.category = "cancelled"
    record.error = f"not sent: turn {failed} of this session failed, and its answer is the history this turn needs"
    return record


async def sessions_loop(
    requests: list[PlannedRequest],
    point: PlannedPoint,
    send_one: Callable[[PlannedRequest, int], Awaitable[RequestRecord]],
    keep: Callable[[RequestRecord], None],
    t0_ns: int,
    clock: Callable[[], int] = time.perf_counter_ns,
) -> LoadOutcome:
    """Run every session's turns in order, the sessions at once."""
    sessions: dict[str, list[PlannedRequest]] = {}
    for req in requests:
        sessions.setdefault(req.session or req.request_id, []).append(req)

    async def conversation(turns: list[PlannedRequest]) -> None:
        system = turns[0].system_prompt if turns else None
        history: list[dict[str, str]] = [] if system is None else [{"role": "system", "content": system}]
        failed: str | None = None
        for k, req in enumerate(turns):
            if failed is not None:
                keep(_not_sent(req, point, clock() - t0_ns, failed))
                continue
            messages = (*history, {"role": "user", "content": req.prompt})
            record = await send_one(dataclasses.replace(req, messages=messages), clock())
            if not record.ok:
                failed = req.request_id
                continue
            history = [*messages, {"role": "assistant", "content": record.output_text or ""}]
            if k < len(turns) - 1 and point.think_time_ns > 0:
                # from the answer's end; a loop, as timers may fire a little early (uvloop rounds to the millisecond)
                ready = t0_ns + (record.end_ns if record.end_ns is not None else clock() - t0_ns) + point.think_time_ns
                while (delay := (ready - clock()) / 1e9) > 0:
                    await asyncio.sleep(delay)

    start = clock()
    await asyncio.gather(*(conversation(turns) for turns in sessions.values()))
    return LoadOutcome(start, clock(), len(requests), None)


def turn_report(points: list[PlannedPoint], outcomes: list[PointOutcome]) -> list[dict[str, Any]]:
    """Per turn number (1-based) of a multi-turn load: completed turns, their median TTFT,
    and the prompt tokens the engine says it served from its cache (usage's
    ``prompt_tokens_details.cached_tokens``; None where it reports none). What shows
    whether a session's history was carried by the engine's prefix cache."""
    number: dict[str, int] = {}
    for point in points:
        seen: dict[str, int] = {}
        for req in point.requests:
            if req.session is None:
                return []
            seen[req.session] = seen.get(req.session, 0) + 1
            number[req.request_id] = seen[req.session]
    return turn_rows((r for outcome in outcomes for r in outcome.records), number)


__all__ = ["sessions_loop", "turn_report"]
