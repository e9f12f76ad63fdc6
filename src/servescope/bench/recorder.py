"""Per-request records to disk as each request ends.

One JSON object per line, written and flushed to the OS the moment a request
finishes; the first line is a run header (``{"header": {...}}``: what is being
run, where, with which flags) so the file describes itself, so ``kill -9`` at any moment loses no finished request and a partial
run can still be summarised. ``read_records`` tolerates a torn last line.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from types import TracebackType
from typing import Any

from servescope.documents.record import RequestRecord


class RecordWriter:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path
        self._fh = path.open("a", encoding="utf-8")
        self.count = 0

    def write_header(self, header: dict[str, Any]) -> None:
        self.write_extra("header", header)

    def write_extra(self, key: str, payload: dict[str, Any]) -> None:
        """A non-request line (``{"header": ...}``, ``{"tokenized": ...}``)."""
        self._fh.write(json.dumps({key: payload}, separators=(",", ":")) + "\n")
        self._fh.flush()

    def write(self, record: RequestRecord) -> None:
        self._fh.write(record.to_json() + "\n")
        self._fh.flush()
        self.count += 1

    def close(self) -> None:
        if not self._fh.closed:
            self._fh.close()

    def __enter__(self) -> RecordWriter:
        return self

    def __exit__(self, et: type[BaseException] | None, ev: BaseException | None, tb: TracebackType | None) -> None:
        self.close()


def read_records(path: Path) -> Iterator[RequestRecord]:
    """Records of a (possibly partial) run; a torn final line is skipped."""
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            if not line.strip():
                continue
            try:
                data = json.loads(line)
            except json.JSONDecodeError:
                continue  # the line being written when the process died
            if isinstance(data, dict) and "request_id" in data:
                yield RequestRecord.from_dict(data)


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
