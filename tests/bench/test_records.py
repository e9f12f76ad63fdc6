"""Per-request records on disk: one flushed line per record, torn last line tolerated."""

from __future__ import annotations

import json
from pathlib import Path

from servescope.bench.records import NOT_JSON, TORN_LAST_LINE, RecordWriter, dropped_lines, read_file, read_header, read_records
from servescope.documents.record import RequestRecord


def rec(i: int, **kw: object) -> RequestRecord:
    base: dict[str, object] = {
        "request_id": f"r{i}",
        "start_ns": 1_000 * i,
        "sent_ns": 1_000 * i + 5,
        "first_token_ns": 1_000 * i + 200,
        "end_ns": 1_000 * i + 900,
        "chunk_ns": [1_000 * i + 200, 1_000 * i + 500, 1_000 * i + 900],
        "output_tokens": 3,
        "input_tokens": 11,
        "token_count_source": "server-usage",
    }
    base.update(kw)
    return RequestRecord(**base)  # type: ignore[arg-type]


def test_each_record_is_on_disk_while_the_writer_is_open(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as writer:
        writer.write(rec(0))
        # another reader, while the writer still holds the file: the line is there
        assert path.read_text(encoding="utf-8").count("\n") == 1
        writer.write(rec(1, ok=False, stage="send", category="http-error", http_status=500, error="HTTP 500"))
        lines = path.read_text(encoding="utf-8").splitlines()
        assert len(lines) == 2
        assert json.loads(lines[1])["category"] == "http-error"
        assert writer.count == 2
        assert [r.request_id for r in read_records(path)] == ["r0", "r1"]


def test_one_json_object_per_line_round_trips(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    records = [rec(0), rec(1, phase="warmup"), rec(2, output_text="héllo\nworld", server_timings={"predicted_n": 3})]
    with RecordWriter(path) as writer:
        for r in records:
            writer.write(r)
    lines = path.read_text(encoding="utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 4  # newline-terminated, no blank lines in between
    assert all(isinstance(json.loads(line), dict) for line in lines[:-1])
    assert list(read_records(path)) == records


def test_torn_last_line_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as writer:
        writer.write(rec(0))
        writer.write(rec(1))
    whole = rec(2).to_json()
    with path.open("a", encoding="utf-8") as fh:
        fh.write(whole[: len(whole) // 2])  # the process died mid-write
    assert [r.request_id for r in read_records(path)] == ["r0", "r1"]


def test_a_line_that_is_not_json_before_the_last_is_counted_never_silently_dropped(tmp_path: Path) -> None:
    """Only the last line can be the one a killed run was writing: a torn or garbled line
    (or bytes that are not UTF-8) with lines after it is a corrupt file, counted by reason
    by both readers; the torn last line is counted as what it is (the request being written when
    the run stopped), never as a corrupt line nor as nothing."""
    path = tmp_path / "records.jsonl"
    torn = rec(3).to_json()[:40]
    path.write_bytes(
        (rec(0).to_json() + "\ngarbage not json\n" + rec(1).to_json() + "\n").encode()
        + b'{"request_id": "r9", "x": "\xff\xfe"}\n'
        + (rec(2).to_json() + "\n" + torn).encode()
    )
    dropped: dict[str, int] = {}
    assert [r.request_id for r in read_records(path, dropped)] == ["r0", "r1", "r2"]
    assert dropped == {NOT_JSON: 2, TORN_LAST_LINE: 1}
    reader, points, _ = read_file(path)
    assert reader.dropped == {NOT_JSON: 2, TORN_LAST_LINE: 1}
    assert dropped_lines(path, reader) == {
        NOT_JSON: "line 2: not JSON (nor a torn last line)",
        TORN_LAST_LINE: "line 6: not JSON: the request being written when the run stopped",
    }
    assert len(points[0].ok) == 3
    whole = tmp_path / "whole.jsonl"
    whole.write_text(rec(0).to_json() + "\n" + torn + "\n", encoding="utf-8")  # torn, then its newline: still the last line
    dropped = {}
    assert [r.request_id for r in read_records(whole, dropped)] == ["r0"] and dropped == {TORN_LAST_LINE: 1}
    assert read_file(whole)[0].dropped == {TORN_LAST_LINE: 1}
    intact = tmp_path / "intact.jsonl"
    intact.write_text(rec(0).to_json() + "\n" + rec(1).to_json() + "\n", encoding="utf-8")
    dropped = {}
    assert len(list(read_records(intact, dropped))) == 2 and dropped == {} and read_file(intact)[0].dropped == {}


def test_blank_lines_are_skipped(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text("\n" + rec(0).to_json() + "\n\n   \n" + rec(1).to_json() + "\n", encoding="utf-8")
    assert [r.request_id for r in read_records(path)] == ["r0", "r1"]


def test_unknown_keys_from_a_newer_writer_are_ignored(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    data = json.loads(rec(0).to_json()) | {"added_later": 1}
    path.write_text(json.dumps(data) + "\n", encoding="utf-8")
    assert list(read_records(path)) == [rec(0)]


def test_writer_creates_missing_folders_and_appends(tmp_path: Path) -> None:
    path = tmp_path / "run" / "deep" / "records.jsonl"
    with RecordWriter(path) as w:
        w.write(rec(0))
    with RecordWriter(path) as w:
        w.write(rec(1))
        assert w.count == 1
    assert [r.request_id for r in read_records(path)] == ["r0", "r1"]


def test_close_is_idempotent(tmp_path: Path) -> None:
    w = RecordWriter(tmp_path / "r.jsonl")
    w.close()
    w.close()


def test_header_line_is_not_a_record(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as writer:
        writer.write_header({"run_id": "x", "workload_id": "w"})
        assert path.read_text(encoding="utf-8").count("\n") == 1  # flushed at once too
        writer.write(rec(0))
        assert writer.count == 1  # the header is not a record
    assert [r.request_id for r in read_records(path)] == ["r0"]
    assert read_header(path) == {"run_id": "x", "workload_id": "w"}


def test_file_without_header(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    with RecordWriter(path) as writer:
        writer.write(rec(0))
    assert read_header(path) is None


def test_torn_header_is_no_header_and_no_record(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    path.write_text('{"header":{"run_id":"x","wor', encoding="utf-8")
    assert read_header(path) is None
    assert list(read_records(path)) == []
