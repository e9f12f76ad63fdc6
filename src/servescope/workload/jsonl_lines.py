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
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Protocol

from servescope import limits
from servescope.errors import UsageError

_BOM = b"\xef\xbb\xbf"  # a UTF-8 byte order mark some editors write
_SHOWN_CHARS = 60


def shown(value: Any) -> str:
    """A value read from a user's file or option, as they wrote it in JSON: ``true`` not
    ``True``, ``100`` not ``100.0``, ``1e+12`` not ``1000000000000.0``, text quoted and
    cut short; never a Python repr."""
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isfinite(value) and value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return f"{value:g}"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= _SHOWN_CHARS else text[: _SHOWN_CHARS - 1] + "…"


class DuplicateKeyError(ValueError):
    """A JSON object that gives ``key`` twice (``json`` would keep the last silently)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key


def no_duplicate_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise DuplicateKeyError(key)
        out[key] = value
    return out


def not_utf8(raw: bytes) -> str | None:
    """None for UTF-8 bytes, else where they stop being UTF-8: ``byte 0xff at column 70``
    (``at line 3, column 70`` past the first line of ``raw``)."""
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line_start = raw.rfind(b"\n", 0, exc.start) + 1
        column = len(raw[line_start : exc.start].decode("utf-8", "replace")) + 1
        line = raw.count(b"\n", 0, exc.start) + 1
        return f"byte 0x{raw[exc.start]:02x} at " + (f"line {line}, column {column}" if line > 1 else f"column {column}")
    return None


def parse_json(raw: bytes, where: str, not_json: str) -> Any:
    """One JSON value from a user's bytes, or one line: not UTF-8 (which byte, where), a key
    given twice, or ``not_json``."""
    try:
        text = raw.decode("utf-8")  # decoded once; where it fails is worked out only then
    except UnicodeDecodeError:
        raise UsageError(f"{where}: not UTF-8 ({not_utf8(raw)}); save the file as UTF-8") from None
    try:
        return json.loads(text, object_pairs_hook=no_duplicate_keys)
    except DuplicateKeyError as exc:
        raise UsageError(f"{where}: field {shown(exc.key)} is given twice; give each field once") from None
    except ValueError:
        raise UsageError(f"{where}: {not_json}") from None


class Digest(Protocol):
    def update(self, data: bytes, /) -> None: ...


def token_count(value: Any, where: str, name: str) -> int:
    """A count of tokens read from a JSON line, one rule for every reader (a trace's lengths,
    a prompt file's max_tokens): a whole number >= 1, written as an integer or as an
    integral float (``60.0``, ``1e2``: JSON does not tell them apart); never a boolean."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value != int(value):
        raise UsageError(f"{where}: {name} {shown(value)}: give a whole number of tokens")
    if value < 1:
        raise UsageError(f"{where}: {name} {shown(value)}: give at least 1 token")
    if value > limits.MAX_TOKENS:
        raise UsageError(f"{where}: {name} {int(value):,} is above the limit of {limits.MAX_TOKENS:,} tokens (SERVESCOPE_MAX_TOKENS)")
    return int(value)


def require_file(path: Path, flag: str, advice: str = "") -> None:
    """Nothing, or one line saying what the path given with ``flag`` is instead of a regular
    file: missing, a folder, or a device, FIFO, socket or broken link (``/dev/null`` is not
    "no such file")."""
    if path.is_file():
        return
    from servescope.documents.walk import file_type

    odd = file_type(path)
    why = f"is {odd}, not a regular file" if odd is not None else "a folder, not a file" if path.is_dir() else "no such file"
    raise UsageError(f"{flag} {path}: {why}" + (f"; {advice}" if advice else ""))


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
            value = parse_json(raw, where, not_json)
            values += 1
            yield where, value
        if beyond_cap is not None:
            while line := fh.readline(max_line_bytes + 1):  # blank lines after the cap-th value are still blank
                if line.strip():
                    raise UsageError(f"{flag} {path}: {beyond_cap}")


__all__ = ["DuplicateKeyError", "jsonl_values", "no_duplicate_keys", "not_utf8", "parse_json", "require_file", "shown", "token_count"]
