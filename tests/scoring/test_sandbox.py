"""The sandbox against the escapes the issue names. Each escape is also tried with the
sandbox disabled (UnsafeRunner), where it must succeed: so these tests can fail."""

from __future__ import annotations

import os
import socket
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from servescope.scoring.sandbox import BwrapRunner, Limits, UnsafeRunner
from tests.scoring.conftest import working_sandbox
from tests.sleepers import kill_sleepers, unique_mark

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def sandbox() -> BwrapRunner:
    return working_sandbox()


def _listener() -> tuple[socket.socket, int]:
    srv = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    srv.bind(("127.0.0.1", 0))
    srv.listen(1)
    return srv, srv.getsockname()[1]


def escape_network(run: Callable[[str], object], tmp: Path) -> bool:
    srv, port = _listener()
    try:
        res = run(f"import socket\ns = socket.create_connection(('127.0.0.1', {port}), timeout=3)\nprint('connected')")
        return "connected" in res.stdout  # type: ignore[attr-defined]
    finally:
        srv.close()


def escape_write(run: Callable[[str], object], tmp: Path) -> bool:
    target = tmp / "escaped.txt"
    run(f"open({str(target)!r}, 'w').write('x')")
    return target.exists()


def escape_env(run: Callable[[str], object], tmp: Path) -> bool:
    os.environ["SERVESCOPE_TEST_API_KEY"] = "sk-secret-42"
    try:
        res = run("import os\nprint(os.environ.get('SERVESCOPE_TEST_API_KEY'))")
        return "sk-secret-42" in res.stdout  # type: ignore[attr-defined]
    finally:
        del os.environ["SERVESCOPE_TEST_API_KEY"]


def escape_orphan(run: Callable[[str], object], tmp: Path) -> bool:
    mark = unique_mark()
    run(
        textwrap.dedent(f"""
        import subprocess
        subprocess.Popen(['sleep', '{mark}'], start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        print('parent exits')
    """)
    )
    time.sleep(0.5)
    return bool(kill_sleepers(mark))  # clean up what the unsafe run left behind, by pid


ESCAPES = [escape_network, escape_write, escape_env, escape_orphan]
# What only the sandbox stops; the unsafe runner still stops the other two (a minimal
# environment, every process of the run killed when it ends: tests/scoring/test_unsafe_exec.py).
ISOLATION_ESCAPES = [escape_network, escape_write]


@pytest.mark.parametrize("escape", ESCAPES, ids=lambda f: f.__name__)
def test_sandbox_blocks_the_escape(sandbox: BwrapRunner, escape: Callable[..., bool], tmp_path: Path) -> None:
    assert escape(lambda code: sandbox.run(code, Limits(wall_s=15)), tmp_path) is False


@pytest.mark.parametrize("escape", ISOLATION_ESCAPES, ids=lambda f: f.__name__)
def test_the_same_escape_succeeds_with_the_sandbox_disabled(escape: Callable[..., bool], tmp_path: Path) -> None:
    unsafe = UnsafeRunner()
    assert escape(lambda code: unsafe.run(code, Limits(wall_s=15)), tmp_path) is True


@pytest.mark.parametrize("escape", [escape_env, escape_orphan], ids=lambda f: f.__name__)
def test_the_unsafe_runner_still_blocks_secrets_and_orphans(escape: Callable[..., bool], tmp_path: Path) -> None:
    unsafe = UnsafeRunner()
    assert escape(lambda code: unsafe.run(code, Limits(wall_s=15)), tmp_path) is False


def test_fork_bomb_is_stopped(sandbox: BwrapRunner) -> None:
    code = textwrap.dedent("""
        import os
        n = 0
        try:
            for _ in range(10000):
                if os.fork() == 0:
                    import time; time.sleep(5); os._exit(0)
                n += 1
        except OSError as exc:
            print('refused after', n)
    """)
    res = sandbox.run(code, Limits(wall_s=20, processes=32))
    assert "refused after" in res.stdout, res


def test_4_gib_allocation_fails(sandbox: BwrapRunner) -> None:
    res = sandbox.run("try:\n    b = bytearray(4 << 30)\n    print('allocated')\nexcept MemoryError:\n    print('refused')")
    assert res.stdout.strip() == "refused", res


def test_infinite_loop_is_killed_on_time(sandbox: BwrapRunner) -> None:
    t0 = time.monotonic()
    res = sandbox.run("while True:\n    pass", Limits(wall_s=3, cpu_s=30))
    assert res.timed_out and not res.passed
    assert time.monotonic() - t0 < 10


def test_cpu_limit_stops_a_busy_loop_before_the_wall_clock(sandbox: BwrapRunner) -> None:
    res = sandbox.run("while True:\n    pass", Limits(wall_s=30, cpu_s=1))
    assert not res.passed and not res.timed_out


def test_runs_as_non_root(sandbox: BwrapRunner) -> None:
    res = sandbox.run("import os\nprint(os.getuid(), os.geteuid())")
    assert res.stdout.split() == ["65534", "65534"], res


def test_good_code_passes(sandbox: BwrapRunner) -> None:
    res = sandbox.run("def add(a, b):\n    return a + b\nassert add(2, 3) == 5\nprint('ok')")
    assert res.passed and res.stdout.strip() == "ok", res
