"""Generated code that detaches (``os.setsid()``, a double-forked daemon holding the output
open) can neither hang a run nor outlive it; code run without the sandbox
(``--unsafe-code-exec``) sees none of our secrets; what it prints is redacted and cut.
Both runners: the unsafe one and bubblewrap."""

from __future__ import annotations

import textwrap
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest

from servescope.scoring import sandbox, score_item
from servescope.scoring.base import Output
from servescope.scoring.sandbox import OUTPUT_CHARS, BwrapRunner, Limits, UnsafeRunner
from tests.scoring.conftest import working_sandbox
from tests.sleepers import kill_sleepers, sleepers, unique_mark

pytestmark = pytest.mark.integration

T = TypeVar("T")
ALLOWED_ENV = {"PATH", "HOME", "TMPDIR", "LANG", "PYTHONHASHSEED", "PYTHONDONTWRITEBYTECODE", sandbox.MARKER_ENV}


@pytest.fixture
def mark() -> Iterator[str]:
    """A unique ``sleep`` argument; whatever a failing run left behind is killed, by pid."""
    value = unique_mark()
    yield value
    kill_sleepers(value)


RUNNERS: dict[str, Callable[[], BwrapRunner | UnsafeRunner]] = {"unsafe": UnsafeRunner, "bwrap": working_sandbox}


def setsid_sleeper(mark: str) -> str:
    """A child that leaves the process group (setsid) and sleeps; the code waits forever."""
    return textwrap.dedent(f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            os.execvp("sleep", ["sleep", "{mark}"])
        time.sleep(1000)
    """)


def double_fork_daemon(mark: str) -> str:
    """A classic daemon: fork, setsid, fork again; the grandchild keeps stdout/stderr
    open (a pipe would never reach EOF) and sleeps; the code itself exits at once."""
    return textwrap.dedent(f"""
        import os, sys
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "{mark}"])
            os._exit(0)
        print("parent exits")
    """)


def _run_bounded(run: Callable[[], T], limit_s: float) -> tuple[T | None, float]:
    """The run in a thread, given ``limit_s``: (what it returned or None if it hung, seconds)."""
    box: list[T] = []
    t0 = time.monotonic()
    thread = threading.Thread(target=lambda: box.append(run()), daemon=True)
    thread.start()
    thread.join(limit_s)
    return (box[0] if box else None), time.monotonic() - t0


@pytest.mark.parametrize("runner", RUNNERS, ids=str)
def test_a_setsid_child_is_killed_on_timeout(runner: str, mark: str) -> None:
    execution, took = _run_bounded(lambda: RUNNERS[runner]().run(setsid_sleeper(mark), Limits(wall_s=2, cpu_s=10)), 30)
    assert execution is not None, "the run hung"
    assert execution.timed_out and not execution.passed
    assert took < 15
    time.sleep(0.2)
    assert sleepers(mark) == []


@pytest.mark.parametrize("runner", RUNNERS, ids=str)
def test_a_double_forked_daemon_neither_hangs_the_run_nor_survives_it(runner: str, mark: str) -> None:
    execution, took = _run_bounded(lambda: RUNNERS[runner]().run(double_fork_daemon(mark), Limits(wall_s=10, cpu_s=10)), 30)
    assert execution is not None, "the run hung on the daemon's open output"
    assert execution.returncode == 0 and "parent exits" in execution.stdout
    assert took < 8  # the code's own time, not its daemon's
    time.sleep(0.2)
    assert sleepers(mark) == []


@pytest.fixture
def unsafe_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """A machine where no sandbox works: --unsafe-code-exec then selects the UnsafeRunner."""
    monkeypatch.setattr(sandbox, "_FOUND", [])
    monkeypatch.setattr(sandbox, "_bwrap_candidates", list)
    monkeypatch.setenv("SERVESCOPE_UNSAFE_CODE_EXEC", "1")


def test_a_code_exec_item_that_detaches_fails_as_a_timeout(unsafe_only: None, mark: str) -> None:
    answer = f"```python\n{setsid_sleeper(mark)}\n```"
    score, took = _run_bounded(lambda: score_item("code_exec", Output(answer), None, {"tests": "assert True", "timeout_s": 2}), 30)
    assert score is not None, "the item hung"
    assert not score.correct
    assert score.detail is not None and score.detail.startswith("timeout:")
    assert took < 15
    time.sleep(0.2)
    assert sleepers(mark) == []


PLANTED = {
    "OPENAI_API_KEY": "sk-planted-openai-0123456789abcdef",
    "SERVESCOPE_API_KEY": "planted-servescope-key-42",
    "MY_DB_PASSWORD": "planted-db-password-7",
    "HF_TOKEN": "hf_plantedplantedplantedplanted12",
    "UNRELATED_SETTING": "planted-unrelated-value-9",  # not secret-looking by name: still not passed
}


def test_unsafe_code_sees_only_a_minimal_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    res = UnsafeRunner().run("import os, json\nprint(json.dumps(dict(os.environ)))")
    assert res.passed, res
    seen = __import__("json").loads(res.stdout)
    assert set(seen) <= ALLOWED_ENV, set(seen) - ALLOWED_ENV
    assert not any(value in res.stdout for value in PLANTED.values())
    assert Path(seen["HOME"]).name.startswith("servescope-code-home-")  # a temporary HOME, not ours


def test_a_code_exec_answer_printing_its_environment_shows_no_secret(unsafe_only: None, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, value in PLANTED.items():
        monkeypatch.setenv(name, value)
    names = ", ".join(repr(n) for n in PLANTED)
    answer = f"```python\nimport os, sys\nsys.stderr.write(' '.join(os.environ.get(n, '-') for n in ({names})))\nraise SystemExit(1)\n```"
    score = score_item("code_exec", Output(answer), None, {"tests": "assert True", "timeout_s": 10})
    assert not score.correct and score.detail is not None
    assert not any(value in score.detail for value in PLANTED.values())


@pytest.mark.parametrize("runner", RUNNERS, ids=str)
def test_output_is_redacted_and_cut(runner: str) -> None:
    code = "import sys\nsys.stderr.write('Authorization: Bearer abcdef123456 sk-' + 'q' * 40 + '\\n')\nprint('x' * 100000)"
    res = RUNNERS[runner]().run(code)
    assert "abcdef123456" not in res.stderr and "q" * 40 not in res.stderr and "<redacted>" in res.stderr
    assert len(res.stdout) <= OUTPUT_CHARS
