"""summarize's gathering: a bad records file is reported by name and the rest goes
on; every record that cannot be used is counted by reason; partial runs are marked."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.collect import collect_results
from servescope.bench.records import RecordWriter
from servescope.documents.record import RequestRecord
from tests.bench.test_recover import HEADER, _ok


def _run_dir(root: Path, name: str, extra_lines: list[str] = (), n_ok: int = 3, header: dict | None = None) -> Path:  # type: ignore[assignment]
    path = root / name / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({**(header or HEADER), "run_id": name})
        for i in range(n_ok):
            w.write(_ok(i))
    with path.open("a", encoding="utf-8") as fh:  # lines no writer of ours makes: appended by hand, outside the index
        for line in extra_lines:
            fh.write(line + "\n")
    return path


def _line(**fields: object) -> str:
    base = RequestRecord(request_id="x", point=0, start_ns=100, first_token_ns=103, end_ns=109, chunk_ns=[103, 109], input_tokens=5, output_tokens=2)
    data = json.loads(base.to_json())
    data.update(fields)
    return json.dumps(data)  # allow_nan: NaN as Python writes it


def test_bad_records_are_counted_by_reason_and_the_rest_is_used(tmp_path: Path) -> None:
    _run_dir(
        tmp_path,
        "a",
        [
            _line(request_id="n1", input_tokens=float("nan")),
            _line(request_id="n2", output_tokens=float("nan")),
            _line(request_id="p", phase="cooldown"),
            _line(request_id="t1", start_ns="soon"),
            _line(request_id="t2", end_ns=10**30),
            _line(request_id="t3", start_ns=1e300),
            _line(request_id="good"),
        ],
    )
    found = collect_results([tmp_path])
    assert found.problems == []
    [result] = found.results
    assert result.metrics.total_requests == 4  # three from the writer, one good hand-written line
    [(path, dropped)] = found.dropped.items()
    assert path.name == "records.jsonl"
    assert dropped == {"nan-token-count": 2, "unknown-phase": 1, "bad-timestamp": 3}


def test_a_bad_records_file_is_named_and_the_others_are_summarized(tmp_path: Path) -> None:
    _run_dir(tmp_path, "good")
    bad = _run_dir(tmp_path, "bad", header={**HEADER, "resolved_params": "not a mapping"})
    found = collect_results([tmp_path])
    assert [r.run_id for r in found.results] == ["good"]
    [problem] = found.problems
    assert problem.startswith(str(bad)) and "resolved_params" in problem


def test_a_run_reached_twice_or_copied_is_counted_once(tmp_path: Path) -> None:
    """Overlapping --in paths read a file once; a copied run folder (the same run_id
    elsewhere) is counted once, with one line saying so: never two episodes of one run."""
    import shutil

    _run_dir(tmp_path / "runs", "r1")
    _run_dir(tmp_path / "runs", "r2")
    found = collect_results([tmp_path / "runs", tmp_path / "runs" / "r1"])
    assert sorted(r.run_id for r in found.results) == ["r1", "r2"] and found.problems == []
    shutil.copytree(tmp_path / "runs" / "r1", tmp_path / "backup" / "r1")
    found = collect_results([tmp_path / "runs", tmp_path / "backup"])
    assert sorted(r.run_id for r in found.results) == ["r1", "r2"]
    [problem] = found.problems
    assert "backup" in problem and "run r1 again (the same as" in problem and "counted once" in problem


def test_an_unreadable_result_and_a_run_with_no_request_are_said_never_counted_silently(tmp_path: Path) -> None:
    """A result.json of a newer schema is named (not silently replaced by its records'
    rebuild); a run whose records hold no request (killed at start) is no episode."""
    run = _run_dir(tmp_path / "runs", "future")
    (run.parent / "result.json").write_text(json.dumps({"kind": "Result", "schema_version": "99.0", "run_id": "future"}), encoding="utf-8")
    _run_dir(tmp_path / "runs", "empty", n_ok=0)
    found = collect_results([tmp_path / "runs"])
    assert [r.run_id for r in found.results] == ["future"]  # rebuilt from its records, as a partial run
    assert any(p.startswith(str(run.parent / "result.json")) and "schema_version" in p for p in found.problems), found.problems
    assert any("empty" in p and "no request recorded" in p for p in found.problems), found.problems


def _summarize(tmp_path: Path) -> subprocess.CompletedProcess[str]:
    """``servescope summarize --in TMP/runs --out TMP/out``, as a user runs it."""
    cmd = [sys.executable, "-m", "servescope", "summarize", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "out")]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)


def test_summarize_cli_marks_partial_runs_and_reports_drops(tmp_path: Path) -> None:
    _run_dir(tmp_path / "runs", "a", [_line(request_id="p", phase="cooldown"), _line(request_id="t", start_ns="x")])
    _run_dir(tmp_path / "runs", "b", header={**HEADER, "resolved_params": []})
    proc = _summarize(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr
    assert f"{tmp_path / 'runs' / 'b' / 'records.jsonl'}: " in proc.stderr
    assert "2 record(s) dropped: 1 bad-timestamp, 1 unknown-phase" in proc.stdout
    md = (tmp_path / "out" / "summary.md").read_text()
    assert "## Partial runs" in md and "| a |" in md and "bad-timestamp: 1, unknown-phase: 1" in md
    v03 = (tmp_path / "out" / "summary_v0.3.csv").read_text().splitlines()
    header = v03[0].split(",")
    assert v03[1].split(",")[header.index("n_partial")] == "1"


def test_summarize_and_recovery_import_no_http_client() -> None:
    code = (
        "import sys, servescope.bench.collect, servescope.bench.recover, servescope.analysis.summarize; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('aiohttp', 'servescope') "
        "and (m.startswith('aiohttp') or m in ('servescope.bench.client', 'servescope.bench.execute'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60).stdout
    assert out.strip() == "[]"


def _indexed_run(root: Path, bad: list[RequestRecord]) -> Path:
    """Records written by the real writer, so the bad ones sit in the columnar index too."""
    path = root / "idx" / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({**HEADER, "run_id": "idx"})
        for i in range(3):
            w.write(_ok(i))
        for r in bad:
            w.write(r)
    return path


def test_impossible_counts_in_indexed_records_are_dropped_with_their_line_and_field(tmp_path: Path) -> None:
    base = {"point": 0, "start_ns": 100, "first_token_ns": 103, "end_ns": 109, "chunk_ns": [103, 109], "input_tokens": 5, "output_tokens": 2}
    path = _indexed_run(
        tmp_path,
        [
            RequestRecord(request_id="neg-out", **{**base, "output_tokens": -5}),  # type: ignore[arg-type]
            RequestRecord(request_id="neg-in", **{**base, "input_tokens": -1}),  # type: ignore[arg-type]
            RequestRecord(request_id="huge", **{**base, "output_tokens": 10**15}),  # type: ignore[arg-type]
            RequestRecord(request_id="neg-first", **{**base, "first_token_ns": -7}),  # type: ignore[arg-type]
            RequestRecord(request_id="odd-category", ok=False, stage="stream", category="gremlins", error="x", point=0, start_ns=100, end_ns=120),
        ],
    )
    found = collect_results([tmp_path])
    assert found.problems == []
    [result] = found.results
    assert result.metrics.total_requests == 3  # the three good ones, summarized
    assert result.metrics.output_tokens_total is not None and result.metrics.output_tokens_total >= 0
    assert found.dropped[path] == {"bad-token-count": 3, "bad-timestamp": 1, "bad-failure": 1}
    assert found.dropped_at[path] == {
        "bad-failure": "line 9: category = 'gremlins'",
        "bad-timestamp": "line 8: first_token_ns = -7",
        "bad-token-count": "line 5: output_tokens = -5",
    }


def test_summarize_cli_names_the_line_and_field_of_a_dropped_record(tmp_path: Path) -> None:
    base = {"point": 0, "start_ns": 100, "first_token_ns": 103, "end_ns": 109, "chunk_ns": [103, 109], "input_tokens": 5}
    path = _indexed_run(tmp_path / "runs", [RequestRecord(request_id="neg", output_tokens=-60, **base)])  # type: ignore[arg-type]
    proc = _summarize(tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "Traceback" not in proc.stderr and proc.stderr == ""
    assert f"{path}: 1 record(s) dropped: 1 bad-token-count (first bad-token-count at line 5: output_tokens = -60)" in proc.stdout
    assert "1 result(s) in 1 group(s)" in proc.stdout


def test_impossible_extra_lines_and_times_before_the_start_lose_no_good_record(tmp_path: Path) -> None:
    """A tokenized or point_done line with impossible values, a token before its request
    started: what cannot be true is left out (or null), the rest is summarized."""
    base = {"point": 0, "start_ns": 100, "first_token_ns": 103, "end_ns": 109, "chunk_ns": [103, 109], "input_tokens": 5, "output_tokens": 2}
    path = _indexed_run(tmp_path, [RequestRecord(request_id="early", **{**base, "first_token_ns": 50, "chunk_ns": [50, 109]})])  # type: ignore[arg-type]
    with path.open("a", encoding="utf-8") as fh:
        fh.write(json.dumps({"point_done": {"point": 0, "achieved_rate": -3.0, "kv_utilization": 7, "prefix_cache_hit_rate": "x", "preemptions": -1}}) + "\n")
        fh.write(json.dumps({"tokenized": {"input_tokens": {"p1": -4, "p2": "many", "p3": 12}}}) + "\n")
        fh.write(_line(request_id="late", end_ns=90) + "\n")  # ends before it started
    found = collect_results([tmp_path])
    assert found.problems == []
    [result] = found.results
    assert result.metrics.total_requests == 3
    assert found.dropped[path] == {"bad-timestamp": 2}
    assert found.dropped_at[path] == {"bad-timestamp": "line 5: first_token_ns = 50 < start_ns = 100"}
    assert result.metrics.achieved_rate is None and result.metrics.kv_utilization is None and result.metrics.preemptions is None


def test_two_rebuilds_of_a_copied_killed_run_a_second_apart_are_one_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A Result rebuilt from records says when it was rebuilt: a copy rebuilt a second later
    (a loaded machine) is still the same run, counted once (it was counted twice)."""
    import datetime as dt
    import shutil

    import servescope.bench.recover as recover_module

    ticks = iter(range(1, 60))

    class Clock(dt.datetime):
        @classmethod
        def now(cls, tz: dt.tzinfo | None = None) -> Clock:
            return cls(2026, 1, 1, 0, 0, next(ticks), tzinfo=tz)  # every rebuild a second after the one before

    monkeypatch.setattr(recover_module.dt, "datetime", Clock)
    _run_dir(tmp_path / "runs", "r1")
    shutil.copytree(tmp_path / "runs" / "r1", tmp_path / "backup" / "r1")
    found = collect_results([tmp_path / "runs", tmp_path / "backup"])
    assert [r.run_id for r in found.results] == ["r1"]
    [problem] = found.problems
    assert "run r1 again" in problem and "counted once" in problem
