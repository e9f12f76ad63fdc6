"""``validate`` on the folder of a run killed with SIGKILL (records and their header on
disk, no result.json): one line saying it is an unfinished run and how summarize
rebuilds it, a non-zero exit — and summarize does rebuild it."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servescope.bench.records import read_records
from servescope.catalog.store import Catalog
from servescope.testing.truth.server import TruthServer

pytestmark = pytest.mark.integration


def _cli(*args: str, catalog: Catalog, **kw: object) -> subprocess.Popen[str]:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1])}
    return subprocess.Popen([sys.executable, "-m", "servescope", *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kw)  # type: ignore[call-overload]


@pytest.fixture(scope="module")
def killed_run(itest_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The runs folder of a real run killed after its third finished request."""
    runs = tmp_path_factory.mktemp("killed") / "runs"
    with TruthServer(ttft_ms=5, itl_ms=10) as srv:  # 200 tokens a request: about 2 s each
        proc = _cli("run", "serve-itest-long-c2-v1", "--endpoint", srv.base_url, "--no-scrape", "--out", str(runs), catalog=itest_catalog)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            found = list(runs.glob("*/records.jsonl"))
            if found and sum(1 for _ in read_records(found[0])) >= 3:
                break
            time.sleep(0.05)
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    [records] = runs.glob("*/records.jsonl")
    assert not (records.parent / "result.json").exists()
    return runs


@pytest.mark.parametrize("target", ["runs", "run", "records"])
def test_validate_names_an_unfinished_run_and_how_to_rebuild_it(killed_run: Path, itest_catalog: Catalog, target: str) -> None:
    [records] = killed_run.glob("*/records.jsonl")
    path = {"runs": killed_run, "run": records.parent, "records": records}[target]
    proc = _cli("validate", str(path), catalog=itest_catalog)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 1, stdout + stderr
    [line] = stderr.strip().splitlines()
    assert line == (
        f"error: {records}: the records of a run that did not finish (no result.json beside them: killed, interrupted or still going); "
        f"summarize rebuilds its Result from them: servescope summarize --in {records.parent} --out SUMMARY_FOLDER"
    )
    assert "no documents" not in stdout + stderr and "Traceback" not in stderr


def test_validate_json_lists_the_unfinished_run(killed_run: Path, itest_catalog: Catalog) -> None:
    proc = _cli("validate", "--format", "json", str(killed_run), catalog=itest_catalog)
    stdout, _ = proc.communicate(timeout=120)
    payload = json.loads(stdout)
    assert proc.returncode == 1 and payload["valid"] is False
    assert [Path(p).name for p in payload["unfinished_runs"]] == ["records.jsonl"]


def test_the_rebuild_validate_points_to_works(killed_run: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    [records] = killed_run.glob("*/records.jsonl")
    proc = _cli("summarize", "--in", str(records.parent), "--out", str(tmp_path / "summary"), catalog=itest_catalog)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert "partial run, summarized from its records" in stdout


def test_a_finished_run_beside_it_is_still_validated(killed_run: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    """A finished run validates as before; the unfinished one beside it still fails the gate."""
    with TruthServer(ttft_ms=1, itl_ms=1) as srv:
        done = _cli("run", "serve-itest-c4-v1", "--endpoint", srv.base_url, "--no-scrape", "--out", str(tmp_path / "runs"), catalog=itest_catalog)
        done.communicate(timeout=120)
    assert done.returncode == 0
    alone = _cli("validate", str(tmp_path / "runs"), catalog=itest_catalog)
    alone.communicate(timeout=120)
    assert alone.returncode == 0
    both = _cli("validate", str(tmp_path / "runs"), str(killed_run), catalog=itest_catalog)
    stdout, stderr = both.communicate(timeout=120)
    assert both.returncode == 1
    assert "2 file(s): 1 error(s)" in stdout and "did not finish" in stderr


def test_a_result_json_left_out_is_said_and_its_run_not_called_partial(killed_run: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    """A run whose result.json cannot be read (a hand edit: a negative count) is summarized from its
    records, and the lines say that result.json was left out and why, not that the run was killed."""
    [records] = killed_run.glob("*/records.jsonl")
    run = tmp_path / "runs" / "r1"
    run.mkdir(parents=True)
    (run / "records.jsonl").write_bytes(records.read_bytes())
    (run / "result.json").write_text(json.dumps({"kind": "Result", "metrics": {"completed_requests": -40}}), encoding="utf-8")
    proc = _cli("summarize", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "summary"), catalog=itest_catalog)
    stdout, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 0, stderr
    assert f"{run / 'result.json'}: " in stderr and "(skipped)" in stderr
    assert f"{run / 'records.jsonl'}: summarized from its records instead of {run / 'result.json'}" in stdout
    assert "partial run" not in stdout
