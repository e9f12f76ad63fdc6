"""Where a search's independent parts run: in this process, in forked local processes,
or as tasks on a Ray cluster - the results always in the parts' own order, so that
the caller merges them exactly as one process would.

Ray is optional (the ``ray`` extra: ``pip install 'servescope[ray]'``) and imported only
when asked for. ``ray_address`` is what ``ray.init`` takes: ``auto`` (the cluster this
host has joined, ``ray start --head`` or ``RAY_ADDRESS``), or ``HOST:PORT`` /
``ray://HOST:PORT``. A process already connected to Ray (``ray.init`` done, as a test
or a notebook does) uses that connection whatever the address. Every node must have
servescope installed (its workers import this package to run a part).
"""

from __future__ import annotations

import multiprocessing as mp
import signal
import socket
import sys
import threading
import uuid
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from typing import Any, TypeVar

from servescope.errors import BadArgument, ServescopeError

RAY_INSTALL = "pip install 'servescope[ray]'"

_Part = TypeVar("_Part")
_Out = TypeVar("_Out")

_STATE: Any = None  # set before forking: the workers inherit it instead of unpickling it


def import_ray() -> Any:
    """The ``ray`` module, or one line saying how to install it."""
    try:
        import ray
    except ImportError as exc:
        raise BadArgument(f"--ray needs Ray, which is not installed: {RAY_INSTALL} (or leave --ray out to use local processes)") from exc
    return ray


def connect_ray(address: str) -> Any:
    """The ``ray`` module, connected to the cluster at ``address`` (or already connected)."""
    ray = import_ray()
    if ray.is_initialized():
        return ray
    _check_answers(address)
    from servescope.ray_join import JoinFailed, join

    try:
        join(ray, address, log_to_driver=False, configure_logging=False)  # Ray's own console lines held back
    except JoinFailed as exc:  # ConnectionError, ValueError, a timeout, a token refused: in one line
        if exc.token_refused:
            raise BadArgument(f"--ray {address}: {exc}") from None
        detail = str(exc)
        raise BadArgument(
            f"--ray {address}: cannot connect to a Ray cluster ({detail}); start one with `ray start --head` "
            "and give its address (or auto), or leave --ray out to use local processes"
        ) from exc
    return ray


def _check_answers(address: str, timeout_s: float = 5.0) -> None:
    """A HOST:PORT (or ray://HOST:PORT) that nothing answers at is one line now: Ray itself
    retries such an address for minutes, printing its own warnings meanwhile."""
    if address == "auto":
        return
    host, sep, port = address.removeprefix("ray://").rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise BadArgument(f"--ray {address}: give a Ray cluster's HOST:PORT (e.g. 10.0.0.5:6379, ray://10.0.0.5:10001) or auto")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s).close()
    except OSError as exc:
        raise BadArgument(
            f"--ray {address}: nothing answers there ({exc.strerror or exc}); start a cluster with `ray start --head` "
            "and give the address it prints (or auto on a host that joined it), or leave --ray out to use local processes"
        ) from exc


def run_parts(fn: Callable[[_Part, Any], _Out], parts: Sequence[_Part], state: Any, *, workers: int = 1, ray_address: str | None = None) -> list[_Out]:
    """``[fn(part, state) for part in parts]``, run here (``workers`` 1), in up to ``workers``
    forked processes (Linux; here where fork is not safe), or as one Ray task per part.
    ``fn`` must be a module-level function (a Ray worker imports it by name)."""
    if ray_address is not None:
        return _on_ray(fn, parts, state, ray_address)
    n = min(workers, len(parts))
    if n > 1 and _may_fork():
        global _STATE
        _STATE = (fn, state)
        # (an executor, not a multiprocessing pool: a worker that dies - out of memory - is an error, not a hang)
        others = {proc.pid for proc in mp.active_children()}
        pool = ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("fork"), initializer=_ignore_ctrl_c)
        try:
            done = list(pool.map(_forked, parts))
            pool.shutdown()  # (here: a Ctrl-C while the workers end is the same stop)
        except KeyboardInterrupt:
            # the terminal's Ctrl-C reached the workers too, which ignore it: this process stops them, at once
            # (no wait for the parts still queued), and the executor's threads may not print what that breaks
            threading.excepthook = lambda _args: None
            # (every process this pool started, also one forked as Ctrl-C came, before the pool listed it)
            procs = [proc for proc in mp.active_children() if proc.pid not in others]
            manager = getattr(pool, "_executor_manager_thread", None)
            results = getattr(pool, "_result_queue", None)  # (shutdown forgets it)
            pool.shutdown(wait=False, cancel_futures=True)
            for proc in procs:
                proc.terminate()
            for proc in procs:
                proc.join(timeout=2.0)
            # A worker stopped while writing its answer leaves part of it in the pipe, and the executor's
            # thread then waits for the rest, forever: the exit joins that thread, so the process hung
            # (1 Ctrl-C in ~20 here). With the workers gone and this process's copy of the writing end
            # closed, that read ends (end of file), the thread sees a broken pool and ends.
            writer = getattr(results, "_writer", None)
            if writer is not None:
                writer.close()
            # The executor's exit hook also wakes that thread through a pipe the thread closes as it ends;
            # on Python < 3.12 the two race ("Exception ignored in: <module 'threading'> ... Bad file
            # descriptor" at exit, seen under load). Let the thread end first, and keep that line unsaid.
            if manager is not None:
                manager.join(timeout=2.0)
            sys.unraisablehook = lambda _args: None
            raise
        finally:
            _STATE = None
        return done
    return [fn(part, state) for part in parts]


def _may_fork() -> bool:
    """Fork only where the platform has it and from a process with one thread (a thread
    holding a lock at the fork would leave it held in the child)."""
    return "fork" in mp.get_all_start_methods() and threading.active_count() == 1


def _ignore_ctrl_c() -> None:
    """In a forked worker: a terminal's Ctrl-C reaches the whole process group; the parent stops the workers."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _forked(part: Any) -> Any:
    fn, state = _STATE
    return fn(part, state)


_RAY_STATES: dict[str, Any] = {}  # in a Ray worker: the state of the run it last served, kept across its tasks


def _ray_task(fn: Callable[[Any, Any], Any], part: Any, run: str, state_ref: list[Any]) -> Any:
    """A part in a Ray worker. The state is fetched once per worker process and kept, so
    what a part caches in it (a search's prepared levels) serves the worker's next parts
    as it does in a local process."""
    import ray

    state = _RAY_STATES.get(run)
    if state is None:
        _RAY_STATES.clear()
        state = _RAY_STATES[run] = ray.get(state_ref[0])
    return fn(part, state)


def _on_ray(fn: Callable[[_Part, Any], _Out], parts: Sequence[_Part], state: Any, address: str) -> list[_Out]:
    ray = connect_ray(address)
    task = ray.remote(_ray_task)
    run = uuid.uuid4().hex
    state_ref = [ray.put(state)]  # sent once; in a list, so a task receives the reference and fetches it only if it must
    try:
        return list(ray.get([task.remote(fn, part, run, state_ref) for part in parts]))
    except ray.exceptions.RayTaskError as exc:
        cause = getattr(exc, "cause", None)
        if isinstance(cause, ServescopeError | ValueError):
            raise cause from None  # the part's own one-line error, as one process would raise it
        what = f"{type(cause).__name__}: {cause}" if cause is not None else str(exc)
        hint = "; install servescope on every node of the cluster" if isinstance(cause, ImportError) else ""
        raise ServescopeError(f"--ray {address}: a task failed on the cluster ({' '.join(what.split())[:300]}){hint}") from exc
    except ray.exceptions.RayError as exc:  # a worker or node lost
        raise ServescopeError(f"--ray {address}: the cluster lost a task ({' '.join(str(exc).split())[:300]}); nothing of it was used") from exc
