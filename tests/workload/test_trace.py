"""Reading a trace to replay: streamed, bounded, and every bad line one line naming file, line and field."""

from __future__ import annotations

import json
import tracemalloc
from pathlib import Path

import pytest

from servescope.errors import UsageError
from servescope.workload.trace import read_trace

FIXTURE = Path(__file__).parent / "fixtures" / "mooncake-slice-60-scaled16.jsonl"


def _write(tmp_path: Path, lines: list[object]) -> Path:
    path = tmp_path / "trace.jsonl"
    path.write_text("".join((x if isinstance(x, str) else json.dumps(x)) + "\n" for x in lines), encoding="utf-8")
    return path


def test_reads_the_real_trace_slice() -> None:
    trace = read_trace(FIXTURE)
    assert len(trace.requests) == 60 and trace.requests[0].hash_ids.tolist() == [0]
    assert trace.offsets_ns(1.0)[-1] == round((trace.requests[-1].timestamp_ms - trace.requests[0].timestamp_ms) * 1e6)


OK = {"timestamp": 0, "input_length": 10, "output_length": 5}


@pytest.mark.parametrize(
    ("bad", "words"),
    [
        ({"timestamp": -1, "input_length": 10, "output_length": 5}, "line 2: timestamp -1 is negative"),
        ({"timestamp": 0, "output_length": 5}, "line 2: field 'input_length' is missing"),
        ({"timestamp": 1.7e12, "input_length": 10, "output_length": 5}, "line 2: timestamp 1700000000000 is more than 30 days"),
        ({"timestamp": 0, "input_length": 10}, "line 2: field 'output_length' is missing"),
        ({"input_length": 10, "output_length": 5}, "line 2: field 'timestamp' is missing"),
        ({"timestamp": 0, "input_length": 0, "output_length": 5}, "line 2: input_length 0: give at least 1 token"),
        ({"timestamp": 0, "input_length": 2.5, "output_length": 5}, "line 2: input_length 2.5: give a whole number"),
        ({"timestamp": 0, "input_length": "9", "output_length": 5}, 'line 2: input_length "9"'),
        ({"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [1, -2]}, "line 2: hash_ids"),
        ({"timestamp": 0, "input_length": 10, "output_length": 5, "session_id": "a"}, "line 2: field 'session_id' is not replayed"),
        # a prompt file given as a trace: say which option reads it
        (
            {"prompt": "hi"},
            "line 2: field 'prompt' is not replayed; a trace line has only timestamp, input_length, output_length, hash_ids "
            "(this line looks like a prompt file: give the file with --input-file)",
        ),
        ("{not json", "line 2: not JSON"),
        ("[1, 2]", "line 2: give one JSON object per line"),
        # JSON's words in messages, never Python reprs
        ({"timestamp": 0, "input_length": True, "output_length": 5}, "line 2: input_length true: give a whole number"),
        # a block past the input would be cut off unsaid: 3 blocks of 512 tokens need at least 1,025
        ({"timestamp": 0, "input_length": 100, "output_length": 5, "hash_ids": [0, 1, 2]}, "line 2: hash_ids names 3 blocks of 512 tokens (at least 1,025"),
        ('{"timestamp": 0, "input_length": 10, "output_length": 5, "timestamp": 5}', 'line 2: field "timestamp" is given twice'),
    ],
)
def test_bad_line_is_one_line_naming_file_line_and_field(tmp_path: Path, bad: object, words: str) -> None:
    path = _write(tmp_path, [OK, bad])
    with pytest.raises(UsageError) as info:
        read_trace(path)
    assert str(path) in str(info.value) and words in str(info.value) and "\n" not in str(info.value)


def test_decreasing_timestamp_is_refused(tmp_path: Path) -> None:
    path = _write(tmp_path, [{**OK, "timestamp": 100}, {**OK, "timestamp": 100}, {**OK, "timestamp": 99}])
    with pytest.raises(UsageError, match=r"line 3: timestamp 99 is before the previous line's 100;"):
        read_trace(path)


def test_empty_and_missing_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="no request in the file"):
        read_trace(_write(tmp_path, ["", "  "]))
    with pytest.raises(UsageError, match="no such file"):
        read_trace(tmp_path / "absent.jsonl")


def test_a_1_gb_file_is_streamed_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with path.open("wb") as fh:
        fh.write(b"".join(json.dumps({**OK, "timestamp": i}).encode() + b"\n" for i in range(3)))
        fh.truncate(1 << 30)  # sparse: 1 GiB on paper, no newline after the third line
    tracemalloc.start()
    try:
        # --num-requests 3 reads three lines and stops, whatever follows
        assert len(read_trace(path, 3).requests) == 3
        with pytest.raises(UsageError, match=r"line 4: longer than 1024 KiB"):
            read_trace(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20


def test_a_byte_order_mark_and_crlf_lines_read(tmp_path: Path) -> None:
    path = tmp_path / "bom.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(OK).encode() + b"\r\n" + json.dumps({**OK, "timestamp": 5}).encode() + b"\r\n")
    assert [r.timestamp_ms for r in read_trace(path).requests] == [0.0, 5.0]
    with pytest.raises(UsageError, match="a folder, not a file"):
        read_trace(tmp_path)


def test_a_line_that_is_not_utf8_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "trace.jsonl"
    path.write_bytes(json.dumps(OK).encode() + b'\n{"timestamp": 10, "input_length": 60, "output_length": 4, "x": "\xff\xfe"}\n')
    with pytest.raises(UsageError) as info:
        read_trace(path)
    assert str(info.value) == f"--trace {path}: line 2: not UTF-8 (byte 0xff at column 65); save the file as UTF-8"


def test_hash_ids_that_fit_the_input_are_kept(tmp_path: Path) -> None:
    path = _write(tmp_path, [{**OK, "input_length": 1025, "hash_ids": [0, 1, 2]}, {**OK, "input_length": 1024, "hash_ids": [0, 1]}])
    assert [r.hash_ids.tolist() for r in read_trace(path).requests] == [[0, 1, 2], [0, 1]]
