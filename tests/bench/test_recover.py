"""A records file read through its columnar index gives exactly what the JSON
lines give — whatever the mix of records, and whatever a killed writer left."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.analysis.metrics import Columns, aggregate_columns
from servescope.bench.outcome import EngineWindow
from servescope.bench.records import ROW_DTYPE, RecordWriter, index_paths, read_columns
from servescope.bench.recover import result_from_records
from servescope.documents.record import RequestRecord
from servescope.errors import DocumentError

HEADER = {
    "run_id": "r",
    "workload_id": "serve-chat-c64-i1k-o256-v1",
    "started_at": "2026-11-30T00:00:00+00:00",
    "endpoint": "http://127.0.0.1:1",
    "model": "m",
    "engine": {"id": "vllm", "version": "0.6.3"},
    "args": {},
    "scenario": None,
    "resolved_params": {"concurrency": 64, "points": [{"concurrency": 64, "context_tokens": None, "measured": 8}]},
}


@st.composite
def records(draw: st.DrawFn) -> RequestRecord:
    i = draw(st.integers(0, 10**6))
    start = draw(st.integers(0, 10**12))
    ok = draw(st.booleans())
    n_chunks = draw(st.integers(0, 6))
    gaps = draw(st.lists(st.integers(0, 10**9), min_size=n_chunks, max_size=n_chunks))
    chunks: list[int] = []
    t = start + draw(st.integers(1, 10**9))
    for g in gaps:
        t += g
        chunks.append(t)
    return RequestRecord(
        request_id=f"q{i}",
        phase=draw(st.sampled_from(["measured", "measured", "warmup"])),
        point=draw(st.sampled_from([None, 0, 1, 2])),
        prompt_id=draw(st.sampled_from([None, "p1", "p2"])),
        start_ns=start,
        first_token_ns=chunks[0] if chunks else draw(st.sampled_from([None, start + 5])),
        end_ns=draw(st.sampled_from([None, (chunks[-1] if chunks else start) + 7])),
        chunk_ns=chunks if ok or draw(st.booleans()) else [],
        input_tokens=draw(st.sampled_from([None, 0, 17, 1000])),
        output_tokens=draw(st.sampled_from([None, 0, 1, len(chunks), 300])),
        token_count_source=draw(st.sampled_from([None, "server-usage", "stream-count", "something-new"])),
        ok=ok,
        http_status=200 if ok else draw(st.sampled_from([None, 400, 503])),
        stage=None if ok else draw(st.sampled_from(["send", "stream"])),
        category=None if ok else draw(st.sampled_from(["http-error", "timeout"])),
        error=None if ok else "boom",
        attempts=draw(st.sampled_from([None, 1, 1, 2, 5])),
    )


def _write(path: Path, recs: list[RequestRecord], tokenized: dict[str, int] | None = None) -> None:
    with RecordWriter(path) as w:
        w.write_header(HEADER)
        for r in recs:
            w.write(r)
        if tokenized is not None:
            w.write_extra("tokenized", {"input_tokens": tokenized})


def _drop_index(path: Path) -> None:
    for p in index_paths(path):
        p.unlink()


def _summary(cols: Columns) -> dict[str, object]:
    agg = aggregate_columns(cols)
    return {
        "metrics": agg.metrics,
        "failures": [(f.stage, f.category, f.count, f.sample_request_id) for f in agg.failures],
        "by_reason": agg.blocked_by_reason_code,
    }


def _same(a: object, b: object) -> bool:
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, float) and isinstance(b, float):
        return math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-9)
    return a == b


def _assert_same_as_json(path: Path, copy: Path) -> None:
    copy.write_bytes(path.read_bytes())
    header_i, cols_i, wall_i = read_columns(path)
    header_j, cols_j, wall_j = read_columns(copy)
    assert header_i == header_j
    assert wall_i == wall_j
    assert sorted(cols_i) == sorted(cols_j)
    for idx in cols_i:
        assert cols_i[idx].sources == cols_j[idx].sources
        assert _same(_summary(cols_i[idx]), _summary(cols_j[idx])), idx


@settings(max_examples=60, deadline=None)
@given(st.lists(records(), max_size=25), st.booleans())
def test_index_gives_what_the_json_gives(tmp_path_factory: pytest.TempPathFactory, recs: list[RequestRecord], tokenize: bool) -> None:
    d = tmp_path_factory.mktemp("rec")
    path = d / "records.jsonl"
    _write(path, recs, {"p1": 11} if tokenize else None)
    assert index_paths(path)[0].stat().st_size == ROW_DTYPE.itemsize * (1 + len(recs))  # the version header, then a row a request
    _assert_same_as_json(path, d / "copy.jsonl")


def _ok(i: int, point: int = 0) -> RequestRecord:
    return RequestRecord(
        request_id=f"r{i}",
        point=point,
        start_ns=i * 10,
        first_token_ns=i * 10 + 3,
        end_ns=i * 10 + 9,
        chunk_ns=[i * 10 + 3, i * 10 + 5, i * 10 + 9],
        input_tokens=5,
        output_tokens=3,
        token_count_source="server-usage",
    )


@pytest.mark.parametrize("cut", ["row", "gaps", "jsonl"])
def test_what_a_killed_writer_leaves_is_read_whole(tmp_path: Path, cut: str) -> None:
    path = tmp_path / "records.jsonl"
    _write(path, [_ok(i) for i in range(10)])
    rows_path, gaps_path = index_paths(path)
    target = {"row": rows_path, "gaps": gaps_path, "jsonl": path}[cut]
    target.write_bytes(target.read_bytes()[:-5])  # torn in the middle of the last write
    _, cols, _ = read_columns(path)
    expected = 9 if cut == "jsonl" else 10  # the torn JSON line is lost; a torn index row is re-read from JSON
    assert len(cols[0].ok) == expected
    _assert_same_as_json(path, tmp_path / "copy.jsonl")


def test_appending_after_a_killed_writer_keeps_every_record(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    _write(path, [_ok(i) for i in range(4)])
    rows_path, gaps_path = index_paths(path)
    rows_path.write_bytes(rows_path.read_bytes()[:-3])
    gaps_path.write_bytes(gaps_path.read_bytes()[:-3])
    path.write_bytes(path.read_bytes()[:-4])  # no newline at the end any more
    with RecordWriter(path) as w:
        for i in range(4, 8):
            w.write(_ok(i))
    _, cols, _ = read_columns(path)
    assert len(cols[0].ok) == 7  # the torn fourth record is gone, nothing else
    _assert_same_as_json(path, tmp_path / "copy.jsonl")


def test_lines_the_index_does_not_cover_are_read_as_json(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    _write(path, [_ok(i) for i in range(3)])
    with path.open("a") as fh:  # another tool appended records without an index
        for i in range(3, 6):
            fh.write(_ok(i, point=1).to_json() + "\n")
    _, cols, _ = read_columns(path)
    assert len(cols[0].ok) == 3 and len(cols[1].ok) == 3
    _assert_same_as_json(path, tmp_path / "copy.jsonl")


def test_an_index_that_does_not_match_the_file_is_ignored(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    _write(path, [_ok(i) for i in range(5)])
    text = path.read_text().splitlines(keepends=True)
    path.write_text(text[0] + "".join(text[3:]))  # lines removed by hand: offsets now point mid-line
    _, cols, _ = read_columns(path)
    assert len(cols[0].ok) == 3


def test_result_from_an_indexed_file(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    failed = RequestRecord(
        request_id="bad", point=0, start_ns=1, end_ns=2, ok=False, stage="send", category="http-error", error="Service Unavailable", http_status=503
    )
    _write(path, [_ok(i) for i in range(8)] + [failed])
    result = result_from_records(path)
    assert result.metrics.completed_requests == 8
    assert result.metrics.failed_requests == 1
    assert result.failures[0].sample_request_id == "bad"
    assert result.metrics.itl_ms is not None and result.metrics.itl_ms.count == 16
    _drop_index(path)
    again = result_from_records(path)
    assert again.metrics.itl_ms == result.metrics.itl_ms
    assert again.metrics.ttft_ms == result.metrics.ttft_ms


def test_a_header_without_slos_or_rate_fields_still_gives_the_requested_rate(tmp_path: Path) -> None:
    # headers written before the run spec kept the rate only in resolved_params
    path = tmp_path / "records.jsonl"
    old = {**HEADER, "resolved_params": {**HEADER["resolved_params"], "rate": 4.0}}  # type: ignore[dict-item]
    with RecordWriter(path) as w:
        w.write_header(old)
        for i in range(3):
            w.write(_ok(i))
    result = result_from_records(path)
    assert result.metrics.requested_rate == 4.0
    assert result.metrics.achieved_rate is None  # no point_done line: the point never ended, its rate is not known
    assert result.slos == [] and result.on_time_rate is None


def test_point_done_line_gives_the_achieved_rate_and_engine_counters(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({**HEADER, "requested_rate": 5.0, "slos": [{"id": "t", "metric": "ttft_ms", "threshold": 1e6}]})
        for i in range(3):
            w.write(_ok(i))
        w.write_point_done(0, 4.5, EngineWindow(kv_utilization=0.25, preemptions=2))
    result = result_from_records(path)
    assert (result.metrics.requested_rate, result.metrics.achieved_rate) == (5.0, 4.5)
    assert (result.metrics.kv_utilization, result.metrics.preemptions) == (0.25, 2)
    assert result.on_time_rate == 1.0 and result.violations_by_invariant_id == {"t": 0}


def test_a_bad_header_is_one_line_naming_the_file_and_field(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as w:
        w.write_header({**HEADER, "slos": [{"id": "t", "metric": "nope", "threshold": 1}]})
    with pytest.raises(DocumentError) as err:
        result_from_records(path)
    assert str(path) in str(err.value) and "slos.0.metric" in str(err.value)


def test_a_recovered_sweep_weighs_its_points_hit_rates_by_the_queries_written_with_them(tmp_path: Path) -> None:
    """point_done keeps each window's cache queries, so a Result rebuilt from the records file
    gives the run the same Σhits / Σqueries a live run does."""
    path = tmp_path / "records.jsonl"
    two_points = {
        "concurrency": 64,
        "points": [{"concurrency": 1, "context_tokens": None, "measured": 3}, {"concurrency": 2, "context_tokens": None, "measured": 3}],
    }
    with RecordWriter(path) as w:
        w.write_header({**HEADER, "workload_id": "sweep-parallel-1-8-i128-o64-v1", "resolved_params": two_points})
        for point in (0, 1):
            for i in range(3):
                w.write(_ok(3 * point + i, point))
        w.write_point_done(0, None, EngineWindow(prefix_cache_hit_rate=0.0, prefix_cache_queries=100.0))
        w.write_point_done(1, None, EngineWindow(prefix_cache_hit_rate=0.5, prefix_cache_queries=900.0))
    result = result_from_records(path)
    assert result.metrics.prefix_cache_hit_rate == pytest.approx(0.45)  # not the plain mean, 0.25
