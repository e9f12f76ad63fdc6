"""A ``llama-server`` that outlives the command that started it (``servescope engine start``).

The server runs in its own session; what is needed to find, check and stop it is written to
``<cache>/engine.json``. A pid alone is not trusted: a server counts as running only when
the pid is alive *and* its command line is ``llama-server ... --port <port>`` (pids are
reused), and as healthy when ``GET /health`` answers 200.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import signal
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from servescope.bench.engine.binary import find_llama_server, llama_server_version
from servescope.bench.engine.lifetime import pid_alive
from servescope.bench.engine.llama_server import (
    ServerConfig,
    build_argv,
    free_port,
    health_status,
    server_environment,
    wait_until_healthy,
)
from servescope.bench.engine.paths import resolve_cache_dir
from servescope.bench.engine.tiny_model import ensure_tiny_model
from servescope.errors import EngineError

STATE_FILE = "engine.json"


@dataclass(frozen=True)
class EngineState:
    """What ``engine.json`` records about a detached server."""

    pid: int
    host: str
    port: int
    base_url: str
    model_name: str
    model_path: str
    parallel: int
    ctx_per_slot: int
    threads: int
    argv: list[str]
    log_path: str
    started_at: str
    engine_version: str

    @property
    def openai_base_url(self) -> str:
        return self.base_url + "/v1"


@dataclass(frozen=True)
class EngineStatus:
    """The answer of :func:`status`, :func:`start_detached` and :func:`stop_detached`."""

    state: EngineState | None
    running: bool
    healthy: bool
    message: str


def state_path(cache_dir: str | os.PathLike[str] | None = None) -> Path:
    return resolve_cache_dir(cache_dir) / STATE_FILE


def read_state(cache_dir: str | os.PathLike[str] | None = None) -> EngineState | None:
    """The recorded state, or None when there is none (an unreadable file counts as none)."""
    try:
        data: dict[str, Any] = json.loads(state_path(cache_dir).read_text(encoding="utf-8"))
        return EngineState(**data)
    except (OSError, ValueError, TypeError):
        return None


def _write_state(state: EngineState, cache_dir: str | os.PathLike[str] | None) -> None:
    path = state_path(cache_dir)
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(asdict(state), indent=2) + "\n", encoding="utf-8")
    tmp.replace(path)


def _process_matches(state: EngineState) -> bool:
    """True when ``state.pid`` is alive and is the llama-server listening on ``state.port``."""
    try:
        os.kill(state.pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, owned by someone else
    try:
        cmdline = Path(f"/proc/{state.pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return health_status(state.base_url) is not None  # no /proc: trust the port
    args = [a.decode(errors="replace") for a in cmdline]
    return bool(args) and Path(args[0]).name.startswith("llama-server") and "--port" in args and str(state.port) in args


def _reap(pid: int) -> int | None:
    """Collect our own exited child (no zombie); the exit status, or None if not ours/alive."""
    try:
        done, code = os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        return None
    return os.waitstatus_to_exitcode(code) if done else None


def status(cache_dir: str | os.PathLike[str] | None = None) -> EngineStatus:
    """Is the detached server running and healthy? Read-only."""
    state = read_state(cache_dir)
    if state is None:
        return EngineStatus(None, running=False, healthy=False, message="no engine started")
    _reap(state.pid)
    if not _process_matches(state):
        return EngineStatus(state, running=False, healthy=False, message=f"not running (stale pid {state.pid})")
    healthy = health_status(state.base_url) == 200
    word = "healthy" if healthy else "not healthy"
    return EngineStatus(state, running=True, healthy=healthy, message=f"running at {state.base_url}, {word}")


@contextlib.contextmanager
def _locked(cache_dir: str | os.PathLike[str] | None) -> Iterator[None]:
    folder = resolve_cache_dir(cache_dir)
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "engine.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def start_detached(config: ServerConfig | None = None, **overrides: Any) -> EngineStatus:
    """Start a detached server unless one is already running; wait for ``/health``.

    Returns the status; ``message`` says whether it was started or already running.
    """
    cfg = replace(config or ServerConfig(), **overrides)
    cfg.validate()
    with _locked(cfg.cache_dir):
        current = status(cfg.cache_dir)
        if current.running:
            return replace(current, message=f"already running at {current.state.base_url}")  # type: ignore[union-attr]
        binary = find_llama_server(cfg.cache_dir)
        version = llama_server_version(binary)
        model = cfg.model if cfg.model is not None else ensure_tiny_model(cfg.cache_dir)
        port = cfg.port or free_port(cfg.host)
        log_path = cfg.log_path or resolve_cache_dir(cfg.cache_dir) / "logs" / "engine.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        argv = build_argv(binary.path, Path(model), cfg, port)
        pid = _spawn(argv, server_environment(binary), log_path)
        base_url = f"http://{cfg.host}:{port}"
        try:
            wait_until_healthy(base_url, lambda: _reap(pid), cfg.startup_timeout_s, log_path)
        except EngineError:
            _kill(pid, cfg.stop_timeout_s)
            raise
        state = EngineState(
            pid=pid,
            host=cfg.host,
            port=port,
            base_url=base_url,
            model_name=cfg.alias,
            model_path=str(model),
            parallel=cfg.parallel,
            ctx_per_slot=cfg.ctx_per_slot,
            threads=cfg.threads,
            argv=argv,
            log_path=str(log_path),
            started_at=datetime.now(UTC).isoformat(timespec="seconds"),
            engine_version=version,
        )
        _write_state(state, cfg.cache_dir)
        return EngineStatus(state, running=True, healthy=True, message=f"started at {base_url} (pid {pid})")


def _spawn(argv: list[str], env: dict[str, str], log_path: Path) -> int:
    """Start ``argv`` in a new session, stdin from /dev/null, stdout+stderr to ``log_path``."""
    log_fd = os.open(log_path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    null_fd = os.open(os.devnull, os.O_RDONLY)
    try:
        return os.posix_spawn(
            argv[0],
            argv,
            env,
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null_fd, 0),
                (os.POSIX_SPAWN_DUP2, log_fd, 1),
                (os.POSIX_SPAWN_DUP2, log_fd, 2),
            ],
            setsid=True,
        )
    except OSError as exc:
        raise EngineError(f"cannot start {argv[0]}: {exc}") from exc
    finally:
        os.close(log_fd)
        os.close(null_fd)


def _kill(pid: int, timeout_s: float) -> None:
    """SIGTERM, wait up to ``timeout_s``, then SIGKILL; reap it if it is our child."""
    for sig, wait_s in ((signal.SIGTERM, timeout_s), (signal.SIGKILL, 5.0)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait_s
        while time.monotonic() < deadline:
            if _reap(pid) is not None or not pid_alive(pid):
                return
            time.sleep(0.05)


def stop_detached(cache_dir: str | os.PathLike[str] | None = None, timeout_s: float = 10.0) -> EngineStatus:
    """Stop the detached server if it runs, and forget it. Returns what was found."""
    with _locked(cache_dir):
        current = status(cache_dir)
        if current.state is not None and current.running:
            _kill(current.state.pid, timeout_s)
            message = f"stopped (pid {current.state.pid})"
        else:
            message = "was not running"
        state_path(cache_dir).unlink(missing_ok=True)
        return EngineStatus(current.state, running=False, healthy=False, message=message)
