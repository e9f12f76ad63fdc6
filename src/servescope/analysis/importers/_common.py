"""What every importer shares: reading a harness's export without tracebacks,
and taking numbers out of it without inventing any.

Every failure is a ``DocumentError(str(path), "one clear line")``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

from servescope.documents.walk import file_type
from servescope.errors import DocumentError

# Exports are summaries; anything past this is not the file the user meant.
MAX_EXPORT_BYTES = 64 * 1024 * 1024

UNKNOWN_ENGINE = "unknown"


# Time units harnesses write next to a number, as a factor to milliseconds.
_TO_MS = {"ns": 1e-6, "us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3, "sec": 1e3, "seconds": 1e3}


def fail(path: Path, message: str) -> DocumentError:
    return DocumentError(str(path), message)


def refuse_odd(paths: Iterable[Path]) -> None:
    """An export name in a folder that is not a regular file (FIFO, symlink loop, ...) is
    refused by name: passing over it would import a run with a measurement missing."""
    for path in paths:
        odd = file_type(path)
        if odd is not None:
            raise fail(path, f"is {odd}, not a regular file; remove it from the folder or give the export file itself")


def read_bytes(path: Path) -> bytes:
    odd = file_type(path)  # before exists(): a symlink loop is not "no such file"
    if odd is not None:
        raise fail(path, f"is {odd}, not a regular file; give the export file")
    try:
        if not path.exists():
            raise fail(path, "no such file")
        if path.is_dir():
            raise fail(path, "is a folder; give the export file")
        if not path.is_file():
            raise fail(path, "is not a regular file")
        with path.open("rb") as fh:
            raw = fh.read(MAX_EXPORT_BYTES + 1)
    except OSError as exc:
        raise fail(path, f"cannot be read: {exc.strerror or exc}") from exc
    if len(raw) > MAX_EXPORT_BYTES:
        raise fail(path, f"is larger than {MAX_EXPORT_BYTES // (1024 * 1024)} MiB; not a benchmark summary export")
    if not raw.strip():
        raise fail(path, "is empty")
    return raw


def read_text(path: Path) -> str:
    raw = read_bytes(path)
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise fail(path, f"is not UTF-8 text (byte {exc.start})") from exc


def _reject_constant(token: str) -> Any:
    raise ValueError(f"non-finite number {token}")


def parse_json(path: Path, text: str, what: str) -> Any:
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except json.JSONDecodeError as exc:
        raise fail(path, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); expected {what}") from exc
    except ValueError as exc:  # NaN / Infinity, which JSON does not allow
        raise fail(path, f"is not valid JSON ({exc}); expected {what}") from exc
    except RecursionError as exc:
        raise fail(path, f"is nested too deeply; expected {what}") from exc


def read_json(path: Path, what: str) -> Any:
    return parse_json(path, read_text(path), what)


def require_mapping(path: Path, data: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(data, Mapping):
        raise fail(path, f"holds a JSON {type(data).__name__}, not an object; expected {what}")
    return data


def dig(data: Any, *keys: str | int) -> Any:
    """``data[k0][k1]...`` or None when any step is missing or of the wrong type."""
    for key in keys:
        if isinstance(key, int):
            if not isinstance(data, Sequence) or isinstance(data, str) or not -len(data) <= key < len(data):
                return None
            data = data[key]
        else:
            if not isinstance(data, Mapping) or key not in data:
                return None
            data = data[key]
    return data


def number(path: Path, value: Any, where: str) -> float | None:
    """A finite number from the export, None when absent (null); anything else is an error."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise fail(path, f"{where} is {value!r}, not a number")
    out = float(value)
    if not math.isfinite(out):
        raise fail(path, f"{where} is {value!r}, not a finite number")
    return out


def to_ms(path: Path, value: float | None, unit: Any, where: str) -> float | None:
    if value is None:
        return None
    if unit is None:
        return value
    factor = _TO_MS.get(str(unit).strip().lower())
    if factor is None:
        raise fail(path, f"{where} has unit {unit!r}; expected a time unit (ns, us, ms, s)")
    return value * factor


def whole(path: Path, value: float | None, where: str) -> int | None:
    """A count the harness reports as a float (e.g. ``16.0``); refuse a fractional count."""
    if value is None:
        return None
    if value != int(value):
        raise fail(path, f"{where} is {value}, not a whole number")
    return int(value)


def rounded_mean(value: float | None) -> int | None:
    """EvaluationRun's mean_isl/mean_osl are integers: the harness's mean, rounded half to even."""
    return None if value is None else round(value)


def iso_date(value: Any) -> str | None:
    """The calendar date of an ISO 8601 timestamp or of a Unix time in seconds; None if neither."""
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, int | float):
        if not math.isfinite(value) or value <= 0:
            return None
        try:
            return _dt.datetime.fromtimestamp(value, tz=_dt.UTC).date().isoformat()
        except (OverflowError, OSError, ValueError):
            return None
    if isinstance(value, str):
        text = value.strip()
        try:
            return _dt.datetime.fromisoformat(text).date().isoformat()
        except ValueError:
            pass
        for fmt in ("%Y%m%d-%H%M%S", "%Y-%m-%d"):
            try:
                return _dt.datetime.strptime(text, fmt).date().isoformat()
            except ValueError:
                continue
    return None


def concurrency_value(path: Path, value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value != int(value) or value < 1:
        raise fail(path, f"{where} is {value!r}; an EvaluationRun point needs a whole concurrency of at least 1")
    return int(value)
