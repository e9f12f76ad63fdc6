"""When each request of an open-loop run is sent: the arrival schedule.

Shared by the harness (which sends at these times) and the simulator (which
predicts them), so the same seed gives both the same arrivals. Poisson:
exponential gaps; gamma: gaps with a shape parameter (1 = Poisson, < 1 burstier);
constant: equal gaps. The first request is sent at 0.
"""

from __future__ import annotations

import math
from typing import Literal

import numpy as np

Arrival = Literal["poisson", "gamma", "constant"]


def arrival_offsets_ns(n: int, rate: float, arrival: Arrival = "poisson", shape: float = 1.0, seed: int = 0) -> list[int]:
    """Scheduled send offsets (ns from the start) of n requests at ``rate`` per second."""
    if not (math.isfinite(rate) and rate > 0):
        raise ValueError(f"rate must be a positive number, got {rate}")
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
    offsets: list[int] = np.rint(np.cumsum(gaps) * 1e9).astype(np.int64).tolist()
    return offsets
