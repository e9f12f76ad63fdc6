"""Load patterns: closed loop (fixed concurrency) and open loop (arrivals at a rate).

Closed loop keeps ``concurrency`` requests in flight: a worker takes the next
request as soon as its previous one ends; latency starts at the send time.
Open loop sends request i at its *scheduled* time t_i (Poisson: exponential
gaps; gamma: gaps with a shape parameter, 1 = Poisson, < 1 burstier); latency
starts at t_i, so time the client spent behind schedule is counted, never
hidden (coordinated omission). The achieved rate is reported beside the
requested one.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from servescope.workload.arrivals import Arrival, arrival_offsets_ns

T = TypeVar("T")

__all__ = [
    "STAGE_LEAD_NS",
    "Arrival",
    "Gate",
    "LoadOutcome",
    "NotSent",
    "StagedGate",
    "arrival_offsets_ns",
    "closed_loop",
    "open_loop",
    "sends_rate",
    "sleep_until_ns",
]


@dataclass
class LoadOutcome:
    started_ns: int
    finished_ns: int
    sent: int
    achieved_rate: float | None


async def closed_loop(
    items: Sequence[T], concurrency: int, run_one: Callable[[T, int], Awaitable[None]], clock: Callable[[], int] = time.perf_counter_ns
) -> LoadOutcome:
    """``run_one(item, start_ns)`` for each item, ``concurrency`` at a time, in order."""
    start = clock()
    queue: asyncio.Queue[T] = asyncio.Queue()
    for it in items:
        queue.put_nowait(it)

    async def worker() -> None:
        while True:
            try:
                it = queue.get_nowait()
            except asyncio.QueueEmpty:
                return
            await run_one(it, clock())

    await asyncio.gather(*(worker() for _ in range(max(1, min(concurrency, len(items))))))
    end = clock()
    return LoadOutcome(start, end, len(items), None)


# How long before its scheduled time an open loop's request is prepared (its body built and
# encoded, a connection taken from the pool or opened, its headers built), so that at its time
# only its bytes are written: a burst of sends at one instant (a trace's whole-second
# timestamps put up to 16 at one time) then leaves within a fraction of a millisecond, not
# ~0.25 ms per request after the first. Bounded: only the requests due within it are staged.
STAGE_LEAD_NS = 25_000_000
# The loop's timers wake to the millisecond (epoll's timeout rounds up, libuv's clock is in
# ms): the last stretch before a send is waited by yielding to the loop (sleep(0)), which
# keeps serving the other streams' chunks meanwhile, so a send leaves within one callback's
# time of its schedule. The cost is up to ~1 ms of client CPU per distinct send time.
SPIN_NS = 1_500_000

# A staged request's go-ahead: True (write it now) or False (the run stopped: never write it).
Gate = asyncio.Future[bool]


class StagedGate(asyncio.Future[bool]):
    """The gates ``open_loop`` hands out. Their holder may set ``on_open``: called by the opener
    itself, synchronously, at the scheduled time, before the gate's result wakes anyone. A staged
    client send completes its request there (one byte written, ``bench.client``), so the sends
    due at one instant leave back to back, not each after a task wake-up behind the other
    streams' callbacks. Called once at most; a gate that says ``False`` never calls it."""

    on_open: Callable[[], None] | None = None


class NotSent(Exception):
    """Raised by the holder of a gate that said ``False``: the request was staged, never written."""


async def _sleep_until(t_ns: int, clock: Callable[[], int], stopped: Callable[[], bool], spin_ns: int = 0) -> None:
    """Sleep until ``spin_ns`` before ``t_ns``, then yield to the loop until ``t_ns``; never early."""
    while (delay := (t_ns - spin_ns - clock()) / 1e9) > 0 and not stopped():
        # timers may fire a little early (uvloop rounds to the millisecond): loop until due
        await asyncio.sleep(min(delay, 0.25))
    while clock() < t_ns and not stopped():
        await asyncio.sleep(0)


async def sleep_until_ns(t_ns: int) -> None:
    """Sleep until ``t_ns`` on ``time.perf_counter_ns``, never waking early (a split run's shared start)."""
    await _sleep_until(t_ns, time.perf_counter_ns, lambda: False)


def sends_rate(sent_ns: Iterable[int | None], start_ns: int) -> float | None:
    """An open loop's achieved rate: the requests written, less one, over the time from the
    schedule's start to the last write (``RequestRecord.sent_ns``, on the same clock as
    ``start_ns``) — what went out, not when the scheduler released it. One process and a
    split run's union (``bench.workers``) read it alike. None with fewer than two sends
    (a request not sent has ``sent_ns`` 0)."""
    sent = [s for s in sent_ns if s]
    if len(sent) < 2 or max(sent) <= start_ns:
        return None
    return (len(sent) - 1) / ((max(sent) - start_ns) / 1e9)


async def open_loop(
    items: Sequence[T],
    offsets_ns: Sequence[int],
    run_one: Callable[[T, int, Gate], Awaitable[None]],
    clock: Callable[[], int] = time.perf_counter_ns,
    max_in_flight: int | None = None,
    stopped: Callable[[], bool] | None = None,
    start_ns: int | None = None,
    lead_ns: int = STAGE_LEAD_NS,
    cost: Callable[[T], int] | None = None,
) -> LoadOutcome:
    """Send item i at ``start + offsets_ns[i]``: ``run_one(item, scheduled, gate)`` is called
    ``lead_ns`` before that time to prepare the request, and writes it once ``gate`` is done,
    which it is at the scheduled time (every gate due at one instant is opened back to back,
    in order). Latency starts at the scheduled time whatever happens.
    A gate's result says whether to send: ``True`` at the scheduled time; ``False`` once
    ``stopped()`` is true (the run stopped early), for every gate not yet opened — such a
    request must not be written (its owner records it as not sent) — and the rest are handed
    to ``run_one`` at once with gates already ``False``, still with their scheduled times,
    so a stopped run does not sit out its schedule. ``cost``: how long an item takes to write (its body's size, say): gates due at
    one instant open cheapest first. ``start_ns``: the schedule's start on ``clock`` (workers of one split run
    share it, set far enough ahead); default ``lead_ns`` from now."""
    # the schedule starts one lead from now, so that its first requests are prepared ahead too
    start = clock() + lead_ns if start_ns is None else start_ns
    is_stopped = stopped if stopped is not None else (lambda: False)
    loop = asyncio.get_running_loop()
    tasks: list[asyncio.Task[None]] = []
    limiter = asyncio.Semaphore(max_in_flight) if max_in_flight else None
    due: deque[tuple[int, int, StagedGate]] = deque()  # (scheduled, write cost, gate): staged, not yet open, in schedule order
    staged = asyncio.Event()
    all_staged = False
    last_opened = start

    async def guarded(it: T, scheduled: int, gate: Gate) -> None:
        if limiter is None:
            await run_one(it, scheduled, gate)
            return
        async with limiter:  # time waiting here counts: latency starts at `scheduled`
            await run_one(it, scheduled, gate)

    async def open_gates() -> None:
        nonlocal last_opened
        while True:
            if not due:
                if all_staged:
                    return
                staged.clear()
                await staged.wait()
                continue
            await _sleep_until(due[0][0], clock, is_stopped, SPIN_NS)
            if is_stopped():  # never opened early: what was staged is not to be sent
                while due:
                    gate = due.popleft()[2]
                    if not gate.done():
                        gate.set_result(False)
                continue
            now = clock()
            opening: list[tuple[int, int, StagedGate]] = []
            while due and due[0][0] <= now:
                opening.append(due.popleft())
            # every request due now is on time whatever their order among themselves: each one
            # waits for the writes opened before it, so the shortest go first (the SPT rule; a
            # stable sort, so without costs they go in schedule order)
            for _, _, gate in sorted(opening, key=lambda entry: entry[1]):
                if not gate.done():
                    fire = gate.on_open
                    if fire is not None:
                        gate.on_open = None
                        fire()
                    gate.set_result(True)
            last_opened = now

    opener = asyncio.create_task(open_gates())
    try:
        for it, off in zip(items, offsets_ns, strict=True):
            scheduled = start + off
            await _sleep_until(scheduled - lead_ns, clock, is_stopped)
            gate = StagedGate(loop=loop)
            due.append((scheduled, cost(it) if cost is not None else 0, gate))
            staged.set()
            tasks.append(asyncio.create_task(guarded(it, scheduled, gate)))
        all_staged = True
        staged.set()
        await opener
        await asyncio.gather(*tasks)
    finally:
        for gate in (entry[2] for entry in due):  # on cancellation: nothing left waiting on a gate
            if not gate.done():
                gate.cancel()
        opener.cancel()
    end = clock()
    span = (last_opened - start) / 1e9
    achieved = (len(items) - 1) / span if len(items) > 1 and span > 0 else None
    return LoadOutcome(start, end, len(items), achieved)
