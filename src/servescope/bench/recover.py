"""A Result from a records file alone — for a run that was killed, interrupted or
is still going. Every finished request is in the records file (written as each
ends); the header line says what was run, so nothing else is needed.

Requests the writer indexed (``records.jsonl.rows.bin`` / ``records.jsonl.gaps.bin``,
see ``bench.recorder``) are read as arrays; the rest of the file is parsed as JSON
straight into metric columns (no object per request). A million records
summarise in about a second (benchmarks/summarize_records.py).
"""

from __future__ import annotations

import datetime as dt
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from servescope.analysis.metrics import Columns
from servescope.bench.outcome import PointOutcome
from servescope.bench.load import LoadOutcome
from servescope.bench.outcome import EngineWindow
from servescope.bench.recorder import (
    HEADER_KEY,
    NULL_I64,
    POINT_DONE_KEY,
    ROW_DTYPE,
    TOKEN_SOURCES,
    TOKENIZED_KEY,
    index_paths,
    read_records,
    unusable_reason,
)
from servescope.bench.result import RunIdentity, build_result
from servescope.bench.run_spec import RunSpec
from servescope.catalog.plan import PlannedPoint
from servescope.catalog.store import Catalog
from servescope.documents import Result
from servescope.errors import DocumentError

try:
    from orjson import JSONDecodeError as _DecodeError
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency; stdlib keeps working without it
    from json import JSONDecodeError as _DecodeError  # type: ignore[assignment]
    from json import loads as _loads  # type: ignore[assignment]


class _LineReader:
    """The JSON path: what a records line says, appended to list columns. Used for
    every part of the file the columnar index does not cover and for every row
    that needs its text (failures, prompt ids to resolve)."""

    def __init__(self) -> None:
        self.header: dict[str, Any] | None = None
        self.tokenized: dict[str, int] = {}
        self.points_done: dict[int, dict[str, Any]] = {}
        self.dropped: dict[str, int] = {}  # request lines that cannot be used, by reason
        self.points: dict[int, Columns] = {}
        self.missing_input: list[tuple[int, int, str]] = []  # (point, row, prompt id) of completed rows without a count
        self.first_start: int | None = None
        self.last_end = 0

    def span(self, fh: Any, begin: int, stop: int, block: int = 8 << 20) -> None:
        """Every line in bytes [begin, stop) of the file, read a block at a time."""
        fh.seek(begin)
        rest = b""
        while begin < stop:
            data = rest + fh.read(min(block, stop - begin))
            begin += len(data) - len(rest)
            cut = data.rfind(b"\n") + 1 if begin < stop else len(data)
            for line in data[:cut].split(b"\n"):
                if line.strip():
                    self.line(line)
            rest = data[cut:]
            if not data:
                break

    def line(self, line: bytes) -> None:
        nan = math.nan
        try:
            d = _loads(line)
        except _DecodeError:
            d = _stdlib_or_none(line)  # NaN is what Python's json writes for a float NaN; orjson refuses it
            if d is None:
                return  # the line being written when the process died
        if not isinstance(d, dict):
            return
        if "request_id" not in d:
            if HEADER_KEY in d and self.header is None:
                self.header = d[HEADER_KEY]
            elif TOKENIZED_KEY in d:
                self.tokenized = dict((d[TOKENIZED_KEY] or {}).get("input_tokens") or {})
            elif POINT_DONE_KEY in d and isinstance(d[POINT_DONE_KEY], dict) and isinstance(d[POINT_DONE_KEY].get("point"), int):
                self.points_done[d[POINT_DONE_KEY]["point"]] = d[POINT_DONE_KEY]
            return
        reason = unusable_reason(d)
        if reason is not None:
            self.dropped[reason] = self.dropped.get(reason, 0) + 1
            return
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
        if ok:
            chunks = d.get("chunk_ns")
            if chunks:
                c.chunk_flat.extend(chunks)
                c.chunk_len.append(len(chunks))
            src = d.get("token_count_source")
            if src:
                c.sources.add(src)
            if it is None and d.get("prompt_id"):
                self.missing_input.append((idx, len(c.ok) - 1, d["prompt_id"]))
        else:
            c.failed.append((d.get("stage") or "stream", d.get("category") or "other", d.get("error") or "",
                             d["request_id"], d.get("http_status")))


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
    rows = np.frombuffer(raw[: len(raw) - len(raw) % ROW_DTYPE.itemsize], dtype=ROW_DTYPE)
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


def _indexed_columns(rows: np.ndarray, gaps: np.ndarray) -> dict[int, Columns]:
    """Measured columns per point straight from index rows that need no JSON."""
    out: dict[int, Columns] = {}
    usable = (rows["needs_json"] == 0) & (rows["phase"] == 0)
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
                c.itl_gaps_ns = gaps[starts[0]: starts[-1] + lens[-1]]
            else:
                offsets = np.repeat(starts - (np.cumsum(lens) - lens), lens)
                c.itl_gaps_ns = gaps[offsets + np.arange(offsets.size)]
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
    reader, points, wall = _read(records_path)
    return reader.header, points, wall


def _read(records_path: Path) -> tuple[_LineReader, dict[int, Columns], float]:
    size = records_path.stat().st_size
    rows, gaps = _read_index(records_path, size)
    reader = _LineReader()
    slow = rows[rows["needs_json"] != 0]
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
    with records_path.open("rb") as fh:
        for begin, stop in sorted(spans):
            reader.span(fh, begin, stop)
    points = reader.points
    for idx, row, prompt_id in reader.missing_input:  # before merging: rows index the JSON columns
        if prompt_id in reader.tokenized:
            points[idx].input_tokens[row] = float(reader.tokenized[prompt_id])
            points[idx].sources.add("tokenize-endpoint")
    for idx, cols in _indexed_columns(rows, gaps).items():
        if idx in points:
            cols.extend(points[idx])  # indexed rows first, then the JSON ones; order does not change a metric
        points[idx] = cols
    first_start = reader.first_start
    last_end = reader.last_end
    if rows.size:
        fs = int(rows["start_ns"].min())
        first_start = fs if first_start is None else min(first_start, fs)
        ended = rows["end_ns"][rows["end_ns"] != NULL_I64]
        if ended.size:
            last_end = max(last_end, int(ended.max()))
    wall = (last_end - first_start) / 1e9 if first_start is not None and last_end > first_start else 0.0
    return reader, points, wall


@dataclass
class Recovered:
    result: Result
    # request lines left out of the result, by reason (unknown-phase, bad-timestamp, nan-token-count, ...)
    dropped: dict[str, int] = field(default_factory=dict)


def result_from_records(records_path: Path, catalog: Catalog | None = None) -> Result:
    return recover(records_path, catalog).result


def recover(records_path: Path, catalog: Catalog | None = None) -> Recovered:
    """The Result of a records file alone, and what of the file it could not use."""
    reader, columns, wall = _read(records_path)
    if reader.header is None:
        raise DocumentError(str(records_path), "has no run header line; is it a servescope records file?")
    spec = RunSpec.from_header(str(records_path), reader.header)
    cat = catalog or Catalog.load()
    workload = cat.workload(spec.workload_id)
    resolved = dict(spec.resolved_params)
    planned = {i: p for i, p in enumerate(resolved.get("points", []))}
    outcomes = []
    for idx in sorted(set(columns) | set(planned)):
        plan_of = planned.get(idx, {})
        point = PlannedPoint(index=idx, concurrency=int(plan_of.get("concurrency") or 1), context_tokens=plan_of.get("context_tokens"))
        done = reader.points_done.get(idx)  # absent for the point a killed run was in: its rate is not known
        load = LoadOutcome(0, 0, 0, done.get("achieved_rate")) if done else None
        engine = EngineWindow(done.get("kv_utilization"), done.get("prefix_cache_hit_rate"), done.get("preemptions")) if done else EngineWindow()
        outcomes.append(PointOutcome(point, load=load, engine=engine, prebuilt=columns.get(idx, Columns())))
    ident = RunIdentity(
        run_id=spec.run_id,
        engine_id=spec.engine.id or "unknown",
        engine_version=spec.engine.version,
        model_id=spec.model or "unknown",
        scenario=spec.scenario,
        endpoint=spec.endpoint,
        args=dict(spec.args),
        allow_network=spec.allow_network,
    )
    # The SLO check reads each request's own times (its largest chunk gap for itl_ms):
    # only then is every line parsed into a record.
    slo_records = list(read_records(records_path)) if spec.slos else None
    result = build_result(
        workload,
        outcomes,
        ident,
        resolved_params=resolved,
        started_at=spec.started_at,
        finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        wall_s=max(wall, 0.0),
        records_file=records_path.name,
        slos=spec.slos,
        requested_rate=spec.requested_rate,
        slo_records=slo_records,
    )
    return Recovered(result, dict(sorted(reader.dropped.items())))
