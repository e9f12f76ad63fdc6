"""Load patterns: the two drivers (asyncio, tiny sleeps); the schedules are tests/workload/test_arrivals.py."""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import time

import pytest

from servescope.bench.load import Gate, closed_loop, open_loop

# ---- closed_loop -----------------------------------------------------------------------


class InFlight:
    def __init__(self) -> None:
        self.now = 0
        self.peak = 0
        self.started: list[int] = []
        self.start_ns: list[int] = []

    async def run_one(self, item: int, start_ns: int, gate: Gate | None = None) -> None:
        if gate is not None:
            await gate
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

    async def run_one(item: str, scheduled: int, gate: Gate) -> None:
        await gate
        got[item] = scheduled

    offsets = [0, 5_000_000, 7_000_000, 30_000_000]
    outcome = asyncio.run(open_loop(["a", "b", "c", "d"], offsets, run_one, clock=lambda: next(ticks), lead_ns=0))
    assert outcome.started_ns == 0
    assert got == {"a": 0, "b": 5_000_000, "c": 7_000_000, "d": 30_000_000}
    assert outcome.sent == 4


def test_open_loop_scheduled_time_is_start_plus_offset_not_the_actual_send() -> None:
    """Real clock; max_in_flight=1 and 20 ms requests make the later ones start late."""
    calls: list[tuple[int, int, int]] = []

    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        await gate
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

    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        await gate
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
    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        return None

    assert asyncio.run(open_loop([0], [0], run_one)).achieved_rate is None


def test_open_loop_offsets_must_match_items() -> None:
    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        return None

    with pytest.raises(ValueError):
        asyncio.run(open_loop([0, 1], [0], run_one))


def test_open_loop_prepares_each_request_ahead_and_sends_a_burst_back_to_back() -> None:
    """Sixteen requests due at one instant, each taking 2 ms of CPU to prepare (building
    and encoding a body, taking a connection): they are prepared before their time, so
    at the gate only the writes remain and the last leaves right after the first, not
    16 x 2 ms later; none leaves before its time. (Bounds loose for a loaded machine.)"""
    prepared: list[int] = []
    sent: list[int] = []

    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        busy_until = time.perf_counter_ns() + 2_000_000
        while time.perf_counter_ns() < busy_until:
            pass
        prepared.append(time.perf_counter_ns())
        await gate
        sent.append(time.perf_counter_ns())

    offsets = [400_000_000] * 16
    outcome = asyncio.run(open_loop(list(range(16)), offsets, run_one, lead_ns=300_000_000))
    due = outcome.started_ns + offsets[0]
    assert max(prepared) < due  # all sixteen were ready before their time
    assert min(sent) >= due  # never early
    # the writes follow each other with nothing in between (a burst prepared at its time
    # would spread over >= 30 ms)
    assert max(sent) - min(sent) < 15_000_000


def test_open_loop_stopped_says_not_to_send_at_once_and_never_opens_a_gate_early() -> None:
    """A run stopped early hands the rest over at once, no one waiting out the schedule; every
    gate not yet opened, staged ones included, says False (not to be sent), never True before
    its time: a staged request written early would be stamped before its schedule."""
    said: dict[int, tuple[bool, int, int]] = {}
    stop = {"now": False}
    clock = time.perf_counter_ns

    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        go = await gate
        said[item] = (go, clock(), scheduled)
        if go:
            stop["now"] = True  # the first send stops the run, with the next two staged

    t = time.perf_counter()
    # items 1 and 2 staged with item 0 (inside the 25 ms lead), 10 ms apart so that item 0's task has
    # stopped the run before item 1 is due even when the process is paused a few ms (2 ms apart, a
    # loaded 2-core VM opened item 1 in the same pass as item 0 in 1 clean-clone run on 2026-12-07)
    offsets = [0, 10_000_000, 20_000_000, 10**9, 2 * 10**9, 3 * 10**9]
    asyncio.run(open_loop(list(range(6)), offsets, run_one, stopped=lambda: stop["now"], lead_ns=25_000_000))
    assert time.perf_counter() - t < 0.5
    assert sorted(said) == list(range(6))
    assert said[0][0] is True and said[0][1] >= said[0][2]
    assert [said[i][0] for i in range(1, 6)] == [False] * 5
    assert all(at >= scheduled for go, at, scheduled in said.values() if go)


def test_a_gate_that_said_no_raises_not_sent_in_its_holder_and_the_fail_fast_rule_records_it_not_sent() -> None:
    """The client's side of a False gate: nothing written, nothing stamped, recorded as not sent."""
    from servescope.bench.fail_fast import FailFast
    from servescope.bench.load import NotSent
    from servescope.documents.record import RequestRecord

    async def main() -> RequestRecord:
        rule = FailFast(window=8)
        rule.stopped = True
        record = RequestRecord(request_id="r", phase="measured", concurrency=1, point=0, start_ns=5_000)
        gate: Gate = asyncio.get_running_loop().create_future()
        gate.set_result(False)
        async with rule.sending(record):
            if not await gate:
                record.end_ns = 7_000  # what an unwinding send may have set
                raise NotSent
        assert rule.not_sent == 1
        return record

    record = asyncio.run(main())
    assert record.attempts is None and record.sent_ns == 0 and record.end_ns is None
    assert record.category == "cancelled" and record.stage == "admission" and (record.error or "").startswith("not sent")


def test_the_first_requests_of_a_schedule_are_prepared_ahead_too() -> None:
    """The schedule starts one lead from now: a burst at offset 0 is staged before its time like any other."""
    prepared: list[int] = []
    sent: list[int] = []

    async def run_one(item: int, scheduled: int, gate: Gate) -> None:
        prepared.append(time.perf_counter_ns())
        await gate
        sent.append(time.perf_counter_ns())

    outcome = asyncio.run(open_loop(list(range(4)), [0, 0, 0, 0], run_one, lead_ns=50_000_000))
    assert max(prepared) < outcome.started_ns <= min(sent)


def test_sends_due_at_one_instant_go_cheapest_first_and_instants_keep_their_order() -> None:
    """Each request of a burst waits for the writes before it: the cheapest are written first
    (the SPT rule), which is on time for every one of them; a later instant still goes later."""
    order: list[str] = []

    async def run_one(item: str, scheduled: int, gate: Gate) -> None:
        await gate
        order.append(item)

    items = ["big", "small", "mid", "later-big", "later-small"]
    size = {"big": 900, "small": 10, "mid": 300, "later-big": 800, "later-small": 5}
    offsets = [20_000_000] * 3 + [40_000_000] * 2
    asyncio.run(open_loop(items, offsets, run_one, lead_ns=10_000_000, cost=size.__getitem__))
    assert order == ["small", "mid", "big", "later-small", "later-big"]


def test_a_staged_request_whose_pooled_connection_is_closed_while_it_waits_is_sent_again() -> None:
    """A server that closes a keep-alive connection 10 ms after answering: the next request, staged on
    that pooled connection, loses it while waiting at its gate. aiohttp cancels its body writer then;
    the gate must survive that (not be cancelled with it) so the request is sent again on a new
    connection at its time, and the run goes on with every record kept."""
    from servescope.bench.client import make_session, send
    from servescope.bench.endpoint import Endpoint
    from servescope.documents.record import RequestRecord

    body = b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n" % len(body)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            top = await reader.readuntil(b"\r\n\r\n")
            length = int(top.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length)
            writer.write(head + body)
            await writer.drain()
            await asyncio.sleep(0.010)  # keep-alive closed 10 ms after answering
        except (asyncio.IncompleteReadError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def main() -> list[RequestRecord]:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        endpoint = Endpoint(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", model="m")
        t0 = time.perf_counter_ns()
        kept: list[RequestRecord] = []
        async with server, make_session() as session:

            async def one(i: int, scheduled: int, gate: Gate) -> None:
                record = RequestRecord(request_id=str(i), phase="measured", concurrency=1, point=0, start_ns=scheduled - t0)
                await send(session, endpoint, endpoint.body("x", 4, 0.0, None, None), record, t0_ns=t0, timeout_s=5, gate=gate)
                kept.append(record)

            await open_loop([0, 1, 2], [0, 28_000_000, 200_000_000], one)
        return kept

    kept = asyncio.run(main())
    assert sorted(r.request_id for r in kept) == ["0", "1", "2"]
    assert all(r.ok for r in kept), [(r.request_id, r.category, r.error) for r in kept]
    assert all(r.sent_ns >= r.start_ns for r in kept)


def _staged_send_against_a_watching_server(go: bool) -> tuple[list[tuple[str, int]], int, object]:
    """One staged send of a 200 KB prompt against a server that notes when a request's headers, all
    but its last byte, and its whole body arrive; its gate answers ``go`` 60 ms after the send began."""
    from servescope.bench.client import make_session, send
    from servescope.bench.endpoint import Endpoint
    from servescope.bench.load import NotSent
    from servescope.documents.record import RequestRecord

    seen: list[tuple[str, int]] = []
    body = b'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    head = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n" % len(body)

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            top = await reader.readuntil(b"\r\n\r\n")
            seen.append(("headers", time.perf_counter_ns()))
            length = int(top.lower().split(b"content-length:")[1].split(b"\r\n")[0])
            await reader.readexactly(length - 1)
            seen.append(("all but the last byte", time.perf_counter_ns()))
            await reader.readexactly(1)
            seen.append(("whole", time.perf_counter_ns()))
            writer.write(head + body)
            await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError):
            seen.append(("cut", time.perf_counter_ns()))
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def main() -> tuple[int, object]:
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        endpoint = Endpoint(f"http://127.0.0.1:{server.sockets[0].getsockname()[1]}", model="m")
        t0 = time.perf_counter_ns()
        record = RequestRecord(request_id="r", phase="measured", concurrency=1, point=0, start_ns=0)
        async with server, make_session() as session:
            gate: Gate = asyncio.get_running_loop().create_future()
            task = asyncio.create_task(send(session, endpoint, endpoint.body("x " * 100_000, 4, 0.0, None, None), record, t0_ns=t0, timeout_s=5, gate=gate))
            await asyncio.sleep(0.060)
            opened = time.perf_counter_ns()
            gate.set_result(go)
            try:
                await task
                outcome: object = record
            except NotSent:
                outcome = NotSent
            await asyncio.sleep(0.020)  # the server's side of a cut connection
        return opened, outcome

    opened, outcome = asyncio.run(main())
    return seen, opened, outcome


def test_a_staged_request_is_written_ahead_but_reaches_the_server_whole_only_at_its_gate() -> None:
    """All but a staged request's last byte goes ahead of its time; the request is whole - something
    the server can act on - only once its gate opens, and it is stamped sent then."""
    seen, opened, outcome = _staged_send_against_a_watching_server(True)
    at = dict(seen)
    assert [name for name, _ in seen] == ["headers", "all but the last byte", "whole"]
    assert at["all but the last byte"] < opened <= at["whole"]
    assert getattr(outcome, "ok", False) and getattr(outcome, "attempts", None) == 1


def test_a_staged_request_whose_gate_says_no_is_never_completed_and_its_connection_is_cut() -> None:
    """The run stopped while a request was staged, part of it written: its connection is aborted, so
    the server never holds a whole request, and the holder gets NotSent (recorded as not sent)."""
    from servescope.bench.load import NotSent

    seen, _, outcome = _staged_send_against_a_watching_server(False)
    assert outcome is NotSent
    assert [name for name, _ in seen] == ["headers", "all but the last byte", "cut"]
