"""Statistics used by everything: one percentile method, one CI method.

- Percentiles: linear interpolation between closest ranks (Hyndman & Fan type 7,
  numpy's default ``linear``): for sorted x of length n, p-th percentile sits at
  rank h = (n - 1) * p / 100, value x[floor h] + (h - floor h) * (x[ceil h] - x[floor h]).
- Standard deviation: sample (ddof = 1); null for n < 2.
- Mean CI: Student's t, so small n is not overconfident; for large n it converges
  to the normal mean ± 1.96·s/√n that metrics-contract.txt mentions.
- Rates: Wilson score interval by default, Clopper-Pearson on request; both
  computed here with scipy, never dependent on optional packages.

scipy.special (the t and beta quantiles) is imported when such an interval is
first computed, not with this module: ``scipy.stats`` alone takes ~1.5 s to import
here, more than summarizing a million records.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from statistics import NormalDist
from typing import Literal

import numpy as np

PERCENTILES: tuple[int, ...] = (50, 90, 95, 99)


def percentile(values: Sequence[float] | np.ndarray, p: float) -> float | None:
    """p in [0, 100]; None for an empty sample."""
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile {p} outside [0, 100]")
    arr = np.asarray(values, dtype=float)
    if arr.size == 0:
        return None
    return float(np.percentile(arr, p, method="linear"))


def weighted_percentile(values: np.ndarray, counts: np.ndarray, p: float) -> float | None:
    """``percentile(np.repeat(values, counts), p)`` without building the repeated
    sample (a simulator's pooled ITL: a few thousand iteration gaps, each shared by
    up to hundreds of requests). Same linear method, same interpolation formula."""
    if not 0.0 <= p <= 100.0:
        raise ValueError(f"percentile {p} outside [0, 100]")
    vals = np.asarray(values, dtype=float)
    cnt = np.asarray(counts, dtype=np.int64)
    keep = cnt > 0
    vals, cnt = vals[keep], cnt[keep]
    if not vals.size:
        return None
    order = np.argsort(vals, kind="stable")
    vals, cum = vals[order], np.cumsum(cnt[order])
    n = int(cum[-1])
    h = (n - 1) * (p / 100.0)
    lo = int(np.floor(h))
    hi = min(lo + 1, n - 1)
    a = float(vals[np.searchsorted(cum, lo, side="right")])
    b = float(vals[np.searchsorted(cum, hi, side="right")])
    t = h - lo
    # numpy's _lerp: from the nearer end, so the result stays inside [a, b]
    return b - (b - a) * (1.0 - t) if t >= 0.5 else a + (b - a) * t


def describe(values: Sequence[float] | np.ndarray, *, overwrite: bool = False) -> dict[str, float | int | None]:
    """count, mean, p50, p90, p95, p99, min, max, std of a sample (all None when empty).
    ``overwrite``: the caller gives up ``values`` (a float array), so the percentiles
    reorder it in place instead of copying it — tens of millions of ITL gaps."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    if n == 0:
        return {"count": 0, "mean": None, "p50": None, "p90": None, "p95": None, "p99": None, "min": None, "max": None, "std": None}
    out: dict[str, float | int | None] = {
        "count": n,
        "mean": float(arr.mean()),
        "min": float(arr.min()),
        "max": float(arr.max()),
        "std": _sample_std(arr) if n >= 2 else None,
    }
    # a list was copied into arr by asarray, so arr is ours to reorder either way
    owned = overwrite or not isinstance(values, np.ndarray)
    if owned and n > _BLOCK and not np.isnan(out["mean"]):  # type: ignore[arg-type]
        qs = _sorted_percentiles(arr, PERCENTILES)
    else:
        qs = np.percentile(arr, PERCENTILES, method="linear", overwrite_input=owned)
    return {
        "count": n,
        "mean": out["mean"],
        **{f"p{p}": float(q) for p, q in zip(PERCENTILES, qs, strict=True)},
        "min": out["min"],
        "max": out["max"],
        "std": out["std"],
    }


_BLOCK = 1 << 20


def _sorted_percentiles(arr: np.ndarray, ps: Sequence[float]) -> list[float]:
    """The same type-7 percentiles as ``percentile``, by sorting ``arr`` in place:
    numpy's vectorised sort beats its partition (plus a NaN pass) on tens of
    millions of values."""
    arr.sort()
    n = arr.size
    out = []
    for p in ps:
        h = (n - 1) * p / 100.0
        lo = math.floor(h)
        hi = min(lo + 1, n - 1)
        out.append(float(arr[lo] + (h - lo) * (arr[hi] - arr[lo])))
    return out


def _sample_std(arr: np.ndarray) -> float:
    """ddof = 1. Two passes like numpy's, but a block at a time above a million
    values: ``arr.std`` allocates two copies of the array, which on tens of
    millions of ITL gaps costs more than everything else in a summary."""
    n = arr.size
    if n <= _BLOCK:
        return float(arr.std(ddof=1))
    mean = arr.mean()
    ss = 0.0
    for i in range(0, n, _BLOCK):
        d = arr[i : i + _BLOCK] - mean
        ss += float(np.dot(d, d))
    return math.sqrt(ss / (n - 1))


def mean_ci(values: Sequence[float] | np.ndarray, confidence: float = 0.95) -> tuple[float, float] | None:
    """Student-t confidence interval of the mean; None for n < 2."""
    arr = np.asarray(values, dtype=float)
    n = int(arr.size)
    if n < 2:
        return None
    m = float(arr.mean())
    s = float(arr.std(ddof=1))
    from scipy.special import stdtrit  # Student t quantile: stdtrit(df, p) = t.ppf(p, df)

    half = float(stdtrit(n - 1, 0.5 + confidence / 2)) * s / math.sqrt(n)
    return m - half, m + half


def rate_ci(successes: int, trials: int, confidence: float = 0.95, method: Literal["wilson", "clopper-pearson"] = "wilson") -> tuple[float, float] | None:
    """Binomial confidence interval of a rate; None when there are no trials."""
    if trials <= 0:
        return None
    if not 0 <= successes <= trials:
        raise ValueError(f"successes {successes} outside [0, {trials}]")
    alpha = 1.0 - confidence
    if method == "clopper-pearson":
        from scipy.special import betaincinv  # beta.ppf(q, a, b) = betaincinv(a, b, q)

        lo = 0.0 if successes == 0 else float(betaincinv(successes, trials - successes + 1, alpha / 2))
        hi = 1.0 if successes == trials else float(betaincinv(successes + 1, trials - successes, 1 - alpha / 2))
        return lo, hi
    z = NormalDist().inv_cdf(1 - alpha / 2)  # the normal quantile, as scipy's norm.ppf gives it
    phat = successes / trials
    denom = 1 + z * z / trials
    centre = (phat + z * z / (2 * trials)) / denom
    half = z * math.sqrt(phat * (1 - phat) / trials + z * z / (4 * trials * trials)) / denom
    # At 0 or n successes the exact bound is 0 or 1; rounding must not push it past the estimate.
    lo = 0.0 if successes == 0 else max(0.0, centre - half)
    hi = 1.0 if successes == trials else min(1.0, centre + half)
    return lo, hi
