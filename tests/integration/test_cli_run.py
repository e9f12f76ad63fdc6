"""`servescope run` as a user runs it, against the real llama.cpp server."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig
from servescope.bench.records import read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog

pytestmark = pytest.mark.integration


def cli(*args: str, catalog: Catalog, env: dict[str, str] | None = None, **kw: object) -> subprocess.Popen[str]:
    full_env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1]), **(env or {})}
    return subprocess.Popen([sys.executable, "-m", "servescope", *args], env=full_env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


def test_kill_9_loses_no_finished_request_and_summarize_reads_the_partial_run(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    proc = cli("run", "serve-itest-long-c2-v1", "--endpoint", llama.openai_base_url, "--out", str(tmp_path / "runs"), catalog=itest_catalog)
    deadline = time.monotonic() + 60
    records: list[Path] = []
    while time.monotonic() < deadline:
        records = list((tmp_path / "runs").glob("*/records.jsonl"))
        if records and sum(1 for _ in read_records(records[0])) >= 3:
            break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=30)  # reap it and close its pipes
    finished = list(read_records(records[0]))
    assert 3 <= len(finished) < 24 and all(r.end_ns for r in finished)
    assert not (records[0].parent / "result.json").exists()
    summ = cli("summarize", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "summary"), catalog=itest_catalog)
    stdout, stderr = summ.communicate(timeout=120)
    assert summ.returncode == 0, stderr
    assert "partial run, summarized from its records" in stdout
    text = (tmp_path / "summary" / "summary_v0.2.csv").read_text()
    assert text.splitlines()[1].startswith("serve-itest-long-c2-v1,")


def test_api_key_is_used_and_never_written(engine_cache: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    secret = "sk-servescope-test-7f3a9c"
    with LlamaServer(ServerConfig(parallel=4, ctx_per_slot=1024, cache_dir=engine_cache, extra_args=("--api-key", secret))) as server:
        denied = cli("run", "serve-itest-c4-v1", "--endpoint", server.openai_base_url, "--out", str(tmp_path / "no-key"), catalog=itest_catalog)
        _, err = denied.communicate(timeout=120)
        assert denied.returncode != 0 and "Traceback" not in err
        assert "HTTP 401" in err and "--api-key-env" in err
        ok = cli(
            "run",
            "serve-itest-c4-v1",
            "--endpoint",
            server.openai_base_url,
            "--api-key-env",
            "ITEST_KEY",
            "--out",
            str(tmp_path / "runs"),
            catalog=itest_catalog,
            env={"ITEST_KEY": secret},
        )
        out, err = ok.communicate(timeout=120)
        assert ok.returncode == 0, err
    written = [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert len(written) == 5  # records (+ its two index files), result, evaluation run
    for p in written:
        assert secret.encode() not in p.read_bytes()
    assert secret not in out + err


def test_failed_bar_gives_nonzero_exit(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    proc = cli("run", "longctx-itest-v1", "--endpoint", llama.openai_base_url, "--out", str(tmp_path), catalog=itest_catalog)
    _out, err = proc.communicate(timeout=120)
    assert proc.returncode == 4
    assert "no request completed" in err and "Traceback" not in err
    assert list(tmp_path.glob("*/result.json"))  # the failed run is still recorded


def test_open_loop_reports_requested_and_achieved_rate(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, rate=20.0), catalog=itest_catalog)
    m = art.result.metrics
    assert m.requested_rate == 20.0 and m.achieved_rate is not None and 5.0 < m.achieved_rate < 60.0
    assert art.result.resolved_params["load"] == "open:poisson"
    measured = [r for r in read_records(art.records_path) if r.phase == "measured"]
    # latency is measured from the scheduled time, which is never after the actual send
    assert all(r.start_ns <= r.sent_ns for r in measured)
    assert len({r.start_ns for r in measured}) == len(measured)


def test_unreachable_endpoint_is_one_line(itest_catalog: Catalog, tmp_path: Path) -> None:
    proc = cli("run", "serve-itest-c4-v1", "--endpoint", "http://127.0.0.1:9/v1", "--out", str(tmp_path), catalog=itest_catalog)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "cannot reach http://127.0.0.1:9" in err and "Traceback" not in err


def test_unknown_workload_is_one_line(itest_catalog: Catalog, tmp_path: Path) -> None:
    proc = cli("run", "serve-nope-v1", "--out", str(tmp_path), catalog=itest_catalog)
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1 and "unknown workload 'serve-nope-v1'" in err and "Traceback" not in err


def test_engine_start_status_stop(tmp_path: Path, itest_catalog: Catalog) -> None:
    env = {"SERVESCOPE_CACHE_DIR": str(tmp_path / "cache")}

    def engine(*args: str) -> tuple[int, str]:
        proc = cli("engine", *args, catalog=itest_catalog, env=env)
        out, err = proc.communicate(timeout=120)
        return proc.returncode, out + err

    code, text = engine("status")
    assert code == 1 and "no engine started" in text
    code, text = engine("start", "--parallel", "2", "--ctx-per-slot", "1024")
    assert code == 0 and "started at http://127.0.0.1:" in text and "/v1" in text
    try:
        code, text = engine("status")
        assert code == 0 and "running" in text
        code, again = engine("start")
        assert code == 0 and "already running" in again
    finally:
        code, text = engine("stop")
    assert code == 0 and "stopped" in text
    code, _ = engine("status")
    assert code == 1
