"""A user's JSONL file (a prompt file, a trace), streamed: one JSON value a line.

Bounded memory whatever the file's size: a line is read up to ``max_line_bytes`` and
refused above it, and no more than ``cap`` values are read. Blank lines are skipped, a
UTF-8 byte order mark on the first line is dropped, and each value comes with its
``where`` (``"--flag PATH: line N"``), the prefix of every one-line ``UsageError`` about
it, so the caller's field checks name the same line. The lines read, less their line
ends, go into ``digest``: the file's identity is what was used of it, whatever its
line endings.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from servescope.errors import UsageError

_BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark some editors write


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def require_file(path: Path, flag: str) -> None:
    """Nothing, or one line saying that the file given with ``flag`` is missing or a folder."""
    if not path.is_file():
        raise UsageError(f"{flag} {path}: {'a folder, not a file' if path.is_dir() else 'no such file'}")


def jsonl_values(
    path: Path,
    flag: str,
    digest: Digest,
    *,
    cap: int,
    max_line_bytes: int,
    too_long: str,
    not_json: str,
    beyond_cap: str | None = None,
) -> Iterator[tuple[str, Any]]:
    """``(where, value)`` for each non-blank line, the first ``cap`` of them; a line
    longer than ``max_line_bytes`` is ``"{where}: {too_long}"``, one that is not JSON
    ``"{where}: {not_json}"``. With ``beyond_cap``, a non-blank line after the ``cap``-th
    value is ``"{flag} {path}: {beyond_cap}"`` rather than dropped unsaid."""
    with path.open("rb") as fh:
        line_no = 0
        values = 0
        while values < cap:
            raw = fh.readline(max_line_bytes + 1)
            if not raw:
                return
            line_no += 1
            where = f"{flag} {path}: line {line_no}"
            if len(raw) > max_line_bytes and not raw.endswith(b"\n"):
                raise UsageError(f"{where}: {too_long}")
            if line_no == 1:
                raw = raw.removeprefix(_BOM)
            if not raw.strip():
                continue
            digest.update(raw.rstrip(b"\r\n") + b"\n")
            try:
                value = json.loads(raw)
            except ValueError:
                raise UsageError(f"{where}: {not_json}") from None
            values += 1
            yield where, value
        if beyond_cap is not None:
            while line := fh.readline(max_line_bytes + 1):  # blank lines after the cap-th value are still blank
                if line.strip():
                    raise UsageError(f"{flag} {path}: {beyond_cap}")


__all__ = ["jsonl_values", "require_file"]
