"""Run planned points against an endpoint: load pattern → client → records on disk."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

import aiohttp

from servescope.bench.client import send
from servescope.bench.endpoint import Endpoint
from servescope.bench.fail_fast import FailFast
from servescope.bench.load import Gate, arrival_offsets_ns, closed_loop, open_loop, sends_rate, sleep_until_ns
from servescope.bench.outcome import PointOutcome, planned_record
from servescope.bench.records import RecordWriter
from servescope.bench.scrape import MetricsSampler, PointSamplers
from servescope.bench.sessions import sessions_loop
from servescope.documents.record import RequestRecord
from servescope.workload.plan import PlannedPoint, PlannedRequest

OnRecord = Callable[[RequestRecord], None]
# Where a worker of a split run (bench.workers) meets the others: called with
# ("warmup" | "measured" | "done", point index); for the first two it returns when
# every worker is there, with the shared start time (ns, this process's clock).
Sync = Callable[[str, int], Awaitable[int | None]]


@dataclass
class LoadSpec:
    """Closed loop at the point's concurrency unless a rate is given (open loop)."""

    rate: float | None = None
    arrival: str = "poisson"
    gamma_shape: float = 1.0
    seed: int = 0


def _body_size(req: PlannedRequest) -> int:
    """What writing the request costs, near enough: its text's length (sends due at one instant go shortest first)."""
    return len(req.prompt) + sum(len(m.get("content") or "") for m in req.messages or ())


def _check_expected(record: RequestRecord) -> None:
    """A needle answer that does not contain the expected text is a failed request."""
    if record.ok and record.expected is not None:
        got = (record.output_text or "").strip()
        if record.expected.lower() not in got.lower():
            record.ok = False
            record.stage = "score"
            record.category = "malformed-output"
            record.error = f"expected {record.expected!r} in the answer, got {got[:80]!r}"


async def run_point(
    session: aiohttp.ClientSession,
    endpoint: Endpoint,
    point: PlannedPoint,
    writer: RecordWriter,
    *,
    t0_ns: int,
    timeout_s: float,
    temperature: float,
    seed: int | None,
    load: LoadSpec,
    sampler: MetricsSampler | PointSamplers | None = None,
    on_record: OnRecord | None = None,
    extra_body: dict[str, Any] | None = None,
    fail_fast: FailFast | None = None,
    sync: Sync | None = None,
) -> PointOutcome:
    outcome = PointOutcome(point)
    streams = point.client_concurrency or point.concurrency  # this process's share when the load is split
    warmup = [r for r in point.requests if r.phase == "warmup"]
    measured = [r for r in point.requests if r.phase == "measured"]

    async def one(req: PlannedRequest, start_abs_ns: int, gate: Gate | None = None) -> None:
        await send_one(req, start_abs_ns, gate)

    async def send_one(req: PlannedRequest, start_abs_ns: int, gate: Gate | None = None) -> RequestRecord:
        record = planned_record(req, point, start_abs_ns - t0_ns)
        if fail_fast is not None and fail_fast.stopped:
            fail_fast.mark_not_sent(record)
        else:
            body = endpoint.body(req.prompt, req.max_tokens, temperature, seed, extra_body)
            if req.messages is not None:  # a prompt file's chat, sent as written (chat API only: checked before the run)
                body["messages"] = [dict(m) for m in req.messages]
            if req.min_tokens is not None:
                body["min_tokens"] = req.min_tokens
            # a session's answers are its next turn's history: their text is kept
            keep_text = req.expected is not None or req.session is not None
            async with fail_fast.sending(record) if fail_fast is not None else contextlib.nullcontext():
                await send(session, endpoint, body, record, t0_ns=t0_ns, timeout_s=timeout_s, keep_text=keep_text, gate=gate)
            _check_expected(record)
            if fail_fast is not None:
                fail_fast.observe(record)
        keep(record)
        return record

    def keep(record: RequestRecord) -> None:
        writer.write(record)
        outcome.records.append(record)
        if on_record is not None:
            on_record(record)

    if sync is not None:
        await sync("warmup", point.index)
    if warmup:
        # Warmup runs at the point's concurrency too, and is excluded from every metric.
        await closed_loop(warmup, streams, one)
    if sampler is not None:
        await sampler.start()
    # Nothing slow on the loop that stamps tokens: a full garbage collection walks every
    # live object (records pile up over a run), so everything alive now is moved out
    # of the collector's reach for the measured window.
    gc.collect()
    gc.freeze()
    try:
        # after the collection: the workers' shared start is not spent collecting
        # the workers' shared start: handed over one stage lead early (bench.worker_main), so an open
        # loop prepares its first sends ahead of it; any other load starts at it
        start_ns = await sync("measured", point.index) if sync is not None else None
        sessions = any(r.session is not None for r in measured)
        if start_ns is not None and (sessions or point.offsets_ns is None):
            await sleep_until_ns(start_ns)
        if sessions:
            outcome.load = await sessions_loop(measured, point, send_one, keep, t0_ns)
        elif point.offsets_ns is not None:  # a replayed trace: its own schedule
            stopped = (lambda: fail_fast.stopped) if fail_fast is not None else None
            outcome.load = await open_loop(measured, point.offsets_ns, one, stopped=stopped, start_ns=start_ns, cost=_body_size)
        elif load.rate is None:
            outcome.load = await closed_loop(measured, streams, one)
        else:
            offsets = arrival_offsets_ns(len(measured), load.rate, load.arrival, load.gamma_shape, load.seed)  # type: ignore[arg-type]
            outcome.load = await open_loop(measured, offsets, one, stopped=(lambda: fail_fast.stopped) if fail_fast is not None else None, cost=_body_size)
        if fail_fast is not None and fail_fast.stopped and outcome.load is not None:
            outcome.load.achieved_rate = None  # the requests not sent were never offered: no rate was achieved
        elif outcome.load is not None and outcome.load.achieved_rate is not None:
            # the writes, not the gates: a client behind its schedule writes later than it opens them
            sent = (r.sent_ns for r in outcome.records if r.phase == "measured")
            outcome.load.achieved_rate = sends_rate(sent, outcome.load.started_ns - t0_ns)
    finally:
        gc.unfreeze()
        if sampler is not None:
            outcome.engine = await sampler.stop()
    if sync is not None:
        await sync("done", point.index)
    return outcome
