"""The driver of a split run (``run --workers N``, ``--ray ADDRESS``): one run's load
from N client workers, merged exactly into one records file and one Result.

1. The points are split (``workload.partition``): closed loop by streams, open loop
   and traces by dealing one global schedule, sessions whole.
2. The workers start (``bench.worker_links``: local processes, or Ray tasks), and
   each one's clock is measured against the driver's (``bench.worker_clock``);
   each gets the run's start as an instant of its own clock, so every time it
   records is already on the driver's clock.
3. At each phase of each point the driver waits for every live worker, then gives
   one go time to all: the measured window opens at one instant. The driver alone
   reads ``/metrics`` and the GPUs over that window, as one process does.
4. Records stream in as workers finish requests: written at once into the run's
   ``records.jsonl`` (with its index) and counted for progress. Each worker also
   keeps its own file, ``workers/worker-K.jsonl``; at the end anything there the
   driver did not receive (a worker killed between two batches) is merged too.
5. A worker that dies, or sends nothing (not even its once-a-second ``beat``) for
   longer than the run's per-request timeout (a SIGSTOPped or frozen process), is a
   lost worker: its finished requests stay, each request it had not finished becomes
   a failed record of category ``worker-lost``, and the run goes on with the others
   (a phase no longer waits for it).
6. Clocks are measured again after the run (the drift), and everything — the split,
   each worker's host, pid and clock offset with its uncertainty, the lost workers —
   goes into the Result's ``resolved_params.workers``.
"""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servescope.bench.capabilities import Capabilities
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import OnRecord
from servescope.bench.load import LoadOutcome, sends_rate
from servescope.bench.outcome import PointOutcome, planned_record
from servescope.bench.records import RecordWriter, read_records
from servescope.bench.scrape import MetricsSampler, PointSamplers
from servescope.bench.worker_clock import ClockOffset, ClockSample, boot_id, estimate
from servescope.bench.worker_links import Message, ProcessWorkers, RayWorkers, Workers
from servescope.bench.worker_main import HEARTBEAT_S, WorkerSpec
from servescope.documents import Workload
from servescope.documents.record import RequestRecord
from servescope.errors import EndpointError
from servescope.workload.plan import PlannedPoint

WORKERS_DIR = "workers"
CLOCK_ROUNDS = 8
HELLO_TIMEOUT_S = 120.0  # spawning a process imports servescope (~1 s); a Ray task may wait for a node
PING_TIMEOUT_S = 10.0
MIN_SILENCE_S = 5 * HEARTBEAT_S  # a worker is lost after at least this long without a word, whatever --timeout


@dataclass
class WorkersRun:
    """What the driver hands to ``run_workers``."""

    count: int
    ray_address: str | None
    endpoint: Endpoint
    workload: Workload
    points: list[PlannedPoint]  # the whole run's points
    splits: list[list[PlannedPoint]]  # each worker's points (workload.partition.split_points)
    run_dir: Path
    header: dict[str, Any]
    timeout_s: float
    event_loop: str
    extra_body: dict[str, Any] | None = None
    capabilities: Capabilities = field(default_factory=Capabilities)
    fail_fast: bool = True


@dataclass
class WorkersOutcome:
    outcomes: list[PointOutcome]
    block: dict[str, Any]  # resolved_params.workers
    lost: dict[int, str]  # worker -> how it ended
    stopped_early: str | None = None


def worker_records(run_dir: Path, k: int) -> Path:
    return run_dir / WORKERS_DIR / f"worker-{k}.jsonl"


def split_block(points: list[PlannedPoint], splits: list[list[PlannedPoint]], ray_address: str | None) -> dict[str, Any]:
    """The split, as the header and the Result record it (``resolved_params.workers``)."""
    return {
        "count": len(splits),
        "placement": "ray" if ray_address is not None else "processes",
        "ray_address": ray_address,
        "records": f"{WORKERS_DIR}/worker-<k>.jsonl",
        "split": [
            {
                "point": point.index,
                "streams": [subs[i].client_concurrency for subs in splits],
                "requests": [subs[i].measured for subs in splits],
            }
            for i, point in enumerate(points)
        ],
    }


def _lost_record(req: Any, point: PlannedPoint, now_ns: int, k: int, how: str) -> RequestRecord:
    record = planned_record(req, point, now_ns)
    record.sent_ns = record.end_ns = now_ns
    record.ok = False
    record.stage = "send"
    record.category = "worker-lost"
    record.error = f"client worker {k} ended before this request finished ({how}); its finished requests are kept"
    return record


class _Driver:
    def __init__(self, run: WorkersRun, links: Workers, writer: RecordWriter, sampler: MetricsSampler | PointSamplers | None) -> None:
        self.run = run
        self.links = links
        self.writer = writer
        self.sampler = sampler
        self.loop = asyncio.get_running_loop()
        n = run.count
        self.live: set[int] = set(range(n))
        self.finished: set[int] = set()
        self.lost: dict[int, str] = {}
        self.hosts: dict[int, tuple[int, str]] = {}
        self.same_clock: dict[int, bool] = {}  # worker shares the driver's kernel, so its CLOCK_MONOTONIC
        self.clock_before: dict[int, ClockOffset] = {}
        self.clock_after: dict[int, ClockOffset] = {}
        self.arrived: dict[tuple[str, int], set[int]] = {}
        self.released: set[tuple[str, int]] = set()
        self.done: dict[int, set[int]] = {}
        self.point_of = {p.index: p for p in run.points}
        self.outcomes = {p.index: PointOutcome(p) for p in run.points}
        self.seen: set[tuple[int | None, str, str]] = set()
        self.measured_start: dict[int, int] = {}  # point -> its measured window's start, ns from t0
        self.sampling: int | None = None
        self.stopped_early: str | None = None
        self.t0_ns = 0
        self.on_record: OnRecord | None = None
        self.on_point: Callable[[PlannedPoint], None] | None = None
        self.heard: dict[int, float] = {}  # worker -> when it last sent anything (time.monotonic)
        # a running worker beats every HEARTBEAT_S; silent past the run's timeout (and a few beats) it is stopped or frozen
        self.silence_s = max(run.timeout_s, MIN_SILENCE_S)

    async def recv(self, timeout: float) -> list[tuple[int, Message]]:
        return await self.loop.run_in_executor(None, self.links.recv, timeout)

    async def hellos(self) -> None:
        deadline = time.monotonic() + HELLO_TIMEOUT_S
        while len(self.hosts) < self.run.count:
            for k, msg in await self.recv(0.2):
                if msg[0] == "hello":
                    self.hosts[k] = (int(msg[2]), str(msg[3]))
                    self.same_clock[k] = msg[4] is not None and msg[4] == boot_id()
            for k in range(self.run.count):
                if k not in self.hosts and (how := self.links.status(k)) is not None:
                    raise EndpointError(f"client worker {k} ended before it started ({how or 'exited'}); nothing was sent")
            if time.monotonic() > deadline:
                raise EndpointError(
                    f"{self.run.count - len(self.hosts)} of {self.run.count} client workers did not start within {HELLO_TIMEOUT_S:g} s; nothing was sent"
                )

    async def clock(self, k: int) -> ClockOffset | None:
        """Worker k's offset, NTP-style; None when it does not answer (it is gone)."""
        samples = []
        for seq in range(CLOCK_ROUNDS):
            sent = time.perf_counter_ns()
            self.links.send(k, ("ping", seq))
            deadline = time.monotonic() + PING_TIMEOUT_S
            answer = None
            while answer is None and time.monotonic() < deadline:
                for j, msg in await self.recv(0.5):
                    if msg[0] == "pong" and j == k and msg[2] == seq:
                        answer = (int(msg[3]), time.perf_counter_ns())
                    else:
                        await self.handle(j, msg)
                if answer is None and self.links.status(k) is not None:
                    return None
            if answer is None:
                return None
            samples.append(ClockSample(sent, answer[0], answer[1]))
        return estimate(samples)

    def applied_offset(self, k: int) -> int:
        """What turns a driver time into worker k's: 0 on the driver's own clock, else the offset measured before the run."""
        return 0 if self.same_clock.get(k) else self.clock_before[k].offset_ns

    def keep(self, record: RequestRecord) -> None:
        key = (record.point, record.phase, record.request_id)
        if key in self.seen:
            return
        self.seen.add(key)
        self.writer.write(record)
        outcome = self.outcomes.get(record.point if record.point is not None else 0)
        if outcome is not None:
            outcome.records.append(record)
        if self.on_record is not None:
            self.on_record(record)

    async def handle(self, k: int, msg: Message) -> None:
        kind = msg[0]
        if kind == "records":
            for record in msg[1]:
                self.keep(record)
        elif kind == "at":
            phase, point = str(msg[2]), int(msg[3])
            if phase == "done":
                self.done.setdefault(point, set()).add(k)
            else:
                self.arrived.setdefault((phase, point), set()).add(k)
        elif kind == "finished":
            self.finished.add(k)
            if msg[2].get("stopped_early") and self.stopped_early is None:
                self.stopped_early = f"client worker {k}: {msg[2]['stopped_early']}"
        elif kind == "failed":
            self.lose(k, f"failed: {msg[2]}")
        # "beat": a running worker that had nothing else to say (watch notes when each was heard)

    def lose(self, k: int, how: str) -> None:
        if k in self.live:
            self.live.discard(k)
            self.lost[k] = how

    async def advance(self) -> None:
        """Release every phase all live workers have reached; close every point they all finished."""
        for key, there in sorted(self.arrived.items(), key=lambda kv: (kv[0][1], kv[0][0] != "warmup")):
            if key in self.released or not self.live or not self.live <= there:
                continue
            phase, index = key
            self.released.add(key)
            if phase == "warmup" and self.on_point is not None:
                self.on_point(self.point_of[index])
            if phase == "measured" and self.sampler is not None:
                await self.sampler.start()
                self.sampling = index
            # far enough ahead for the message to arrive and, in the measured phase, for an open loop
            # to stage its first sends (bench.load.STAGE_LEAD_NS) before the shared start
            lead_ns = 75_000_000 if self.links.placement == "processes" else 250_000_000
            go = time.perf_counter_ns() + lead_ns
            if phase == "measured":
                self.measured_start[index] = go - self.t0_ns
            for k in sorted(there & self.live):
                self.links.send(k, ("go", go + self.applied_offset(k)))
        for index, there in sorted(self.done.items()):
            if index in self.outcomes and self.outcomes[index].load is None and self.live and self.live <= there:
                await self.close_point(index)

    async def close_point(self, index: int) -> None:
        outcome = self.outcomes[index]
        if self.sampler is not None and self.sampling == index:
            outcome.engine = await self.sampler.stop()
            self.sampling = None
        outcome.load = self.load_of(outcome)
        self.writer.write_point_done(index, outcome.load.achieved_rate, outcome.engine)

    def load_of(self, outcome: PointOutcome) -> LoadOutcome:
        """The point's load over the union; open loop: the achieved rate of every send."""
        measured = [r for r in outcome.records if r.phase == "measured"]
        start = self.measured_start.get(outcome.point.index, 0)
        end = max((r.end_ns or r.start_ns for r in measured), default=start)
        achieved = None
        open_loop = outcome.point.offsets_ns is not None or self.run.header.get("requested_rate") is not None
        if open_loop and self.stopped_early is None:
            achieved = sends_rate((r.sent_ns for r in measured), start)
        return LoadOutcome(start, end, len(measured), achieved)

    async def watch(self) -> None:
        """Read messages and watch for lost workers until every worker finished or was lost:
        one that ended, or one that has sent nothing for ``silence_s`` (it no longer runs)."""
        started = time.monotonic()
        while len(self.finished) + len(self.lost) < self.run.count:
            for k, msg in await self.recv(0.05):
                self.heard[k] = time.monotonic()
                await self.handle(k, msg)
            for k in sorted(self.live - self.finished):
                how = self.links.status(k)
                if how is None:
                    silent = time.monotonic() - self.heard.get(k, started)
                    if silent > self.silence_s:
                        self.lose(k, f"sent nothing for {silent:.0f} s, more than the run's {self.silence_s:g} s timeout: stopped or frozen")
                    continue
                for j, msg in await self.recv(0):  # what it sent before it ended comes first
                    await self.handle(j, msg)
                if k not in self.finished:
                    self.lose(k, how or "exited before it finished")
            await self.advance()

    def merge_worker_files(self) -> None:
        """Records in the workers' own files the driver never received (a worker killed
        between two batches, a run interrupted)."""
        for k in range(self.run.count):
            path = worker_records(self.run.run_dir, k)
            if path.is_file():  # a worker on another host keeps its file there
                for record in read_records(path):
                    self.keep(record)

    def lost_records(self) -> None:
        """A ``worker-lost`` record for every request a lost worker had not finished."""
        now = time.perf_counter_ns() - self.t0_ns
        for k, how in sorted(self.lost.items()):
            for sub in self.run.splits[k]:
                point = self.point_of[sub.index]
                for req in sub.requests:
                    if (sub.index, req.phase, req.request_id) not in self.seen:
                        self.keep(_lost_record(req, point, now, k, how))

    async def close_open_points(self) -> None:
        """Points left unclosed because the workers that had not finished them were lost."""
        for index, outcome in self.outcomes.items():
            if outcome.load is None and any(r.phase == "measured" for r in outcome.records):
                await self.close_point(index)


async def run_workers(
    run: WorkersRun,
    writer: RecordWriter,
    *,
    sampler: MetricsSampler | PointSamplers | None = None,
    on_record: OnRecord | None = None,
    on_point: Callable[[PlannedPoint], None] | None = None,
) -> WorkersOutcome:
    """Run ``run`` on its workers; records go to ``writer`` as they arrive."""
    from servescope.bench.fail_fast import window_for

    specs = [
        WorkerSpec(
            index=k,
            count=run.count,
            endpoint=run.endpoint,
            workload=run.workload,
            points=run.splits[k],
            records_path=worker_records(run.run_dir, k),
            header={**run.header, "resolved_params": {**run.header.get("resolved_params", {}), "worker": {"index": k, "of": run.count}}},
            timeout_s=run.timeout_s,
            event_loop=run.event_loop,
            extra_body=run.extra_body,
            capabilities=run.capabilities,
            fail_fast_window=window_for(run.splits[k][0].client_concurrency or 1) if run.fail_fast and run.splits[k] else None,
            driver_pid=os.getpid() if run.ray_address is None else None,
        )
        for k in range(run.count)
    ]
    links: Workers = RayWorkers(run.ray_address, specs) if run.ray_address is not None else ProcessWorkers(specs)
    driver = _Driver(run, links, writer, sampler)
    driver.on_record, driver.on_point = on_record, on_point
    completed = False
    try:
        await driver.hellos()
        for k in range(run.count):
            offset = await driver.clock(k)
            if offset is None:
                raise EndpointError(f"client worker {k} did not answer the driver's clock pings; nothing was sent")
            driver.clock_before[k] = offset
        driver.t0_ns = time.perf_counter_ns()  # the run's t0, on the driver's clock
        for k in range(run.count):
            links.send(k, ("run", driver.t0_ns + driver.applied_offset(k)))
        try:
            await driver.watch()
        finally:
            if driver.sampling is not None and driver.sampler is not None:
                await driver.sampler.stop()
                driver.sampling = None
        for k in sorted(driver.finished - set(driver.lost)):
            after = await driver.clock(k)
            if after is not None:
                driver.clock_after[k] = after
        for k in range(run.count):
            links.send(k, ("stop",))
        completed = True
    finally:
        links.close(abort=not completed)  # interrupted (Ctrl-C) or failed: the workers stop now
        driver.merge_worker_files()  # whatever happened, every request a worker finished reaches records.jsonl
    driver.lost_records()
    await driver.close_open_points()
    block = split_block(run.points, run.splits, run.ray_address) | {
        "clock": [
            {
                "worker": k,
                "host": driver.hosts.get(k, (None, None))[1],
                "pid": driver.hosts.get(k, (None, None))[0],
                "before": driver.clock_before[k].as_dict() if k in driver.clock_before else None,
                "after": driver.clock_after[k].as_dict() if k in driver.clock_after else None,
                # the offset its times were moved by: 0 when it reads the driver's own clock (same kernel)
                "applied_offset_ns": driver.applied_offset(k) if k in driver.clock_before else None,
                "same_clock": driver.same_clock.get(k, False),
            }
            for k in range(run.count)
        ],
        "lost": [{"worker": k, "how": how} for k, how in sorted(driver.lost.items())],
    }
    return WorkersOutcome([driver.outcomes[p.index] for p in run.points], block, dict(driver.lost), driver.stopped_early)


__all__ = ["WORKERS_DIR", "WorkersOutcome", "WorkersRun", "run_workers", "split_block", "worker_records"]
