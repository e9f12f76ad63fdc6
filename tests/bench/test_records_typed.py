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
import subprocess
import sys
from pathlib import Path
from typing import Any

import msgspec
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.analysis.metrics import aggregate_columns
from servescope.bench import records, records_shared, records_typed
from servescope.bench.records import dropped_lines, read_file
from servescope.documents.record import RequestRecord

_HOSTILE: list[Any] = [None, -1, 0, 1.5, 1.0, True, False, "", "x", [], {}, [1, -2], [1, 2.5], [True], 2**63, 2**64, math.nan, 10**12,
            [[1]], [2**63 - 1], [2**63], [None], ["1"], [1e3]]  # fmt: skip
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
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(records_typed, "_SMALL_BLOCK", 0)  # these files are small: read them through the block path all the same
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


@pytest.mark.parametrize("handed_back", ["through shared memory", "through the pipe", "through the pipe after a failed write"])
def test_a_large_read_split_over_processes_gives_what_one_process_gives(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, handed_back: str) -> None:
    if handed_back == "through the pipe":  # no memfd_create (not Linux)
        monkeypatch.setattr(records, "shared_fd", lambda: None)
    if handed_back == "through the pipe after a failed write":
        monkeypatch.setattr(records_shared.os, "fdopen", _no_space)
    lines = ['{"header":{"run_id":"r"}}']
    for i in range(400):
        lines.append(_good(i))
        if i % 37 == 0:
            lines.append(json.dumps({**json.loads(_good(i)), "request_id": f"f{i}", "ok": False, "category": "timeout", "stage": "stream"}))
        if i % 91 == 0:
            lines.append(json.dumps({**json.loads(_good(i)), "request_id": f"x{i}", "end_ns": -3}))
        if i % 150 == 0:  # an ITL gap past int32 (3 s): that part's gaps are sent back as int64
            lines.append(json.dumps({**json.loads(_good(i)), "request_id": f"slow{i}", "chunk_ns": [2000, 3_000_002_000], "end_ns": 3_000_002_000}))
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
    monkeypatch.setattr(records, "usable_cpus", lambda: 3)
    assert _everything(path, typed=True) == one
    assert split_into == [3]
    assert one["dropped"] == {"bad-timestamp": 5}


def _no_space(*args: Any, **kwargs: Any) -> Any:
    raise OSError(28, "No space left on device")


def test_a_worker_s_columns_come_back_through_shared_memory(tmp_path: Path) -> None:
    """What a worker shares is what it took, read in place by the parent (its ITL gaps int32 and writable)."""
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(300)])
    typed, _rest = records._typed_lines(path, [(0, path.stat().st_size)], hash)
    fd = records_shared.shared_fd()
    assert fd is not None  # Linux
    try:
        got = records_shared.received(records_shared.share(typed, fd), fd)
    finally:
        os.close(fd)
    expected, mine = typed.columns()[0], got.columns()[0]
    for name in ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens", "itl_gaps_ns"):
        assert np.array_equal(getattr(mine, name), getattr(expected, name), equal_nan=name != "ok"), name
        assert getattr(mine, name).dtype == getattr(expected, name).dtype, name
    assert mine.itl_gaps_ns.dtype == np.int32 and mine.itl_gaps_ns.flags.writeable
    assert (mine.sources, mine.resends, mine.resent_requests) == (expected.sources, expected.resends, expected.resent_requests)
    assert [k.tolist() for k, _ in got.keyed] == [np.concatenate([k for k, _ in typed.keyed]).tolist()]
    assert (got.first_start, got.last_end) == (typed.first_start, typed.last_end)


def test_a_worker_that_takes_no_line_shares_empty_columns(tmp_path: Path) -> None:
    """A part of only lines the typed path hands back (failures, a header): nothing written, nothing misread."""
    failed = json.dumps({**json.loads(_good(1)), "ok": False, "stage": "send", "category": "timeout"})
    path = _file(tmp_path / "records.jsonl", ['{"header":{"run_id":"r"}}', failed])
    typed, rest = records._typed_lines(path, [(0, path.stat().st_size)], hash)
    assert not typed.parts and len(rest) == 2
    fd = records_shared.shared_fd()
    assert fd is not None
    try:
        got = records_shared.received(records_shared.share(typed, fd), fd)
    finally:
        os.close(fd)
    assert not got.parts and [(k.tolist(), o.tolist()) for k, o in got.keyed] == [([], [])]


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
    monkeypatch.setattr(records, "usable_cpus", lambda: 2)
    monkeypatch.setattr(records, "_typed_part", _dies)
    assert _everything(path, typed=True) == one


def _dies(records_path: Path, spans: list[tuple[int, int]], key: Any, fd: Any) -> Any:
    os._exit(9)  # as the kernel's out-of-memory killer leaves a worker


# Counts the forks of a fresh process (``os.register_at_fork``: no pytest threads, nothing
# patched but the split threshold) reading one file inside a running event loop, then twice outside.
_FORKS_IN_AND_OUT_OF_A_LOOP = """
import asyncio, json, os, sys
from pathlib import Path
from servescope.analysis.metrics import aggregate_columns
from servescope.bench import records
forks = []
os.register_at_fork(before=lambda: forks.append(1))
records.PARALLEL_JSON_BYTES = 4096
records.usable_cpus = lambda: 2
def read():
    _reader, points, wall = records.read_file(Path(sys.argv[1]))
    return repr((wall, {idx: aggregate_columns(cols) for idx, cols in points.items()}))
async def inside():
    return read()
in_loop = asyncio.run(inside())
forks_in_loop = len(forks)
outside = [read(), read()]  # the first read's pool leaves no thread behind: the second forks too
print(json.dumps({"forks_in_loop": forks_in_loop, "forks_outside": len(forks) - forks_in_loop, "same": outside == [in_loop, in_loop]}))
"""


def test_a_read_inside_a_running_event_loop_stays_in_this_process(tmp_path: Path) -> None:
    """A child forked under a running loop shares the loop's signal wakeup socket (a Ctrl-C
    it gets would run the parent's handler twice), so a large read called from async code
    is not split over forked workers; the same read outside a loop is, each time (the check can fail)."""
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(300)])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(records.__file__).parents[2]), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run([sys.executable, "-c", _FORKS_IN_AND_OUT_OF_A_LOOP, str(path)], capture_output=True, text=True, timeout=120, check=False, env=env)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == {"forks_in_loop": 0, "forks_outside": 2, "same": True}


def test_an_image_render_s_line_keeps_its_seconds_per_image_on_the_typed_path(tmp_path: Path) -> None:
    """Its s_per_image lives in raw.payload, which the typed struct does not carry: such a
    line is handed to the line reader, so both paths give the same seconds per image."""
    good = json.loads(_good(0))
    lines = [_good(1), json.dumps({**good, "request_id": "img-0", "raw": {"payload": {"s_per_image": 0.25}}})]
    path = _file(tmp_path / "records.jsonl", lines)
    _reader, points, _ = read_file(path)
    assert list(points[0].s_per_image) == [0.25]
    assert _everything(path, typed=True) == _everything(path, typed=False)


# chunk_ns texts the numpy parse of a block's lists must not take as they are: each such
# block goes back to msgspec's checked lists (or, for a bad value, to the line reader)
_ODD_CHUNK_TEXTS = ["[[1]]", "[1,[2]]", "[9223372036854775807]", "[9223372036854775808]", "[99999999999999999999999]",
                    "[-1]", "[1.0]", "[1e3]", '["1"]', "[null]", "[true]", '{"a":1}', '"[1]"', "5", "[ ]", "[ 7]", "[1,2]]"]  # fmt: skip
# texts it takes: the values must be what msgspec would give
_PLAIN_CHUNK_TEXTS = ["[1 , 2 ]", "[-0,3]", "[]", "null", "[4 ,5]"]


@pytest.mark.parametrize("text", _ODD_CHUNK_TEXTS + _PLAIN_CHUNK_TEXTS)
def test_a_chunk_list_is_read_as_the_line_reader_reads_it(tmp_path: Path, text: str) -> None:
    good = _good(7)
    odd = good.replace('"chunk_ns":[1710,1720,1740]', f'"chunk_ns":{text}').replace('"r7"', '"odd"')
    assert odd != good
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(5)] + [odd] + [_good(i) for i in range(8, 12)])
    assert _everything(path, typed=True) == _everything(path, typed=False)


@pytest.mark.parametrize("text", _ODD_CHUNK_TEXTS)
def test_a_chunk_list_numpy_cannot_take_plainly_is_left_to_msgspec(text: str) -> None:
    lines = [msgspec.Raw(b"[1,2]"), msgspec.Raw(text.encode()), msgspec.Raw(b"[3]")]
    assert records_typed._chunk_times(lines) is None


def test_plain_chunk_lists_parse_to_what_msgspec_gives() -> None:
    texts = [t.encode() for t in [*_PLAIN_CHUNK_TEXTS, "[5,6,7]", "[]", "[0]", "[9223372036854775806]"]]
    found = records_typed._chunk_times([msgspec.Raw(t) for t in texts])
    assert found is not None
    counts, flat = found
    expected = [msgspec.json.decode(t) or [] for t in texts]
    assert counts.tolist() == [len(e) for e in expected]
    assert flat.tolist() == [v for e in expected for v in e]
    assert flat.dtype == np.int64


def test_summarize_says_the_same_with_and_without_the_index(tmp_path: Path) -> None:
    """What the driver of a many-worker run does with the files: ``servescope summarize``
    of a run's records gives the same summary files and the same one line about the lines
    it dropped, whether it reads the columnar index or every line as JSON."""
    recs = []
    for i in range(60):
        ok = i % 7 != 3
        base = 10_000 + i * 1_000
        chunks = [base + 100 + 30 * k for k in range(i % 5)] if ok else []
        recs.append(
            RequestRecord(
                request_id=f"r{i}", point=i % 2, start_ns=base, first_token_ns=chunks[0] if chunks else None,
                end_ns=(chunks[-1] + 50) if chunks else (None if i % 3 else base + 70), chunk_ns=chunks,
                input_tokens=None if i % 11 == 0 else 40, output_tokens=len(chunks) if ok and i % 13 else None,
                token_count_source="server-usage" if i % 17 else None, ok=ok, http_status=200 if ok else 503,
                stage=None if ok else "send", category=None if ok else "http-error", error=None if ok else "unavailable",
                attempts=None if i % 4 else 1 + i % 3, raw={"payload": {"s_per_image": 0.5 + i / 100}} if i % 9 == 0 else None,
            )
        )  # fmt: skip
    indexed = tmp_path / "indexed" / "run"
    indexed.mkdir(parents=True)
    with records.RecordWriter(indexed / "records.jsonl") as writer:
        writer.write_header({"run_id": "r", "workload_id": "serve-chat-c64-i1k-o256-v1", "started_at": "2026-12-06T00:00:00+00:00",
                             "endpoint": "http://127.0.0.1:1", "model": "m", "engine": {"id": "vllm", "version": "0.6.3"},
                             "args": {}, "scenario": None, "resolved_params": {"concurrency": 4}})  # fmt: skip
        for r in recs:
            writer.write(r)
    with (indexed / "records.jsonl").open("a") as fh:  # lines another writer appended: not in the index
        good = json.loads(_good(3))
        fh.write(json.dumps({**good, "request_id": "spaced"}) + "\n")
        fh.write(json.dumps({**good, "request_id": "malformed", "chunk_ns": [1710, 1720.5]}) + "\n")
        fh.write(json.dumps({**good, "request_id": "nulls", "first_token_ns": None, "end_ns": None, "output_tokens": None}) + "\n")
    json_only = tmp_path / "json-only" / "run"
    json_only.mkdir(parents=True)
    (json_only / "records.jsonl").write_bytes((indexed / "records.jsonl").read_bytes())
    said = {}
    for name in ("indexed", "json-only"):
        proc = subprocess.run(
            [sys.executable, "-m", "servescope", "summarize", "--in", str(tmp_path / name), "--out", str(tmp_path / f"out-{name}")],
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        assert proc.returncode == 0 and "Traceback" not in proc.stderr, proc.stderr
        said[name] = proc.stdout.replace(str(tmp_path / name), "IN").replace(str(tmp_path / f"out-{name}"), "OUT")
    assert said["indexed"] == said["json-only"]
    dropped = [line for line in said["indexed"].splitlines() if "dropped" in line]
    assert dropped == [
        "IN/run/records.jsonl: 1 record(s) dropped: 1 bad-timestamp (first bad-timestamp at line 63: chunk_ns = [1710, 1720.5]); the other records are summarized"
    ]
    for file in sorted((tmp_path / "out-indexed").iterdir()):
        assert file.read_text() == (tmp_path / "out-json-only" / file.name).read_text(), file.name


def _read_in_blocks(path: Path, block: int, stop: int) -> dict[str, Any]:
    reader = records._LineReader()
    with path.open("rb") as fh, pytest.MonkeyPatch.context() as mp:
        mp.setattr(records_typed, "_SMALL_BLOCK", 0)  # small blocks through the block path too
        reader.span(fh, 0, stop, block)
    reader.finish()
    return {
        "header": reader.header,
        "dropped": reader.dropped,
        "first": reader.first_dropped,
        "points": {idx: _rounded(aggregate_columns(cols).metrics) for idx, cols in reader.points.items()},
    }


def test_any_block_size_reads_the_lines_one_block_reads(tmp_path: Path) -> None:
    """A read starts each block where a line starts (no copy to join a cut line): lines longer
    than a block, a last line without its newline, and a file shorter than the span expected
    (a torn line at its end) read as with one block."""
    good = json.loads(_good(1))
    lines = ['{"header":{"run_id":"r"}}', *(_good(i) for i in range(6))]
    lines.append(json.dumps({**good, "request_id": "long", "error": "x" * 700}))
    lines.append(json.dumps({**good, "request_id": "bad", "start_ns": -4}))
    lines += [_good(i) for i in range(6, 9)]
    path = tmp_path / "records.jsonl"
    path.write_bytes("\n".join(lines).encode())  # the last line has no newline
    size = path.stat().st_size
    whole = _read_in_blocks(path, 1 << 20, size)
    assert sum(m["total_requests"] for m in whole["points"].values()) == 10 and whole["dropped"] == {"bad-timestamp": 1}
    for block in (16, 100, 333, 4096):
        assert _read_in_blocks(path, block, size) == whole, block
    shorter = _read_in_blocks(path, 1 << 20, size + 50)  # the file is shorter than the span: its last line may be torn
    assert sum(m["total_requests"] for m in shorter["points"].values()) == 9
    for block in (16, 100, 333):
        assert _read_in_blocks(path, block, size + 50) == shorter, block


def test_times_past_2_to_the_53_are_compared_exactly(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A block's rules are checked on float64 columns only where that is exact: a first token
    1 ns before its start at 2**60 ns (the same float64) is still a bad timestamp."""
    base = 1 << 60
    good = json.loads(_good(0))
    lines = [json.dumps({**good, "request_id": f"r{i}", "start_ns": base + i, "first_token_ns": base + i + 1, "end_ns": base + i + 9,
                         "chunk_ns": [base + i + 1, base + i + 9]}, separators=(",", ":")) for i in range(6)]  # fmt: skip
    lines.append(json.dumps({**json.loads(lines[0]), "request_id": "early", "first_token_ns": base - 1}, separators=(",", ":")))
    path = _file(tmp_path / "records.jsonl", lines)
    monkeypatch.setattr(records_typed, "_SMALL_BLOCK", 0)  # the block path, as a large file takes
    reader, points, _ = read_file(path)
    assert reader.dropped == {"bad-timestamp": 1}
    assert len(points[0].ok) == 6
    assert _everything(path, typed=True) == _everything(path, typed=False)


def test_a_block_s_rules_at_once_are_the_rules_line_by_line() -> None:
    good = json.loads(_good(0))
    variants: list[dict[str, Any]] = [
        good, {**good, "ok": False}, {**good, "first_token_ns": 999}, {**good, "end_ns": 999}, {**good, "first_token_ns": None},
        {**good, "end_ns": None}, {**good, "input_tokens": None, "prompt_id": "p1"}, {**good, "input_tokens": None, "prompt_id": ""},
        {**good, "input_tokens": None}, {**good, "raw": None}, {**good, "start_ns": 0},
    ]  # fmt: skip
    decoded = [records_typed._decode_raw_chunks(json.dumps(v).encode()) for v in variants]
    usable = records_typed._usable(decoded, records_typed._Fields.of(decoded)).tolist()
    assert usable == [records_typed._needs_nothing_else(r) for r in decoded]
    assert usable == [True, False, False, False, True, True, False, True, True, True, True]
    with pytest.raises(msgspec.ValidationError):  # an image render's payload: the line reader's (s_per_image)
        records_typed._decode_raw_chunks(json.dumps({**good, "raw": {"payload": {"s_per_image": 1.0}}}).encode())


def test_a_read_is_split_over_the_cpus_this_process_may_use(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(records.os, "cpu_count", lambda: 64)
    monkeypatch.setattr(records.os, "sched_getaffinity", lambda pid: {0, 1}, raising=False)
    assert records.usable_cpus() == 2


@pytest.mark.parametrize(
    "odd",
    [
        _good(20) + _good(21),  # two objects on one line: decode_lines would read both
        _good(20) + " " + _good(21),
        _good(20)[:-1] + ',"x":\n' + _good(21) + "}",  # one object over two lines: decode_lines would read one
        _good(20) + "\n\n" + _good(21),  # a blank line between: decode_lines skips it
        _good(20) + "\r",  # a line ending in CR
    ],
)
def test_a_block_is_read_line_by_line_as_the_line_reader_reads_it(tmp_path: Path, odd: str) -> None:
    """msgspec's decode_lines reads JSON values, not lines; a block it would read otherwise
    than the line reader does goes line by line (every line one object, as many as lines)."""
    path = _file(tmp_path / "records.jsonl", [_good(i) for i in range(8)] + [odd] + [_good(i) for i in range(9, 12)])
    assert _everything(path, typed=True) == _everything(path, typed=False)


@pytest.mark.parametrize("indexed", [True, False])
def test_the_reader_s_own_itl_gaps_are_sorted_in_place_and_a_second_aggregate_agrees(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, indexed: bool) -> None:
    """JSON only, the gaps are the reader's own: the formulas sort them in place (no copy) and a
    second aggregate of the same columns (a one-point sweep aggregates the run and its point)
    gives the same figures as columns that are not the reader's. Through the index the gaps are
    its read-only memory map: never written, nothing fails."""
    from servescope.analysis import stats

    monkeypatch.setattr(stats, "_BLOCK", 1)  # the large-sample path, as above a million gaps
    path = tmp_path / "records.jsonl"
    with records.RecordWriter(path) as w:
        for i in range(60):
            chunks = [1_000 + i * 100 + (k * k * (i % 7 + 1)) % 97 * k for k in range(1, 6)]
            w.write(RequestRecord(request_id=f"r{i}", point=0, start_ns=1_000 + i * 100, first_token_ns=chunks[0], end_ns=chunks[-1],
                                  chunk_ns=chunks, input_tokens=5, output_tokens=5, token_count_source="server-usage"))  # fmt: skip
    if not indexed:
        for p in records.index_paths(path):
            p.unlink()
    _reader, points, _wall = read_file(path)
    cols = points[0]
    assert cols.itl_gaps_owned is not indexed
    gaps = np.asarray(cols.itl_gaps_ns)
    original = gaps.copy()
    assert not np.all(np.diff(original) >= 0)
    first = aggregate_columns(cols).metrics["itl_ms"]
    assert bool(np.all(np.diff(gaps) >= 0)) is (not indexed)  # sorted in place only when the reader's own
    assert aggregate_columns(cols).metrics["itl_ms"] == first
    _reader, again, _wall = read_file(path)
    again[0].itl_gaps_owned = False
    assert aggregate_columns(again[0]).metrics["itl_ms"] == first
    assert np.array_equal(np.asarray(again[0].itl_gaps_ns), original)


def test_columns_that_share_the_reader_s_gaps_are_not_sorted_under_each_other(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A run's columns extended from one point's (the gaps array shared, int64): the point's aggregate, in
    either order, never sorts the gaps the run's aggregate reads."""
    from servescope.analysis import stats
    from servescope.analysis.metrics import Columns

    monkeypatch.setattr(stats, "_BLOCK", 1)
    point = Columns(ok=[True], start_ns=[0], first_ns=[1.0], end_ns=[9.0], input_tokens=[1.0], output_tokens=[3.0])
    point.itl_gaps_ns = np.array([5, 1, 4, 2, 3, 9, 7], dtype=np.int64)
    point.itl_gaps_owned = True
    run = Columns()
    run.extend(point)
    assert run.itl_gaps_ns is point.itl_gaps_ns and not point.itl_gaps_owned
    aggregate_columns(point)
    assert np.asarray(run.itl_gaps_ns).tolist() == [5, 1, 4, 2, 3, 9, 7]
