"""Load patterns: the two drivers (asyncio, tiny sleeps); the schedules are tests/workload/test_arrivals.py."""

from __future__ import annotations

import asyncio
import itertools
import time

import pytest

from servescope.bench.load import closed_loop, open_loop

# ---- closed_loop -----------------------------------------------------------------------


class InFlight:
    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.started: list[int] = []
        self.start_ns: list[int] = []

    async def run_one(self, item: int, start_ns: int) -> None:
        self.now += 1
        self.peak = max(self.peak, self.now)
        self.started.append(item)
        self.start_ns.append(start_ns)
        await asyncio.sleep(0.001 * (1 + item % 3))
        self.now -= 1


@pytest.mark.parametrize(("n", "concurrency"), [(30, 4), (5, 8), (7, 1), (12, 12)])
def test_closed_loop_never_exceeds_concurrency_and_runs_everything(n: int, concurrency: int) -> None:
    t = InFlight()
    outcome = asyncio.run(closed_loop(list(range(n)), concurrency, t.run_one))
    assert t.peak == min(concurrency, n)
    assert sorted(t.started) == list(range(n))
    assert t.started == list(range(n))  # taken in order
    assert outcome.sent == n
    assert outcome.achieved_rate is None
    assert outcome.started_ns <= min(t.start_ns) and max(t.start_ns) <= outcome.finished_ns


def test_closed_loop_with_zero_concurrency_still_runs_one_at_a_time() -> None:
    t = InFlight()
    asyncio.run(closed_loop(list(range(4)), 0, t.run_one))
    assert t.peak == 1 and t.started == [0, 1, 2, 3]


def test_closed_loop_with_no_items() -> None:
    t = InFlight()
    outcome = asyncio.run(closed_loop([], 4, t.run_one))
    assert outcome.sent == 0 and t.started == []


def test_closed_loop_start_is_the_send_time_from_the_clock() -> None:
    ticks = itertools.count(1000, 10)
    t = InFlight()
    outcome = asyncio.run(closed_loop([0, 1, 2], 1, t.run_one, clock=lambda: next(ticks)))
    # clock: 1000 at start, then one reading per send, then one at the end
    assert outcome.started_ns == 1000
    assert t.start_ns == [1010, 1020, 1030]
    assert outcome.finished_ns == 1040


# ---- open_loop ---------------------------------------------------------------------------


def test_open_loop_passes_the_scheduled_time_even_when_behind_schedule() -> None:
    """A clock that is always far past every deadline: the client is hopelessly late, so
    no send waits, yet each request's latency still starts at start + offset."""
    ticks = itertools.count(0, 10**12)
    got: dict[str, int] = {}

    async def run_one(item: str, scheduled: int) -> None:
        got[item] = scheduled

    offsets = [0, 5_000_000, 7_000_000, 30_000_000]
    outcome = asyncio.run(open_loop(["a", "b", "c", "d"], offsets, run_one, clock=lambda: next(ticks)))
    assert outcome.started_ns == 0
    assert got == {"a": 0, "b": 5_000_000, "c": 7_000_000, "d": 30_000_000}
    assert outcome.sent == 4


def test_open_loop_scheduled_time_is_start_plus_offset_not_the_actual_send() -> None:
    """Real clock; max_in_flight=1 and 20 ms requests make the later ones start late."""
    calls: list[tuple[int, int, int]] = []

    async def run_one(item: int, scheduled: int) -> None:
        calls.append((item, scheduled, time.perf_counter_ns()))
        await asyncio.sleep(0.02)

    offsets = [0, 1_000_000, 2_000_000]
    outcome = asyncio.run(open_loop([0, 1, 2], offsets, run_one, max_in_flight=1))
    assert [c[1] - outcome.started_ns for c in sorted(calls)] == offsets
    for _item, scheduled, actual in calls:
        assert actual >= scheduled
    # the third request waited behind two 20 ms requests: its actual start is >= 35 ms late
    _, scheduled_2, actual_2 = sorted(calls)[2]
    assert actual_2 - scheduled_2 >= 35_000_000


def test_open_loop_waits_for_the_schedule() -> None:
    sent_at: list[int] = []

    async def run_one(item: int, scheduled: int) -> None:
        sent_at.append(time.perf_counter_ns())

    offsets = [0, 15_000_000, 30_000_000]
    outcome = asyncio.run(open_loop([0, 1, 2], offsets, run_one))
    for off, actual in zip(offsets, sent_at, strict=True):
        assert actual - outcome.started_ns >= off - 1_000_000  # not early (1 ms of timer slack)
    assert outcome.achieved_rate is not None
    assert 0 < outcome.achieved_rate <= 2 / 0.029  # 2 gaps in >= ~30 ms


def test_open_loop_max_in_flight_caps_concurrency() -> None:
    t = InFlight()
    asyncio.run(open_loop(list(range(10)), [0] * 10, t.run_one, max_in_flight=3))
    assert t.peak == 3
    assert sorted(t.started) == list(range(10))


def test_open_loop_single_request_has_no_achieved_rate() -> None:
    async def run_one(item: int, scheduled: int) -> None:
        return None

    assert asyncio.run(open_loop([0], [0], run_one)).achieved_rate is None


def test_open_loop_offsets_must_match_items() -> None:
    async def run_one(item: int, scheduled: int) -> None:
        return None

    with pytest.raises(ValueError):
        asyncio.run(open_loop([0, 1], [0], run_one))
