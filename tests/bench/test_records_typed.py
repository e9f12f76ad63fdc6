"""The typed fast path of the records reader (``bench.records_typed``) is a shortcut, never
a second set of rules: on any mix of lines - good, hostile, torn, blank, not requests at
all - it gives exactly what reading every line one by one gives (the reference), the
lines left out counted by the same reasons with the same first line; and so does a
large read split over processes."""

from __future__ import annotations

import itertools
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.analysis.metrics import aggregate_columns
from servescope.bench import records
from servescope.bench.records import dropped_lines, read_file
from servescope.documents.record import RequestRecord

_HOSTILE: list[Any] = [None, -1, 0, 1.5, 1.0, True, False, "", "x", [], {}, [1, -2], [1, 2.5], [True], 2**63, 2**64, math.nan, 10**12]
_FIELDS = ["request_id", "ok", "phase", "point", "start_ns", "first_token_ns", "end_ns", "chunk_ns", "input_tokens",
           "output_tokens", "attempts", "token_count_source", "prompt_id", "stage", "category", "error", "http_status"]  # fmt: skip


@st.composite
def request_lines(draw: st.DrawFn) -> str:
    start = draw(st.integers(0, 10**12))
    n = draw(st.integers(0, 5))
    chunks = [start + 1 + k * draw(st.integers(0, 10**6)) for k in range(n)]
    ok = draw(st.booleans())
    d: dict[str, Any] = json.loads(_record(draw, start, chunks, ok, n))
    for _ in range(draw(st.integers(0, 2))):  # hostile edits: a value of the wrong kind, or a field gone
        name = draw(st.sampled_from(_FIELDS))
        if draw(st.booleans()):
            d.pop(name, None)
        else:
            d[name] = draw(st.sampled_from(_HOSTILE))
    return json.dumps(d)  # NaN as Python writes it


def _record(draw: st.DrawFn, start: int, chunks: list[int], ok: bool, n: int) -> str:
    return RequestRecord(
        request_id=f"q{draw(st.integers(0, 99))}",
        phase=draw(st.sampled_from(["measured", "measured", "warmup"])),
        point=draw(st.sampled_from([None, 0, 1, 2])),
        prompt_id=draw(st.sampled_from([None, "p1", "p2"])),
        start_ns=start,
        first_token_ns=chunks[0] if chunks else draw(st.sampled_from([None, start + 5])),
        end_ns=draw(st.sampled_from([None, (chunks[-1] if chunks else start) + 7])),
        chunk_ns=chunks,
        input_tokens=draw(st.sampled_from([None, 0, 17])),
        output_tokens=draw(st.sampled_from([None, 1, n])),
        token_count_source=draw(st.sampled_from([None, "server-usage", "something-new", ""])),
        ok=ok,
        http_status=200 if ok else 503,
        stage=None if ok else "stream",
        category=None if ok else "timeout",
        error=None if ok else "boom",
        attempts=draw(st.sampled_from([None, 1, 3])),
    ).to_json()


_OTHER_LINES = st.sampled_from([
    '{"header":{"run_id":"r"}}',
    '{"point_done":{"point":0,"achieved_rate":2.5,"kv_utilization":0.5,"prefix_cache_hit_rate":null,"preemptions":1}}',
    '{"tokenized":{"input_tokens":{"p1":11}}}',
    "", "   ", "[1, 2]", '"text"', "5", "{}", '{"request_id":"torn","ok":tr', "not json",
    '{"request_id":"dup","ok":true,"start_ns":5,"start_ns":-5}',
    '{"request_id":"bad\\ud800","ok":true}',
])  # fmt: skip


def _file(path: Path, lines: list[str]) -> Path:
    path.write_bytes(("\n".join(lines) + ("\n" if lines and len(lines) % 3 else "")).encode("utf-8", "surrogatepass"))
    return path


def _rounded(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _rounded(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_rounded(v) for v in value]
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.12g}")
    return value


def _everything(path: Path, typed: bool) -> dict[str, Any]:
    reader, points, wall = read_file(path, typed=typed)
    out: dict[str, Any] = {
        "header": reader.header,
        "tokenized": reader.tokenized,
        "points_done": reader.points_done,
        "dropped": reader.dropped,
        "first_dropped": dropped_lines(path, reader),
        "wall": wall,
        "points": sorted(points),
    }
    for idx, cols in points.items():
        agg = aggregate_columns(cols)
        out[f"point {idx}"] = (
            _rounded(agg.metrics),  # rows in another order: sums may differ in their last bits
            sorted((f.stage, f.category, f.count, f.message, f.sample_request_id) for f in agg.failures),
            sorted(cols.sources),
            cols.resends,
            cols.resent_requests,
        )
    return out


@settings(max_examples=400, deadline=None)
@given(st.lists(st.one_of(request_lines(), request_lines(), _OTHER_LINES), max_size=30))
def test_the_typed_path_reads_any_mix_of_lines_as_the_line_reader_does(tmp_path_factory: pytest.TempPathFactory, lines: list[str]) -> None:
    path = _file(tmp_path_factory.mktemp("typed") / "records.jsonl", lines)
    assert _everything(path, typed=True) == _everything(path, typed=False)


def test_hostile_values_are_still_judged_and_named_by_the_line_reader(tmp_path: Path) -> None:
    good = json.loads(_good(0))
    lines = [_good(i) for i in range(5)]
    for name, value in [("start_ns", -1), ("chunk_ns", [1, 2.5]), ("output_tokens", math.nan), ("ok", 1), ("phase", "later"), ("first_token_ns", 1)]:
        lines.append(json.dumps({**good, "request_id": f"bad-{name}", name: value}))
    # each of these once raised a TypeError (a traceback from summarize): a list is not hashable, an int not sortable with a str
    lines.append(json.dumps({**good, "request_id": "failed-oddly", "ok": False, "stage": []}))
    lines.append(json.dumps({k: v for k, v in {**good, "request_id": "no-ok", "stage": -1}.items() if k != "ok"}))
    lines.append(json.dumps({**good, "request_id": "odd-source", "token_count_source": -1}))
    lines.append(json.dumps({**good, "request_id": "odd-prompt", "input_tokens": None, "prompt_id": [1]}))
    lines.append('{"tokenized":{"input_tokens":{"p1":11}}}')
    path = _file(tmp_path / "records.jsonl", lines)
    reader, points, _ = read_file(path)
    assert reader.dropped == {"bad-timestamp": 3, "nan-token-count": 1, "bad-ok": 1, "unknown-phase": 1, "bad-failure": 2}
    assert dropped_lines(path, reader)["bad-timestamp"] == "line 6: start_ns = -1"
    assert len(points[0].ok) == 7
    assert points[0].sources == {"server-usage"}
    assert aggregate_columns(points[0]).metrics["completed_requests"] == 7
    assert _everything(path, typed=True) == _everything(path, typed=False)


def _good(i: int) -> str:
    base = 1_000 + i * 100
    return RequestRecord(request_id=f"r{i}", point=0, start_ns=base, first_token_ns=base + 10, end_ns=base + 40,
                         chunk_ns=[base + 10, base + 20, base + 40], input_tokens=5, output_tokens=3,
                         token_count_source="server-usage", attempts=1 + i % 2).to_json()  # fmt: skip


def test_a_large_read_split_over_processes_gives_what_one_process_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    lines = ['{"header":{"run_id":"r"}}']
    for i in range(400):
        lines.append(_good(i))
        if i % 37 == 0:
            lines.append(json.dumps({**json.loads(_good(i)), "request_id": f"f{i}", "ok": False, "category": "timeout", "stage": "stream"}))
        if i % 91 == 0:
            lines.append(json.dumps({**json.loads(_good(i)), "request_id": f"x{i}", "end_ns": -3}))
    path = _file(tmp_path / "records.jsonl", lines)
    one = _everything(path, typed=False)
    split_into: list[int] = []
    real_split = records._split_spans

    def spy(path: Path, spans: list[tuple[int, int]], parts: int) -> list[list[tuple[int, int]]]:
        out = real_split(path, spans, parts)
        split_into.append(len(out))
        return out

    monkeypatch.setattr(records, "_split_spans", spy)
    monkeypatch.setattr(records, "PARALLEL_JSON_BYTES", 4096)
    monkeypatch.setattr(records.os, "cpu_count", lambda: 3)
    assert _everything(path, typed=True) == one
    assert split_into == [3]
    assert one["dropped"] == {"bad-timestamp": 5}


def test_split_cuts_fall_at_line_starts(tmp_path: Path) -> None:
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(50)])
    data = path.read_bytes()
    for parts in (2, 3, 7):
        pieces = records._split_spans(path, [(0, len(data))], parts)
        flat = [span for piece in pieces for span in piece]
        assert flat[0][0] == 0 and flat[-1][1] == len(data)
        assert all(a[1] == b[0] for a, b in itertools.pairwise(flat))
        assert all(data[b - 1 : b] == b"\n" for _, b in flat[:-1])


def test_a_worker_that_dies_leaves_the_read_to_this_process(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(300)])
    one = _everything(path, typed=False)
    monkeypatch.setattr(records, "PARALLEL_JSON_BYTES", 4096)
    monkeypatch.setattr(records.os, "cpu_count", lambda: 2)
    monkeypatch.setattr(records, "_typed_part", _dies)
    assert _everything(path, typed=True) == one


def _dies(records_path: Path, spans: list[tuple[int, int]]) -> Any:
    os._exit(9)  # as the kernel's out-of-memory killer leaves a worker


def test_an_image_render_s_line_keeps_its_seconds_per_image_on_the_typed_path(tmp_path: Path) -> None:
    """Its s_per_image lives in raw.payload, which the typed struct does not carry: such a
    line is handed to the line reader, so both paths give the same seconds per image."""
    good = json.loads(_good(0))
    lines = [_good(1), json.dumps({**good, "request_id": "img-0", "raw": {"payload": {"s_per_image": 0.25}}})]
    path = _file(tmp_path / "records.jsonl", lines)
    _reader, points, _ = read_file(path)
    assert list(points[0].s_per_image) == [0.25]
    assert _everything(path, typed=True) == _everything(path, typed=False)
