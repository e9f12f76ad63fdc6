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
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from servescope.workload.arrivals import Arrival, arrival_offsets_ns

T = TypeVar("T")

__all__ = ["Arrival", "LoadOutcome", "arrival_offsets_ns", "closed_loop", "open_loop"]


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


async def open_loop(
    items: Sequence[T],
    offsets_ns: Sequence[int],
    run_one: Callable[[T, int], Awaitable[None]],
    clock: Callable[[], int] = time.perf_counter_ns,
    max_in_flight: int | None = None,
    stopped: Callable[[], bool] | None = None,
    start_ns: int | None = None,
) -> LoadOutcome:
    """Send item i at ``start + offsets_ns[i]``; ``run_one`` gets the scheduled time.
    Once ``stopped()`` is true (the run stopped early) the rest are handed to ``run_one``
    at once, still with their scheduled times, so a stopped run does not sit out its schedule.
    ``start_ns``: the schedule's start on ``clock`` (workers of one split run share it); default now."""
    start = clock() if start_ns is None else start_ns
    tasks: list[asyncio.Task[None]] = []
    limiter = asyncio.Semaphore(max_in_flight) if max_in_flight else None

    async def guarded(it: T, scheduled: int) -> None:
        if limiter is None:
            await run_one(it, scheduled)
            return
        async with limiter:  # time waiting here counts: latency starts at `scheduled`
            await run_one(it, scheduled)

    last_sent = start
    for it, off in zip(items, offsets_ns, strict=True):
        scheduled = start + off
        # Loop: timers may fire a little early (uvloop rounds to the millisecond), and a
        # request must never leave before its scheduled time.
        while (delay := (scheduled - clock()) / 1e9) > 0 and not (stopped is not None and stopped()):
            await asyncio.sleep(min(delay, 0.25) if stopped is not None else delay)
        last_sent = clock()
        tasks.append(asyncio.create_task(guarded(it, scheduled)))
    await asyncio.gather(*tasks)
    end = clock()
    span = (last_sent - start) / 1e9
    achieved = (len(items) - 1) / span if len(items) > 1 and span > 0 else None
    return LoadOutcome(start, end, len(items), achieved)
