"""One client worker of a split run (``run --workers N``): the body of each worker
process or Ray task. The driver (``bench.workers``) plans, places and merges; a
worker only runs its share of the points with the same runner one process uses.

A worker answers the driver's clock pings, then runs: its records go to its own
records file in the usual format (``bench.records``: each line flushed as its
request ends) and, in batches a few times a second, to the driver, which writes
them into the run's one ``records.jsonl`` as they arrive. At each phase of each
point (warmup, measured) it waits for the driver's go, so the workers start the
measured window together, at one instant of the driver's clock.

While it runs, its outbox thread sends ``beat`` once a second when it has sent nothing
else: the driver tells a stopped or frozen worker (SIGSTOP, a swapped-out host) from one
that only waits, and treats one silent past the run's timeout as lost.

Messages (tuples) it sends: ``hello``, ``pong``, ``records``, ``at``, ``beat``,
``finished``, ``failed``; it takes ``ping``, ``run``, ``go`` and ``stop``.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import os
import socket
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from servescope.bench.capabilities import Capabilities
from servescope.bench.client import make_session
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec
from servescope.bench.fail_fast import FailFast
from servescope.bench.load import STAGE_LEAD_NS, sleep_until_ns
from servescope.bench.records import RecordWriter
from servescope.bench.runners import RUNNERS, RunContext
from servescope.bench.worker_clock import boot_id
from servescope.documents import Workload
from servescope.documents.record import RequestRecord
from servescope.workload.plan import PlannedPoint

Message = tuple[Any, ...]

# How often a worker hands its finished records to the driver (progress and the merged file).
FLUSH_S = 0.1
# How often a running worker that has sent nothing else says it is there (bench.workers).
HEARTBEAT_S = 1.0


class Link(Protocol):
    """A worker's end of its line to the driver (bench.worker_links)."""

    def send(self, msg: Message) -> None: ...

    def recv(self, timeout: float | None) -> Message | None: ...


@dataclass
class WorkerSpec:
    index: int
    count: int
    endpoint: Endpoint
    workload: Workload
    points: list[PlannedPoint]
    records_path: Path
    header: dict[str, Any]
    timeout_s: float
    event_loop: str = "asyncio"
    extra_body: dict[str, Any] | None = None
    capabilities: Capabilities = field(default_factory=Capabilities)
    fail_fast_window: int | None = None
    # a local worker process: its driver's pid. If the driver dies (kill -9) the worker
    # stops too, instead of sending the rest of its load to nobody's record.
    driver_pid: int | None = None


class _Stopped(Exception):
    """The driver said stop while this worker waited for its go."""


class _Outbox:
    """Records batched to the driver from a thread (never from the loop stamping tokens);
    a control message goes out after every record before it."""

    def __init__(self, link: Link, index: int) -> None:
        self._link = link
        self._index = index
        self._sent = time.monotonic()  # when anything last went to the driver
        self._pending: collections.deque[RequestRecord] = collections.deque()  # append and popleft are atomic: no lock on the loop
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="servescope-worker-outbox", daemon=True)
        self._thread.start()

    def record(self, record: RequestRecord) -> None:
        self._pending.append(record)

    def _flush(self) -> None:
        with self._lock:
            batch = []
            with contextlib.suppress(IndexError):
                while True:
                    batch.append(self._pending.popleft())
            if batch:
                self._link.send(("records", batch))
                self._sent = time.monotonic()
            elif time.monotonic() - self._sent >= HEARTBEAT_S:  # from this thread: a busy event loop still beats
                self._link.send(("beat", self._index))
                self._sent = time.monotonic()

    def control(self, msg: Message) -> None:
        self._flush()
        with self._lock:
            self._link.send(msg)
            self._sent = time.monotonic()

    def _run(self) -> None:
        while not self._closed:
            self._wake.wait(FLUSH_S)
            try:
                self._flush()
            except Exception:  # the driver is gone (its pipe closed, its actor dead): nobody merges this load
                os._exit(1)

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        self._thread.join()
        self._flush()


async def _run(spec: WorkerSpec, t0_ns: int, link: Link, outbox: _Outbox) -> dict[str, Any]:
    loop = asyncio.get_running_loop()

    async def sync(phase: str, point: int) -> int | None:
        outbox.control(("at", spec.index, phase, point))
        if phase == "done":
            return None
        msg = await loop.run_in_executor(None, link.recv, None)
        if msg is None or msg[0] != "go":
            raise _Stopped
        start = int(msg[1])
        # the measured phase is handed over one stage lead early: an open loop prepares its first sends
        # before the shared start (bench.load.open_loop), and run_point waits out the rest for any other load
        await sleep_until_ns(start - STAGE_LEAD_NS if phase == "measured" else start)
        return start

    fail_fast = FailFast(spec.fail_fast_window) if spec.fail_fast_window else None
    async with make_session() as session:
        with RecordWriter(spec.records_path) as writer:
            writer.write_header(spec.header)
            ctx = RunContext(
                session=session,
                endpoint=spec.endpoint,
                writer=writer,
                t0_ns=t0_ns,
                timeout_s=spec.timeout_s,
                load=LoadSpec(seed=spec.workload.params.seed or 0),  # the schedule is in the points (workload.partition)
                on_record=outbox.record,
                extra_body=spec.extra_body,
                capabilities=spec.capabilities,
                fail_fast=fail_fast,
                sync=sync,
            )
            await RUNNERS[spec.workload.kind](ctx, spec.workload, spec.points)
    return {"stopped_early": fail_fast.notice() if fail_fast is not None and fail_fast.stopped else None}


def _event_loop_run(name: str, coro: Any) -> Any:
    if name == "uvloop":
        import uvloop

        return uvloop.run(coro)
    return asyncio.run(coro)


def _exit_with_driver(driver_pid: int) -> None:
    while os.getppid() == driver_pid:
        time.sleep(0.2)
    os._exit(1)  # the driver is gone: nobody merges, nobody stops this load


def worker_main(spec: WorkerSpec, link: Link) -> None:
    """The worker's life: hello, answer pings, run once when told, answer pings, stop."""
    if spec.driver_pid is not None:
        threading.Thread(target=_exit_with_driver, args=(spec.driver_pid,), name="servescope-worker-watchdog", daemon=True).start()
    link.send(("hello", spec.index, os.getpid(), socket.gethostname(), boot_id()))
    while True:
        msg = link.recv(None)
        if msg is None:
            continue
        if msg[0] == "ping":
            link.send(("pong", spec.index, msg[1], time.perf_counter_ns()))
        elif msg[0] == "run":
            outbox = _Outbox(link, spec.index)
            try:
                info = _event_loop_run(spec.event_loop, _run(spec, int(msg[1]), link, outbox))
            except _Stopped:
                outbox.close()
                return
            except BaseException as exc:  # said to the driver (if it is still there), which records this worker as lost
                with contextlib.suppress(Exception):
                    outbox.close()
                    link.send(("failed", spec.index, " ".join(str(exc).split())[:300] or type(exc).__name__))
                sys.exit(1)
            outbox.close()
            link.send(("finished", spec.index, info))
        elif msg[0] == "stop":
            return


__all__ = ["FLUSH_S", "HEARTBEAT_S", "Link", "WorkerSpec", "worker_main"]
