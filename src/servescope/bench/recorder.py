"""Per-request records to disk as each request ends.

One JSON object per line, written and flushed to the OS the moment a request
finishes; the first line is a run header (``{"header": {...}}``: the run spec of
``bench.run_spec`` — what is being run, where, with which flags, load and SLOs)
so the file describes itself, so ``kill -9`` at any moment loses no finished
request and a partial run can still be summarised. After the last request of
each point a ``{"point_done": {...}}`` line gives what only the end of a point
knows (the achieved arrival rate, the engine's counters over the point); after
the run, a ``{"tokenized": {...}}`` line may give input token counts found with
the engine's ``/tokenize``. ``read_records`` tolerates a torn last line.

Beside ``records.jsonl`` the writer keeps a columnar index (``index_paths``), so a
million records summarise in a second instead of re-parsing gigabytes of JSON:

- ``records.jsonl.rows.bin``: one fixed-size row (``ROW_DTYPE``) per request — where its
  line sits in the JSONL file, its times, token counts and number of chunks;
- ``records.jsonl.gaps.bin``: the gaps between consecutive chunks of every request
  (int64 ns, concatenated) — the pooled ITL sample, ready to use.

The JSONL file stays the record of truth: the index is written after the line,
the reader checks it against the JSONL file and parses (as JSON) every part of
the file the index does not cover, and every row that needs text (a failure
message, a prompt id) — so a torn index, a missing one, or lines appended by
another writer are never lost.
"""

from __future__ import annotations

import itertools
import json
import math
import struct
from array import array
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np

from servescope.documents.record import RequestRecord

HEADER_KEY = "header"
POINT_DONE_KEY = "point_done"
TOKENIZED_KEY = "tokenized"
ROWS_SUFFIX = ".rows.bin"
GAPS_SUFFIX = ".gaps.bin"

# Little-endian, packed: 76 bytes a request.
ROW_DTYPE = np.dtype(
    [
        ("offset", "<u8"),  # byte offset of the record's line in the JSONL file
        ("length", "<u4"),  # its length in bytes, newline included
        ("point", "<i4"),
        ("phase", "u1"),  # 0 measured, 1 warmup
        ("ok", "u1"),
        ("source", "u1"),  # index into TOKEN_SOURCES
        ("needs_json", "u1"),  # 1: read the line itself (failure text, prompt id to resolve, unknown source)
        ("start_ns", "<i8"),
        ("first_ns", "<i8"),  # NULL_I64 = no token
        ("end_ns", "<i8"),  # NULL_I64 = never ended
        ("input_tokens", "<i8"),  # NULL_I64 = unknown
        ("output_tokens", "<i8"),
        ("gap_start", "<u8"),  # index of its first chunk gap in the gaps file; it has n_chunks - 1 of them
        ("n_chunks", "<u4"),
        ("_pad", "<u4"),
    ]
)
NULL_I64 = np.iinfo(np.int64).min
TOKEN_SOURCES: tuple[str | None, ...] = (None, "server-usage", "tokenize-endpoint", "stream-count", "simulated", "mixed")
_SOURCE_CODE = {s: i for i, s in enumerate(TOKEN_SOURCES)}
_ROW_STRUCT = struct.Struct("<QIiBBBBqqqqqQII")  # the same layout as ROW_DTYPE, packed per request without numpy
assert _ROW_STRUCT.size == ROW_DTYPE.itemsize


def index_paths(records_path: Path) -> tuple[Path, Path]:
    """(rows, gaps) index files of a records file."""
    return records_path.with_name(records_path.name + ROWS_SUFFIX), records_path.with_name(records_path.name + GAPS_SUFFIX)


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1)


def _open_aligned(path: Path, unit: int) -> Any:
    fh = path.open("ab")
    size = fh.tell()
    if size % unit:
        fh.truncate(size - size % unit)
        fh.seek(0, 2)
    return fh


def _i64(v: int | None) -> int:
    return NULL_I64 if v is None else int(v)


class RecordWriter:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fh = path.open("ab")
        self._pos = self._fh.tell()
        if self._pos and _last_byte(path) != b"\n":
            self._write_line("\n")  # end a line torn by a killed writer, so ours stays whole
        rows_path, gaps_path = index_paths(path)
        # a killed writer may leave part of a row or gap: cut it, so what we append stays aligned
        self._rows = _open_aligned(rows_path, ROW_DTYPE.itemsize)
        self._gaps = _open_aligned(gaps_path, 8)
        self._gap_pos = self._gaps.tell() // 8
        self.count = 0

    def write_header(self, header: dict[str, Any]) -> None:
        self.write_extra(HEADER_KEY, header)

    def write_point_done(self, point: int, achieved_rate: float | None, kv_utilization: float | None,
                         prefix_cache_hit_rate: float | None, preemptions: int | None) -> None:
        """The end of a point: what recovery cannot compute from the request lines."""
        self.write_extra(POINT_DONE_KEY, {"point": point, "achieved_rate": achieved_rate, "kv_utilization": kv_utilization,
                                          "prefix_cache_hit_rate": prefix_cache_hit_rate, "preemptions": preemptions})

    def write_extra(self, key: str, payload: dict[str, Any]) -> None:
        """A non-request line (``{"header": ...}``, ``{"tokenized": ...}``)."""
        self._write_line(json.dumps({key: payload}, separators=(",", ":")) + "\n")

    def _write_line(self, line: str) -> tuple[int, int]:
        data = line.encode("utf-8")
        self._fh.write(data)
        self._fh.flush()
        offset = self._pos
        self._pos += len(data)
        return offset, len(data)

    def write(self, record: RequestRecord) -> None:
        offset, length = self._write_line(record.to_json() + "\n")
        source = _SOURCE_CODE.get(record.token_count_source, 255)
        needs_json = (not record.ok) or source == 255 or (record.input_tokens is None and record.prompt_id is not None)
        chunks = record.chunk_ns
        row = _ROW_STRUCT.pack(offset, length, -1 if record.point is None else record.point, 0 if record.phase == "measured" else 1,
                  int(bool(record.ok)), source if source != 255 else 0, int(needs_json), int(record.start_ns or 0),
                  _i64(record.first_token_ns), _i64(record.end_ns), _i64(record.input_tokens), _i64(record.output_tokens),
                  self._gap_pos, len(chunks), 0)
        # gaps first, then the row that counts them: a row on disk always has its gaps
        if len(chunks) > 1:
            self._gaps.write(array("q", [b - a for a, b in itertools.pairwise(chunks)]).tobytes())
            self._gaps.flush()
            self._gap_pos += len(chunks) - 1
        self._rows.write(row)
        self._rows.flush()
        self.count += 1

    def close(self) -> None:
        for fh in (self._fh, self._rows, self._gaps):
            if not fh.closed:
                fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


_INT64_MAX = (1 << 63) - 1


def _is_time(v: Any) -> bool:
    return type(v) is int and 0 <= v <= _INT64_MAX


def unusable_reason(d: dict[str, Any]) -> str | None:
    """Why a request line cannot be used (one reason), or None. Our writer never
    writes such a line; another writer, an edit or a damaged disk can."""
    if d.get("phase", "measured") not in ("measured", "warmup"):
        return "unknown-phase"
    if not _is_time(d.get("start_ns", 0)) or any(d.get(k) is not None and not _is_time(d[k]) for k in ("first_token_ns", "end_ns")):
        return "bad-timestamp"
    chunks = d.get("chunk_ns")
    if chunks is not None and not (isinstance(chunks, list) and all(_is_time(c) for c in chunks)):
        return "bad-timestamp"
    for k in ("input_tokens", "output_tokens"):
        v = d.get(k)
        if v is None or (type(v) is int and 0 <= v <= _INT64_MAX):
            continue
        return "nan-token-count" if isinstance(v, float) and math.isnan(v) else "bad-token-count"
    p = d.get("point")
    if p is not None and not (type(p) is int and 0 <= p < 1 << 31):
        return "bad-point"
    return None


def read_records(path: Path, dropped: dict[str, int] | None = None) -> Iterator[RequestRecord]:
    """Records of a (possibly partial) run; a torn final line is skipped, and so is
    a line that cannot be used (``unusable_reason``), counted in ``dropped``."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # the line being written when the process died
            if isinstance(data, dict) and "request_id" in data:
                reason = unusable_reason(data)
                if reason is None:
                    yield RequestRecord.from_dict(data)
                elif dropped is not None:
                    dropped[reason] = dropped.get(reason, 0) + 1


def read_extra(path: Path, key: str) -> dict[str, Any] | None:
    """The last ``{key: ...}`` line of a records file (e.g. ``tokenized``)."""
    found = None
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if line.startswith(f'{{"{key}":'):
                try:
                    found = json.loads(line)[key]
                except (json.JSONDecodeError, KeyError):
                    continue
    return found if isinstance(found, dict) else None


def read_header(path: Path) -> dict[str, Any] | None:
    """The run header of a records file, if its first line is one."""
    with path.open(encoding="utf-8") as fh:
        first = fh.readline()
    try:
        data = json.loads(first)
    except json.JSONDecodeError:
        return None
    header = data.get("header") if isinstance(data, dict) else None
    return header if isinstance(header, dict) else None
