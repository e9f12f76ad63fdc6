"""The records format, in one place: the writer, the columnar index, the readers.

Per-request records go to disk as each request ends.

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

- ``records.jsonl.rows.bin``: a version header (``ROWS_MAGIC``), then one fixed-size row
  (``ROW_DTYPE``) per request — where its line sits in the JSONL file, its times, token
  counts, number of chunks and the key of its id;
- ``records.jsonl.gaps.bin``: the gaps between consecutive chunks of every request
  (int64 ns, concatenated) — the pooled ITL sample, ready to use.

The JSONL file stays the record of truth: the index is written after the line,
the reader checks it against the JSONL file and parses (as JSON) every part of
the file the index does not cover, and every row that needs text (a failure
message, a prompt id) — so a torn index, a missing one, or lines appended by
another writer are never lost.

Readers: ``read_records`` (RequestRecord objects, for tests and tools),
``read_header`` / ``read_extra`` (one non-request line), and ``read_file`` /
``read_columns`` (straight into metric columns, no object per request: a million
records summarise in about a second, benchmarks/summarize_records.py). The JSON
``read_file`` parses goes first through ``records_typed`` (a request line decoded into a typed
struct whose types are ``unusable_field``'s rules; what it cannot take is judged here line
by line), split over processes past ``PARALLEL_JSON_BYTES``. A request
line that cannot be used (``unusable_reason``: unknown phase, bad timestamps, NaN
token counts, ...) is counted by reason, never used and never dropped silently; the
first line left out for each reason is kept as "line N: field = value" so the user
can find it. Index rows are checked too: a row whose times or counts cannot be true
(negative, past ``limits.MAX_TOKENS``) is read as JSON, where its line is judged.
A request on more than one line counts once, by every reader (``records_duplicates``).
"""

from __future__ import annotations

import dataclasses
import gc
import itertools
import json
import math
import multiprocessing
import os
import struct
import sys
import threading
from array import array
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from pathlib import Path
from types import TracebackType
from typing import Any, get_args

import numpy as np

from servescope import limits
from servescope.analysis.metrics import Columns, chunk_gaps, seconds_per_image
from servescope.bench.outcome import EngineWindow
from servescope.bench.records_duplicates import CONFLICTING, DUPLICATE, Duplicates, SeenRequests, find_duplicates, id_key, without
from servescope.bench.records_shared import received, share, shared_fd
from servescope.bench.records_typed import TypedLines
from servescope.documents.record import RequestRecord
from servescope.documents.result import FailureCategory, FailureStage
from servescope.redaction import redact_obj

try:
    from orjson import JSONDecodeError as _DecodeError
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency; stdlib keeps working without it
    from json import JSONDecodeError as _DecodeError  # type: ignore[assignment]
    from json import loads as _loads  # type: ignore[assignment]

HEADER_KEY = "header"
POINT_DONE_KEY = "point_done"
TOKENIZED_KEY = "tokenized"
ROWS_SUFFIX = ".rows.bin"
GAPS_SUFFIX = ".gaps.bin"

# Little-endian, packed: 84 bytes a request.
ROW_DTYPE = np.dtype(
    [
        ("offset", "<u8"),  # byte offset of the record's line in the JSONL file
        ("length", "<u4"),  # its length in bytes, newline included
        ("point", "<i4"),
        ("phase", "u1"),  # 0 measured, 1 warmup
        ("ok", "u1"),
        ("source", "u1"),  # index into TOKEN_SOURCES
        ("needs_json", "u1"),  # 1: read the line itself (failure text, prompt id to resolve, unknown source, image raw payload)
        ("start_ns", "<i8"),
        ("first_ns", "<i8"),  # NULL_I64 = no token
        ("end_ns", "<i8"),  # NULL_I64 = never ended
        ("input_tokens", "<i8"),  # NULL_I64 = unknown
        ("output_tokens", "<i8"),
        ("gap_start", "<u8"),  # index of its first chunk gap in the gaps file; it has n_chunks - 1 of them
        ("n_chunks", "<u4"),
        ("attempts", "<u4"),  # sends of the request (RequestRecord.attempts); 0 = not recorded
        ("id_key", "<i8"),  # records_duplicates.id_key(request_id): a request on two rows is found without its JSON
    ]
)
INDEX_VERSION = 2
"""The rows file opens with one row-sized header: ``ROWS_MAGIC`` (version 2: rows carry ``id_key``). A rows file
without it (version 1, 76-byte rows without the key, written before 2026-12-07) is never read as rows: its lines are
read as JSON, and a writer appending to its records file starts the rows file again."""
ROWS_MAGIC = b"SSROWS" + INDEX_VERSION.to_bytes(2, "little")
NULL_I64 = np.iinfo(np.int64).min
TOKEN_SOURCES: tuple[str | None, ...] = (None, "server-usage", "tokenize-endpoint", "stream-count", "simulated", "mixed")
_SOURCE_CODE = {s: i for i, s in enumerate(TOKEN_SOURCES)}
_ROW_STRUCT = struct.Struct("<QIiBBBBqqqqqQIIq")  # the same layout as ROW_DTYPE, packed per request without numpy
assert _ROW_STRUCT.size == ROW_DTYPE.itemsize


def index_paths(records_path: Path) -> tuple[Path, Path]:
    """(rows, gaps) index files of a records file."""
    return records_path.with_name(records_path.name + ROWS_SUFFIX), records_path.with_name(records_path.name + GAPS_SUFFIX)


def _last_byte(path: Path) -> bytes:
    with path.open("rb") as fh:
        fh.seek(-1, 2)
        return fh.read(1)


def _open_rows(path: Path) -> Any:
    """The rows file, for appending: its header written when it is new (or of an older version:
    restarted, its records' lines are then read as JSON), a torn last row cut off."""
    fh = _open_aligned(path, ROW_DTYPE.itemsize)
    if fh.tell():
        with path.open("rb") as check:
            if check.read(len(ROWS_MAGIC)) == ROWS_MAGIC:
                return fh
        fh.truncate(0)
        fh.seek(0)
    fh.write(ROWS_MAGIC.ljust(ROW_DTYPE.itemsize, b"\0"))
    fh.flush()
    return fh


def _open_aligned(path: Path, unit: int) -> Any:
    fh = path.open("ab")
    size = fh.tell()
    if size % unit:
        fh.truncate(size - size % unit)
        fh.seek(0, 2)
    return fh


# A record's fields that hold numbers only: never scanned (a stream's chunk times are
# thousands of integers); every other field may carry a server's or a model's text.
_NUMBER_LISTS = frozenset({"chunk_ns", "chunk_tokens"})
_TEXT_FIELDS = tuple(f.name for f in dataclasses.fields(RequestRecord) if f.name not in _NUMBER_LISTS)


def redacted_record(record: RequestRecord) -> RequestRecord:
    """``record`` as it may reach disk: every text, dict and list in it (error messages,
    an echoed body, output text, tool calls, the score) under the one redaction rule
    (``redaction.redact_obj``). The record itself is left as it is (a copy when
    anything changes): what is measured and scored is not touched."""
    changed: dict[str, Any] = {}
    for name in _TEXT_FIELDS:
        value = getattr(record, name)
        if isinstance(value, str | dict | list) and value:
            clean = redact_obj(value)
            if clean != value:
                changed[name] = clean
    if not changed:
        return record
    copy = dataclasses.replace(record, **changed)
    return copy


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
        self._rows = _open_rows(rows_path)
        self._gaps = _open_aligned(gaps_path, 8)
        self._gap_pos = self._gaps.tell() // 8
        self.count = 0

    def write_header(self, header: dict[str, Any]) -> None:
        self.write_extra(HEADER_KEY, header)

    def write_point_done(self, point: int, achieved_rate: float | None, engine: EngineWindow) -> None:
        """The end of a point: what recovery cannot compute from the request lines, its achieved
        rate and what the engine said over it (the GPUs' summary too, when they were scraped)."""
        done: dict[str, Any] = {
            "point": point,
            "achieved_rate": achieved_rate,
            "kv_utilization": engine.kv_utilization,
            "prefix_cache_hit_rate": engine.prefix_cache_hit_rate,
            "prefix_cache_queries": engine.prefix_cache_queries,
            "preemptions": engine.preemptions,
        }
        if engine.gpu is not None:
            done["gpu"] = engine.gpu
        self.write_extra(POINT_DONE_KEY, done)

    def write_extra(self, key: str, payload: dict[str, Any]) -> None:
        """A non-request line (``{"header": ...}``, ``{"tokenized": ...}``), redacted:
        the header carries the run spec (args, resolved params, endpoint)."""
        self._write_line(json.dumps({key: redact_obj(payload)}, separators=(",", ":")) + "\n")

    def _write_line(self, line: str) -> tuple[int, int]:
        data = line.encode("utf-8")
        self._fh.write(data)
        self._fh.flush()
        offset = self._pos
        self._pos += len(data)
        return offset, len(data)

    def write(self, record: RequestRecord) -> None:
        offset, length = self._write_line(redacted_record(record).to_json() + "\n")
        source = _SOURCE_CODE.get(record.token_count_source, 255)
        # an image render's numbers (raw.payload: s_per_image) live in its line only
        needs_json = (not record.ok) or source == 255 or (record.input_tokens is None and record.prompt_id is not None) or record.raw is not None
        chunks = record.chunk_ns
        row = _ROW_STRUCT.pack(
            offset,
            length,
            -1 if record.point is None else record.point,
            0 if record.phase == "measured" else 1,
            int(bool(record.ok)),
            source if source != 255 else 0,
            int(needs_json),
            int(record.start_ns or 0),
            _i64(record.first_token_ns),
            _i64(record.end_ns),
            _i64(record.input_tokens),
            _i64(record.output_tokens),
            self._gap_pos,
            len(chunks),
            min(record.attempts or 0, 0xFFFFFFFF),
            id_key(record.request_id),
        )
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
_STAGES = frozenset(get_args(FailureStage))
_CATEGORIES = frozenset(get_args(FailureCategory))


def _is_time(v: Any) -> bool:
    return type(v) is int and 0 <= v <= _INT64_MAX


def _shown(v: Any) -> str:
    text = repr(v)
    return text if len(text) <= 60 else text[:57] + "..."


def unusable_field(d: dict[str, Any]) -> tuple[str, str] | None:
    """Why a request line cannot be used: (reason, "field = value"), or None. Our
    writer never writes such a line; another writer, an edit or a damaged disk can."""
    rid = d.get("request_id")
    if not (isinstance(rid, str) and rid):
        return "bad-request-id", f"request_id = {_shown(rid)}"
    if d.get("phase", "measured") not in ("measured", "warmup"):
        return "unknown-phase", f"phase = {_shown(d.get('phase'))}"
    for k in ("start_ns", "first_token_ns", "end_ns"):
        if (k == "start_ns" or d.get(k) is not None) and not _is_time(d.get(k, 0)):
            return "bad-timestamp", f"{k} = {_shown(d.get(k))}"
    start = d.get("start_ns", 0)
    for k in ("first_token_ns", "end_ns"):  # latency is measured from start_ns: nothing happens before it
        if d.get(k) is not None and d[k] < start:
            return "bad-timestamp", f"{k} = {d[k]} < start_ns = {start}"
    chunks = d.get("chunk_ns")
    if chunks is not None and not (isinstance(chunks, list) and all(_is_time(c) for c in chunks)):
        return "bad-timestamp", f"chunk_ns = {_shown(chunks)}"
    for k in ("input_tokens", "output_tokens"):
        v = d.get(k)
        if v is None or (type(v) is int and 0 <= v <= limits.MAX_TOKENS):
            continue
        return ("nan-token-count" if isinstance(v, float) and math.isnan(v) else "bad-token-count"), f"{k} = {_shown(v)}"
    p = d.get("point")
    if p is not None and not (type(p) is int and 0 <= p < 1 << 31):
        return "bad-point", f"point = {_shown(p)}"
    a = d.get("attempts")
    if a is not None and not (type(a) is int and 1 <= a <= 0xFFFFFFFF):
        return "bad-attempts", f"attempts = {_shown(a)}"
    if "ok" in d and type(d["ok"]) is not bool:
        return "bad-ok", f"ok = {_shown(d['ok'])}"
    if d.get("ok") is not True:  # a failure (the columns reader counts a line without ok as one) becomes a Failure entry: its fields must fit one
        for k, allowed in (("stage", _STAGES), ("category", _CATEGORIES)):
            if d.get(k) is not None and not (isinstance(d[k], str) and d[k] in allowed):  # a list or dict is not hashable
                return "bad-failure", f"{k} = {_shown(d[k])}"
        if d.get("error") is not None and not isinstance(d["error"], str):
            return "bad-failure", f"error = {_shown(d['error'])}"
        h = d.get("http_status")
        if h is not None and not (type(h) is int and 100 <= h <= 999):
            return "bad-failure", f"http_status = {_shown(h)}"
    return None


def unusable_reason(d: dict[str, Any]) -> str | None:
    """Why a request line cannot be used (one reason), or None (``unusable_field``)."""
    found = unusable_field(d)
    return None if found is None else found[0]


NOT_JSON = "not-json"
"""The reason a line that is not JSON (nor UTF-8) is left out, unless it is the file's last
line: that one is the line a killed run was writing (torn), not a corrupt file."""

TORN_LAST_LINE = "torn-last-line"
"""The reason the file's last line is left out when it is not JSON: the request a stopped
run was writing (expected after a kill; said, so that no summary reads "nothing left out")."""


def read_records(path: Path, dropped: dict[str, int] | None = None, duplicates: dict[str, list[str]] | None = None) -> Iterator[RequestRecord]:
    """Records of a (possibly partial) run; a torn final line is skipped, and so is
    a line that cannot be used (``unusable_reason``) or is not JSON before the last,
    counted in ``dropped``, and so is a request's line after its first (``records_duplicates``;
    ``duplicates``: reason -> the ids of those requests, each once, in file order)."""
    seen = SeenRequests(path, _stdlib_or_none)  # as this reader reads a line
    named: set[tuple[str, str]] = set()
    unreadable = False  # the line before was not JSON: torn if it was the last, corrupt if another follows
    at = 0
    with path.open("rb") as fh:
        for line in fh:
            offset, at = at, at + len(line)
            if not line.strip():
                continue
            if unreadable and dropped is not None:
                dropped[NOT_JSON] = dropped.get(NOT_JSON, 0) + 1
            try:
                data = json.loads(line)
                unreadable = False
            except ValueError:  # not JSON, or not UTF-8
                unreadable = True  # (the last line: the one being written when the process died)
                continue
            if isinstance(data, dict) and "request_id" in data:
                reason = unusable_reason(data) or seen.left_out(data["request_id"], line, offset, data)
                if reason is None:
                    yield RequestRecord.from_dict(data)
                    continue
                if duplicates is not None and reason in (DUPLICATE, CONFLICTING) and (reason, data["request_id"]) not in named:
                    named.add((reason, data["request_id"]))
                    duplicates.setdefault(reason, []).append(data["request_id"])
                if dropped is not None:
                    dropped[reason] = dropped.get(reason, 0) + 1
    if unreadable and dropped is not None:
        dropped[TORN_LAST_LINE] = dropped.get(TORN_LAST_LINE, 0) + 1


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


class _LineReader:
    """The JSON path: what a records line says, appended to list columns. Used for
    every part of the file the columnar index does not cover and for every row
    that needs its text (failures, prompt ids to resolve)."""

    def __init__(self, typed: bool = True, key: Callable[[str], int] = id_key) -> None:
        # the typed fast path takes the common request line (records_typed); None: every line here
        self.typed: TypedLines | None = TypedLines(key=key) if typed else None
        self.key = key  # of a used request's id: duplicates are found by these keys (``records_duplicates``)
        self.keyed: list[tuple[np.ndarray, np.ndarray]] = []  # (keys, line offsets) of requests used from the index and the typed path
        self.keys: list[int] = []  # of the requests used read here, line by line
        self.key_offsets: list[int] = []  # where their lines start
        self.deferred: list[tuple[bytes, int]] | None = None  # set: the lines the typed path hands back wait here (a worker's part)
        self.header: dict[str, Any] | None = None
        self.tokenized: dict[str, int] = {}
        self.points_done: dict[int, dict[str, Any]] = {}
        self.dropped: dict[str, int] = {}  # request lines that cannot be used, by reason
        self.first_dropped: dict[str, tuple[int, str]] = {}  # reason -> (byte offset of its first line, "field = value")
        self.unreadable: list[tuple[int, int]] = []  # (byte offset, length) of lines that are not JSON: the last one may be torn
        self.points: dict[int, Columns] = {}
        self.missing_input: list[tuple[int, int, str]] = []  # (point, row, prompt id) of completed rows without a count
        self.first_start: int | None = None
        self.last_end = 0

    def span(self, fh: Any, begin: int, stop: int, block: int = 8 << 20) -> None:
        """Every line in bytes [begin, stop) of the file, read a block of whole lines at a
        time: each read starts where a line starts, so no block is copied to join the line
        the previous one cut (fresh memory costs a page fault a page on a VM)."""
        fh.seek(begin)
        while begin < stop:
            want = min(block, stop - begin)
            chunk = fh.read(want)
            if not chunk:
                return  # the file is shorter than it was: what is left is a torn line
            cut = len(chunk) if begin + len(chunk) >= stop else chunk.rfind(b"\n") + 1
            if not cut:
                if len(chunk) < want:
                    return  # the file ends inside this line: a torn line
                block *= 2  # one line longer than a block: read it whole
                fh.seek(begin)
                continue
            if cut < len(chunk):
                fh.seek(begin + cut)
            self._lines(memoryview(chunk)[:cut] if cut < len(chunk) else chunk, begin)
            begin += cut

    def _lines(self, block: bytes | memoryview, at: int) -> None:
        """Every non-blank line of ``block`` (which starts at byte ``at``): the typed path
        first, then line by line what it hands back."""
        if self.typed is not None:
            rest = self.typed.take_block(block, at)
            if self.deferred is not None:
                self.deferred += rest
                return
            for line, offset in rest:
                if line.strip():
                    self.line(line, offset)
            return
        lines = bytes(block).split(b"\n")
        if lines and not lines[-1]:
            lines.pop()  # the block ends with a newline
        for line in lines:
            if line.strip():
                self.line(line, at)
            at += len(line) + 1

    def index_requests(self, keys: np.ndarray, offsets: np.ndarray) -> None:
        """The keys and line offsets of the requests the index's rows give."""
        self.keyed.append((keys, offsets.astype(np.int64)))

    def used_requests(self) -> tuple[np.ndarray, np.ndarray]:
        """(key, line offset) of every request line used (after ``finish``)."""
        keyed = [*self.keyed, (np.array(self.keys, dtype=np.int64), np.array(self.key_offsets, dtype=np.int64))]
        return np.concatenate([k for k, _ in keyed]), np.concatenate([o for _, o in keyed])

    def finish(self) -> None:
        """Join what the typed path took to the columns and time span read line by line
        (after the prompt ids of those were resolved: their row numbers index these lists)."""
        if self.typed is None:
            return
        self.keyed += self.typed.keyed
        for idx, cols in self.typed.columns().items():
            if idx in self.points:
                cols.extend(self.points[idx])
                if len(cols.chunk_flat):  # the ITL gaps of the lines read one by one go after the typed path's, as when both were chunk times
                    cols.itl_gaps_ns = np.concatenate((np.asarray(cols.itl_gaps_ns, dtype=np.int64), chunk_gaps(cols.chunk_flat, cols.chunk_len)))
                    cols.chunk_flat, cols.chunk_len = [], []
            self.points[idx] = cols
        if self.typed.first_start is not None:
            self.first_start = self.typed.first_start if self.first_start is None else min(self.first_start, self.typed.first_start)
        self.last_end = max(self.last_end, self.typed.last_end)
        self.typed = TypedLines(key=self.key)

    def count_unreadable(self, size: int) -> None:
        """Lines that are not JSON, except the file's last (``size`` bytes): the line a killed
        run was writing is torn, any earlier one is a corrupt file, left out by reason."""
        for offset, length in sorted(self.unreadable):
            if offset >= 0 and offset + length >= size - 1:  # the last line (with or without its newline)
                self.dropped[TORN_LAST_LINE] = self.dropped.get(TORN_LAST_LINE, 0) + 1
                self.first_dropped.setdefault(TORN_LAST_LINE, (offset, "not JSON: the request being written when the run stopped"))
                continue
            self.dropped[NOT_JSON] = self.dropped.get(NOT_JSON, 0) + 1
            if NOT_JSON not in self.first_dropped or 0 <= offset < self.first_dropped[NOT_JSON][0]:
                self.first_dropped[NOT_JSON] = (offset, "not JSON (nor a torn last line)")
        self.unreadable = []

    def line(self, line: bytes, offset: int = -1) -> None:
        nan = math.nan
        try:
            d = _loads(line)
        except _DecodeError:
            d = _stdlib_or_none(line)  # NaN is what Python's json writes for a float NaN; orjson refuses it
            if d is None:
                self.unreadable.append((offset, len(line)))  # torn (the last line) or corrupt: judged once the whole file is read
                return
        if not isinstance(d, dict):
            return
        if "request_id" not in d:
            if HEADER_KEY in d and self.header is None:
                self.header = d[HEADER_KEY]
            elif TOKENIZED_KEY in d:
                self.tokenized = _token_counts(d[TOKENIZED_KEY])
            elif POINT_DONE_KEY in d and isinstance(d[POINT_DONE_KEY], dict) and isinstance(d[POINT_DONE_KEY].get("point"), int):
                self.points_done[d[POINT_DONE_KEY]["point"]] = _point_done(d[POINT_DONE_KEY])
            return
        unusable = unusable_field(d)
        if unusable is not None:
            reason, what = unusable
            self.dropped[reason] = self.dropped.get(reason, 0) + 1
            if reason not in self.first_dropped or 0 <= offset < self.first_dropped[reason][0]:
                self.first_dropped[reason] = (offset, what)
            return
        self.keys.append(self.key(d["request_id"]))
        self.key_offsets.append(offset)
        start = d.get("start_ns") or 0
        end = d.get("end_ns")
        self.first_start = start if self.first_start is None else min(self.first_start, start)
        if end is not None and end > self.last_end:
            self.last_end = end
        if d.get("phase") != "measured":
            return
        idx = d.get("point") or 0
        c = self.points.get(idx)
        if c is None:
            c = self.points[idx] = Columns()
        ok = bool(d.get("ok"))
        c.ok.append(ok)
        c.start_ns.append(start)
        ft = d.get("first_token_ns")
        c.first_ns.append(nan if ft is None else ft)
        c.end_ns.append(nan if end is None else end)
        it = d.get("input_tokens")
        ot = d.get("output_tokens")
        c.input_tokens.append(nan if it is None else it)
        c.output_tokens.append(nan if ot is None else ot)
        attempts = d.get("attempts")
        if attempts is not None:
            c.resends = (c.resends or 0) + max(0, attempts - 1)
            c.resent_requests = (c.resent_requests or 0) + (attempts > 1)
        if ok:
            chunks = d.get("chunk_ns")
            if chunks:
                c.chunk_flat.extend(chunks)
                c.chunk_len.append(len(chunks))
            src = d.get("token_count_source")
            if src and isinstance(src, str):  # another kind of value names no source (and would reach the Result)
                c.sources.add(src)
            spi = seconds_per_image(d.get("raw"))
            if spi is not None:
                c.s_per_image.append(spi)
            prompt_id = d.get("prompt_id")
            if it is None and prompt_id and isinstance(prompt_id, str):  # a list is no prompt id (nor hashable)
                self.missing_input.append((idx, len(c.ok) - 1, prompt_id))
        else:
            c.failed.append((d.get("stage") or "stream", d.get("category") or "other", d.get("error") or "", d["request_id"], d.get("http_status")))


def _token_counts(payload: Any) -> dict[str, int]:
    """The counts of a ``tokenized`` line that can be token counts (whole numbers in
    0..MAX_TOKENS); any other value is left out, so the input count stays null."""
    counts = payload.get("input_tokens") if isinstance(payload, dict) else None
    if not isinstance(counts, dict):
        return {}
    return {str(k): v for k, v in counts.items() if type(v) is int and 0 <= v <= limits.MAX_TOKENS}


def _point_done(payload: dict[str, Any]) -> dict[str, Any]:
    """A ``point_done`` line's figures that can be what they claim; any other is null."""

    def number(v: Any, top: float = math.inf) -> float | None:
        ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v) and 0 <= v <= top
        return float(v) if ok else None

    preemptions = payload.get("preemptions")
    return {
        "point": payload["point"],
        "achieved_rate": number(payload.get("achieved_rate")),
        "kv_utilization": number(payload.get("kv_utilization"), 1.0),
        "prefix_cache_hit_rate": number(payload.get("prefix_cache_hit_rate"), 1.0),
        "prefix_cache_queries": number(payload.get("prefix_cache_queries")),
        "preemptions": preemptions if type(preemptions) is int and preemptions >= 0 else None,
        # the point's GPU telemetry block: checked where it is read (bench.recover._gpu_block)
        "gpu": payload.get("gpu") if isinstance(payload.get("gpu"), dict) else None,
    }


def _stdlib_or_none(line: bytes) -> Any:
    try:
        return json.loads(line)
    except ValueError:
        return None


def _read_index(records_path: Path, size: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of the columnar index that agree with the JSONL file, and the chunk
    gaps; empty when there is no index or it does not match the file."""
    rows_path, gaps_path = index_paths(records_path)
    empty = (np.zeros(0, dtype=ROW_DTYPE), np.zeros(0, dtype=np.int64))
    if not rows_path.is_file() or not gaps_path.is_file():
        return empty
    raw = rows_path.read_bytes()
    whole_rows = len(raw) // ROW_DTYPE.itemsize - 1  # after the header (which a killed writer may have left torn)
    if not raw.startswith(ROWS_MAGIC) or whole_rows < 1:  # an older version's rows (or not rows): never misread, the JSON is read instead
        return empty
    rows = np.frombuffer(raw, dtype=ROW_DTYPE, offset=ROW_DTYPE.itemsize, count=whole_rows)
    n_gap_values = gaps_path.stat().st_size // 8
    # mapped, not read: a contiguous run's gaps are then used in place, read once by the ITL formula
    gaps = np.memmap(gaps_path, dtype="<i8", mode="r", shape=(n_gap_values,)) if n_gap_values else np.zeros(0, dtype=np.int64)
    if not rows.size:
        return empty
    ends = rows["offset"] + rows["length"]
    n_gaps = np.maximum(rows["n_chunks"].astype(np.int64) - 1, 0)
    fits = (ends <= size) & (rows["gap_start"].astype(np.int64) + n_gaps <= gaps.size)
    keep = int(np.argmin(fits)) if not fits.all() else rows.size  # the prefix a killed writer left whole
    rows = rows[:keep]
    if not rows.size or np.any(rows["offset"][1:] < ends[: keep - 1]):
        return empty
    with records_path.open("rb") as fh:  # spot-check both ends: the lines are where the index says
        for r in (rows[0], rows[-1]):
            fh.seek(int(r["offset"]))
            line = fh.read(int(r["length"]))
            if not (line.startswith(b'{"request_id":') and line.endswith(b"\n")):
                return empty
    return rows, gaps


def _implausible_rows(rows: np.ndarray) -> np.ndarray:
    """Rows whose times or counts cannot be true (before start_ns, negative, past ``limits.MAX_TOKENS``):
    their lines are read as JSON instead, where ``unusable_field`` names what is wrong."""
    bad = (rows["start_ns"] < 0) | (rows["phase"] > 1)
    for name in ("first_ns", "end_ns"):
        col = rows[name]
        bad |= (col != NULL_I64) & (col < rows["start_ns"])
    for name in ("input_tokens", "output_tokens"):
        col = rows[name]
        bad |= (col != NULL_I64) & ((col < 0) | (col > limits.MAX_TOKENS))
    return bad


def _indexed_columns(rows: np.ndarray, gaps: np.ndarray, as_json: np.ndarray | None = None) -> dict[int, Columns]:
    """Measured columns per point straight from index rows that need no JSON."""
    out: dict[int, Columns] = {}
    usable = (rows["needs_json"] == 0) & (rows["phase"] == 0)
    if as_json is not None:
        usable &= ~as_json
    if not usable.any():
        return out
    point = np.where(rows["point"] < 0, 0, rows["point"])
    used = point[usable]
    # one point (a serving run) is the common case: no sort of a million ids for it
    indices = [int(used[0])] if used.min() == used.max() else np.unique(used).tolist()
    for idx in indices:
        sel = usable & (point == idx)
        every = bool(sel.all())

        def col(name: str, sel: np.ndarray = sel, every: bool = every) -> np.ndarray:
            return rows[name] if every else rows[name][sel]

        ok = col("ok").astype(bool)
        c = Columns(
            ok=ok,
            start_ns=col("start_ns"),
            first_ns=_nullable(col("first_ns")),
            end_ns=_nullable(col("end_ns")),
            input_tokens=_nullable(col("input_tokens")),
            output_tokens=_nullable(col("output_tokens")),
        )
        n_chunks = col("n_chunks")
        has_gaps = ok & (n_chunks > 1)
        if has_gaps.any():
            starts = col("gap_start")[has_gaps].astype(np.int64)
            lens = n_chunks[has_gaps].astype(np.int64) - 1
            if np.array_equal(starts[1:], starts[:-1] + lens[:-1]):  # contiguous: one slice, no gather
                c.itl_gaps_ns = gaps[starts[0] : starts[-1] + lens[-1]]
            else:
                offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
                c.itl_gaps_ns = gaps[offsets + np.arange(offsets.size)]
        attempts = col("attempts").astype(np.int64)
        known = attempts > 0
        if known.any():
            c.resends = int((attempts[known] - 1).sum())
            c.resent_requests = int((attempts[known] > 1).sum())
        codes = np.flatnonzero(np.bincount(col("source")[ok], minlength=1)).tolist()
        c.sources = {s for s in (TOKEN_SOURCES[k] for k in codes if k < len(TOKEN_SOURCES)) if s}
        out[idx] = c
    return out


def _nullable(col: np.ndarray) -> np.ndarray:
    out = col.astype(np.float64)
    out[col == NULL_I64] = np.nan
    return out


def read_columns(records_path: Path) -> tuple[dict[str, Any] | None, dict[int, Columns], float]:
    """(header, measured columns per point, wall seconds) of a records file.

    Rows of the columnar index are read as arrays; everything else (the header, the
    tokenized line, any line the index does not cover, failed requests) as JSON."""
    reader, points, wall = read_file(records_path)
    return reader.header, points, wall


def read_file(records_path: Path, *, typed: bool = True) -> tuple[_LineReader, dict[int, Columns], float]:
    """Everything a records file says: its reader (header, point_done and tokenized
    lines, dropped lines by reason), measured columns per point, and wall seconds.
    ``typed=False`` reads every JSON line one by one (the reference the typed path is tested against).
    A request on more than one line counts once (``records_duplicates``): the file is then read
    again without the later lines, counted as left out."""
    size = records_path.stat().st_size
    rows, gaps = _read_index(records_path, size)
    reader, points, wall = _read(records_path, size, rows, gaps, typed, None)
    found = find_duplicates(records_path, *reader.used_requests(), _parsed, reader.key)
    if found is not None and found.mismatched:  # the index's rows are not the file's lines (an edit moved them): JSON only
        rows, gaps = np.zeros(0, dtype=ROW_DTYPE), np.zeros(0, dtype=np.int64)
        reader, points, wall = _read(records_path, size, rows, gaps, typed, None)
        found = find_duplicates(records_path, *reader.used_requests(), _parsed, reader.key)
    if found is None or found.mismatched:  # (a line the readers took that no JSON reader here reads again: left as read)
        return reader, points, wall
    reader, points, wall = _read(records_path, size, rows, gaps, typed, found)
    for reason, n in found.counts.items():
        reader.dropped[reason] = reader.dropped.get(reason, 0) + n
    reader.first_dropped.update(found.first)
    return reader, points, wall


def _parsed(line: bytes) -> Any:
    """A used request line's JSON, as ``_LineReader.line`` reads it (None: not JSON)."""
    try:
        return _loads(line)
    except _DecodeError:
        return _stdlib_or_none(line)


def _read(
    records_path: Path, size: int, rows: np.ndarray, gaps: np.ndarray, typed: bool, duplicates: Duplicates | None
) -> tuple[_LineReader, dict[int, Columns], float]:
    """``read_file``'s one read of the file, the lines of ``duplicates`` left out (their rows too)."""
    # the keys of the requests used: the index's (stored, the same in every process) or, with no index, Python's hash (fast)
    reader = _LineReader(typed, id_key if rows.size else hash)
    implausible = _implausible_rows(rows)
    as_json = (rows["needs_json"] != 0) | implausible
    slow = rows[as_json]
    # JSON work in file order: the gaps between indexed lines, and indexed lines that need their text
    spans: list[tuple[int, int]] = [(int(o), int(o + n)) for o, n in zip(slow["offset"], slow["length"], strict=True)]
    if rows.size:
        offsets = rows["offset"].astype(np.int64)
        line_gap_starts = np.concatenate(([0], offsets + rows["length"]))
        line_gap_ends = np.concatenate((offsets, [size]))
        uncovered = line_gap_ends > line_gap_starts
        spans += list(zip(line_gap_starts[uncovered].tolist(), line_gap_ends[uncovered].tolist(), strict=True))
    else:
        spans.append((0, size))
    spans.sort()
    if duplicates is not None:
        spans = without(spans, duplicates.skip)
        kept = ~np.isin(rows["offset"], np.fromiter(duplicates.skip, dtype=np.uint64, count=len(duplicates.skip)))
        rows, implausible, as_json = rows[kept], implausible[kept], as_json[kept]
    reader.index_requests(rows["id_key"][~as_json], rows["offset"][~as_json])
    _read_spans(records_path, spans, reader)
    reader.count_unreadable(size)
    points = reader.points
    for idx, row, prompt_id in reader.missing_input:  # before merging: rows index the JSON columns
        if prompt_id in reader.tokenized:
            points[idx].input_tokens[row] = float(reader.tokenized[prompt_id])
            points[idx].sources.add("tokenize-endpoint")
    reader.finish()
    for idx, cols in _indexed_columns(rows, gaps, as_json).items():
        if idx in points:
            json_cols = points[idx]
            json_gaps, json_cols.itl_gaps_ns = json_cols.itl_gaps_ns, []
            cols.extend(json_cols)  # indexed rows first, then the JSON ones
            if len(json_gaps):  # the pooled ITL sample in its usual order: the JSON lines' gaps before the index's
                cols.itl_gaps_ns = np.concatenate((np.asarray(json_gaps, dtype=np.int64), np.asarray(cols.itl_gaps_ns, dtype=np.int64)))
        points[idx] = cols
    first_start = reader.first_start
    last_end = reader.last_end
    sane = rows[~implausible]  # an implausible row's line was judged as JSON: its times count only if it was used
    if sane.size:
        fs = int(sane["start_ns"].min())
        first_start = fs if first_start is None else min(first_start, fs)
        ended = sane["end_ns"][sane["end_ns"] != NULL_I64]
        if ended.size:
            last_end = max(last_end, int(ended.max()))
    wall = (last_end - first_start) / 1e9 if first_start is not None and last_end > first_start else 0.0
    for cols in points.values():
        gaps_of = cols.itl_gaps_ns  # made by this read (not the index's read-only map): the formulas may sort it in place
        cols.itl_gaps_owned = isinstance(gaps_of, np.ndarray) and not isinstance(gaps_of, np.memmap) and gaps_of.flags.writeable
    return reader, points, wall


PARALLEL_JSON_BYTES = 64 << 20
"""JSON to read past which the typed path runs in one forked process per CPU (each a
contiguous part of the file): decoding is what reading a file without its index costs."""


def _read_spans(records_path: Path, spans: list[tuple[int, int]], reader: _LineReader) -> None:
    """Every line in ``spans`` (sorted byte ranges) into ``reader``; a large read is split
    over processes (``PARALLEL_JSON_BYTES``), the lines they cannot take judged here in file order."""
    total = sum(stop - begin for begin, stop in spans)
    workers = min(usable_cpus(), total // (PARALLEL_JSON_BYTES // 2))
    enabled = gc.isenabled()
    gc.disable()  # a million decoded lines hold millions of lists and no cycle: collections would walk them all
    try:
        parts = _split_spans(records_path, spans, workers) if reader.typed is not None and total >= PARALLEL_JSON_BYTES and workers >= 2 else []
        if len(parts) < 2 or not _may_fork():
            with records_path.open("rb") as fh:
                for begin, stop in spans:
                    reader.span(fh, begin, stop)
            return
        others = len(parts) - 1
        fds = [shared_fd() for _ in range(others)]  # where each worker writes its columns (records_shared); None: the pipe
        try:
            # the first part is read here while forked workers read the others: one process a CPU, one part less sent back
            with ProcessPoolExecutor(max_workers=max(1, others), mp_context=multiprocessing.get_context("fork")) as pool:
                later = pool.map(_typed_part, [records_path] * others, parts[1:], [reader.key] * others, fds)
                done = [_typed_lines(records_path, parts[0], reader.key)]
                for (typed, rest), fd in zip(later, fds, strict=True):
                    done.append((typed if fd is None else received(typed, fd), rest))
        except (BrokenProcessPool, OSError):  # a worker killed (out of memory) or none could start: read it here
            with records_path.open("rb") as fh:
                for begin, stop in spans:
                    reader.span(fh, begin, stop)
            return
        finally:
            for fd in fds:
                if fd is not None:
                    os.close(fd)
        assert reader.typed is not None  # parts are made for the typed path only
        for typed, rest in done:
            reader.typed.extend(typed)
            for line, offset in rest:
                if line.strip():
                    reader.line(line, offset)
    finally:
        if enabled:
            gc.enable()


def usable_cpus() -> int:
    """The CPUs this process may run on (its affinity: ``taskset``, a container's cpuset),
    not the machine's: a 64-core host that lends a job 2 CPUs splits a read in 2, not 31."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no affinity on this platform
        return os.cpu_count() or 1


def _may_fork() -> bool:
    """Forking is safe only from a process with one thread (a thread holding a lock would
    leave it held in the child), with no event loop running in it, and where the platform
    has it. A child forked under a running loop shares the loop's self-pipe and signal
    wakeup socket: a Ctrl-C it gets runs the parent's handler a second time (a run's first
    Ctrl-C would count as two), so a read called from async code stays in this process."""
    return threading.active_count() == 1 and not _loop_running() and "fork" in multiprocessing.get_all_start_methods()


def _loop_running() -> bool:
    """Whether an asyncio event loop runs in this thread (asyncio not imported: none can)."""
    aio = sys.modules.get("asyncio")
    if aio is None:
        return False
    try:
        aio.get_running_loop()
    except RuntimeError:
        return False
    return True


def _typed_part(records_path: Path, spans: list[tuple[int, int]], key: Callable[[str], int], fd: int | None) -> tuple[TypedLines, list[tuple[bytes, int]]]:
    """In a worker: ``_typed_lines``, its columns written to the parent's shared file ``fd``
    (``records_shared``; None: sent back whole, its ITL gaps already narrowed). A forked worker
    has its parent's string hash, so ``hash`` keys agree."""
    gc.disable()
    typed, rest = _typed_lines(records_path, spans, key)
    return (typed if fd is None else share(typed, fd)), rest


def _typed_lines(records_path: Path, spans: list[tuple[int, int]], key: Callable[[str], int]) -> tuple[TypedLines, list[tuple[bytes, int]]]:
    """What the typed path takes of ``spans``, and the lines it hands back (judged by the caller, in file order)."""
    reader = _LineReader(key=key)
    reader.deferred = []
    with records_path.open("rb") as fh:
        for begin, stop in spans:
            reader.span(fh, begin, stop)
    assert reader.typed is not None
    return reader.typed, reader.deferred


def _split_spans(records_path: Path, spans: list[tuple[int, int]], parts: int) -> list[list[tuple[int, int]]]:
    """``spans`` cut into ``parts`` contiguous pieces of about equal bytes, each cut at the start of a line."""
    target = sum(stop - begin for begin, stop in spans) / parts
    out: list[list[tuple[int, int]]] = [[]]
    filled = 0.0
    with records_path.open("rb") as fh:
        for begin, stop in spans:
            while len(out) < parts and filled + (stop - begin) > target:
                cut = _line_start_after(fh, begin + int(target - filled), stop)
                if cut > begin:
                    out[-1].append((begin, cut))
                out.append([])
                filled = 0.0
                begin = cut
            if stop > begin:
                out[-1].append((begin, stop))
                filled += stop - begin
    return [part for part in out if part]


def _line_start_after(fh: Any, pos: int, stop: int, block: int = 1 << 16) -> int:
    """The first byte after the first newline at or after ``pos`` (``stop`` if none before it)."""
    fh.seek(pos)
    while pos < stop:
        data = fh.read(min(block, stop - pos))
        if not data:
            return stop
        found = data.find(b"\n")
        if found >= 0:
            return pos + found + 1
        pos += len(data)
    return stop


def dropped_lines(records_path: Path, reader: _LineReader) -> dict[str, str]:
    """reason -> "line N: field = value" of the first line left out for that reason."""
    out: dict[str, str] = {}
    for reason, (offset, what) in sorted(reader.first_dropped.items()):
        out[reason] = f"line {_line_number(records_path, offset)}: {what}" if offset >= 0 else what
    return out


def _line_number(path: Path, offset: int, block: int = 8 << 20) -> int:
    """1-based number of the line starting at byte ``offset`` (a scan, only for lines left out)."""
    newlines = 0
    with path.open("rb") as fh:
        left = offset
        while left > 0:
            data = fh.read(min(block, left))
            if not data:
                break
            newlines += data.count(b"\n")
            left -= len(data)
    return newlines + 1
