"""When each request of an open-loop run is sent: the arrival schedule.

Shared by the harness (which sends at these times) and the simulator (which
predicts them), so the same seed gives both the same arrivals. Poisson:
exponential gaps; gamma: gaps with a shape parameter (1 = Poisson, < 1 burstier);
constant: equal gaps. The first request is sent at 0.

A schedule must fit ``MAX_SCHEDULE_S`` (one week): ``check_rate`` refuses, in one
line, a rate whose n requests take longer than that to send (``run --rate 1e-300``,
``predict --rate 1e-9``), and ``arrival_offsets_ns`` checks the schedule it draws.
Why a week: no serving benchmark sends for longer (``run --timeout`` stops at a week
too), and it keeps every scheduled time, and every latency measured from one, far
inside int64 nanoseconds (292 years) — a rate of 1e-300 would otherwise overflow to
a negative send time and a TTFT of 9.2e12 ms.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

from servescope.errors import ScheduleError

Arrival = Literal["poisson", "gamma", "constant"]


MAX_SCHEDULE_S = 7 * 24 * 3600.0


def _duration(seconds: float) -> str:
    if seconds >= 365.25 * 86400:
        return f"{seconds / (365.25 * 86400):.3g} years"
    if seconds >= 86400:
        return f"{seconds / 86400:.3g} days"
    return f"{seconds / 3600:.3g} hours"


def schedule_span_s(n: int, rate: float) -> float:
    """Expected time from the first to the last of n sends at ``rate`` per second."""
    return (n - 1) / rate if n > 1 else 0.0


def check_rate(rate: float, n: int, option: str = "--rate") -> None:
    """Refuse (``ScheduleError``, one line naming ``option``) a rate that is not a finite
    number > 0, or whose n requests would take longer than ``MAX_SCHEDULE_S`` to send.
    The one check for every place that takes a rate: run, predict, stages, sweeps."""
    if isinstance(rate, bool) or not isinstance(rate, (int, float)) or not (math.isfinite(rate) and rate > 0):
        raise ScheduleError(f"{option} {rate!r}: give a finite number of requests per second > 0, e.g. 4")
    span = schedule_span_s(n, rate)
    if span > MAX_SCHEDULE_S:
        raise ScheduleError(
            f"{option} {rate:g}: {n:,} requests at {rate:g} req/s take about {_duration(span)} to send, past the longest "
            f"arrival schedule servescope sends or simulates ({MAX_SCHEDULE_S / 86400:g} days); give a rate of at least "
            f"{(n - 1) / MAX_SCHEDULE_S:.3g} req/s, or fewer requests"
        )


def check_span(seconds: float, what: str) -> None:
    """Refuse a schedule given as a duration (``predict --stages``) longer than ``MAX_SCHEDULE_S``."""
    if not (math.isfinite(seconds) and 0 <= seconds <= MAX_SCHEDULE_S):
        raise ScheduleError(
            f"{what}: {seconds:g} s of arrivals is past the longest schedule servescope sends or simulates ({MAX_SCHEDULE_S:g} s, "
            f"{MAX_SCHEDULE_S / 86400:g} days); give shorter stages"
        )


def arrival_offsets_ns(n: int, rate: float, arrival: Arrival = "poisson", shape: float = 1.0, seed: int = 0) -> list[int]:
    """Scheduled send offsets (ns from the start) of n requests at ``rate`` per second
    (``check_rate`` first; a drawn schedule past ``MAX_SCHEDULE_S`` is refused too)."""
    check_rate(rate, n)
    if n <= 0:
        return []
    rng = np.random.default_rng(seed)
    mean_gap = 1.0 / rate
    if arrival == "constant":
        gaps = np.full(n, mean_gap)
    elif arrival == "poisson":
        gaps = rng.exponential(mean_gap, size=n)
    elif arrival == "gamma":
        if shape <= 0:
            raise ValueError("gamma shape must be positive")
        gaps = rng.gamma(shape, mean_gap / shape, size=n)
    else:
        raise ValueError(f"unknown arrival pattern {arrival!r}")
    gaps[0] = 0.0
    times = np.cumsum(gaps)
    if not times[-1] <= MAX_SCHEDULE_S:  # a heavy gamma tail can draw far past the mean (NaN fails too)
        raise ScheduleError(
            f"rate {rate:g}: the drawn {arrival} schedule of {n:,} requests spans {_duration(float(times[-1]))}, past the longest "
            f"arrival schedule servescope sends or simulates ({MAX_SCHEDULE_S / 86400:g} days); give a higher rate or a gamma shape nearer 1"
        )
    offsets: list[int] = np.rint(times * 1e9).astype(np.int64).tolist()
    return offsets
