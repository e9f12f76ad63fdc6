"""The compiled simulator (``servescope.native_sim``): it predicts exactly what the Python
does, it is used only for the sources it was built from, and the tests that instrument the
simulator's Python still run when it is built."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import servescope.predict.sim as sim
from servescope import native_sim

ROOT = Path(__file__).resolve().parents[1]
NOT_BUILT = "no compiled simulator for these sources (python -m servescope.native_sim builds it; make test does)"


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != native_sim.PURE_ENV}
    env.update(extra)
    return env


def _cases(**extra: str) -> dict[str, str]:
    done = subprocess.run([sys.executable, str(ROOT / "tests" / "predict" / "native_cases.py")], env=_env(**extra), capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    return dict(line.split("\t", 1) for line in done.stdout.splitlines())


@pytest.mark.integration
def test_the_compiled_simulator_predicts_byte_for_byte_what_the_python_does() -> None:
    if not sim.NATIVE:
        pytest.skip(NOT_BUILT)
    compiled = _cases()
    pure = _cases(**{native_sim.PURE_ENV: "1"})
    assert compiled.pop("native") == "True" and pure.pop("native") == "False"
    assert len(pure) >= 14
    assert compiled == pure
    # the cases reach what they are named for
    assert "preemptions=0" not in pure["kv pressure (preemptions)"]
    assert "failed=0" not in pure["refused prompts"]


def test_the_compiled_modules_are_the_ones_loaded_when_built() -> None:
    import servescope.predict.sim.scheduler as scheduler
    import servescope.predict.sim.simulator as simulator

    for module in (scheduler, simulator):
        assert module.__file__ is not None
        assert module.__file__.endswith(".py") is not sim.NATIVE
    if sim.NATIVE:
        folder = native_sim.built_dir()
        assert folder is not None and str(folder) in str(simulator.__file__)


def test_a_build_is_used_only_for_the_sources_it_was_built_from(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An edit to any compiled module, or to a module it is typed against, changes the key:
    the edited Python then runs, never the stale build."""
    predict = tmp_path / "predict"
    (predict / "sim").mkdir(parents=True)
    for name in native_sim.SIM_MODULES:
        (predict / "sim" / f"{name}.py").write_text(f"# {name}\n")
    for name in native_sim.TYPED_AGAINST:
        (predict / name).write_text(f"# {name}\n")
    monkeypatch.setattr(native_sim, "_PREDICT", predict)
    monkeypatch.setattr(native_sim, "_SIM", predict / "sim")
    monkeypatch.setenv("SERVESCOPE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv(native_sim.PURE_ENV, raising=False)
    key = native_sim.source_key()
    assert key.startswith(sys.implementation.cache_tag)

    path: list[str] = ["/the/python"]
    assert native_sim.built_dir() is None and not native_sim.activate(path) and path == ["/the/python"]
    folder = tmp_path / "cache" / "native-sim" / key
    (folder / "servescope" / "predict" / "sim").mkdir(parents=True)
    assert not native_sim.activate(path), "a build without its completion mark is not used"
    (folder / native_sim.COMPLETE).write_text("built\n")
    assert native_sim.activate(path) and path == [str(folder / "servescope" / "predict" / "sim"), "/the/python"]

    monkeypatch.setenv(native_sim.PURE_ENV, "1")
    assert not native_sim.activate(["/the/python"])
    monkeypatch.delenv(native_sim.PURE_ENV)

    for edited in [predict / "sim" / "scheduler.py", predict / "step_time.py"]:
        before = native_sim.source_key()
        edited.write_text(edited.read_text() + "x = 1\n")
        assert native_sim.source_key() != before
        assert native_sim.built_dir() is None and not native_sim.activate(["/the/python"])


@pytest.mark.integration
def test_the_tests_that_instrument_the_simulators_python_pass_in_pure_python() -> None:
    """Tests marked ``pure_sim`` patch the simulator's methods or read its objects' Python
    internals, which compiled classes do not allow; with a build present they are skipped in
    this process and run here, in a process that keeps pure Python."""
    if not sim.NATIVE:
        pytest.skip("the simulator runs as Python in this process: the pure_sim tests ran with the rest")
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-m", "pure_sim", "tests/predict"],
        cwd=ROOT, env=_env(**{native_sim.PURE_ENV: "1"}), capture_output=True, text=True, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout[-4000:]
    assert " passed" in done.stdout and " skipped" not in done.stdout.splitlines()[-1]


def test_the_build_command_says_in_one_line_when_it_cannot_build(tmp_path: Path) -> None:
    """Without mypyc the build refuses in one line and exits 0: predictions run in pure Python."""
    blocker = tmp_path / "block"
    blocker.mkdir()
    (blocker / "mypyc.py").write_text("raise ImportError('no mypyc here')\n")
    env = _env(SERVESCOPE_CACHE_DIR=str(tmp_path / "cache"), PYTHONPATH=os.pathsep.join([str(blocker), str(ROOT / "src")]))
    done = subprocess.run([sys.executable, "-m", "servescope.native_sim"], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.strip()]
    assert lines[-1].startswith("servescope: the compiled simulator was not built: mypyc is not installed"), done.stdout
    assert "pure Python" in lines[-1] and "Traceback" not in done.stdout + done.stderr
    status = subprocess.run([sys.executable, "-m", "servescope.native_sim", "--status"], env=env, capture_output=True, text=True, timeout=120)
    assert status.stdout.startswith("pure Python: no compiled simulator"), status.stdout
