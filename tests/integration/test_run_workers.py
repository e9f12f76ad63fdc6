"""``servescope run --workers N``: one run's load from N client processes against the
timing-truth server on loopback, merged exactly into one records file and one Result."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from servescope.bench.engine import LlamaServer
from servescope.bench.records import read_records
from servescope.bench.recover import recover
from servescope.catalog.store import Catalog
from servescope.testing.truth.server import TruthServer
from servescope.workload.arrivals import arrival_offsets_ns

pytestmark = pytest.mark.integration

WORKLOAD = "serve-short-c16-i128-o128-v1"  # 320 requests, 16 streams, 128 tokens out
ITL_MS = 4.0
# p50s of two runs of the same load that agree "within noise" on this machine
NOISE_MS = {"itl_ms": 0.3, "tpot_ms": 0.3, "ttft_ms": 6.0, "e2e_ms": 15.0}


def _default_sigint() -> None:
    """In the child, before exec: SIGINT does what Ctrl-C does, whatever this test process inherited or set
    (an ignored SIGINT is inherited across exec, and Python then installs no KeyboardInterrupt)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _cli(*args: str, catalog: Catalog | None = None, env: dict[str, str] | None = None, **kw: Any) -> subprocess.Popen[str]:
    env = {**(env or os.environ)}
    if catalog is not None:
        env["SERVESCOPE_CATALOG_PATH"] = str(catalog.roots[-1])
    return subprocess.Popen(
        [sys.executable, "-m", "servescope", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw, preexec_fn=_default_sigint
    )


def truth_gaps_ms(log: dict[str, dict[str, Any]]) -> np.ndarray:
    """Every gap between consecutive tokens the truth server wrote, in ms."""
    return np.concatenate([np.diff(np.asarray(e["token_ns"], dtype=np.int64)) for e in log.values() if len(e.get("token_ns") or []) > 1]) / 1e6


def request_lines(path: Path) -> list[dict[str, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        d = json.loads(line)
        if "request_id" in d:
            out.append(d)
    return out


def _canon(d: dict[str, Any]) -> str:
    return json.dumps(d, sort_keys=True)


@pytest.fixture(scope="module")
def measured(tmp_path_factory: pytest.TempPathFactory) -> dict[int, dict[str, Any]]:
    """The same workload with 1 and with 2 client workers, each against a fresh truth server."""
    out = {}
    for workers in (1, 2):
        runs = tmp_path_factory.mktemp(f"workers{workers}")
        with TruthServer(ttft_ms=5.0, itl_ms=ITL_MS) as srv:
            proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", str(workers), "--out", str(runs))
            stdout, stderr = proc.communicate(timeout=300)
            log = srv.read_log()
        assert proc.returncode == 0, stdout + stderr
        [run_dir] = [p for p in runs.iterdir() if p.is_dir()]
        result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
        out[workers] = {"dir": run_dir, "result": result, "truth": truth_gaps_ms(log), "stdout": stdout}
    return out


@pytest.mark.timing
def test_two_workers_complete_every_request_with_itl_p50_within_0_3_ms_of_truth(measured: dict[int, dict[str, Any]]) -> None:
    run = measured[2]
    m = run["result"]["metrics"]
    assert (m["total_requests"], m["completed_requests"]) == (320, 320)
    truth_p50 = float(np.percentile(run["truth"], 50))
    assert abs(m["itl_ms"]["p50"] - truth_p50) < 0.3, (m["itl_ms"], truth_p50)
    assert "322/322" in run["stdout"]  # one progress bar for the whole run: 320 measured + 2 warmup, both workers


@pytest.mark.timing
def test_one_and_two_workers_give_the_same_distributions(measured: dict[int, dict[str, Any]]) -> None:
    one, two = (measured[k]["result"]["metrics"] for k in (1, 2))
    assert one["completed_requests"] == two["completed_requests"] == 320
    assert one["itl_ms"]["count"] == two["itl_ms"]["count"]  # every gap of the union, not an average of two runs
    # TTFT carries the shared 2-core machine's scheduling (one client process answering 16
    # streams sends its next request later than two do): a looser bound than the gaps
    for metric, within_ms in NOISE_MS.items():
        assert abs(one[metric]["p50"] - two[metric]["p50"]) < within_ms, (metric, one[metric], two[metric])


@pytest.mark.timing
def test_the_merged_records_are_exactly_the_workers_records(measured: dict[int, dict[str, Any]]) -> None:
    run_dir: Path = measured[2]["dir"]
    merged = request_lines(run_dir / "records.jsonl")
    per_worker = [request_lines(run_dir / "workers" / f"worker-{k}.jsonl") for k in range(2)]
    assert all(per_worker)
    assert Counter(map(_canon, merged)) == Counter(_canon(d) for lines in per_worker for d in lines)
    ids = [d["request_id"] for d in merged if d["phase"] == "measured"]
    assert len(ids) == len(set(ids)) == 320
    assert {d["concurrency"] for d in merged} == {16}  # each record says the run's concurrency, not its worker's share
    # the merged file is a records file like any other: rebuilt from it alone, the same Result
    rebuilt = recover(run_dir / "records.jsonl").result.metrics
    m = measured[2]["result"]["metrics"]
    assert rebuilt.itl_ms is not None and rebuilt.itl_ms.p50 == m["itl_ms"]["p50"]
    assert rebuilt.completed_requests == 320


@pytest.mark.timing
def test_the_split_and_the_clock_offsets_are_recorded(measured: dict[int, dict[str, Any]]) -> None:
    block = measured[2]["result"]["resolved_params"]["workers"]
    assert block["count"] == 2 and block["placement"] == "processes" and block["lost"] == []
    assert block["split"] == [{"point": 0, "streams": [8, 8], "requests": [160, 160]}]
    pids = {c["pid"] for c in block["clock"]}
    assert len(pids) == 2 and os.getpid() not in pids
    for clock in block["clock"]:
        # one host, one CLOCK_MONOTONIC: nothing applied, and what was measured is ~0 within its uncertainty
        assert clock["same_clock"] is True and clock["applied_offset_ns"] == 0
        for when in ("before", "after"):
            c = clock[when]
            assert c["samples"] == 8 and 0 < c["uncertainty_ns"] < 50_000_000
            assert abs(c["offset_ns"]) <= c["uncertainty_ns"] + 1_000_000
    assert "workers" not in measured[1]["result"]["resolved_params"]  # one process: today's path, unchanged


def test_open_loop_workers_send_one_global_schedule(itest_catalog: Catalog, tmp_path: Path) -> None:
    """The union of the workers' scheduled send times is exactly the one arrival process asked for."""
    rate = 40.0
    with TruthServer(ttft_ms=2.0, itl_ms=1.0) as srv:
        proc = _cli(
            "run",
            "serve-itest-c4-v1",
            "--endpoint",
            srv.base_url,
            "--no-scrape",
            "--rate",
            str(rate),
            "--workers",
            "2",
            "--out",
            str(tmp_path),
            catalog=itest_catalog,
        )
        stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    [records] = tmp_path.glob("*/records.jsonl")
    starts = sorted(r.start_ns for r in read_records(records) if r.phase == "measured")
    want = arrival_offsets_ns(12, rate, "poisson", 1.0, 0)
    assert [s - starts[0] for s in starts] == sorted(int(x) for x in want)
    result = json.loads((records.parent / "result.json").read_text(encoding="utf-8"))
    assert result["metrics"]["achieved_rate"] is not None
    assert result["resolved_params"]["workers"]["split"] == [{"point": 0, "streams": [2, 2], "requests": [6, 6]}]


def test_sessions_on_workers_stay_whole_on_the_llama_cpp_engine(llama: LlamaServer, tmp_path: Path) -> None:
    """Multi-turn sessions over 2 workers, against a real llama.cpp server: each conversation
    runs whole on one worker, every turn of every session is sent (after its previous answer)."""
    proc = _cli(
        "run", "--sessions", "4", "--turns", "3", "--isl", "16", "--osl", "4", "--endpoint", llama.openai_base_url,
        "--workers", "2", "--out", str(tmp_path),
    )  # fmt: skip
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    owner: dict[str, int] = {}
    for k in range(2):
        turns = [r for r in read_records(run_dir / "workers" / f"worker-{k}.jsonl") if r.phase == "measured"]
        assert turns and all(r.ok for r in turns)
        for r in turns:
            assert owner.setdefault(r.group or "", k) == k  # a session's turns on one worker
    assert len(owner) == 4
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    assert result["metrics"]["completed_requests"] == 12
    assert result["resolved_params"]["workers"]["split"] == [{"point": 0, "streams": [2, 2], "requests": [6, 6]}]


VLLM_PAGE = Path(__file__).resolve().parents[1] / "bench" / "fixtures" / "vllm_0.32_cpu_metrics.txt"


def test_the_driver_reads_the_engine_metrics_over_the_window_all_workers_share(itest_catalog: Catalog, tmp_path: Path) -> None:
    """/metrics is read once for the run (by the driver), around the measured window, as one process does."""
    with TruthServer(ttft_ms=2.0, itl_ms=2.0, metrics_file=VLLM_PAGE) as srv:  # a real vLLM page: KV 0.0, no preemption
        proc = _cli("run", "serve-itest-c4-v1", "--endpoint", srv.base_url, "--workers", "2", "--out", str(tmp_path), catalog=itest_catalog)
        stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    assert result["metrics"]["kv_utilization"] == 0.0 and result["metrics"]["preemptions"] == 0
    assert result["metadata"]["engine_scrape"]["scrapes"] >= 2
    done = [json.loads(x)["point_done"] for x in (run_dir / "records.jsonl").read_text(encoding="utf-8").splitlines() if x.startswith('{"point_done"')]
    assert [(d["point"], d["kv_utilization"], d["preemptions"]) for d in done] == [(0, 0.0, 0)]


def _worker_pids(parent: int) -> list[int]:
    """The spawned worker processes of a servescope run."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            cmdline = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        if int(stat[stat.rfind(")") + 2 :].split()[1]) == parent and b"spawn_main" in cmdline:
            found.append(int(entry.name))
    return sorted(found)


def test_a_killed_worker_loses_no_finished_request_and_the_run_exits_non_zero(itest_catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(ttft_ms=5.0, itl_ms=5.0) as srv:  # 200 tokens a request: about 1 s each
        proc = _cli("run", "serve-itest-long-c2-v1", "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--out", str(tmp_path), catalog=itest_catalog)
        victim = _second_worker_after_two_records(proc, tmp_path)
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 4, stdout + stderr
    [line] = [x for x in stderr.strip().splitlines() if x.strip()]
    assert "died" in line and "'worker-lost'" in line and "every finished request is kept" in line, line
    assert "Traceback" not in stderr
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    merged = {r.request_id: r for r in read_records(run_dir / "records.jsonl")}
    finished = [r for k in range(2) for r in read_records(run_dir / "workers" / f"worker-{k}.jsonl")]
    assert finished
    for r in finished:  # nothing finished is lost
        assert merged[r.request_id].ok == r.ok and merged[r.request_id].chunk_ns == r.chunk_ns
    lost = [r for r in merged.values() if r.category == "worker-lost"]
    assert lost and all(not r.ok for r in lost)
    m = result["metrics"]
    assert m["total_requests"] == 24  # every planned request is accounted for: finished, or lost with its worker
    assert result["blocked_by_reason_code"]["worker-lost"] == sum(r.phase == "measured" for r in lost)
    assert [w["worker"] for w in result["resolved_params"]["workers"]["lost"]] == [1]
    assert "signal 9" in result["resolved_params"]["workers"]["lost"][0]["how"]


def test_a_stopped_worker_is_lost_after_the_runs_timeout_and_the_run_ends_with_its_records(tmp_path: Path) -> None:
    """SIGSTOP (a frozen VM, a swap storm): the worker neither ends nor sends. It was waited on
    forever; now, silent past --timeout, it is lost like a dead one and the run ends, exit 4."""
    tokenizer = Path(__file__).parents[2] / "src" / "servescope" / "data" / "engine" / "tokenizer.json"
    with TruthServer(ttft_ms=5.0, itl_ms=5.0) as srv:  # 100 tokens a request: about 0.5 s each, 8 a worker
        proc = _cli("run", "--isl", "32", "--osl", "100", "--num-requests", "16", "--concurrency", "2", "--endpoint", srv.base_url,
                    "--tokenizer", str(tokenizer), "--engine", "vllm", "--no-scrape", "--workers", "2", "--timeout", "6", "--out", str(tmp_path))  # fmt: skip
        victim = _second_worker_after_two_records(proc, tmp_path)
        os.kill(victim, signal.SIGSTOP)
        stopped_at = time.monotonic()
        try:
            stdout, stderr = proc.communicate(timeout=120)
        finally:
            if _running(victim):
                os.kill(victim, signal.SIGKILL)
            if proc.poll() is None:  # it waited on the stopped worker: the defect this test catches
                proc.kill()
                proc.communicate(timeout=30)
    assert time.monotonic() - stopped_at < 60  # the 6 s timeout, not forever
    assert proc.returncode == 4, stdout + stderr
    [line] = [x for x in stderr.strip().splitlines() if x.strip()]
    assert "stopped answering: 1 (sent nothing for " in line and "stopped or frozen" in line and "'worker-lost'" in line, line
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    merged = {r.request_id: r for r in read_records(run_dir / "records.jsonl")}
    for r in read_records(run_dir / "workers" / "worker-1.jsonl"):  # what it finished before it froze is kept
        assert merged[r.request_id].ok == r.ok
    assert result["metrics"]["total_requests"] == 16 and result["blocked_by_reason_code"]["worker-lost"] >= 1
    assert [w["worker"] for w in result["resolved_params"]["workers"]["lost"]] == [1]


def _second_worker_after_two_records(proc: subprocess.Popen[str], out: Path) -> int:
    """The pid of worker 1 once its file holds two finished requests (so it has something to keep)."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        worker_files = sorted(out.glob("*/workers/worker-1.jsonl"))
        if worker_files and sum(1 for _ in read_records(worker_files[0])) >= 2:
            pids = _worker_pids(proc.pid)
            assert len(pids) == 2, pids
            return pids[1]
        time.sleep(0.05)
    raise AssertionError("no worker finished two requests")


def _running(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat[stat.rfind(")") + 2] != "Z"


def test_workers_stop_when_their_driver_is_killed(tmp_path: Path) -> None:
    """kill -9 of the run: its workers do not go on sending load that nobody records."""
    with TruthServer(ttft_ms=5.0, itl_ms=5.0) as srv:  # 320 requests of 0.65 s, 8 at a time a worker: ~13 s
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--out", str(tmp_path))
        deadline = time.monotonic() + 120
        pids: list[int] = []
        while time.monotonic() < deadline and not pids:
            files = sorted(tmp_path.glob("*/workers/worker-1.jsonl"))
            if files and any(True for _ in read_records(files[0])):  # mid-run: requests are finishing
                pids = _worker_pids(proc.pid)
            time.sleep(0.05)
        assert len(pids) == 2
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)  # not communicate(): the workers hold its output pipes open while they live
        deadline = time.monotonic() + 5  # the server still serves: each worker has ~10 s of load left
        while any(_running(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        alive = [p for p in pids if _running(p)]
        for p in alive:
            os.kill(p, signal.SIGKILL)
        proc.communicate(timeout=30)
        assert not alive


def test_an_interrupted_run_keeps_every_finished_request_and_stops_its_workers(tmp_path: Path) -> None:
    """Ctrl-C of the run (SIGINT to its whole process group, as a terminal sends it): what the
    workers finished is in records.jsonl, and no worker prints a traceback of its own."""
    with TruthServer(ttft_ms=5.0, itl_ms=5.0) as srv:
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--out", str(tmp_path), start_new_session=True)
        deadline = time.monotonic() + 120
        pids: list[int] = []
        while time.monotonic() < deadline and not pids:
            files = sorted(tmp_path.glob("*/workers/worker-*.jsonl"))
            if len(files) == 2 and all(sum(1 for _ in read_records(f)) >= 8 for f in files):
                pids = _worker_pids(proc.pid)
            time.sleep(0.05)
        assert len(pids) == 2
        asked = time.monotonic()
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
        assert time.monotonic() - asked < 4  # the workers are stopped, not waited for (~8 s of load left)
        assert not any(_running(p) for p in pids)
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    merged = {r.request_id for r in read_records(run_dir / "records.jsonl")}
    finished = {r.request_id for k in range(2) for r in read_records(run_dir / "workers" / f"worker-{k}.jsonl")}
    assert len(finished) >= 16 and finished <= merged


def test_ctrl_c_while_the_workers_start_is_a_clean_stop(tmp_path: Path) -> None:
    """A Ctrl-C that lands while the workers are still starting (importing): exit 130, no
    worker's KeyboardInterrupt traceback (they start with Ctrl-C ignored; the driver stops them)."""
    with TruthServer(ttft_ms=5.0, itl_ms=5.0) as srv:
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--out", str(tmp_path), start_new_session=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and len(_worker_pids(proc.pid)) < 2:
            time.sleep(0.01)
        time.sleep(0.3)  # past the interpreter's start, into the workers' imports (~1 s here)
        os.killpg(proc.pid, signal.SIGINT)
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 130, stdout + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["--workers", "0"], "error: --workers 0: give a number of client processes in 1..1024, e.g. --workers 2 (1 = this process alone)"),
        (["--workers", "3"], "error: --workers 3 is more than the 2 streams of point 0 (concurrency 2): each worker needs one; give --workers ≤ 2"),
    ],
)
def test_a_split_that_cannot_run_is_one_line_before_anything_is_sent(itest_catalog: Catalog, tmp_path: Path, args: list[str], says: str) -> None:
    proc = _cli("run", "serve-itest-long-c2-v1", "--endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path), *args, catalog=itest_catalog)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stdout + stderr
    assert stderr.strip().splitlines() == [says]
    assert not list(tmp_path.iterdir())


def test_a_ray_address_nothing_listens_on_is_one_line_and_nothing_is_written(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with TruthServer(ttft_ms=1.0, itl_ms=1.0) as srv:
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--out", str(tmp_path), "--workers", "2", "--ray", f"127.0.0.1:{port}")
        stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stdout + stderr  # bad input, as search --ray says it (hostB D20)
    [line] = stderr.strip().splitlines()
    assert line.startswith(f"error: --ray 127.0.0.1:{port}: nothing accepts connections there (")
    assert not list(tmp_path.iterdir())


def test_a_kind_that_runs_in_one_process_is_refused(tmp_path: Path) -> None:
    proc = _cli("run", "eval-code-v1", "--endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path), "--workers", "2")
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 2, stdout + stderr
    assert stderr.strip().splitlines() == [
        "error: --workers 2: a workload of kind eval runs in one client process (its kinds that split: serving, sweep, prefill, longctx); drop --workers 2"
    ]


HEAD_SCRIPT = """
import logging, sys
import ray
ctx = ray.init(address="local", num_cpus=2, include_dashboard=False, logging_level=logging.WARNING, _temp_dir=sys.argv[1])
print(ctx.address_info["gcs_address"], flush=True)
sys.stdin.read()  # until the test closes it
ray.shutdown()
"""

# A cluster on loopback only, of its own, never joined by anything else: Ray's node address
# resolves to 127.0.0.1 when its multi-host mode is off; no usage report, no token file.
RAY_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "disabled"}


@contextmanager
def loopback_ray_head(temp: str, env: dict[str, str]) -> Iterator[str]:
    """A Ray head on 127.0.0.1 with 2 CPUs and its files under ``temp``, started with ``env``: its
    address; on leaving, the head is stopped and no process of it may be left."""
    head = subprocess.Popen([sys.executable, "-c", HEAD_SCRIPT, temp], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert head.stdout is not None and head.stdin is not None
    address = head.stdout.readline().strip()
    assert address.startswith("127.0.0.1:"), address
    yield address
    head.stdin.close()
    head.wait(timeout=60)
    head.stdout.close()
    deadline = time.monotonic() + 30
    while _processes_mentioning(temp) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not _processes_mentioning(temp), "Ray processes left behind"


def _processes_mentioning(text: str) -> list[int]:
    out = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if text.encode() in (entry / "cmdline").read_bytes():
                    out.append(int(entry.name))
            except OSError:
                continue
    return out


@pytest.fixture(scope="module")
def ray_head() -> Any:
    """A local Ray head bound to 127.0.0.1 with 2 CPUs, shared by this module's Ray tests;
    shut down (every process it started) at the end."""
    pytest.importorskip("ray")
    import tempfile

    temp = tempfile.mkdtemp(prefix="ssray-")  # short: Ray's socket paths live under it
    env = {**os.environ, **RAY_ENV}
    with loopback_ray_head(temp, env) as address:
        yield address, env


@pytest.mark.timing
def test_two_workers_on_a_local_ray_cluster_give_the_same_distributions(ray_head: Any, measured: dict[int, dict[str, Any]], tmp_path: Path) -> None:
    address, env = ray_head
    with TruthServer(ttft_ms=5.0, itl_ms=ITL_MS) as srv:
        # a relative --out from a folder that is not the Ray node's: the workers' files still land in the run folder
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--ray", address, "--out", "runs", env=env, cwd=tmp_path)
        stdout, stderr = proc.communicate(timeout=300)
        truth = truth_gaps_ms(srv.read_log())
    assert proc.returncode == 0, stdout + stderr
    [run_dir] = [p for p in (tmp_path / "runs").iterdir() if p.is_dir()]
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    m, one = result["metrics"], measured[1]["result"]["metrics"]
    assert m["completed_requests"] == 320 and m["itl_ms"]["count"] == one["itl_ms"]["count"]
    assert abs(m["itl_ms"]["p50"] - float(np.percentile(truth, 50))) < 0.3, m["itl_ms"]
    for metric, within_ms in NOISE_MS.items():
        assert abs(one[metric]["p50"] - m[metric]["p50"]) < within_ms, (metric, one[metric], m[metric])
    block = result["resolved_params"]["workers"]
    assert block["placement"] == "ray" and block["ray_address"] == address and block["lost"] == []
    assert len({c["pid"] for c in block["clock"]}) == 2 and all(c["same_clock"] for c in block["clock"])
    merged = request_lines(run_dir / "records.jsonl")
    assert Counter(map(_canon, merged)) == Counter(_canon(d) for k in range(2) for d in request_lines(run_dir / "workers" / f"worker-{k}.jsonl"))


def _holder_of(path: Path) -> int | None:
    """The process that has ``path`` open (a worker holds its own records file)."""
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            fds = list((entry / "fd").iterdir())
        except OSError:
            continue
        for fd in fds:
            try:
                if os.readlink(fd) == str(path):
                    return int(entry.name)
            except OSError:
                continue
    return None


def test_a_killed_ray_worker_loses_no_finished_request_and_the_run_exits_non_zero(ray_head: Any, tmp_path: Path) -> None:
    address, env = ray_head
    with TruthServer(ttft_ms=5.0, itl_ms=2.0) as srv:  # 320 requests of 0.26 s, 8 at a time a worker: ~5 s
        proc = _cli("run", WORKLOAD, "--endpoint", srv.base_url, "--no-scrape", "--workers", "2", "--ray", address, "--out", str(tmp_path), env=env)
        deadline = time.monotonic() + 120
        victim = None
        while time.monotonic() < deadline and victim is None:
            files = sorted(tmp_path.glob("*/workers/worker-1.jsonl"))
            if files and sum(1 for _ in read_records(files[0])) >= 8:
                victim = _holder_of(files[0])
            time.sleep(0.05)
        assert victim is not None, "no Ray worker finished eight requests"
        os.kill(victim, signal.SIGKILL)
        stdout, stderr = proc.communicate(timeout=180)
    assert proc.returncode == 4, stdout + stderr
    assert "'worker-lost'" in stderr.strip().splitlines()[-1]
    [run_dir] = [p for p in tmp_path.iterdir() if p.is_dir()]
    merged = {r.request_id: r for r in read_records(run_dir / "records.jsonl")}
    for r in read_records(run_dir / "workers" / "worker-1.jsonl"):  # nothing the killed worker finished is lost
        assert merged[r.request_id].ok == r.ok and merged[r.request_id].chunk_ns == r.chunk_ns
    result = json.loads((run_dir / "result.json").read_text(encoding="utf-8"))
    assert result["metrics"]["total_requests"] == 320 and result["blocked_by_reason_code"]["worker-lost"] >= 1
    assert [w["worker"] for w in result["resolved_params"]["workers"]["lost"]] == [1]
