"""``servescope export`` on real run folders: a run against the loopback timing-truth
server, the same folder as a killed run leaves it, and folders that are not runs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.records import read_records
from servescope.bench.run import RunArtifacts, run_workload
from servescope.bench.run_spec import RunOptions
from servescope.catalog.store import Catalog
from servescope.testing.truth.server import TruthServer

pq = pytest.importorskip("pyarrow.parquet")


def servescope(*args: str, block_pyarrow: bool = False) -> subprocess.CompletedProcess[str]:
    code = "import sys\n"
    if block_pyarrow:
        code += "sys.modules['pyarrow'] = None; sys.modules['pyarrow.parquet'] = None\n"  # as if not installed
    code += f"sys.argv = ['servescope', *{list(args)!r}]\nfrom servescope.cli import main\nmain()\n"
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=False)


@pytest.fixture(scope="module")
def truth_run(itest_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> RunArtifacts:
    with TruthServer(itl_ms=1.0, ttft_ms=2.0) as srv:
        return run_workload(
            RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path_factory.mktemp("runs"), scrape_metrics=False), catalog=itest_catalog
        )


def _jsonl_requests(path: Path) -> list[dict[str, object]]:
    lines = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            d = json.loads(line)
        except json.JSONDecodeError:
            continue
        if "request_id" in d:
            lines.append(d)
    return lines


def _rows(path: Path) -> list[dict[str, object]]:
    rows = pq.read_table(path).to_pylist()
    for row in rows:
        for name in ("server_timings", "tool_calls", "score"):
            row[name] = None if row[name] is None else json.loads(str(row[name]))
    return rows


def test_a_finished_run_exports_every_request(truth_run: RunArtifacts, tmp_path: Path) -> None:
    out = tmp_path / "all.parquet"
    proc = servescope("export", str(truth_run.run_dir), "--format", "parquet", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    lines = _jsonl_requests(truth_run.records_path)
    assert len(lines) == 14  # 12 measured + 2 warmup
    assert f"{out}: 14 request(s)" in proc.stdout
    assert _rows(out) == lines
    default = servescope("export", str(truth_run.run_dir), "--format", "csv")
    assert default.returncode == 0, default.stderr
    assert (truth_run.run_dir / "records.csv").read_text(encoding="utf-8").count("\n") == 15


def test_a_killed_runs_folder_still_exports(truth_run: RunArtifacts, tmp_path: Path) -> None:
    # what kill -9 leaves: no result.json, no evaluation-run.json, the last line torn mid-write
    killed = tmp_path / "killed"
    killed.mkdir()
    lines = truth_run.records_path.read_bytes().splitlines(keepends=True)
    cut = [i for i, line in enumerate(lines) if b'"request_id"' in line][10]  # the 11th request, half written
    (killed / "records.jsonl").write_bytes(b"".join(lines[:cut]) + lines[cut][:40])
    whole = [r.request_id for r in read_records(killed / "records.jsonl")]
    assert len(whole) == 10
    proc = servescope("export", str(killed))
    assert proc.returncode == 0, proc.stderr
    assert [r["request_id"] for r in _rows(killed / "records.parquet")] == whole


def test_folders_that_are_not_runs_get_one_line(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    proc = servescope("export", str(empty), "--format", "csv")
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr.strip() == f"error: {empty} has no records.jsonl; give a run folder written by servescope run (OUT/<run_id>/) or its records.jsonl"
    proc = servescope("export", str(tmp_path / "nope"))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "no such file or folder" in proc.stderr
    (empty / "records.jsonl").write_text("hello\nworld\n", encoding="utf-8")
    proc = servescope("export", str(empty))
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "is it a servescope records file?" in proc.stderr
    assert not (empty / "records.parquet").exists()
    (empty / "records.jsonl").write_bytes(b'{"header": {}}\n\xff\xfe\n')
    proc = servescope("export", str(empty), "--format", "csv")
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and "not UTF-8" in proc.stderr


def test_out_onto_the_records_file_is_refused(truth_run: RunArtifacts) -> None:
    before = truth_run.records_path.read_bytes()
    proc = servescope("export", str(truth_run.run_dir), "--format", "csv", "--out", str(truth_run.records_path))
    assert proc.returncode == 2 and "that is the records file being exported" in proc.stderr
    assert truth_run.records_path.read_bytes() == before


def test_parquet_without_pyarrow_says_how_to_install(truth_run: RunArtifacts, tmp_path: Path) -> None:
    proc = servescope("export", str(truth_run.run_dir), "--format", "parquet", "--out", str(tmp_path / "x.parquet"), block_pyarrow=True)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip() == "error: --format parquet needs pyarrow, which is not installed: pip install 'servescope[parquet]' (or use --format csv)"
    assert not (tmp_path / "x.parquet").exists()
    csv_out = tmp_path / "x.csv"
    proc = servescope("export", str(truth_run.run_dir), "--format", "csv", "--out", str(csv_out), block_pyarrow=True)
    assert proc.returncode == 0, proc.stderr
    assert csv_out.read_text(encoding="utf-8").startswith("request_id,phase,concurrency,point,")
