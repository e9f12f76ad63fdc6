"""What a forked worker of a split records read hands back, through shared memory rather
than a pipe.

A worker's half of a million records is ~90 MB of columns (the ITL gaps most of it).
Pickled through the pool's pipe it was copied four times - into the pickle, through the
pipe, into the parent's receive buffer, out of it by unpickling - after the worker had
read its half, while the parent waited: about a second on this VM, where fresh memory is
slow. Instead the parent opens an anonymous in-memory file (``os.memfd_create``) for each
worker before forking; the worker joins its columns, writes them there once, and sends
back only where each array lies; the parent maps the file and reads the arrays in place.

Where ``memfd_create`` does not exist (not Linux) or a write fails, the arrays go back
through the pipe as before (``shared_fd`` gives None, ``share`` leaves them in place).
"""

from __future__ import annotations

import mmap
import os
from dataclasses import dataclass
from typing import Any

import numpy as np

from servescope.analysis.metrics import Columns
from servescope.bench.records_typed import TypedLines, joined

_ARRAYS = ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens", "itl_gaps_ns")
_ALIGN = 64


@dataclass(frozen=True)
class _InFile:
    """Where one array lies in the shared file."""

    offset: int
    dtype: str
    count: int


def shared_fd() -> int | None:
    """A new anonymous in-memory file for one worker's columns, or None where there is none."""
    create = getattr(os, "memfd_create", None)
    if create is None:
        return None
    try:
        fd: int = create("servescope-records")
    except OSError:
        return None
    return fd


def share(typed: TypedLines, fd: int) -> TypedLines:
    """In a worker: ``typed`` with its columns joined (one part a point) and written to ``fd``,
    each array replaced by where it lies; ``typed`` itself when the file cannot take them."""
    parts = {point: joined(cols) for point, cols in typed.parts.items()}
    keys = np.concatenate([k for k, _ in typed.keyed]) if typed.keyed else np.zeros(0, dtype=np.int64)
    offsets = np.concatenate([o for _, o in typed.keyed]) if typed.keyed else np.zeros(0, dtype=np.int64)
    out = TypedLines(first_start=typed.first_start, last_end=typed.last_end, key=typed.key)
    at = 0
    try:
        with os.fdopen(os.dup(fd), "wb") as fh:

            def put(arr: Any) -> _InFile:
                nonlocal at
                data = np.ascontiguousarray(arr)
                fh.write(b"\0" * (-at % _ALIGN))
                at += -at % _ALIGN
                where = _InFile(at, data.dtype.str, int(data.size))
                fh.write(data.data)
                at += data.nbytes
                return where

            for point, cols in parts.items():
                placed = Columns(sources=cols.sources, resends=cols.resends, resent_requests=cols.resent_requests)
                for name in _ARRAYS:
                    setattr(placed, name, put(getattr(cols, name)))
                out.parts[point] = [placed]
            out.keyed = [(put(keys), put(offsets))]  # type: ignore[list-item]  # arrays again once received
    except OSError:
        return typed
    return out


def received(typed: TypedLines, fd: int) -> TypedLines:
    """In the parent: the arrays of ``typed`` (from ``share``) read in place from ``fd``'s file."""
    size = os.fstat(fd).st_size  # 0: every array it shared is empty (a part of lines the typed path hands back)
    mapped = mmap.mmap(fd, size, access=mmap.ACCESS_WRITE) if size else None  # shared: the formulas may sort the gaps in place

    def get(where: Any) -> Any:
        if not isinstance(where, _InFile):
            return where
        if not where.count or mapped is None:
            return np.zeros(0, dtype=np.dtype(where.dtype))
        return np.frombuffer(mapped, dtype=np.dtype(where.dtype), count=where.count, offset=where.offset)

    for parts in typed.parts.values():
        for cols in parts:
            for name in _ARRAYS:
                setattr(cols, name, get(getattr(cols, name)))
    typed.keyed = [(get(k), get(o)) for k, o in typed.keyed]
    return typed
