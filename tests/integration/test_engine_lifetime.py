"""The embedded llama-server dies with the servescope that started it (issue 13, finding 3)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer
from servescope.bench.engine.lifetime import embedded_servers
from servescope.catalog.store import Catalog

pytestmark = pytest.mark.integration


def _children_named(parent: int, name: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
            cmd = (entry / "cmdline").read_bytes().split(b"\0")[0].decode(errors="replace")
        except OSError:
            continue
        ppid = next((int(ln.split()[1]) for ln in status.splitlines() if ln.startswith("PPid:")), None)
        if ppid == parent and Path(cmd).name.startswith(name):
            found.append(int(entry.name))
    return found


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[-1].split()[0]
    except OSError:
        return False
    return state != "Z"


def _wait_for(pred: object, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if pred():  # type: ignore[operator]
            return True
        time.sleep(0.05)
    return False


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_kill_9_of_run_leaves_no_llama_server_within_5_s(llama: LlamaServer, engine_cache: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1]), "SERVESCOPE_CACHE_DIR": str(engine_cache)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "servescope", "run", "serve-itest-long-c2-v1", "--out", str(tmp_path / "runs"), "--no-scrape"],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        # the server is on record where `engine status` and the next run look for it ...
        def registered() -> list[int]:
            return [e.pid for e in embedded_servers(engine_cache) if e.parent_pid == proc.pid]

        assert _wait_for(registered, 120), "no embedded server started"
        [server] = registered()
        assert server in _children_named(proc.pid, "llama-server")  # ... and is the run's own child
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        assert _wait_for(lambda: not _alive(server), 5.0), f"llama-server {server} outlived its servescope"
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=30)
    assert embedded_servers(engine_cache) == [] or all(e.pid != server for e in embedded_servers(engine_cache))


_ORPHAN = """
import os, sys
from servescope.bench.engine import LlamaServer, ServerConfig, lifetime
lifetime.die_with_parent = lambda: None  # as where the kernel offers no parent-death signal
server = LlamaServer(ServerConfig(parallel=1, ctx_per_slot=256, cache_dir=sys.argv[1])).start()
print(server.pid, flush=True)
os._exit(0)  # no stop, no finalizer: the server is orphaned
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_an_orphan_is_found_and_stopped_by_engine_status(llama: LlamaServer, engine_cache: Path, tmp_path: Path) -> None:
    out = subprocess.run([sys.executable, "-c", _ORPHAN, str(engine_cache)], capture_output=True, text=True, timeout=120, check=True)
    orphan = int(out.stdout.split()[0])
    try:
        assert _alive(orphan)
        assert any(e.pid == orphan and not e.parent_alive for e in embedded_servers(engine_cache))
        env = {**os.environ, "SERVESCOPE_CACHE_DIR": str(engine_cache)}
        status = subprocess.run([sys.executable, "-m", "servescope", "engine", "status"], env=env, capture_output=True, text=True, timeout=60)
        assert f"stopped an orphaned embedded llama-server (pid {orphan}" in status.stdout
        assert _wait_for(lambda: not _alive(orphan), 5.0)
        assert all(e.pid != orphan for e in embedded_servers(engine_cache))
        assert llama.is_running()  # the live one of this test session is not an orphan: left alone
    finally:
        if _alive(orphan):
            os.kill(orphan, signal.SIGKILL)
