"""``search`` fanned out - in local processes or as tasks on a real local Ray head - gives
byte for byte what one process gives, order included; without Ray, ``--ray`` is one
line saying how to install it."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servescope.errors import BadArgument, ServescopeError
from servescope.predict import fanout
from servescope.predict.search import SearchOutcome, search
from servescope.predict.workload_input import SyntheticWorkload

ray = pytest.importorskip("ray")

_ARGS: tuple[Any, ...] = ("llama-3.1-8b", "l4", 4, "ttft_ms<=2000,itl_ms<=80", SyntheticWorkload((8, 64), 512, 64, requests_per_concurrency=2))
_KWARGS: dict[str, Any] = {"engines": "vllm@0.11.0,sglang@0.5.2", "weight_dtypes": "bf16,fp8", "max_num_seqs": (16, 64)}


def _document(outcome: SearchOutcome) -> str:
    """Everything a search says but its wall time, as JSON text."""
    whole = dataclasses.asdict(outcome)
    whole.pop("wall_s")
    whole["slos"] = [str(s) for s in outcome.slos]
    return json.dumps(whole, sort_keys=False, default=str)


@pytest.fixture(scope="module")
def ray_head() -> Iterator[None]:
    """One local Ray head for the module (2 CPUs, no dashboard), on 127.0.0.1, shut down after."""
    env = os.environ.get("PYTHONPATH", "")
    src = str(Path(__file__).resolve().parents[2] / "src")
    # the workers import servescope by name: from this tree when it is not installed
    os.environ["PYTHONPATH"] = src + (os.pathsep + env if env else "")
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, _node_ip_address="127.0.0.1")
    try:
        yield
    finally:
        ray.shutdown()
        if env:
            os.environ["PYTHONPATH"] = env
        else:
            os.environ.pop("PYTHONPATH", None)


def test_one_process_local_processes_and_ray_give_the_same_search(ray_head: None) -> None:
    one = search(*_ARGS, **_KWARGS, workers=1)
    local = search(*_ARGS, **_KWARGS, workers=2)
    on_ray = search(*_ARGS, **_KWARGS, ray="auto")  # connected already: the module's head
    assert one.configurations == 2 * 2 * 3 * 2 and len(one.ranked) > 4  # several parts, several ranks
    assert _document(local) == _document(one)
    assert _document(on_ray) == _document(one)


def test_a_part_that_fails_on_ray_raises_its_own_error(ray_head: None) -> None:
    with pytest.raises(ValueError, match="boom 3"):
        fanout.run_parts(_fails_on_three, [1, 2, 3], None, ray_address="auto")
    assert fanout.run_parts(_doubles, [3, 1, 2], 10, ray_address="auto") == [16, 12, 14]  # in the parts' order
    with pytest.raises(
        ServescopeError, match=r"^--ray auto: a task failed on the cluster \(ImportError: no such module here\); install servescope on every node"
    ):
        fanout.run_parts(_cannot_import, [1], None, ray_address="auto")


def _cannot_import(part: int, state: Any) -> int:
    raise ImportError("no such module here")


def _fails_on_three(part: int, state: Any) -> int:
    if part == 3:
        raise ValueError(f"boom {part}")
    return part


def _doubles(part: int, state: int) -> int:
    return state + 2 * part


def test_without_ray_the_flag_is_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # what a base install without the extra has
    with pytest.raises(BadArgument, match=r"^--ray needs Ray, which is not installed: pip install 'servescope\[ray\]'"):
        search(*_ARGS, ray="auto")


_CLI = [sys.executable, "-m", "servescope", "search", "--model", "llama-3.1-8b", "--hardware", "l4", "--gpus", "4",
        "--slo", "ttft_ms<=2000,itl_ms<=80", "--isl", "256", "--osl", "32", "--concurrency", "4,16", "--dtypes", "bf16,fp8"]  # fmt: skip


def test_cli_search_on_a_ray_cluster_ranks_as_one_process(ray_head: None) -> None:
    address = ray.get_runtime_context().gcs_address  # this module's head, not any other on the host
    one = subprocess.run([*_CLI, "--workers", "1"], capture_output=True, text=True, timeout=180, check=True)
    on_ray = subprocess.run([*_CLI, "--ray", address], capture_output=True, text=True, timeout=180, check=True)
    # the first line says how long it took; everything after it is the ranking
    assert on_ray.stdout.splitlines()[1:] == one.stdout.splitlines()[1:]
    assert "rank" in one.stdout and len(one.stdout.splitlines()) > 5


def test_cli_ray_flag_is_one_line_without_ray_or_with_workers(tmp_path: Path) -> None:
    hide = tmp_path / "hide"
    hide.mkdir()
    (hide / "ray.py").write_text("raise ImportError('no ray here')\n")  # shadows the installed Ray for this process
    base = _CLI
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(hide), *filter(None, [os.environ.get("PYTHONPATH")])])}
    out = subprocess.run([*base, "--ray", "auto"], capture_output=True, text=True, timeout=120, env=env, check=False)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "pip install 'servescope[ray]'" in lines[0] and "Traceback" not in out.stderr
    both = subprocess.run([*base, "--ray", "auto", "--workers", "2"], capture_output=True, text=True, timeout=120, check=False)
    assert both.returncode == 2 and "leave --workers out" in both.stderr and len(both.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("address", ["127.0.0.1:1", "ray://127.0.0.1:1", "nowhere", "127.0.0.1:99999"])
def test_cli_ray_with_no_cluster_is_one_line(tmp_path: Path, address: str) -> None:
    out = subprocess.run([*_CLI, "--ray", address], capture_output=True, text=True, timeout=60, check=False)
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: --ray {address}: "), out.stderr


def test_ctrl_c_to_the_process_group_stops_a_fanned_out_search_without_tracebacks(tmp_path: Path) -> None:
    """A terminal's Ctrl-C goes to every process of the group, the forked workers too: the
    search stops at once with exit 130 and one process's word, not a KeyboardInterrupt
    traceback from each worker (nor a wait for the parts still queued)."""
    import signal
    import time

    seqs = ",".join(str(n) for n in range(1, 2001))
    cmd = [sys.executable, "-m", "servescope", "search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--isl", "256", "--osl", "32",
           "--gpus", "8", "--slo", "ttft_ms<=500", "--max-num-seqs", seqs, "--concurrency", "8", "--workers", "2",
           "--dtypes", "bf16,fp8", "--engines", "vllm@0.11.0,sglang@0.5.2"]  # fmt: skip

    def default_sigint() -> None:  # (an ignored SIGINT is inherited across exec: Python would install no KeyboardInterrupt)
        signal.signal(signal.SIGINT, signal.SIG_DFL)

    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True, cwd=tmp_path, preexec_fn=default_sigint)
    time.sleep(3.0)  # (the search takes ~10 s here)
    started = time.monotonic()
    os.killpg(proc.pid, signal.SIGINT)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, out[-2000:]
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out[-2000:]
    assert time.monotonic() - started < 20
