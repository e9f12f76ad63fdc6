"""Per-request records as a table, one row per request: Parquet or CSV.

The columns are the fields of ``RequestRecord`` (``documents.record``), in its
order, typed from its annotations — a field added to the record becomes a column
without a change here, and a field of a type this module cannot write stops the
import instead of being left out:

- text, integer and boolean fields are scalar columns (null stays null);
- ``chunk_ns`` and ``chunk_tokens`` (lists of integers) are list columns in
  Parquet (``list<int64>``) and JSON text in CSV (``[1,2,3]``);
- ``server_timings``, ``tool_calls``, ``score`` and ``raw`` (objects whose keys depend on
  the engine, the scorer or the image lane) are JSON text in both formats: one fixed column type
  for every run, read back with ``json.loads``.

Parquet needs pyarrow (the ``parquet`` extra: ``pip install 'servescope[parquet]'``);
the rows are written in batches, so memory stays bounded however long the run.
The run header (the run spec the records file opens with) goes into the file's
key-value metadata as ``servescope.header``. CSV uses the standard library's
``csv`` module with or without pyarrow, so the two installs write the same bytes:
an empty cell is null (CSV cannot tell an empty string from a missing one; Parquet
can), booleans are ``true``/``false``.

A record whose value does not fit its column (a text where a count belongs: a
records file written or edited by something else) is not written; it is counted
by reason (``bad-<field>``), never dropped silently.
"""

from __future__ import annotations

import csv
import json
import types
import typing
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal

from servescope.documents.record import RequestRecord
from servescope.errors import UsageError

ExportFormat = Literal["parquet", "csv"]
ColumnKind = Literal["str", "int", "bool", "int_list", "json"]
FORMATS: tuple[ExportFormat, ...] = ("parquet", "csv")
PARQUET_INSTALL = "pip install 'servescope[parquet]'"
HEADER_METADATA_KEY = "servescope.header"
BATCH_ROWS = 65_536
_INT64 = (-(1 << 63), (1 << 63) - 1)


def _kind(annotation: Any) -> ColumnKind:
    """The column kind of a ``RequestRecord`` field annotation (``X | None`` is X)."""
    args = [a for a in typing.get_args(annotation) if a is not type(None)]
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType) and len(args) == 1:
        return _kind(args[0])
    if origin is Literal and all(isinstance(a, str) for a in args):
        return "str"
    if annotation is str:
        return "str"
    if annotation is bool:
        return "bool"
    if annotation is int:
        return "int"
    if origin is list and args == [int]:
        return "int_list"
    if origin is dict or (origin is list and args and typing.get_origin(args[0]) is dict):
        return "json"
    raise TypeError(f"RequestRecord field of type {annotation!r}: analysis.export has no column type for it")


_HINTS = typing.get_type_hints(RequestRecord)
COLUMNS: tuple[tuple[str, ColumnKind], ...] = tuple((f.name, _kind(_HINTS[f.name])) for f in fields(RequestRecord))


def _fits(kind: ColumnKind, value: Any) -> bool:
    if value is None:
        return True
    if kind == "str":
        return isinstance(value, str)
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "int":
        return type(value) is int and _INT64[0] <= value <= _INT64[1]
    if kind == "int_list":
        return isinstance(value, list) and all(type(v) is int and _INT64[0] <= v <= _INT64[1] for v in value)
    try:
        json.dumps(value, allow_nan=False)
    except (TypeError, ValueError):
        return False
    return True


def misfit(record: RequestRecord) -> str | None:
    """``bad-<field>`` for the first field whose value its column cannot hold, or None."""
    for name, kind in COLUMNS:
        if not _fits(kind, getattr(record, name)):
            return f"bad-{name}"
    return None


@dataclass
class Exported:
    """What an export wrote: the file, its rows, and the records left out by reason."""

    path: Path
    rows: int = 0
    rejected: dict[str, int] = field(default_factory=dict)


def _json_text(value: Any) -> str | None:
    return None if value is None else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def _accepted(records: Iterable[RequestRecord], outcome: Exported) -> Iterator[RequestRecord]:
    for r in records:
        reason = misfit(r)
        if reason is None:
            outcome.rows += 1
            yield r
        else:
            outcome.rejected[reason] = outcome.rejected.get(reason, 0) + 1


def _csv_cell(kind: ColumnKind, value: Any) -> str:
    if value is None:
        return ""
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("int_list", "json"):
        return _json_text(value) or ""
    return str(value)


def write_csv(records: Iterable[RequestRecord], path: Path) -> Exported:
    """One row per record; list and object fields as JSON text, null as an empty cell."""
    outcome = Exported(path)
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh)
        writer.writerow([name for name, _ in COLUMNS])
        for r in _accepted(records, outcome):
            writer.writerow([_csv_cell(kind, getattr(r, name)) for name, kind in COLUMNS])
    return outcome


def _pyarrow() -> Any:
    try:
        import pyarrow as pa
        import pyarrow.parquet as pq
    except ImportError:
        raise UsageError(f"--format parquet needs pyarrow, which is not installed: {PARQUET_INSTALL} (or use --format csv)") from None
    return pa, pq


def arrow_schema(header: dict[str, Any] | None = None) -> Any:
    """The Parquet schema of the export (pyarrow), with the run header as metadata."""
    pa, _ = _pyarrow()
    types_of: dict[ColumnKind, Any] = {"str": pa.string(), "int": pa.int64(), "bool": pa.bool_(), "int_list": pa.list_(pa.int64()), "json": pa.string()}
    metadata = {HEADER_METADATA_KEY: json.dumps(header, separators=(",", ":"))} if header is not None else None
    return pa.schema([pa.field(name, types_of[kind]) for name, kind in COLUMNS], metadata=metadata)


def _column_value(kind: ColumnKind) -> Callable[[Any], Any]:
    return _json_text if kind == "json" else (lambda v: v)


def write_parquet(records: Iterable[RequestRecord], path: Path, header: dict[str, Any] | None = None) -> Exported:
    """One row per record, written ``BATCH_ROWS`` at a time."""
    pa, pq = _pyarrow()
    schema = arrow_schema(header)
    convert = [(name, _column_value(kind)) for name, kind in COLUMNS]
    outcome = Exported(path)
    batch: list[RequestRecord] = []

    def flush(writer: Any) -> None:
        columns = [pa.array([conv(getattr(r, name)) for r in batch], type=schema.field(name).type) for name, conv in convert]
        writer.write_table(pa.Table.from_arrays(columns, schema=schema))
        batch.clear()

    with pq.ParquetWriter(str(path), schema) as writer:
        for r in _accepted(records, outcome):
            batch.append(r)
            if len(batch) >= BATCH_ROWS:
                flush(writer)
        if batch or not outcome.rows:
            flush(writer)  # an empty run still gets its columns
    return outcome


def export_records(records: Iterable[RequestRecord], path: Path, fmt: ExportFormat, header: dict[str, Any] | None = None) -> Exported:
    """Write ``records`` to ``path`` as ``fmt`` (its folder is made if missing)."""
    if fmt not in FORMATS:
        raise UsageError(f"--format {fmt!r}: choose one of {', '.join(FORMATS)}")
    if fmt == "parquet":
        _pyarrow()  # say what to install before anything is created
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return write_parquet(records, path, header) if fmt == "parquet" else write_csv(records, path)
    except OSError as exc:
        raise UsageError(f"--out {path}: cannot write it: {exc.strerror or exc}") from None


__all__ = [
    "COLUMNS",
    "FORMATS",
    "HEADER_METADATA_KEY",
    "PARQUET_INSTALL",
    "ExportFormat",
    "Exported",
    "arrow_schema",
    "export_records",
    "misfit",
    "write_csv",
    "write_parquet",
]
