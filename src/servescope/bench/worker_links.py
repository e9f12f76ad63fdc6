"""How the driver of a split run (``bench.workers``) starts its client workers and
talks to them: local processes (``multiprocessing``, spawn) or Ray tasks on a cluster.

Both carry the same small messages (tuples: hello, ping/pong, at/go, records,
finished, failed, stop) and nothing else; neither is a transport of our own:

- ``ProcessWorkers``: one spawned process per worker and one OS pipe to each
  (``multiprocessing.Pipe``). Spawn, not fork: the driver holds an event loop,
  threads and sockets that a forked child must not inherit. A pipe per worker, not
  one shared queue: a worker killed mid-write (``kill -9``) cannot leave a lock held
  that the others then wait on; the driver reads end-of-file on its pipe instead.
- ``RayWorkers``: one Ray task per worker (one CPU each, spread over the nodes,
  never retried: a lost worker is reported, not silently re-run) and one small async
  actor holding a mailbox per worker; every send is acknowledged, so a worker's last
  message is delivered before its task is seen to end.

Ray is imported only here, and only for ``--ray``.
"""

from __future__ import annotations

import contextlib
import logging
import multiprocessing
import signal
import threading
from collections.abc import Iterator
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from servescope.bench.worker_main import Link, WorkerSpec, worker_main
from servescope.errors import UsageError

Message = tuple[Any, ...]

RAY_MISSING = "--ray needs Ray, which is not installed: pip install 'servescope[ray]'"


class Workers(Protocol):
    """The driver's end."""

    placement: str

    def send(self, k: int, msg: Message) -> None: ...

    def recv(self, timeout: float) -> list[tuple[int, Message]]: ...

    def status(self, k: int) -> str | None:
        """None while worker k runs; "" once it ended cleanly; else how it ended."""
        ...

    def close(self, abort: bool = False) -> None:
        """Wait for the workers to end (``abort``: stop them now) and free what they held."""
        ...


class PipeLink:
    """A worker's end of its pipe (it is pickled into the spawned process)."""

    def __init__(self, conn: Connection) -> None:
        self._conn = conn
        self._lock: threading.Lock | None = None

    def __getstate__(self) -> dict[str, Any]:
        return {"_conn": self._conn, "_lock": None}

    def send(self, msg: Message) -> None:
        if self._lock is None:
            self._lock = threading.Lock()
        with self._lock:
            self._conn.send(msg)

    def recv(self, timeout: float | None) -> Message | None:
        if timeout is not None and not self._conn.poll(timeout):
            return None
        msg: Message = self._conn.recv()
        return msg


class ProcessWorkers:
    placement = "processes"

    def __init__(self, specs: list[WorkerSpec]) -> None:
        ctx = multiprocessing.get_context("spawn")
        self._conns: list[Connection] = []
        self._procs: list[Any] = []
        self._closed: set[int] = set()
        for spec in specs:
            mine, theirs = ctx.Pipe(duplex=True)
            proc = ctx.Process(target=worker_main, args=(spec, PipeLink(theirs)), name=f"servescope-worker-{spec.index}", daemon=True)
            # started with Ctrl-C ignored, which a new Python keeps ignored: a terminal's Ctrl-C reaches the
            # whole process group, and the driver (never the workers, mid-import) turns it into a clean stop
            previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if threading.current_thread() is threading.main_thread() else None
            try:
                proc.start()
            finally:
                if previous is not None:
                    signal.signal(signal.SIGINT, previous)
            theirs.close()  # ours closed: the pipe reads end-of-file when the worker dies
            self._conns.append(mine)
            self._procs.append(proc)

    def pids(self) -> list[int | None]:
        return [p.pid for p in self._procs]

    def send(self, k: int, msg: Message) -> None:
        with contextlib.suppress(OSError, ValueError):  # a dead worker's pipe: its loss is seen by status()
            self._conns[k].send(msg)

    def recv(self, timeout: float) -> list[tuple[int, Message]]:
        open_conns = [c for k, c in enumerate(self._conns) if k not in self._closed]
        out: list[tuple[int, Message]] = []
        if not open_conns:
            return out
        for ready in wait(open_conns, timeout):
            k = self._conns.index(ready)  # type: ignore[arg-type]
            conn = self._conns[k]
            try:
                while conn.poll(0):
                    out.append((k, conn.recv()))
            except Exception:  # end of file, or a message cut by a killed writer: nothing more comes
                self._closed.add(k)
        return out

    def status(self, k: int) -> str | None:
        code = self._procs[k].exitcode
        if code is None:
            return None
        if code == 0:
            return ""
        return f"pid {self._procs[k].pid} killed by signal {-code}" if code < 0 else f"pid {self._procs[k].pid} exited with status {code}"

    def close(self, abort: bool = False) -> None:
        for proc in self._procs:
            if abort and proc.exitcode is None:
                proc.terminate()  # its finished requests are in its records file already
        for proc in self._procs:
            proc.join(timeout=5)
            if proc.exitcode is None:
                proc.kill()
                proc.join(timeout=5)
        for conn in self._conns:
            conn.close()


def import_ray() -> Any:
    try:
        import ray
    except ImportError:
        raise UsageError(RAY_MISSING) from None
    return ray


class _Mailbox:
    """The Ray actor between the driver and its workers (async: a waiting pull never blocks a push)."""

    def __init__(self, n: int) -> None:
        import asyncio

        self._inboxes: list[asyncio.Queue[Message]] = [asyncio.Queue() for _ in range(n)]
        self._outbox: asyncio.Queue[tuple[int, Message]] = asyncio.Queue()

    async def push(self, k: int, msg: Message) -> None:
        self._outbox.put_nowait((k, msg))

    async def post(self, k: int, msg: Message) -> None:
        self._inboxes[k].put_nowait(msg)

    async def pull(self, k: int, timeout: float | None) -> Message | None:
        import asyncio

        try:
            return await asyncio.wait_for(self._inboxes[k].get(), timeout)
        except TimeoutError:
            return None

    async def drain(self, timeout: float) -> list[tuple[int, Message]]:
        import asyncio

        out = []
        if self._outbox.empty():
            try:
                out.append(await asyncio.wait_for(self._outbox.get(), timeout))
            except TimeoutError:
                return out
        while not self._outbox.empty():
            out.append(self._outbox.get_nowait())
        return out


class RayLink:
    def __init__(self, mailbox: Any, k: int) -> None:
        self._mailbox = mailbox
        self._k = k

    def send(self, msg: Message) -> None:
        import ray

        ray.get(self._mailbox.push.remote(self._k, msg))  # acknowledged: delivered before the task can end

    def recv(self, timeout: float | None) -> Message | None:
        import ray

        msg: Message | None = ray.get(self._mailbox.pull.remote(self._k, timeout))
        return msg


# How long a cluster's address may take to accept a connection (Ray's own connect retries for minutes).
CONNECT_TIMEOUT_S = 5.0


def check_ray_address(address: str) -> None:
    """A ``host:port`` that accepts no connection is one line now, not minutes of Ray's retries
    (``auto`` and ``ray://`` addresses are Ray's to resolve)."""
    import socket

    host, sep, port = address.rpartition(":")
    if address == "auto" or "://" in address:
        return
    if not sep or not host or not port.isdigit() or not 1 <= int(port) <= 65535:
        raise UsageError(f"--ray {address!r}: give the cluster's host:port (as `ray start --head` prints it) or auto")
    try:
        conn = socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_TIMEOUT_S)
    except OSError as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise UsageError(
            f"--ray {address}: nothing accepts connections there ({detail}); start a cluster with `ray start --head` and pass the address it prints"
        ) from None
    # A Ray cluster's address is its GCS, a gRPC (HTTP/2) server: it answers the HTTP/2
    # preface with a SETTINGS frame. Anything else (an HTTP/1 server, a database) would
    # leave Ray retrying for minutes.
    with conn:
        try:
            conn.sendall(b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + b"\x00\x00\x00\x04\x00\x00\x00\x00\x00")
            frame = conn.recv(9)
        except OSError:
            frame = b""
    if len(frame) < 4 or frame[3] != 0x04:
        raise UsageError(
            f"--ray {address}: something answers there, but not a Ray cluster (its address speaks gRPC); give the address `ray start --head` printed"
        )


@contextlib.contextmanager
def ray_cluster(address: str, workers: int) -> Iterator[None]:
    """Joined to the Ray cluster at ``address`` (and left at the end), with a CPU for
    every worker — or one clear line, before anything is started or written."""
    ray = import_ray()
    if ray.is_initialized():  # a library caller joined one already: theirs to leave
        _check_cpus(ray, address, workers)
        yield
        return
    check_ray_address(address)
    from servescope.ray_join import JoinFailed, join

    try:
        join(ray, address, log_to_driver=False, logging_level=logging.WARNING, include_dashboard=False)  # Ray's own console lines held back
    except JoinFailed as exc:
        if exc.token_refused:
            raise UsageError(f"--ray {address}: {exc}") from None
        detail = str(exc)
        raise UsageError(
            f"--ray {address}: cannot join a Ray cluster there ({detail}); start one with `ray start --head` and pass the address it prints, or auto"
        ) from None
    try:
        _check_cpus(ray, address, workers)
        yield
    finally:
        ray.shutdown()


def _check_cpus(ray: Any, address: str, workers: int) -> None:
    cpus = float(ray.cluster_resources().get("CPU", 0))
    if cpus < workers:
        raise UsageError(f"--workers {workers}: the Ray cluster at {address} has {cpus:g} CPUs and each worker takes one; give --workers ≤ {int(cpus)}")


class RayWorkers:
    """The workers as Ray tasks on the cluster joined by ``ray_cluster``."""

    placement = "ray"

    def __init__(self, address: str, specs: list[WorkerSpec]) -> None:
        ray = import_ray()
        self._ray = ray
        mailbox_cls = ray.remote(num_cpus=0)(_Mailbox)
        self._mailbox = mailbox_cls.remote(len(specs))
        task = ray.remote(num_cpus=1, max_retries=0)(worker_main)
        self._refs = [task.options(scheduling_strategy="SPREAD").remote(spec, RayLink(self._mailbox, spec.index)) for spec in specs]

    def send(self, k: int, msg: Message) -> None:
        self._mailbox.post.remote(k, msg)

    def recv(self, timeout: float) -> list[tuple[int, Message]]:
        out: list[tuple[int, Message]] = self._ray.get(self._mailbox.drain.remote(timeout))
        return out

    def status(self, k: int) -> str | None:
        ray = self._ray
        ready, _ = ray.wait([self._refs[k]], timeout=0)
        if not ready:
            return None
        try:
            ray.get(ready[0])
        except Exception as exc:  # the task's process died, or the task raised
            return " ".join(str(exc).split())[:300] or type(exc).__name__
        return ""

    def close(self, abort: bool = False) -> None:
        ray = self._ray
        for ref in self._refs:  # a worker still running after its driver let go is stopped, aborted or not
            with contextlib.suppress(Exception):
                ray.cancel(ref, force=True)
        with contextlib.suppress(Exception):
            ray.kill(self._mailbox)


__all__ = ["RAY_MISSING", "check_ray_address", "ray_cluster", "Link", "PipeLink", "ProcessWorkers", "RayLink", "RayWorkers", "Workers", "import_ray"]
