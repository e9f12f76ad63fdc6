"""A request on more than one line of a records file (a merge, a copy) counts once, on every
reader: through the columnar index, JSON only (in one process or split over processes), in
``read_records`` (export, the SLO check) and in what ``summarize`` and ``export`` say."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from servescope.analysis.metrics import aggregate_columns
from servescope.bench import records
from servescope.bench.records import RecordWriter, dropped_lines, index_paths, read_file, read_records
from servescope.bench.records_duplicates import find_duplicates, without
from servescope.documents.record import RequestRecord

HEADER = {
    "run_id": "r",
    "workload_id": "serve-chat-c64-i1k-o256-v1",
    "started_at": "2026-12-07T00:00:00+00:00",
    "endpoint": "http://127.0.0.1:1",
    "model": "m",
    "engine": {"id": "vllm", "version": "0.6.3"},
    "args": {},
    "scenario": None,
    "resolved_params": {"concurrency": 4},
}


def _ok(i: int, output_tokens: int = 3) -> RequestRecord:
    base = 1_000_000 + i * 1_000
    return RequestRecord(
        request_id=f"p0-m{i:05d}", point=0, start_ns=base, first_token_ns=base + 30, end_ns=base + 90 + i,
        chunk_ns=[base + 30, base + 50 + i, base + 90 + i], input_tokens=5, output_tokens=output_tokens,
        token_count_source="server-usage",
    )  # fmt: skip


def _run(folder: Path, recs: list[RequestRecord]) -> Path:
    path = folder / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header(HEADER)
        for r in recs:
            w.write(r)
    return path


def _line_of(path: Path, request_id: str) -> bytes:
    return next(line for line in path.read_bytes().splitlines(keepends=True) if f'"request_id":"{request_id}"'.encode() in line)


def _summary(path: Path) -> dict[str, Any]:
    reader, points, wall = read_file(path)
    return {
        "wall": wall,
        "n": {idx: len(cols.ok) for idx, cols in points.items()},
        "metrics": {idx: repr(aggregate_columns(cols).metrics) for idx, cols in points.items()},
        "dropped": dict(reader.dropped),
        "at": dropped_lines(path, reader),
    }


def _no_index(path: Path) -> None:
    for p in index_paths(path):
        p.unlink()


@pytest.mark.parametrize("read", ["index", "json", "json split over processes"])
def test_a_request_copied_twice_counts_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, read: str) -> None:
    clean = _run(tmp_path / "clean", [_ok(i) for i in range(40)])
    path = _run(tmp_path / "copied", [_ok(i) for i in range(40)])
    with path.open("ab") as fh:  # a merge that took one request's line three times
        fh.write(_line_of(path, "p0-m00019") * 2)
    if read != "index":
        _no_index(path)
    if read == "json split over processes":
        monkeypatch.setattr(records, "PARALLEL_JSON_BYTES", 2048)
        monkeypatch.setattr(records, "usable_cpus", lambda: 2)
    got = _summary(path)
    assert got["n"] == {0: 40}
    assert got["metrics"] == _summary(clean)["metrics"]
    assert got["dropped"] == {"duplicate": 2}
    assert got["at"] == {"duplicate": "line 42: request_id = 'p0-m00019' again (2 duplicate line(s) of 1 request(s) left out: p0-m00019)"}


def test_copies_inside_the_file_are_found_wherever_they_are(tmp_path: Path) -> None:
    """Lines copied in place, of several requests: the index's rows no longer point at their requests' lines (its
    first and last still look like request lines), which the duplicates' keys show: the file is read as JSON only."""
    path = _run(tmp_path, [_ok(i) for i in range(40)])
    lines = path.read_bytes().splitlines(keepends=True)
    lines[5:5] = [lines[30], lines[1 + 7]]  # p0-m00029 and p0-m00007 again, early in the file
    lines.append(lines[12])
    path.write_bytes(b"".join(lines))
    got = _summary(path)
    assert got["n"] == {0: 40}
    assert got["dropped"] == {"duplicate": 3}
    assert got["at"]["duplicate"].endswith("(3 duplicate line(s) of 3 request(s) left out: p0-m00007, p0-m00029, p0-m00009)")


@pytest.mark.parametrize("indexed", [True, False])
def test_a_request_written_twice_by_the_writer_counts_once(tmp_path: Path, indexed: bool) -> None:
    """Two rows of the index for one request (the writer given the record twice): the index's keys find it."""
    path = _run(tmp_path, [_ok(i) for i in range(20)] + [_ok(3)])
    if not indexed:
        _no_index(path)
    got = _summary(path)
    assert got["n"] == {0: 20}
    assert got["dropped"] == {"duplicate": 1}


@pytest.mark.parametrize("indexed", [True, False])
def test_a_conflicting_copy_is_left_out_and_said_the_first_line_used(tmp_path: Path, indexed: bool) -> None:
    path = _run(tmp_path, [_ok(i) for i in range(10)] + [_ok(4, output_tokens=300)])
    if not indexed:
        _no_index(path)
    got = _summary(path)
    reference = _summary(_run(tmp_path / "clean", [_ok(i) for i in range(10)]))
    assert got["n"] == {0: 10}
    assert got["metrics"] == reference["metrics"]  # the first line's 3 output tokens, not the copy's 300
    assert got["dropped"] == {"conflicting-duplicate": 1}
    assert got["at"]["conflicting-duplicate"].startswith("line 12: request_id = 'p0-m00004' again, saying something else")


def test_requests_that_share_a_key_are_not_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"request_id":"a","ok":true}\n{"request_id":"b","ok":true}\n')
    assert find_duplicates(path, np.array([7, 7]), np.array([0, 29]), json.loads, lambda rid: 7) is None


def test_cutting_lines_out_of_spans() -> None:
    assert without([(0, 100), (150, 200)], {10: 5, 95: 5, 150: 10, 190: 10}) == [(0, 10), (15, 95), (160, 190)]
    assert without([(0, 10)], {}) == [(0, 10)]


def test_read_records_yields_a_request_once_and_counts_the_rest(tmp_path: Path) -> None:
    path = _run(tmp_path, [_ok(i) for i in range(5)] + [_ok(2), _ok(2), _ok(3, output_tokens=9)])
    dropped: dict[str, int] = {}
    duplicates: dict[str, list[str]] = {}
    got = list(read_records(path, dropped, duplicates))
    assert [r.request_id for r in got] == [f"p0-m{i:05d}" for i in range(5)]
    assert got[3].output_tokens == 3
    assert dropped == {"duplicate": 2, "conflicting-duplicate": 1}
    assert duplicates == {"duplicate": ["p0-m00002"], "conflicting-duplicate": ["p0-m00003"]}


def test_an_index_of_the_version_before_is_never_read_as_rows(tmp_path: Path) -> None:
    """Version 1 rows (76 bytes, no key, no header row): read as JSON, and a writer appending starts the rows again."""
    path = _run(tmp_path, [_ok(i) for i in range(6)] + [_ok(2)])
    rows_path = index_paths(path)[0]
    rows = np.frombuffer(rows_path.read_bytes(), dtype=records.ROW_DTYPE, offset=records.ROW_DTYPE.itemsize)
    old = np.dtype([(name, records.ROW_DTYPE.fields[name][0]) for name in records.ROW_DTYPE.names if name != "id_key"])
    assert old.itemsize == 76
    v1 = np.zeros(rows.size, dtype=old)
    for name in old.names:
        v1[name] = rows[name]
    rows_path.write_bytes(v1.tobytes())
    assert records._read_index(path, path.stat().st_size)[0].size == 0
    assert _summary(path)["n"] == {0: 6} and _summary(path)["dropped"] == {"duplicate": 1}
    with RecordWriter(path) as w:
        w.write(_ok(6))
    assert rows_path.stat().st_size == 2 * records.ROW_DTYPE.itemsize
    assert records._read_index(path, path.stat().st_size)[0].size == 1
    assert _summary(path)["n"] == {0: 7}


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.parametrize("indexed", [True, False])
def test_summarize_counts_a_copied_request_once_and_says_so(tmp_path: Path, indexed: bool) -> None:
    path = _run(tmp_path / "runs" / "r", [_ok(i) for i in range(40)])
    with path.open("ab") as fh:
        fh.write(_line_of(path, "p0-m00019") * 2)
    if not indexed:
        _no_index(path)
    proc = _cli("summarize", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "out"))
    assert proc.returncode == 0, proc.stderr
    assert (
        f"{path}: 2 record(s) dropped: 2 duplicate (first duplicate at line 42: request_id = 'p0-m00019' again (2 duplicate "
        "line(s) of 1 request(s) left out: p0-m00019)); the other records are summarized"
    ) in proc.stdout.splitlines()
    assert "| r | serve-chat-c64-i1k-o256-v1 | 40 | duplicate: 2 |" in (tmp_path / "out" / "summary.md").read_text().splitlines()


def test_export_writes_a_copied_request_once_and_says_so(tmp_path: Path) -> None:
    path = _run(tmp_path / "r", [_ok(i) for i in range(40)])
    with path.open("ab") as fh:
        fh.write(_line_of(path, "p0-m00019") * 2)
        fh.write(_line_of(path, "p0-m00020").replace(b'"output_tokens":3', b'"output_tokens":4'))
    proc = _cli("export", str(path.parent), "--format", "csv")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == f"{path.parent / 'records.csv'}: 40 request(s) from {path}"
    assert proc.stderr.splitlines() == [
        f"warning: {path}: 2 record(s) left out: duplicate (of 1 request(s): p0-m00019; the first line of each is exported)",
        f"warning: {path}: 1 record(s) left out: conflicting-duplicate (of 1 request(s): p0-m00020; the first line of each is exported)",
    ]
    rows = (path.parent / "records.csv").read_text().splitlines()
    assert len(rows) == 41 and sum(",p0-m00020," in f",{row}" for row in rows) == 1


def test_one_line_noted_twice_is_not_a_duplicate_of_itself(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_bytes(b'{"request_id":"a","ok":true}\n')
    assert find_duplicates(path, np.array([5, 5]), np.array([0, 0]), json.loads, lambda rid: 5) is None


@pytest.mark.parametrize("indexed", [True, False])
def test_the_same_json_written_otherwise_is_a_duplicate_not_a_conflict(tmp_path: Path, indexed: bool) -> None:
    """A copy a tool wrote again (other spacing, other key order) says the same: a duplicate, on every reader."""
    path = _run(tmp_path / "r", [_ok(i) for i in range(10)])
    rewritten = json.dumps(dict(reversed(list(json.loads(_line_of(path, "p0-m00004")).items()))), indent=None) + "\n"
    with path.open("a") as fh:
        fh.write(rewritten)
    if not indexed:
        _no_index(path)
    got = _summary(path)
    assert got["n"] == {0: 10} and got["dropped"] == {"duplicate": 1}
    dropped: dict[str, int] = {}
    assert len(list(read_records(path, dropped))) == 10 and dropped == {"duplicate": 1}


@pytest.mark.parametrize("kept", [0, 8, 40, 84, 100])
def test_a_rows_file_cut_in_or_just_after_its_header_is_read_as_json(tmp_path: Path, kept: int) -> None:
    path = _run(tmp_path, [_ok(i) for i in range(5)])
    rows_path = index_paths(path)[0]
    rows_path.write_bytes(rows_path.read_bytes()[:kept])
    assert records._read_index(path, path.stat().st_size)[0].size == 0
    assert _summary(path)["n"] == {0: 5}
