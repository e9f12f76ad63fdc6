"""A request trace to replay: JSONL in the Mooncake / aiperf ``mooncake_trace`` shape,
one request a line::

    {"timestamp": 0, "input_length": 6758, "output_length": 500, "hash_ids": [0, 1, 2]}

``timestamp`` is the send time in milliseconds from the trace's start (non-decreasing),
``input_length`` / ``output_length`` are token counts, and the optional ``hash_ids``
name the 512-token prefix blocks of the prompt: equal ids are equal blocks of text, so
an engine's prefix cache sees what production saw.

The file is streamed line by line (each line at most ``MAX_LINE_BYTES``, at most
``MAX_TRACE_REQUESTS`` requests unless capped by ``--num-requests``): memory stays
bounded whatever the file's size. Every bad line is one ``UsageError`` naming the
file, the line and the field.
"""

from __future__ import annotations

import hashlib
import math
from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from servescope.errors import UsageError
from servescope.workload.jsonl_lines import jsonl_values, require_file, shown, token_count
from servescope.workload.load import TRACE_BLOCK_TOKENS

MAX_LINE_BYTES = 1024 * 1024
MAX_TRACE_REQUESTS = 200_000
MAX_TIMESTAMP_MS = 30 * 24 * 3600 * 1000  # a month of traffic: beyond it a timestamp is a unit mistake
_FIELDS = ("timestamp", "input_length", "output_length", "hash_ids")


@dataclass(frozen=True, slots=True)
class TraceRequest:
    timestamp_ms: float
    input_length: int
    output_length: int
    hash_ids: array[int]  # compact: a long trace holds many of these
    line: int = 0  # the file's line (1-based; 0: not read from a file)


@dataclass(frozen=True)
class Trace:
    path: str
    requests: list[TraceRequest]
    sha256: str  # of the lines read (the ones replayed)

    def offsets_ns(self, speedup: float) -> list[int]:
        """Send offsets from the first request, the timestamps divided by ``speedup``."""
        if not self.requests:
            return []
        first = self.requests[0].timestamp_ms
        return [round((r.timestamp_ms - first) * 1e6 / speedup) for r in self.requests]

    def span_s(self, speedup: float) -> float:
        """Seconds from the first send to the last at ``speedup``."""
        return (self.requests[-1].timestamp_ms - self.requests[0].timestamp_ms) / 1000.0 / speedup if self.requests else 0.0


def span_words(seconds: float) -> str:
    """A replay's length for a person: ``1.25 s``, ``4.2 min``, ``3.5 h``, ``14.5 days``."""
    if seconds < 60:
        return f"{seconds:.3g} s"
    if seconds < 3600:
        return f"{seconds / 60:.3g} min"
    if seconds < 86400:
        return f"{seconds / 3600:.3g} h"
    return f"{seconds / 86400:,.1f} days"


def _request(obj: Any, where: str, previous_ms: float | None) -> TraceRequest:
    if not isinstance(obj, dict):
        raise UsageError(f'{where}: give one JSON object per line, e.g. {{"timestamp": 0, "input_length": 512, "output_length": 64}}')
    unknown = sorted(set(obj) - set(_FIELDS))
    if unknown:
        prompt_like = not set(_FIELDS) & set(obj) and {"prompt", "messages", "conversations"} & set(obj)
        hint = " (this line looks like a prompt file: give the file with --input-file)" if prompt_like else ""
        raise UsageError(f"{where}: field {unknown[0]!r} is not replayed; a trace line has only {', '.join(_FIELDS)}{hint}")
    for name in ("timestamp", "input_length", "output_length"):
        if name not in obj:
            raise UsageError(f"{where}: field {name!r} is missing; every line needs timestamp (ms), input_length and output_length")
    ts = obj["timestamp"]
    if isinstance(ts, bool) or not isinstance(ts, (int, float)) or not math.isfinite(ts):
        raise UsageError(f"{where}: timestamp {shown(ts)}: give milliseconds from the trace's start as a number")
    if ts < 0:
        raise UsageError(f"{where}: timestamp {shown(ts)} is negative; give milliseconds from the trace's start (>= 0)")
    if ts > MAX_TIMESTAMP_MS:
        raise UsageError(f"{where}: timestamp {shown(ts)} is more than 30 days after the trace's start; timestamps are milliseconds")
    if previous_ms is not None and ts < previous_ms:
        raise UsageError(f"{where}: timestamp {shown(ts)} is before the previous line's {shown(previous_ms)}; a trace is in send order")
    hashes = obj.get("hash_ids", [])
    if not isinstance(hashes, list) or any(isinstance(h, bool) or not isinstance(h, int) or h < 0 or h >= 2**63 for h in hashes):
        raise UsageError(f"{where}: hash_ids: give a list of block ids (integers >= 0)")
    input_length = token_count(obj["input_length"], where, "input_length")
    if len(hashes) > -(-input_length // TRACE_BLOCK_TOKENS):  # a block past the input would be cut off unsaid
        raise UsageError(
            f"{where}: hash_ids names {len(hashes)} blocks of {TRACE_BLOCK_TOKENS} tokens (at least {(len(hashes) - 1) * TRACE_BLOCK_TOKENS + 1:,} tokens) "
            f"but input_length is {input_length:,}; a Mooncake trace has at most ceil(input_length / {TRACE_BLOCK_TOKENS}) hash_ids a line"
        )
    line = int(where.rsplit(" line ", 1)[1])  # jsonl_values' where ends "line N"
    return TraceRequest(float(ts), input_length, token_count(obj["output_length"], where, "output_length"), array("q", hashes), line)


def read_trace(path: Path, max_requests: int | None = None, *, flag: str = "--trace") -> Trace:
    """The first ``max_requests`` requests of the trace (all when None), or one line."""
    require_file(path, flag)
    digest = hashlib.sha256()
    requests: list[TraceRequest] = []
    previous: float | None = None
    cap = max_requests if max_requests is not None else MAX_TRACE_REQUESTS
    lines = jsonl_values(
        path,
        flag,
        digest,
        cap=cap,
        max_line_bytes=MAX_LINE_BYTES,
        too_long=f"longer than {MAX_LINE_BYTES // 1024} KiB; a trace line is one small JSON object",
        not_json="not JSON; give one JSON object per line",
        beyond_cap=f"more than {MAX_TRACE_REQUESTS:,} requests; give --num-requests N to replay the first N" if max_requests is None else None,
    )
    for where, obj in lines:
        req = _request(obj, where, previous)
        previous = req.timestamp_ms
        requests.append(req)
    if not requests:
        raise UsageError(f"{flag} {path}: no request in the file; give JSONL lines with timestamp, input_length and output_length")
    return Trace(str(path), requests, digest.hexdigest())


__all__ = ["MAX_LINE_BYTES", "MAX_TRACE_REQUESTS", "Trace", "TraceRequest", "read_trace", "span_words"]
