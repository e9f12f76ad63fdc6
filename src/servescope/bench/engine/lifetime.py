"""An embedded ``llama-server`` never outlives the servescope process that started it.

Two mechanisms, because each covers what the other cannot:

* **Parent-death signal.** On Linux the child asks the kernel, between ``fork`` and
  ``exec``, for SIGKILL when its parent dies (``prctl(PR_SET_PDEATHSIG)``), so a
  ``kill -9`` of ``servescope run`` takes the server with it at once. (The kernel
  sends it when the *thread* that forked exits: start servers from a thread that lives
  as long as they should.)
* **A pid file per server** in ``<cache>/embedded/<pid>.json`` (server pid, parent
  pid, port, start time), removed when the server is stopped. Where the signal is not
  available (not Linux) or was missed, ``reap_orphans`` — called by every embedded
  start, ``engine status`` and ``engine stop`` — finds servers whose parent is gone and
  stops them. A pid alone is not trusted: the process must still be ``llama-server``
  with that ``--port`` (pids are reused).
"""

from __future__ import annotations

import contextlib
import ctypes
import json
import os
import signal
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from servescope.bench.engine.paths import resolve_cache_dir

EMBEDDED_DIR = "embedded"
_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _load_prctl()  # loaded here, not in the forked child


def die_with_parent() -> Callable[[], None] | None:
    """A ``preexec_fn`` that makes the child die with this process; None where unsupported."""
    if _PRCTL is None:
        return None
    parent = os.getpid()
    prctl = _PRCTL

    def preexec() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if os.getppid() != parent:  # the parent died before the request took effect
            os._exit(1)

    return preexec


@dataclass(frozen=True)
class EmbeddedServer:
    """What ``<cache>/embedded/<pid>.json`` records."""

    pid: int
    parent_pid: int
    port: int
    started_at: float

    @property
    def parent_alive(self) -> bool:
        return pid_alive(self.parent_pid)


def _folder(cache_dir: str | os.PathLike[str] | None) -> Path:
    return resolve_cache_dir(cache_dir) / EMBEDDED_DIR


def register(pid: int, port: int, cache_dir: str | os.PathLike[str] | None) -> Path:
    folder = _folder(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{pid}.json"
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(asdict(EmbeddedServer(pid, os.getpid(), port, time.time()))) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def unregister(pid: int, cache_dir: str | os.PathLike[str] | None) -> None:
    (_folder(cache_dir) / f"{pid}.json").unlink(missing_ok=True)


def pid_alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie, exited but not reaped, does not)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:  # a zombie (exited, not yet reaped) is not alive
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0] != "Z"
    except (OSError, IndexError):
        return True


def _is_that_server(entry: EmbeddedServer) -> bool:
    """Still the llama-server that was recorded (the pid may have been reused)?"""
    if not pid_alive(entry.pid):
        return False
    try:
        args = [a.decode(errors="replace") for a in Path(f"/proc/{entry.pid}/cmdline").read_bytes().split(b"\0")]
    except OSError:
        return True  # no /proc: trust the pid file
    return bool(args) and Path(args[0]).name.startswith("llama-server") and str(entry.port) in args


def embedded_servers(cache_dir: str | os.PathLike[str] | None = None) -> list[EmbeddedServer]:
    """Recorded embedded servers that still run (stale files are removed)."""
    found = []
    folder = _folder(cache_dir)
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            entry = EmbeddedServer(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            path.unlink(missing_ok=True)
            continue
        if _is_that_server(entry):
            found.append(entry)
        else:
            path.unlink(missing_ok=True)
    return found


def _stop(pid: int, timeout_s: float = 5.0) -> None:
    for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 5.0)):
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, sig)
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, os.WNOHANG)
            if not pid_alive(pid):
                return
            time.sleep(0.05)


def reap_orphans(cache_dir: str | os.PathLike[str] | None = None) -> list[EmbeddedServer]:
    """Stop every recorded embedded server whose parent has died; return those stopped."""
    stopped = []
    for entry in embedded_servers(cache_dir):
        if not entry.parent_alive:
            _stop(entry.pid)
            unregister(entry.pid, cache_dir)
            stopped.append(entry)
    return stopped


__all__ = ["EmbeddedServer", "die_with_parent", "embedded_servers", "reap_orphans", "register", "unregister"]
