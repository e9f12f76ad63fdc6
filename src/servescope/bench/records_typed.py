"""The typed fast path of the records reader: request lines decoded by msgspec into a
struct whose field types are the rules of ``records.unusable_field``.

What reading a million lines without their index costs, and how it is kept down:

- a block whose every line is plainly one request object (``_plain_lines``) is decoded
  in one ``decode_lines`` call (no bytes object a line); any other block line by line;
- chunk times are left as JSON text by the decoder and a block's lists parsed by numpy in
  one call (``_chunk_times``: no Python int a chunk time); a block with a list that is not
  plainly whole numbers is decoded again with msgspec checking every list;
- the rules across fields are checked on the block's columns at once (``_usable``), the
  columns built with attribute getters mapped in C, and the chunk times turned into ITL
  gaps here (in a worker of a split read), so the parent does not.

Only a line that decodes, meets every rule and needs nothing else is taken here; every
other line (a header, a failure, a torn or hand-edited line, one whose prompt id must be
resolved, one whose first token or end is before its start, an image render's line with
its raw payload) is handed back to the line-by-line reader, which judges it exactly as it
always has: the typed path is a shortcut for the common line, never a second set of
rules (``tests/bench/test_records_typed.py`` checks both readers agree on hostile mixes
of lines).
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Annotated, Any, Literal, cast

import msgspec
import numpy as np

from servescope import limits
from servescope.analysis.metrics import Columns, chunk_gaps

_INT64_MAX = (1 << 63) - 1
_Time = Annotated[int, msgspec.Meta(ge=0, le=_INT64_MAX)]
_Tokens = Annotated[int, msgspec.Meta(ge=0, le=limits.MAX_TOKENS)]
_Point = Annotated[int, msgspec.Meta(ge=0, lt=1 << 31)]
_Attempts = Annotated[int, msgspec.Meta(ge=1, le=0xFFFFFFFF)]
_NULL = msgspec.Raw(b"null")
_INT32_MIN, _INT32_MAX = -(1 << 31), (1 << 31) - 1


class _RequestFields(msgspec.Struct, gc=False, kw_only=True):
    """The fields of a request line the reader uses, typed as ``unusable_field`` requires
    (a field it does not judge is not decoded). ``ok`` and ``phase`` are required: the line
    reader reads a line without ``ok`` as a failure and one without ``phase`` as not measured.
    In the order ``RequestRecord.to_json`` writes them: msgspec matches a key against the
    field after the last one first (~10% of the decode)."""

    request_id: Annotated[str, msgspec.Meta(min_length=1)]
    phase: Literal["measured", "warmup"]
    point: _Point | None = None
    prompt_id: str | None = None
    start_ns: _Time = 0
    first_token_ns: _Time | None = None
    end_ns: _Time | None = None
    chunk_ns: Any = None  # typed by each kind of line below
    input_tokens: _Tokens | None = None
    output_tokens: _Tokens | None = None
    token_count_source: str | None = None
    ok: bool
    attempts: _Attempts | None = None
    raw: None = None  # an image render's payload (s_per_image): such a line does not decode here, it is the line reader's


class RequestLine(_RequestFields, gc=False, kw_only=True):
    """A request line with its chunk times decoded and checked one by one (the reference
    for ``RawChunksLine``, and what a block whose chunk lists are not plain falls back to)."""

    chunk_ns: list[_Time] | None = None


class RawChunksLine(_RequestFields, gc=False, kw_only=True):
    """A request line with its chunk times left as JSON text: a block's lists are parsed
    together into one numpy array (``_chunk_times``), with no Python int per chunk time
    (32 million of them in a million-record run: most of what decoding a line cost)."""

    chunk_ns: msgspec.Raw = _NULL


_decode_checked = msgspec.json.Decoder(RequestLine).decode
_decode_raw_chunks = msgspec.json.Decoder(RawChunksLine).decode
_decode_raw_chunk_lines = msgspec.json.Decoder(RawChunksLine).decode_lines
_Line = RequestLine | RawChunksLine
_START, _FIRST, _END = attrgetter("start_ns"), attrgetter("first_token_ns"), attrgetter("end_ns")
_INPUT, _OUTPUT, _ATTEMPTS = attrgetter("input_tokens"), attrgetter("output_tokens"), attrgetter("attempts")
_SOURCE, _PHASE, _POINT, _CHUNK_NS = attrgetter("token_count_source"), attrgetter("phase"), attrgetter("point"), attrgetter("chunk_ns")
_OK, _PROMPT, _ID = attrgetter("ok"), attrgetter("prompt_id"), attrgetter("request_id")
_LINE_START = b'{"request_id":'


def _plain_lines(block: bytes | memoryview) -> tuple[np.ndarray, np.ndarray] | None:
    """(start, end) byte offsets of the lines of ``block`` (ends without the newline) when
    every line starts with ``{"request_id":`` and ends with ``}``; else None. msgspec's
    ``decode_lines`` reads JSON values, not lines (two values on one line, one value over
    two lines, blank lines skipped); with every line so bounded no value can span lines (a
    value open at a line's closing brace cannot go on with the next line's opening one),
    so as many values as lines means exactly one value per line, as the line reader reads them."""
    text = np.frombuffer(block, dtype=np.uint8)
    if not text.size:
        return None
    ends = np.flatnonzero(text == ord("\n"))
    if text[-1] != ord("\n"):
        ends = np.append(ends, text.size)  # the file's last line, without its newline
    starts = np.concatenate(([0], ends[:-1] + 1))
    if np.any(ends - starts <= len(_LINE_START)):
        return None
    for k, byte in enumerate(_LINE_START):
        if not np.all(text[starts + k] == byte):
            return None
    if not np.all(text[ends - 1] == ord("}")):
        return None
    return starts, ends


def _decoded(lines: list[bytes], decode: Callable[[bytes], _Line]) -> list[_Line | None]:
    """Each line decoded, None where it does not decode or breaks a rule (judged line by line)."""
    decoded: list[_Line | None] = []
    append = decoded.append
    while len(decoded) < len(lines):
        try:
            for line in itertools.islice(lines, len(decoded), None):
                append(decode(line))
        except msgspec.DecodeError:
            append(None)
    return decoded


def _needs_nothing_else(r: _Line | None) -> bool:
    """A decoded line the typed path can take: completed, its first token and end not before
    its start (rules across fields), and no prompt id to resolve into an input count."""
    if r is None or not r.ok:
        return False
    start, first, end = r.start_ns, r.first_token_ns, r.end_ns
    return (first is None or first >= start) and (end is None or end >= start) and not (r.input_tokens is None and r.prompt_id)


_SMALL_BLOCK = 64 << 10
_EXACT = float(1 << 53)  # below it an int64 time is exact as a float64


@dataclass
class _Fields:
    """A block's lines as columns, made once (attribute getters mapped in C, not a Python
    expression a line) for both the rules across fields and the metric columns."""

    start: np.ndarray  # int64
    first: np.ndarray  # float64, nan where null
    end: np.ndarray
    input: np.ndarray
    output: np.ndarray

    @classmethod
    def of(cls, lines: list[_Line]) -> _Fields:
        n = len(lines)
        return cls(
            np.fromiter(map(_START, lines), dtype=np.int64, count=n),
            np.array(list(map(_FIRST, lines)), dtype=np.float64),  # None -> nan
            np.array(list(map(_END, lines)), dtype=np.float64),
            np.array(list(map(_INPUT, lines)), dtype=np.float64),
            np.array(list(map(_OUTPUT, lines)), dtype=np.float64),
        )

    def __getitem__(self, rows: np.ndarray) -> _Fields:
        return _Fields(self.start[rows], self.first[rows], self.end[rows], self.input[rows], self.output[rows])

    def exact(self) -> bool:
        """Every time below 2**53: exact as float64, so compared and reduced as floats."""
        top = max(int(self.start.max(initial=0)), np.nanmax(self.first, initial=0.0), np.nanmax(self.end, initial=0.0))
        return bool(top < _EXACT)


def _usable(decoded: list[_Line], fields: _Fields) -> np.ndarray:
    """``_needs_nothing_else`` of every line, its rules applied to columns of the block at
    once (times compared as float64 when all are below 2**53, where that is exact)."""
    n = len(decoded)
    if not fields.exact():
        return np.fromiter(map(_needs_nothing_else, decoded), dtype=bool, count=n)
    ok = np.fromiter(map(_OK, decoded), dtype=bool, count=n)
    start = fields.start.astype(np.float64)
    ok &= np.isnan(fields.first) | (fields.first >= start)
    ok &= np.isnan(fields.end) | (fields.end >= start)
    no_input = np.isnan(fields.input)
    if no_input.any():  # a prompt id to resolve into an input count: the line reader's
        ok &= ~(no_input & np.fromiter(map(bool, map(_PROMPT, decoded)), dtype=bool, count=n))
    return ok


@dataclass
class TypedLines:
    """Measured columns per point of the lines taken by the typed path, and the
    time span of every line taken (warm-up included, as the line reader counts it)."""

    parts: dict[int, list[Columns]] = field(default_factory=dict)
    first_start: int | None = None
    last_end: int = 0
    key: Callable[[str], int] = hash  # of a request id (the reader's: ``records_duplicates``)
    keyed: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)  # (keys, line offsets) of the lines taken, every phase

    def take_block(self, block: bytes | memoryview, at: int) -> list[tuple[bytes, int]]:
        """``take`` of the lines of ``block`` (whole lines, the first at byte ``at``). A block
        whose every line is plainly one request object is decoded in one call, without a
        Python bytes object per line; any other block goes line by line (``take``)."""
        bounds = _plain_lines(block) if len(block) >= _SMALL_BLOCK else None  # a few lines (an index's failed rows): line by line is cheaper
        decoded: list[_Line | None] | None = None
        if bounds is not None:
            try:
                decoded = list(_decode_raw_chunk_lines(block))
            except msgspec.DecodeError:  # a line that breaks a rule: the block is judged line by line
                decoded = None
        if bounds is None or decoded is None or len(decoded) != len(bounds[0]):
            lines = bytes(block).split(b"\n")
            if lines and not lines[-1]:
                lines.pop()  # the block ends with a newline
            return self.take(lines, at)
        fields = _Fields.of(cast(list[_Line], decoded))
        kept = _usable(cast(list[_Line], decoded), fields)
        every = bool(kept.all())
        taken = cast(list[_Line], decoded if every else list(itertools.compress(decoded, kept.tolist())))
        chunks = _chunk_times(list(map(_CHUNK_NS, taken)))
        if chunks is None:
            return self.take(bytes(block).split(b"\n")[: len(decoded)], at)
        starts, ends = bounds
        skipped = np.flatnonzero(~kept).tolist()
        rest = [(bytes(block[starts[i] : ends[i]]), at + int(starts[i])) for i in skipped]
        self._add(taken, starts[kept] + at, *chunks, fields if every else fields[kept])
        return rest

    def take(self, lines: list[bytes], at: int) -> list[tuple[bytes, int]]:
        """Take what the typed path can of consecutive ``lines`` (the first at byte ``at``);
        the rest is returned as (line, byte offset) in file order for the line-by-line reader."""
        decoded = _decoded(lines, _decode_raw_chunks)
        usable = list(map(_needs_nothing_else, decoded))
        taken = cast(list[_Line], list(itertools.compress(decoded, usable)))
        chunks = _chunk_times(list(map(_CHUNK_NS, taken)))
        if chunks is None:  # a chunk list that is not plain whole numbers: every list checked by msgspec, as the reference does
            decoded = _decoded(lines, _decode_checked)
            usable = list(map(_needs_nothing_else, decoded))
            taken = cast(list[_Line], list(itertools.compress(decoded, usable)))
            chunks = _listed_chunk_times(cast(list[RequestLine], taken))
        rest: list[tuple[bytes, int]] = []
        offsets = at + np.cumsum([0, *map(len, lines)])[:-1] + np.arange(len(lines))
        if len(taken) < len(lines):
            rest = [(line, int(offsets[i])) for i, (line, ok) in enumerate(zip(lines, usable, strict=True)) if not ok]
        self._add(taken, offsets[np.asarray(usable, dtype=bool)] if lines else offsets, *chunks)
        return rest

    def _add(self, taken: list[_Line], offsets: np.ndarray, counts: np.ndarray, flat: np.ndarray, fields: _Fields | None = None) -> None:
        """The lines taken from one block (starting at byte ``offsets``; ``counts``, ``flat``: their
        chunk times; ``fields``: their columns, if made) into the columns, the time span and the
        keys of the requests used."""
        if not taken:
            return
        fields = fields or _Fields.of(taken)
        self.keyed.append((np.fromiter(map(self.key, map(_ID, taken)), dtype=np.int64, count=len(taken)), offsets.astype(np.int64)))
        first_start = int(fields.start.min())
        self.first_start = first_start if self.first_start is None else min(self.first_start, first_start)
        if fields.exact():
            last_end = int(np.nanmax(fields.end, initial=0.0))
        else:
            last_end = max(filter(None, map(_END, taken)), default=0)  # times are >= 0: a 0 changes no max
        self.last_end = max(self.last_end, last_end)
        phases = set(map(_PHASE, taken))
        points = {p or 0 for p in set(map(_POINT, taken))}
        if len(phases) == 1 and len(points) == 1:  # one point, all measured: the usual block
            if phases.pop() == "measured":
                self.parts.setdefault(points.pop(), []).append(_columns(taken, fields, counts, flat))
            return
        kinds = {(r.phase, r.point or 0) for r in taken}
        for phase, point in kinds:
            if phase != "measured":
                continue
            chosen = [r.phase == "measured" and (r.point or 0) == point for r in taken]
            group = list(itertools.compress(taken, chosen))
            mask = np.array(chosen, dtype=bool)
            self.parts.setdefault(point, []).append(_columns(group, fields[mask], counts[mask], flat[np.repeat(mask, counts)]))

    def columns(self) -> dict[int, Columns]:
        """Each point's columns, the parts of every block joined once."""
        return {point: joined(parts) for point, parts in self.parts.items()}

    def extend(self, other: TypedLines) -> None:
        """Add what ``other`` took (a later part of the file)."""
        for point, parts in other.parts.items():
            self.parts.setdefault(point, []).extend(parts)
        self.keyed += other.keyed
        if other.first_start is not None:
            self.first_start = other.first_start if self.first_start is None else min(self.first_start, other.first_start)
        self.last_end = max(self.last_end, other.last_end)


_SENTINEL = b",-1,"  # between two lines' lists: no chunk time is negative, so each -1 parsed marks where a line's times end


def _chunk_times(lists: list[msgspec.Raw]) -> tuple[np.ndarray, np.ndarray] | None:
    """(number of chunk times of each line, all of them in one array) from the lines' raw
    ``chunk_ns`` texts (valid JSON, msgspec checked that), parsed in one call by numpy;
    None when any text is not null or a flat list of whole numbers in 0..2**63-2 (a nested
    list, a float, a string, a negative or too large number): such a block is decoded
    again with every list checked by msgspec (``RequestLine``), which names no value here.

    The non-empty lists are joined with ``,-1,`` between them and their outer brackets
    blanked in place (a bracket left is a nested list: numpy refuses it), so numpy's one
    parse gives every time and, at each -1, where a line's times end: no scan of the text
    for commas. A list holding a negative number shows as one -1 too many (or a number
    below 0 that is not -1): refused."""
    n = len(lists)
    if not n:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64)
    sizes = np.fromiter(map(len, lists), dtype=np.int64, count=n)
    step = sizes + len(_SENTINEL)
    buf = bytearray(_SENTINEL).join(lists)
    text = np.frombuffer(buf, dtype=np.uint8)
    starts = np.cumsum(step) - step  # where each line's text starts in ``buf``
    first = text[starts]
    has = (first == ord("[")) & (sizes > 2)  # "[]" has none
    if not has.all():  # some lines without chunk times: null or "[]", anything else is not plain
        if not np.all((first == ord("[")) | (first == ord("n"))):  # a JSON value starting with n is null
            return None
        chosen = has.tolist()
        found = _chunk_times(list(itertools.compress(lists, chosen))) if any(chosen) else (np.zeros(0, dtype=np.int64),) * 2
        if found is None:
            return None
        counts = np.zeros(n, dtype=np.int64)
        counts[has] = found[0]
        return counts, found[1]
    after = text[starts + 1]
    if not np.all(((after >= ord("0")) & (after <= ord("9"))) | (after == ord("-"))):
        return None  # "[ ]" or "[ 1]": numpy would read a blank between commas as a 0
    text[starts] = ord(" ")
    text[starts + sizes - 1] = ord(" ")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # an older numpy only warns when text is left over
            parsed = np.fromstring(bytes(buf), dtype=np.int64, sep=",")
    except (ValueError, DeprecationWarning):  # not a number (float, string, true, object, a nested list's bracket)
        return None
    ends = np.flatnonzero(parsed < 0)
    if ends.size != n - 1 or not np.all(parsed[ends] == -1):
        return None  # a negative chunk time
    flat = np.delete(parsed, ends)
    # numpy saturates a number past int64 at its maximum: a time of exactly 2**63-1 is left to msgspec too
    if flat.size and int(flat.max()) >= _INT64_MAX:
        return None
    return np.diff(ends, prepend=-1, append=parsed.size) - 1, flat


def _listed_chunk_times(lines: list[RequestLine]) -> tuple[np.ndarray, np.ndarray]:
    """``_chunk_times`` of lines whose lists msgspec decoded and checked."""
    counts = np.fromiter((len(r.chunk_ns or ()) for r in lines), dtype=np.int64, count=len(lines))
    flat = np.fromiter(itertools.chain.from_iterable(r.chunk_ns or () for r in lines), dtype=np.int64, count=int(counts.sum()))
    return counts, flat


def _columns(group: list[_Line], fields: _Fields, counts: np.ndarray, flat: np.ndarray) -> Columns:
    """One block's completed measured requests of one point as numpy columns (``counts``:
    each one's number of chunk times, ``flat``: those times one after another)."""
    n = len(group)
    attempts = [a for a in map(_ATTEMPTS, group) if a is not None]
    sources = set(map(_SOURCE, group))
    sources.discard(None)
    sources.discard("")
    return Columns(  # attribute getters mapped in C, not a Python expression a line
        ok=np.ones(n, dtype=bool),
        start_ns=fields.start,
        first_ns=fields.first,
        end_ns=fields.end,
        input_tokens=fields.input,
        output_tokens=fields.output,
        itl_gaps_ns=_narrowed(chunk_gaps(flat, counts[counts > 0])),  # here, in a worker of a split read: not in the parent after it
        sources={s for s in sources if s},
        resends=sum(a - 1 for a in attempts) if attempts else None,
        resent_requests=sum(a > 1 for a in attempts) if attempts else None,
    )


def _narrowed(gaps: np.ndarray) -> np.ndarray:
    """ITL gaps as int32 when they all fit (any under 2.1 s): half the bytes that joining a
    million requests' gaps, sending a worker's back and sorting them for percentiles move."""
    if gaps.size and gaps.min() >= _INT32_MIN and gaps.max() <= _INT32_MAX:
        return gaps.astype(np.int32)
    return gaps


def joined(parts: list[Columns]) -> Columns:
    """One block's columns after another, as one set of columns (the gaps int32 when every part's are)."""
    if len(parts) == 1:
        return parts[0]
    out = Columns()
    for name in ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens"):
        setattr(out, name, np.concatenate([getattr(p, name) for p in parts]))
    gaps = [np.asarray(p.itl_gaps_ns) for p in parts]
    narrow = all(g.dtype == np.int32 for g in gaps)  # else widened, losslessly
    out.itl_gaps_ns = np.concatenate(gaps, dtype=np.int32 if narrow else np.int64)
    for p in parts:
        out.sources |= p.sources
        if p.resends is not None:
            out.resends = (out.resends or 0) + p.resends
            out.resent_requests = (out.resent_requests or 0) + (p.resent_requests or 0)
    return out
