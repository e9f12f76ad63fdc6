"""The typed fast path of the records reader: request lines decoded by msgspec into a
struct whose field types are the rules of ``records.unusable_field``.

A completed request's line is one decode in C (its 32 chunk times checked there, not
one Python call each) and its figures go to numpy a block at a time. Only a line that
decodes, meets every rule and needs nothing else is taken here; every other line (a
header, a failure, a torn or hand-edited line, one whose prompt id must be resolved,
one whose first token or end is before its start, an image render's line with its raw
payload) is handed back to the line-by-line
reader, which judges it exactly as it always has: the typed path is a shortcut for the
common line, never a second set of rules (``tests/bench/test_records_typed.py`` checks
both readers agree on hostile mixes of lines).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Annotated, Literal, cast

import msgspec
import numpy as np

from servescope import limits
from servescope.analysis.metrics import Columns

_INT64_MAX = (1 << 63) - 1
_Time = Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
_Tokens = Annotated[int, msgspec.Meta(ge=0, le=limits.MAX_TOKENS)]
_Point = Annotated[int, msgspec.Meta(ge=0, lt=1 << 31)]
_Attempts = Annotated[int, msgspec.Meta(ge=1, le=0xFFFFFFFF)]


class RequestLine(msgspec.Struct, gc=False):
    """The fields of a request line the reader uses, typed as ``unusable_field`` requires
    (a field it does not judge is not decoded). ``ok`` and ``phase`` are required: the line
    reader reads a line without ``ok`` as a failure and one without ``phase`` as not measured."""

    request_id: Annotated[str, msgspec.Meta(min_length=1)]
    ok: bool
    phase: Literal["measured", "warmup"]
    start_ns: _Time = 0
    point: _Point | None = None
    first_token_ns: _Time | None = None
    end_ns: _Time | None = None
    chunk_ns: list[_Time] | None = None
    input_tokens: _Tokens | None = None
    output_tokens: _Tokens | None = None
    attempts: _Attempts | None = None
    token_count_source: str | None = None
    prompt_id: str | None = None
    raw: msgspec.Raw = msgspec.Raw(b"null")  # an image render's payload (s_per_image): such a line is the line reader's


_decode = msgspec.json.Decoder(RequestLine).decode


def _decode_or_none(line: bytes) -> RequestLine | None:
    try:
        return _decode(line)
    except msgspec.DecodeError:
        return None


def _needs_nothing_else(r: RequestLine) -> bool:
    """A decoded line the typed path can take: completed, its first token and end not before
    its start (rules across fields), and no prompt id to resolve into an input count."""
    start, first, end = r.start_ns, r.first_token_ns, r.end_ns
    return (
        r.ok
        and (first is None or first >= start)
        and (end is None or end >= start)
        and not (r.input_tokens is None and r.prompt_id)
        and bytes(r.raw) == b"null"
    )


@dataclass
class TypedLines:
    """Measured columns per point of the lines taken by the typed path, and the
    time span of every line taken (warm-up included, as the line reader counts it)."""

    parts: dict[int, list[Columns]] = field(default_factory=dict)
    first_start: int | None = None
    last_end: int = 0

    def take(self, lines: list[bytes], at: int) -> list[tuple[bytes, int]]:
        """Take what the typed path can of consecutive ``lines`` (the first at byte ``at``);
        the rest is returned as (line, byte offset) in file order for the line-by-line reader."""
        decoded: list[RequestLine | None] = []
        append = decoded.append
        while len(decoded) < len(lines):
            try:
                for line in itertools.islice(lines, len(decoded), None):
                    append(_decode(line))
            except msgspec.DecodeError:  # not a request line, or one that breaks a rule: judged line by line
                append(None)
        usable = [r is not None and _needs_nothing_else(r) for r in decoded]
        taken = cast(list[RequestLine], list(itertools.compress(decoded, usable)))
        rest: list[tuple[bytes, int]] = []
        if len(taken) < len(lines):
            offsets = (at + np.cumsum([0, *map(len, lines)]) + np.arange(len(lines) + 1)).tolist()
            rest = [(line, offsets[i]) for i, (line, ok) in enumerate(zip(lines, usable, strict=True)) if not ok]
        if not taken:
            return rest
        first_start = min(r.start_ns for r in taken)
        self.first_start = first_start if self.first_start is None else min(self.first_start, first_start)
        self.last_end = max(self.last_end, max((r.end_ns for r in taken if r.end_ns is not None), default=0))
        kinds = {(r.phase, r.point or 0) for r in taken}
        if len(kinds) == 1:  # one point, all measured: the usual block
            phase, point = kinds.pop()
            if phase == "measured":
                self.parts.setdefault(point, []).append(_columns(taken))
            return rest
        measured: dict[int, list[RequestLine]] = {}
        for r in taken:
            if r.phase == "measured":
                measured.setdefault(r.point or 0, []).append(r)
        for point, group in measured.items():
            self.parts.setdefault(point, []).append(_columns(group))
        return rest

    def columns(self) -> dict[int, Columns]:
        """Each point's columns, the parts of every block joined once."""
        return {point: _joined(parts) for point, parts in self.parts.items()}

    def joined(self) -> TypedLines:
        """This, each point's parts joined into one (fewer arrays to send from a worker)."""
        return TypedLines({point: [cols] for point, cols in self.columns().items()}, self.first_start, self.last_end)

    def extend(self, other: TypedLines) -> None:
        """Add what ``other`` took (a later part of the file)."""
        for point, parts in other.parts.items():
            self.parts.setdefault(point, []).extend(parts)
        if other.first_start is not None:
            self.first_start = other.first_start if self.first_start is None else min(self.first_start, other.first_start)
        self.last_end = max(self.last_end, other.last_end)


def _columns(group: list[RequestLine]) -> Columns:
    """One block's completed measured requests of one point as numpy columns."""
    n = len(group)
    chunked = [r.chunk_ns for r in group if r.chunk_ns]
    lens = np.fromiter(map(len, chunked), dtype=np.int64, count=len(chunked))
    attempts = [r.attempts for r in group if r.attempts is not None]
    sources = {r.token_count_source for r in group}
    sources.discard(None)
    sources.discard("")
    return Columns(
        ok=np.ones(n, dtype=bool),
        start_ns=np.fromiter((r.start_ns for r in group), dtype=np.int64, count=n),
        first_ns=np.array([r.first_token_ns for r in group], dtype=np.float64),  # None -> nan
        end_ns=np.array([r.end_ns for r in group], dtype=np.float64),
        input_tokens=np.array([r.input_tokens for r in group], dtype=np.float64),
        output_tokens=np.array([r.output_tokens for r in group], dtype=np.float64),
        chunk_flat=np.fromiter(itertools.chain.from_iterable(chunked), dtype=np.int64, count=int(lens.sum())),
        chunk_len=lens,
        sources={s for s in sources if s},
        resends=sum(a - 1 for a in attempts) if attempts else None,
        resent_requests=sum(a > 1 for a in attempts) if attempts else None,
    )


def _joined(parts: list[Columns]) -> Columns:
    if len(parts) == 1:
        return parts[0]
    out = Columns()
    for name in ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens", "chunk_flat", "chunk_len"):
        setattr(out, name, np.concatenate([getattr(p, name) for p in parts]))
    for p in parts:
        out.sources |= p.sources
        if p.resends is not None:
            out.resends = (out.resends or 0) + p.resends
            out.resent_requests = (out.resent_requests or 0) + (p.resent_requests or 0)
    return out
