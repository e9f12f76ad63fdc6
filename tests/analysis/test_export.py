"""Records exported as Parquet and CSV, read back and held against records.jsonl line by line."""

from __future__ import annotations

import csv
import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from servescope.analysis.export import COLUMNS, HEADER_METADATA_KEY, export_records
from servescope.bench.records import RecordWriter, read_records
from servescope.documents.record import RequestRecord

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")

# Every field set (and not at its default), so a column that is written wrong or left out shows.
FULL = RequestRecord(
    request_id="p0-m00001",
    phase="measured",
    concurrency=4,
    point=1,
    context_tokens=2048,
    prompt_id="row-17",
    group="prefix-3",
    start_ns=1_000_000,
    sent_ns=1_000_500,
    first_token_ns=21_000_000,
    end_ns=61_000_000,
    chunk_ns=[21_000_000, 41_000_000, 61_000_000],
    chunk_tokens=[1, 2, 1],
    input_tokens=120,
    output_tokens=4,
    reasoning_tokens=0,
    token_count_source="server-usage",
    cached_tokens=64,
    ok=True,
    http_status=200,
    stage=None,
    category=None,
    error=None,
    finish_reason="length",
    output_text='say "hi", then\na, b',
    expected="hi",
    server_timings={"prompt_ms": 3.5, "predicted_per_token_ms": 10.25, "nested": {"n": [1, 2]}},
    attempts=2,
    tool_calls=[{"type": "function", "function": {"name": "f", "arguments": '{"x": 1}'}}],
    score={"correct": True, "score": 1.0, "detail": None},
)
# A failed request: most fields null, an empty chunk list.
FAILED = RequestRecord(
    request_id="p0-m00002",
    phase="warmup",
    start_ns=2_000_000,
    sent_ns=2_000_100,
    ok=False,
    http_status=503,
    stage="first-token",
    category="http-error",
    error="Service Unavailable",
)


def _write(tmp_path: Path, records: list[RequestRecord]) -> Path:
    path = tmp_path / "run" / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({"run_id": "r1", "workload_id": "w"})
        for r in records:
            w.write(r)
    return path


def _lines(path: Path) -> list[dict[str, Any]]:
    return [d for line in path.read_text(encoding="utf-8").splitlines() if "request_id" in (d := json.loads(line))]


JSON_COLUMNS = [name for name, kind in COLUMNS if kind == "json"]


def test_columns_are_every_record_field_in_order() -> None:
    assert [name for name, _ in COLUMNS] == [f.name for f in fields(RequestRecord)]
    assert dict(COLUMNS)["chunk_ns"] == "int_list" and dict(COLUMNS)["ok"] == "bool"
    assert set(JSON_COLUMNS) == {"server_timings", "tool_calls", "score", "raw"}


def test_parquet_equals_the_jsonl_request_by_request(tmp_path: Path) -> None:
    path = _write(tmp_path, [FULL, FAILED])
    out = tmp_path / "x" / "records.parquet"
    done = export_records(read_records(path), out, "parquet", header={"run_id": "r1"})
    assert done.rows == 2 and done.rejected == {}
    table = pq.read_table(out)
    assert table.schema.field("chunk_ns").type == pa.list_(pa.int64())
    assert table.schema.field("start_ns").type == pa.int64() and table.schema.field("ok").type == pa.bool_()
    assert json.loads(table.schema.metadata[HEADER_METADATA_KEY.encode()]) == {"run_id": "r1"}
    rows = table.to_pylist()
    lines = _lines(path)
    assert len(rows) == len(lines) == 2
    for row, line in zip(rows, lines, strict=True):
        assert list(row) == list(line)  # every field, in the record's order
        for name in JSON_COLUMNS:
            row[name] = None if row[name] is None else json.loads(row[name])
        assert row == line
    assert rows[1]["first_token_ns"] is None and rows[1]["chunk_ns"] == [] and rows[1]["chunk_tokens"] is None


def test_parquet_of_many_rows_spans_batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import servescope.analysis.export as export

    monkeypatch.setattr(export, "BATCH_ROWS", 3)
    recs = [RequestRecord(request_id=f"r{i}", start_ns=i, chunk_ns=list(range(i))) for i in range(8)]
    path = _write(tmp_path, recs)
    out = tmp_path / "many.parquet"
    assert export_records(read_records(path), out, "parquet").rows == 8
    got = pq.read_table(out).to_pylist()
    assert [r["request_id"] for r in got] == [f"r{i}" for i in range(8)]
    assert [r["chunk_ns"] for r in got] == [list(range(i)) for i in range(8)]


def test_an_empty_run_keeps_its_columns(tmp_path: Path) -> None:
    path = _write(tmp_path, [])
    out = tmp_path / "empty.parquet"
    assert export_records(read_records(path), out, "parquet").rows == 0
    table = pq.read_table(out)
    assert table.num_rows == 0 and table.column_names == [name for name, _ in COLUMNS]


def test_csv_round_trips_scalar_fields(tmp_path: Path) -> None:
    path = _write(tmp_path, [FULL, FAILED])
    out = tmp_path / "records.csv"
    assert export_records(read_records(path), out, "csv").rows == 2
    with out.open(encoding="utf-8", newline="") as fh:
        got = list(csv.DictReader(fh))
    kinds = dict(COLUMNS)
    for row, line in zip(got, _lines(path), strict=True):
        assert list(row) == list(line)
        for name, text in row.items():
            want = line[name]
            if kinds[name] == "int":
                assert (int(text) if text else None) == want, name
            elif kinds[name] == "bool":
                assert text == ("true" if want else "false"), name
            elif kinds[name] == "str":
                assert (text or None) == want, name
            else:  # lists and objects: JSON text
                assert (json.loads(text) if text else None) == want, name


def test_a_value_that_does_not_fit_its_column_is_counted_not_written(tmp_path: Path) -> None:
    # another writer put a text where a status code belongs: read_records keeps the line, the column cannot
    path = _write(tmp_path, [FULL])
    bad = dict(_lines(path)[0], request_id="odd", http_status="200")
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps(bad) + "\n")
    for fmt, name in (("parquet", "a.parquet"), ("csv", "a.csv")):
        done = export_records(read_records(path), tmp_path / name, fmt)  # type: ignore[arg-type]
        assert done.rows == 1 and done.rejected == {"bad-http_status": 1}
    assert [r["request_id"] for r in pq.read_table(tmp_path / "a.parquet").to_pylist()] == ["p0-m00001"]


def test_opens_with_duckdb_and_polars_when_installed(tmp_path: Path) -> None:
    path = _write(tmp_path, [FULL, FAILED])
    out = tmp_path / "records.parquet"
    export_records(read_records(path), out, "parquet")
    tried = 0
    try:
        import duckdb
    except ImportError:
        pass
    else:
        tried += 1
        assert duckdb.sql(f"select count(*), sum(len(chunk_ns)) from '{out}'").fetchall() == [(2, 3)]
    try:
        import polars
    except ImportError:
        pass
    else:
        tried += 1
        assert polars.read_parquet(out)["chunk_ns"].to_list() == [FULL.chunk_ns, []]
    if not tried:
        pytest.skip("neither duckdb nor polars is installed (both optional)")


def test_the_cli_exports_several_runs_each_beside_its_records(tmp_path: Path) -> None:
    """export runs/* (the docs' form) with more than one run: each table beside its records; --out names one file, so
    with several runs it is one line and exit 2; a run given twice (its folder and its file) is exported once."""
    import subprocess
    import sys

    runs = []
    for name in ("a", "b"):
        sub = tmp_path / name
        sub.mkdir()
        runs.append(_write(sub, [FULL, FAILED]).parent)

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "servescope", "export", *args], capture_output=True, text=True, timeout=120, check=False)

    proc = cli(*map(str, runs), str(runs[0] / "records.jsonl"), "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("2 request(s) from") == 2
    assert all((r / "records.csv").is_file() for r in runs)
    proc = cli(*map(str, runs), "--format", "csv", "--out", str(tmp_path / "one.csv"))
    assert proc.returncode == 2 and proc.stderr.strip() == (
        f"error: --out {tmp_path / 'one.csv'}: names one file, and 2 runs were given; give one run, or leave --out out to write "
        "each run's table beside its records.jsonl"
    )
    assert not (tmp_path / "one.csv").exists()
