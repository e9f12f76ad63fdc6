"""Duplicate request lines: a request that appears on more than one line of a records file
(a merge of files, a copy, a line pasted twice) counts once.

The rule, the same for every reader (``records.read_file`` with or without the index,
``records.read_records`` for export and the SLO check): of the usable lines with one
``request_id``, the first in the file is used and every later one is left out, counted by
reason - ``duplicate`` when it is the first line again (the same bytes, or the same JSON
written with other spacing or key order), ``conflicting-duplicate`` when it says something else. A conflicting copy is not a
reason to refuse the file: which line is true cannot be known from the file, a run's writer
writes a request once and then never rewrites it, so its first line is the one written when
the request ended; the rest of the run stays summarizable and the conflict is said, with
the request named, never silently resolved.

Kept cheap (it is on the million-record path): a reader notes a 64-bit key of each used
line's id and the line's byte offset; one sort of the keys finds candidates; only then are
those lines read again, their ids compared (a key shared by two ids is no duplicate) and
their text compared.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

DUPLICATE = "duplicate"
CONFLICTING = "conflicting-duplicate"
_SHOWN_IDS = 3


def id_key(request_id: str) -> int:
    """A request id's 64-bit key that is the same in every process and every run (the
    columnar index stores it): the first 8 bytes of its BLAKE2b digest, as a signed int64."""
    digest = hashlib.blake2b(request_id.encode("utf-8", "surrogatepass"), digest_size=8).digest()
    return int.from_bytes(digest, "little", signed=True)


@dataclass
class Duplicates:
    """The later lines of requests seen more than once: where they are, and why left out."""

    skip: dict[int, int] = field(default_factory=dict)  # byte offset -> length (newline included) of each line left out
    counts: dict[str, int] = field(default_factory=dict)  # reason -> lines left out
    first: dict[str, tuple[int, str]] = field(default_factory=dict)  # reason -> (offset of its first line, what it is)
    mismatched: bool = False  # a line is not the request its key says: an index that does not match its file


def _what(reason: str, ids: list[str], lines: int) -> str:
    shown = ", ".join(ids[:_SHOWN_IDS]) + (f" and {len(ids) - _SHOWN_IDS} more" if len(ids) > _SHOWN_IDS else "")
    if reason == DUPLICATE:
        return f"request_id = {ids[0]!r} again ({lines} duplicate line(s) of {len(ids)} request(s) left out: {shown})"
    return f"request_id = {ids[0]!r} again, saying something else ({lines} conflicting line(s) of {len(ids)} request(s) left out, the first line of each used: {shown})"


def find_duplicates(path: Path, keys: np.ndarray, offsets: np.ndarray, parse: Callable[[bytes], Any], key: Callable[[str], int]) -> Duplicates | None:
    """The duplicate lines among the used request lines at ``offsets`` (``keys``: ``key`` of
    their ids, equal for equal ids); None when there is none (the usual file: one sort).
    ``parse`` reads a line's JSON as the reader that used it read it. A line
    whose id's key is not the one given (an index row pointing at another request's line: the
    file was edited after the index was written) is said as ``mismatched``."""
    if keys.size < 2:
        return None
    ordered = np.sort(keys)
    repeated = ordered[1:][ordered[1:] == ordered[:-1]]
    if not repeated.size:
        return None
    chosen = np.isin(keys, repeated)
    order = np.argsort(offsets[chosen], kind="stable")
    candidates = zip(offsets[chosen][order].tolist(), keys[chosen][order].tolist(), strict=True)
    lines: dict[str, list[tuple[int, bytes, Any]]] = {}
    found = Duplicates()
    read = -1
    with path.open("rb") as fh:
        for offset, expected in candidates:
            if offset == read:  # one line counted twice is not two lines (no reader does; never let it remove the line)
                continue
            read = offset
            fh.seek(offset)
            line = fh.readline()
            data = parse(line)
            rid = data.get("request_id") if isinstance(data, dict) else None
            if not isinstance(rid, str) or key(rid) != expected:
                found.mismatched = True
                return found
            lines.setdefault(rid, []).append((offset, line, data))
    ids: dict[str, list[str]] = {}
    for rid, seen in lines.items():
        kept, kept_data = seen[0][1].strip(), seen[0][2]
        for offset, line, data in seen[1:]:
            reason = DUPLICATE if line.strip() == kept or data == kept_data else CONFLICTING
            found.skip[offset] = len(line)
            found.counts[reason] = found.counts.get(reason, 0) + 1
            if reason not in found.first or offset < found.first[reason][0]:
                found.first[reason] = (offset, rid)
            if rid not in ids.setdefault(reason, []):
                ids[reason].append(rid)
    if not found.skip:
        return None  # keys shared by different ids only
    for reason, (offset, rid) in found.first.items():
        named = [rid, *(i for i in ids[reason] if i != rid)]
        found.first[reason] = (offset, _what(reason, named, found.counts[reason]))
    return found


def without(spans: list[tuple[int, int]], skip: dict[int, int]) -> list[tuple[int, int]]:
    """Sorted byte ranges ``spans`` with the lines in ``skip`` (offset -> length) cut out."""
    cuts = sorted(skip.items())
    starts = [offset for offset, _ in cuts]
    out: list[tuple[int, int]] = []
    for begin, stop in spans:
        k = bisect.bisect_left(starts, begin)
        while k < len(cuts) and cuts[k][0] < stop:
            offset, length = cuts[k]
            if offset > begin:
                out.append((begin, offset))
            begin = max(begin, offset + length)
            k += 1
        if stop > begin:
            out.append((begin, stop))
    return out


class SeenRequests:
    """The streaming form of the rule, for a reader that yields records as it goes
    (``read_records``): remembers each used request's id, a hash of its first line's text
    and where that line is (read again only when a later line's text differs)."""

    def __init__(self, path: Path, parse: Callable[[bytes], Any]) -> None:
        self._path = path
        self._parse = parse
        self._first: dict[str, tuple[int, int]] = {}  # request id -> (hash of its first line, stripped; its offset)

    def left_out(self, request_id: str, line: bytes, offset: int, data: Any) -> str | None:
        """None for a request's first line (remembered); the reason a later one is left out
        (``data``: the later line as read)."""
        text = hash(line.strip())
        first = self._first.get(request_id)
        if first is None:
            self._first[request_id] = (text, offset)
            return None
        if first[0] == text:
            return DUPLICATE
        with self._path.open("rb") as fh:  # the same JSON written otherwise (spacing, key order) is the same line
            fh.seek(first[1])
            return DUPLICATE if self._parse(fh.readline()) == data else CONFLICTING
