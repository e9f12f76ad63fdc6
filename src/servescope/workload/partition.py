"""One run's load split over N client processes (``run --workers N``), so that the
union of what the workers send is exactly what one process would send.

- Closed loop: the concurrency is split (16 over 3 → 6, 5, 5: remainders spread,
  never dropped) and each worker gets a share of the requests in proportion to its
  streams; a group (``prefix_id``) or a session is never cut between workers.
- Open loop (``--rate``) and trace replay: ONE global arrival schedule (drawn here,
  with the same seed and call as one process), dealt round-robin by index; each
  worker sends its requests at their global offsets from a shared start, so the
  union is the requested arrival process. Sessions stay whole on one worker; prefix
  groups need not (the schedule keeps their order whichever worker sends them), so a
  trace whose requests all share a first block still splits.

Pure: the same points and N give the same split. A split that would leave a worker
idle (more workers than streams, requests or sessions) is refused in one line.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

from servescope.errors import UsageError
from servescope.workload.arrivals import arrival_offsets_ns
from servescope.workload.plan import PlannedPoint, PlannedRequest


def shares(total: int, n: int) -> list[int]:
    """``total`` split into ``n`` parts that differ by at most one, the larger first."""
    return [total // n + (1 if k < total % n else 0) for k in range(n)]


def _units(requests: Sequence[PlannedRequest], keep_groups: bool = True) -> list[list[int]]:
    """Indices of requests that must stay on one worker: a session's turns, a group's
    run of consecutive requests (closed loop: sent in order, so the later ones find the
    prefix cached; with ``keep_groups`` False, under a global schedule that keeps the
    order whichever worker sends them, each request alone), else each request alone;
    in order of first request."""
    units: list[list[int]] = []
    by_session: dict[str, list[int]] = {}
    for i, req in enumerate(requests):
        if req.session is not None:
            if req.session not in by_session:
                by_session[req.session] = []
                units.append(by_session[req.session])
            by_session[req.session].append(i)
        elif keep_groups and req.group is not None and units and requests[units[-1][0]].group == req.group and requests[units[-1][0]].session is None:
            units[-1].append(i)
        else:
            units.append([i])
    return units


def _weighted(units: list[list[int]], weights: list[int]) -> list[list[int]]:
    """Units dealt in order, each to the worker whose load per stream stays lowest."""
    out: list[list[int]] = [[] for _ in weights]
    for unit in units:
        k = min(range(len(weights)), key=lambda i: ((len(out[i]) + len(unit)) / weights[i], i))
        out[k].extend(unit)
    return [sorted(picked) for picked in out]


def _round_robin(units: list[list[int]], n: int) -> list[list[int]]:
    """Units dealt by unit index, each worker's in plan order."""
    out: list[list[int]] = [[] for _ in range(n)]
    for u, unit in enumerate(units):
        out[u % n].extend(unit)
    return [sorted(picked) for picked in out]


def _what(point: PlannedPoint) -> str:
    return f"point {point.index} (concurrency {point.concurrency})" if point.context_tokens is None else f"point {point.index} ({point.context_tokens} tokens)"


def check_split(points: Sequence[PlannedPoint], n: int, rate: float | None) -> None:
    """Refuse (one line) a split that leaves a worker with nothing to do."""
    for point in points:
        measured = [r for r in point.requests if r.phase == "measured"]
        units = len(_units(measured, keep_groups=rate is None and point.offsets_ns is None))
        sessions = any(r.session is not None for r in measured)
        if sessions and units < n:
            raise UsageError(f"--workers {n}: {_what(point)} has {units} sessions and a session runs whole on one worker; give --workers ≤ {units}")
        if rate is None and point.offsets_ns is None and not sessions and point.concurrency < n:
            raise UsageError(
                f"--workers {n} is more than the {point.concurrency} streams of {_what(point)}: each worker needs one; give --workers ≤ {point.concurrency}"
            )
        if units < n:
            raise UsageError(f"--workers {n} is more than the {units} requests (or request groups) of {_what(point)}; give --workers ≤ {units}")


def split_point(point: PlannedPoint, n: int, *, rate: float | None, arrival: str, gamma_shape: float, seed: int) -> list[PlannedPoint]:
    """``point`` as N sub-points, one a worker. Each keeps the point's index and its
    whole concurrency (what its records say); ``client_concurrency`` is the worker's share."""
    measured = [r for r in point.requests if r.phase == "measured"]
    warmup = [r for r in point.requests if r.phase == "warmup"]
    streams = shares(point.concurrency, n) if point.concurrency >= n else [1] * n
    warm = [[warmup[i] for i in picked] for picked in _weighted(_units(warmup), streams)]
    units = _units(measured, keep_groups=rate is None and point.offsets_ns is None)
    offsets = point.offsets_ns
    if offsets is None and rate is not None and not any(r.session is not None for r in measured):
        offsets = arrival_offsets_ns(len(measured), rate, arrival, gamma_shape, seed)  # type: ignore[arg-type]  # the one schedule execute draws
    subs = []
    if offsets is not None or any(r.session is not None for r in measured):
        # one global schedule (or the sessions), dealt round-robin: the union is the requested process
        picks = _round_robin(units, n)
        for k in range(n):
            reqs = [measured[i] for i in picks[k]]
            sub_offsets = [int(offsets[i]) for i in picks[k]] if offsets is not None else None
            share = len(_units(reqs)) if offsets is None else streams[k]  # sessions: all of a worker's run at once
            subs.append(dataclasses.replace(point, requests=warm[k] + reqs, offsets_ns=sub_offsets, client_concurrency=share))
        return subs
    dealt = _weighted(units, streams)
    for k in range(n):
        subs.append(dataclasses.replace(point, requests=warm[k] + [measured[i] for i in dealt[k]], client_concurrency=streams[k]))
    return subs


def split_points(points: Sequence[PlannedPoint], n: int, *, rate: float | None, arrival: str, gamma_shape: float, seed: int) -> list[list[PlannedPoint]]:
    """Each worker's points (``check_split`` first: a worker never gets an empty point)."""
    check_split(points, n, rate)
    per_point = [split_point(p, n, rate=rate, arrival=arrival, gamma_shape=gamma_shape, seed=seed) for p in points]
    return [[subs[k] for subs in per_point] for k in range(n)]


__all__ = ["check_split", "shares", "split_point", "split_points"]
