"""Statistics used by everything: one percentile method, one CI method.

- Percentiles: linear interpolation between closest ranks (Hyndman & Fan type 7,
  numpy's default ``linear``): for sorted x of length n, p-th percentile sits at
  rank h = (n - 1) * p / 100, value x[floor h] + (h - floor h) * (x[ceil h] - x[floor h]).
- Standard deviation: sample (ddof = 1); null for n < 2.
- Mean CI: Student's t, so small n is not overconfident; for large n it converges
  to the normal mean ± 1.96·s/√n that metrics-contract.txt mentions.
- Rates: Wilson score interval by default, Clopper-Pearson on request; both
  computed here with scipy, never dependent on optional packages.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Literal

import numpy as np
from scipy import stats as _sps

PERCENTILES: tuple[int, ...] = (50, 90, 95, 99)


def percentile(values: Sequence[float] | np.ndarray, p: float) -> float | None:
    """p in [0, 100]; None for an empty sample."""
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile {p} outside [0, 100]")
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return None
    return float(np.percentile(arr, p, method="linear"))


def describe(values: Sequence[float] | np.ndarray) -> dict[str, float | int | None]:
    """count, mean, p50, p90, p95, p99, min, max, std of a sample (all None when empty)."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    if n == 0:
        return {"count": 0, "mean": None, "p50": None, "p90": None, "p95": None, "p99": None, "min": None, "max": None, "std": None}
    qs = np.percentile(arr, PERCENTILES, method="linear")
    return {
        "count": n,
        "mean": float(arr.mean()),
        **{f"p{p}": float(q) for p, q in zip(PERCENTILES, qs, strict=True)},
        "min": float(arr.min()),
        "max": float(arr.max()),
        "std": float(arr.std(ddof=1)) if n >= 2 else None,
    }


def mean_ci(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float] | None:
    """Student-t confidence interval of the mean; None for n < 2."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    if n < 2:
        return None
    m = float(arr.mean())
    s = float(arr.std(ddof=1))
    half = float(_sps.t.ppf(0.5 + confidence / 2, df=n - 1)) * s / math.sqrt(n)
    return m - half, m + half


def rate_ci(
    successes: int, trials: int, confidence: float = 0.95, method: Literal["wilson", "clopper-pearson"] = "wilson"
) -> tuple[float, float] | None:
    """Binomial confidence interval of a rate; None when there are no trials."""
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} outside [0, {trials}]")
    alpha = 1.0 - confidence
    if method == "clopper-pearson":
        lo = 0.0 if successes == 0 else float(_sps.beta.ppf(alpha / 2, successes, trials - successes + 1))
        hi = 1.0 if successes == trials else float(_sps.beta.ppf(1 - alpha / 2, successes + 1, trials - successes))
        return lo, hi
    z = float(_sps.norm.ppf(1 - alpha / 2))
    phat = successes / trials
    denom = 1 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z * math.sqrt(phat * (1 - phat) / trials + z * z / (4 * trials * trials)) / denom
    # At 0 or n successes the exact bound is 0 or 1; rounding must not push it past the estimate.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return lo, hi
