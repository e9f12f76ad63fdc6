"""Run a real llama.cpp ``llama-server`` on loopback for the lifetime of a ``with`` block.

::

    with LlamaServer(ServerConfig(parallel=4, ctx_per_slot=4096)) as server:
        ...  # OpenAI-compatible API at server.openai_base_url, model name server.model_name

The server is started with ``--parallel N --cont-batching --metrics --slots`` and a total
context of ``N * ctx_per_slot`` tokens with a per-slot (not unified) KV cache, so every
request may use exactly ``ctx_per_slot`` tokens of prompt plus output. What llama.cpp does
at that limit:

* a prompt of ``ctx_per_slot`` tokens or more is refused before streaming starts: HTTP 400,
  ``{"error": {"code": 400, "type": "exceed_context_size_error", "n_prompt_tokens": P,
  "n_ctx": C, "message": ...}}``;
* a prompt that fits but leaves less room than ``max_tokens`` is answered normally and
  generation stops early at the slot's end with ``finish_reason: "length"`` (no error).

More requests than slots are queued inside the server (``llamacpp:requests_deferred``);
a queued streaming request receives no bytes, not even headers, until its slot starts.
Prompt caching (reuse of a slot's KV for a shared prefix) is on unless
``prompt_cache=False`` (``--no-cache-prompt``).

The server dies with the process that started it (``lifetime``: a parent-death signal
on Linux, and a pid file in ``<cache>/embedded/`` that the next start, ``engine status``
and ``engine stop`` use to find and stop a server whose parent is gone).

``LLAMA_ARG_*`` variables are removed from the server's environment: llama.cpp reads them as
defaults for every flag not given, which would silently change the configuration under test.
"""

from __future__ import annotations

import http.client
import os
import signal
import socket
import subprocess
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import IO, Any, Self

from servescope.bench.engine import lifetime
from servescope.bench.engine.binary import LlamaServerBinary, find_llama_server
from servescope.bench.engine.paths import resolve_cache_dir
from servescope.bench.engine.tiny_model import MODEL_NAME, ensure_tiny_model
from servescope.errors import EngineError

_BIND_FAILED = "couldn't bind"
_START_ATTEMPTS = 3


@dataclass(frozen=True)
class ServerConfig:
    """How to run ``llama-server``. ``model=None`` means the tiny model, built on first use."""

    model: Path | None = None
    alias: str = MODEL_NAME
    parallel: int = 4
    ctx_per_slot: int = 4096
    threads: int = 1
    prompt_cache: bool = True  # llama.cpp reuses a slot's KV for a repeated prefix (its default)
    host: str = "127.0.0.1"
    port: int = 0  # 0: pick a free port
    extra_args: tuple[str, ...] = ()
    startup_timeout_s: float = 60.0
    stop_timeout_s: float = 10.0
    cache_dir: Path | None = None
    log_path: Path | None = None  # default: <cache>/logs/llama-server-<port>.log

    @property
    def ctx_total(self) -> int:
        """The ``-c`` value: llama.cpp divides it evenly among the ``parallel`` slots."""
        return self.parallel * self.ctx_per_slot

    def validate(self) -> None:
        if self.parallel < 1 or self.ctx_per_slot < 16 or self.threads < 1:
            raise EngineError("llama-server: parallel and threads must be >= 1, ctx_per_slot >= 16")


def build_argv(binary: Path, model: Path, config: ServerConfig, port: int) -> list[str]:
    """The exact command line; recorded in results as the engine args."""
    return [
        str(binary),
        "--model", str(model),
        "--alias", config.alias,
        "--host", config.host,
        "--port", str(port),
        "--threads", str(config.threads),
        "--threads-batch", str(config.threads),
        "--parallel", str(config.parallel),
        "--ctx-size", str(config.ctx_total),
        "--no-kv-unified",
        "--cont-batching",
        "--metrics",
        "--slots",
        "--no-webui",
        *([] if config.prompt_cache else ["--no-cache-prompt"]),
        *config.extra_args,
    ]  # fmt: skip


def server_environment(binary: LlamaServerBinary) -> dict[str, str]:
    """The caller's environment without ``LLAMA_ARG_*``, plus what the binary needs."""
    base = {k: v for k, v in os.environ.items() if not k.startswith("LLAMA_ARG_")}
    return binary.environment(base)


def free_port(host: str = "127.0.0.1") -> int:
    """A port that was free a moment ago (the server may still lose a race for it)."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def health_status(base_url: str, timeout_s: float = 1.0) -> int | None:
    """HTTP status of ``GET /health`` (200 ready, 503 loading), or None when unreachable."""
    host_port = base_url.removeprefix("http://").rstrip("/")
    conn = http.client.HTTPConnection(host_port, timeout=timeout_s)
    try:
        conn.request("GET", "/health")
        response = conn.getresponse()
        response.read()
        return int(response.status)
    except (OSError, http.client.HTTPException):
        return None
    finally:
        conn.close()


def log_tail(path: Path | None, lines: int = 15) -> str:
    """The last lines of a log file, for error messages."""
    if path is None:
        return ""
    try:
        with open(path, "rb") as fh:
            fh.seek(0, os.SEEK_END)
            fh.seek(max(0, fh.tell() - 16384))
            text = fh.read().decode("utf-8", errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


def wait_until_healthy(
    base_url: str,
    poll: Callable[[], int | None],
    timeout_s: float,
    log_path: Path | None = None,
) -> float:
    """Poll ``/health`` until 200; return seconds waited.

    ``poll`` returns the server's exit status once it has exited (``Popen.poll``). Raise
    :class:`EngineError` with the log's tail if it dies or is not healthy in ``timeout_s``.
    """
    start = time.monotonic()
    while True:
        code = poll()
        if code is not None:
            raise EngineError(f"llama-server exited with status {code} while starting; log {log_path}:\n{log_tail(log_path)}")
        if health_status(base_url) == 200:
            return time.monotonic() - start
        if time.monotonic() - start > timeout_s:
            raise EngineError(f"llama-server not healthy at {base_url} after {timeout_s:.0f} s; log {log_path}:\n{log_tail(log_path)}")
        time.sleep(0.05)


def terminate(process: subprocess.Popen[bytes], timeout_s: float = 10.0) -> int:
    """SIGTERM, then SIGKILL after ``timeout_s``; return the exit status."""
    if process.poll() is None:
        try:
            process.send_signal(signal.SIGTERM)
            return process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            process.kill()
    return process.wait()


def _finalize(process: subprocess.Popen[bytes], log_file: IO[bytes] | None, cache_dir: Path | None = None) -> None:
    terminate(process, timeout_s=5.0)
    lifetime.unregister(process.pid, cache_dir)
    if log_file is not None:
        log_file.close()


@dataclass
class _Running:
    process: subprocess.Popen[bytes]
    port: int
    argv: list[str]
    log_path: Path
    log_file: IO[bytes] | None
    startup_s: float
    finalizer: Any = field(default=None)


class LlamaServer:
    """A ``llama-server`` subprocess on loopback; a context manager. Nothing runs until ``start``."""

    def __init__(self, config: ServerConfig | None = None, **overrides: Any) -> None:
        self.config = replace(config or ServerConfig(), **overrides)
        self.config.validate()
        self._running: _Running | None = None
        self.model_path: Path | None = None
        self.binary: LlamaServerBinary | None = None

    # -- lifecycle -------------------------------------------------------------------------
    def start(self) -> Self:
        """Start the server and wait for ``/health``; raise :class:`EngineError` on failure."""
        if self._running is not None:
            return self
        cfg = self.config
        lifetime.reap_orphans(cfg.cache_dir)  # servers left by a servescope that was killed
        self.binary = find_llama_server(cfg.cache_dir)
        self.model_path = cfg.model if cfg.model is not None else ensure_tiny_model(cfg.cache_dir)
        if not Path(self.model_path).is_file():
            raise EngineError(f"model file not found: {self.model_path}")
        env = server_environment(self.binary)
        last_error: EngineError | None = None
        for _ in range(_START_ATTEMPTS if cfg.port == 0 else 1):
            port = cfg.port or free_port(cfg.host)
            try:
                self._running = self._launch(port, env)
                return self
            except EngineError as exc:
                last_error = exc
                if _BIND_FAILED not in str(exc):
                    raise
        assert last_error is not None
        raise last_error

    def _launch(self, port: int, env: dict[str, str]) -> _Running:
        cfg = self.config
        assert self.binary is not None and self.model_path is not None
        log_path = cfg.log_path or resolve_cache_dir(cfg.cache_dir) / "logs" / f"llama-server-{port}.log"
        log_path.parent.mkdir(parents=True, exist_ok=True)
        argv = build_argv(self.binary.path, Path(self.model_path), cfg, port)
        log_file = open(log_path, "wb")  # noqa: SIM115 - closed in stop() / the finalizer
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=log_file,
                stderr=subprocess.STDOUT,
                env=env,
                preexec_fn=lifetime.die_with_parent(),
            )
        except OSError as exc:
            log_file.close()
            raise EngineError(f"cannot start {argv[0]}: {exc}") from exc
        lifetime.register(process.pid, port, cfg.cache_dir)
        finalizer = weakref.finalize(self, _finalize, process, log_file, cfg.cache_dir)
        base_url = f"http://{cfg.host}:{port}"
        try:
            waited = wait_until_healthy(base_url, process.poll, cfg.startup_timeout_s, log_path)
        except EngineError:
            finalizer()
            raise
        return _Running(process, port, argv, log_path, log_file, waited, finalizer)

    def stop(self) -> int | None:
        """Stop the server (SIGTERM, then SIGKILL); return its exit status. Idempotent."""
        running, self._running = self._running, None
        if running is None:
            return None
        running.finalizer.detach()
        try:
            return terminate(running.process, self.config.stop_timeout_s)
        finally:
            lifetime.unregister(running.process.pid, self.config.cache_dir)
            if running.log_file is not None:
                running.log_file.close()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()

    # -- facts about the running server ----------------------------------------------------
    def _require(self) -> _Running:
        if self._running is None:
            raise EngineError("llama-server is not running")
        return self._running

    @property
    def port(self) -> int:
        return self._require().port

    @property
    def pid(self) -> int:
        return int(self._require().process.pid)

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` — llama.cpp serves ``/health``, ``/metrics``, ``/slots`` here."""
        return f"http://{self.config.host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``base_url + "/v1"``, for OpenAI-style clients."""
        return self.base_url + "/v1"

    @property
    def model_name(self) -> str:
        """The name the server answers to (``--alias``) in ``model`` fields."""
        return self.config.alias

    @property
    def argv(self) -> list[str]:
        return list(self._require().argv)

    @property
    def log_path(self) -> Path:
        return self._require().log_path

    @property
    def startup_s(self) -> float:
        """Seconds from launch until ``/health`` answered 200."""
        return self._require().startup_s

    def is_running(self) -> bool:
        return self._running is not None and self._running.process.poll() is None

    def log_tail(self, lines: int = 15) -> str:
        return log_tail(self._running.log_path if self._running else None, lines)
