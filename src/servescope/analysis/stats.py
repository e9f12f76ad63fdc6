"""Statistics used by everything: one percentile method, one CI method.

- Percentiles: linear interpolation between closest ranks (Hyndman & Fan type 7,
  numpy's default ``linear``): for sorted x of length n, p-th percentile sits at
  rank h = (n - 1) * p / 100, value x[floor h] + (h - floor h) * (x[ceil h] - x[floor h]).
- Standard deviation: sample (ddof = 1); null for n < 2.
- Mean CI: Student's t, so small n is not overconfident; for large n it converges
  to the normal mean ± 1.96·s/√n that metrics-contract.txt mentions.
- Rates: Wilson score interval by default, Clopper-Pearson on request; both
  computed here with scipy, never dependent on optional packages.
- Paired rates (two configurations scored on the same items): Newcombe's
  square-and-add interval of the difference; paired percentiles (per-item
  latencies of two configurations): a seeded percentile bootstrap over items.
- Calibration of stated confidences: ECE and MCE over 10 equal-width bins.

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
    # any sort order among equal values gives the same a and b below (they are values at sorted
    # positions), so numpy's fastest (unstable) argsort: ~5x the stable one on a few thousand gaps
    order = np.argsort(vals)
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


def describe_counts(values: np.ndarray, unit: float, *, overwrite: bool = False) -> dict[str, float | int | None]:
    """``describe(values / unit)`` of whole numbers (nanosecond gaps, ``unit`` ns a
    millisecond) without making the float copy: above a million values the integers are
    sorted (in place with ``overwrite``) and only the values a percentile reads are divided,
    so every percentile, the minimum and the maximum are exactly ``describe``'s; the mean
    is the exact integer sum divided once, and the spread is summed a block at a time.
    Tens of millions of ITL gaps are what a million-record summary spends its time on."""
    arr = np.asarray(values)
    n = int(arr.size)
    if n <= _BLOCK or arr.dtype.kind not in "iu":
        return describe(arr / unit, overwrite=True)
    lo_v, hi_v = int(arr.min()), int(arr.max())
    if max(abs(lo_v), abs(hi_v)) * n >= 1 << 63:  # the int64 sum could overflow: the float path
        return describe(arr / unit, overwrite=True)
    mean = int(arr.sum(dtype=np.int64)) / n / unit
    ss = 0.0
    buf = np.empty(min(n, _BLOCK), dtype=np.float64)  # one block's deviations, reused: no fresh 8 MB a block
    for i in range(0, n, _BLOCK):
        d = buf[: min(_BLOCK, n - i)]
        np.divide(arr[i : i + _BLOCK], unit, out=d)
        np.subtract(d, mean, out=d)  # the same values as arr[i : i + _BLOCK] / unit - mean
        ss += float(np.dot(d, d))
    ordered = arr if overwrite else arr.copy()
    ordered.sort()
    qs = []
    for p in PERCENTILES:
        h = (n - 1) * p / 100.0
        lo = math.floor(h)
        hi = min(lo + 1, n - 1)
        a, b = ordered[lo] / unit, ordered[hi] / unit  # as describe's sorted floats read them
        qs.append(float(a + (h - lo) * (b - a)))
    return {
        "count": n,
        "mean": float(mean),
        **{f"p{p}": q for p, q in zip(PERCENTILES, qs, strict=True)},
        "min": lo_v / unit,
        "max": hi_v / unit,
        "std": math.sqrt(ss / (n - 1)),
    }


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


def rate_ci(successes: float, trials: int, confidence: float = 0.95, method: Literal["wilson", "clopper-pearson"] = "wilson") -> tuple[float, float] | None:
    """Binomial confidence interval of a rate; None when there are no trials.
    ``successes`` may be fractional: rate × an effective number of trials (the distinct
    items of repeated eval runs, see analysis.summarize.pooled_scores)."""
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


def paired_rate_difference_ci(both: int, only_a: int, only_b: int, neither: int, confidence: float = 0.95) -> tuple[float, float] | None:
    """CI of p_A − p_B when A and B answered the same items (a paired 2×2 table:
    ``both`` right, ``only_a`` right, ``only_b`` right, ``neither``).

    Newcombe's square-and-add interval for paired proportions (Newcombe 1998, Stat Med
    17:2635, method 10; Fagerland, Lydersen & Laake, *Statistical Analysis of
    Contingency Tables*, ch. 8): the Wilson intervals (l, u) of p_A and p_B combined as
    D − √((p_A − l_A)² + (u_B − p_B)² − 2ψ(p_A − l_A)(u_B − p_B)) and
    D + √((p_B − l_B)² + (u_A − p_A)² − 2ψ(p_B − l_B)(u_A − p_A)), where ψ is the
    correlation of the two margins with Newcombe's continuity correction
    (A = both·neither − only_a·only_b; ψ = (A − N/2)/√(margins) when A > N/2, 0 when
    0 ≤ A ≤ N/2, A/√(margins) when A < 0; 0 when a margin is empty). Unlike two
    independent Wilson intervals it uses the pairing: items both got right or both
    got wrong say nothing about the difference. None when there are no items."""
    n = both + only_a + only_b + neither
    if min(both, only_a, only_b, neither) < 0:
        raise ValueError("paired counts must be non-negative")
    if n == 0:
        return None
    a_right, b_right = both + only_a, both + only_b
    p_a, p_b = a_right / n, b_right / n
    ci_a, ci_b = rate_ci(a_right, n, confidence), rate_ci(b_right, n, confidence)
    assert ci_a is not None and ci_b is not None
    (l_a, u_a), (l_b, u_b) = ci_a, ci_b
    margins = a_right * (n - a_right) * b_right * (n - b_right)
    psi = 0.0
    if margins:
        cross = both * neither - only_a * only_b
        if cross > n / 2:
            psi = (cross - n / 2) / math.sqrt(margins)
        elif cross < 0:
            psi = cross / math.sqrt(margins)
    d = p_a - p_b
    lo = d - math.sqrt(max(0.0, (p_a - l_a) ** 2 + (u_b - p_b) ** 2 - 2 * psi * (p_a - l_a) * (u_b - p_b)))
    hi = d + math.sqrt(max(0.0, (p_b - l_b) ** 2 + (u_a - p_a) ** 2 - 2 * psi * (p_b - l_b) * (u_a - p_a)))
    return max(-1.0, lo), min(1.0, hi)


BOOTSTRAP_RESAMPLES = 2000


def paired_percentile_difference_ci(
    a: Sequence[float] | np.ndarray,
    b: Sequence[float] | np.ndarray,
    p: float = 50.0,
    confidence: float = 0.95,
    resamples: int = BOOTSTRAP_RESAMPLES,
    seed: int = 0,
) -> tuple[float, float] | None:
    """CI of percentile_p(a) − percentile_p(b) where a[i] and b[i] belong to one item
    (the same prompt sent to two configurations): a percentile bootstrap over items —
    each resample draws items with replacement and keeps their pairs together — with
    ``resamples`` draws from a fixed seed, so a rerun gives the same interval.
    None for fewer than two pairs."""
    xa, xb = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if xa.shape != xb.shape:
        raise ValueError("paired samples must have the same length")
    n = int(xa.size)
    if n < 2:
        return None
    idx = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    diffs = np.percentile(xa[idx], p, axis=1, method="linear") - np.percentile(xb[idx], p, axis=1, method="linear")
    alpha = 1.0 - confidence
    lo, hi = np.percentile(diffs, [100 * alpha / 2, 100 * (1 - alpha / 2)], method="linear")
    return float(lo), float(hi)


CALIBRATION_BINS = 10


def calibration_error(confidences: Sequence[float], correct: Sequence[bool], bins: int = CALIBRATION_BINS) -> dict[str, object] | None:
    """Expected and maximum calibration error of stated confidences (Guo et al. 2017,
    "On Calibration of Modern Neural Networks"): ``bins`` equal-width bins of [0, 1],
    bin m holding the confidences in ((m−1)/M, m/M] (a confidence of exactly 0 goes in
    the first); per bin acc = share right, conf = mean confidence;
    ECE = Σ (n_m / N)·|acc_m − conf_m|, MCE = max over non-empty bins of |acc_m − conf_m|.
    Every bin is listed (an empty one with null accuracy and confidence). None when no
    item gave a confidence: nothing is invented."""
    if len(confidences) != len(correct):
        raise ValueError("one confidence per item")
    if any(not 0.0 <= c <= 1.0 for c in confidences):
        raise ValueError("confidences must lie in [0, 1]")
    n = len(confidences)
    if n == 0:
        return None
    members: list[list[int]] = [[] for _ in range(bins)]
    for i, c in enumerate(confidences):
        # the small epsilon keeps 0.3 (3.0000000000000004 bins) in (0.2, 0.3]
        members[max(0, math.ceil(c * bins - 1e-9) - 1)].append(i)
    out_bins: list[dict[str, float | int | None]] = []
    ece, mce = 0.0, 0.0
    for m, idx in enumerate(members):
        row: dict[str, float | int | None] = {"lower": m / bins, "upper": (m + 1) / bins, "count": len(idx), "accuracy": None, "mean_confidence": None}
        if idx:
            acc = sum(1 for i in idx if correct[i]) / len(idx)
            conf = math.fsum(confidences[i] for i in idx) / len(idx)
            row["accuracy"], row["mean_confidence"] = acc, conf
            ece += len(idx) / n * abs(acc - conf)
            mce = max(mce, abs(acc - conf))
        out_bins.append(row)
    return {"ece": ece, "mce": mce, "bins": out_bins, "answered_with_confidence": n}
