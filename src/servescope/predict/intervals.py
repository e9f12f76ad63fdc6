"""How far to trust a prediction: an interval per metric from the predictor's held-out error.

``benchmarks/predict_logo.py`` predicts each group of the public validation set (an engine,
a hardware generation, a weight dtype, a model family, a publisher) with constants fitted
without it, and keeps every point's signed error, predicted / measured.
``benchmarks/prediction_intervals.py`` turns those into ``data/prediction_intervals.json``
(generated, never edited by hand): per group, the quantiles of measured / predicted over its
held-out points (``levels``, and the 10th-90th percentile range for reading).

A scenario falls in one group along each dimension (:mod:`.groups`). Its interval per metric
is the 80 % range of its validated groups' held-out points taken together (each group with
at least ``min_points`` points, weighted by its points of that metric: the quantiles of the
mixture of their distributions, i.e. of the union of their points). Along a dimension where
the scenario is new (a model family or dtype outside the set) every validated group of that
dimension joins the union: how far the predictor missed the other families when each was left
out is what a new family risks. Taking the widest of the groups' ranges instead over-covered by
construction (94 % held out by publisher); the union lies between its members' ranges, nearer
the better-measured ones. The engine and the hardware
generation carry most of what the step-time model assumes, so where either has no validated
group the interval is the ``fallback``: as wide as the widest validated group's range on each
side, so never narrower than a validated deployment's, and a warning says which group was
missing; a model family or dtype outside the set only adds a note (the physics is meant to
carry across models). The factors multiply every statistic of a metric (mean, p50, p99) alike:
the held-out error was measured on what publishers report, mostly means. A point in a regime
the predictor is known to miss by more than its groups' range (:mod:`.regimes`) has its
interval widened to cover those misses, and the prediction says so in a warning.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from servescope.documents.prediction import INTERVAL_METRIC_OF_FIELD, Prediction, PredictionInterval
from servescope.predict.deployment import Deployment
from servescope.predict.groups import SCENARIO_DIMENSIONS, deployment_groups
from servescope.predict.regimes import LoadShape, Regime, regimes_for, widen
from servescope.predict.regimes import warning as regime_warning

#: Dimensions whose group must be validated for the interval to be the groups' own.
REQUIRED_DIMENSIONS = ("engine", "hardware generation")
#: Prediction fields each interval metric's factors apply to.
FIELDS = {m: tuple(f for f, of in INTERVAL_METRIC_OF_FIELD.items() if of == m) for m in dict.fromkeys(INTERVAL_METRIC_OF_FIELD.values())}


@dataclass(frozen=True)
class Interval:
    """``predicted × [low, high]`` holds ``coverage`` of held-out measurements, per metric."""

    coverage: float
    factors: dict[str, tuple[float, float]]
    basis: str
    validated: bool
    groups: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)

    def bounds(self, metric: str, value: float | None) -> tuple[float, float] | None:
        f = self.factors.get(metric)
        if f is None or value is None:
            return None
        return value * f[0], value * f[1]

    def as_dict(self) -> dict[str, Any]:
        return {
            "coverage": self.coverage,
            "factors": {m: [lo, hi] for m, (lo, hi) in self.factors.items()},
            "basis": self.basis,
            "validated": self.validated,
            "groups": dict(self.groups),
        }


@lru_cache(maxsize=1)
def table() -> dict[str, Any]:
    """The shipped interval table (``data/prediction_intervals.json``)."""
    path = resources.files("servescope") / "data" / "prediction_intervals.json"
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def union_range(spans: list[tuple[float, list[float]]], levels: list[float], coverage: float) -> tuple[float, float]:
    """The central ``coverage`` range of a mixture of groups, each given as (weight, its quantiles at
    ``levels``): every group's CDF is piecewise linear between its quantiles, the mixture's CDF their
    weighted mean, and the range is where that crosses (1 - coverage) / 2 and (1 + coverage) / 2."""
    knots = np.unique(np.concatenate([np.asarray(qs, dtype=float) for _, qs in spans]))
    weights = np.array([w for w, _ in spans], dtype=float)
    cdf = sum(w * _cdf(knots, np.asarray(qs, dtype=float), np.asarray(levels, dtype=float)) for w, (_, qs) in zip(weights, spans, strict=True))
    cdf = np.maximum.accumulate(cdf / weights.sum())
    tail = (1 - coverage) / 2
    return _inverse(tail, knots, cdf), _inverse(1 - tail, knots, cdf)


def _cdf(xs: np.ndarray, quantiles: np.ndarray, levels: np.ndarray) -> np.ndarray:
    """A group's CDF at ``xs``: 0 below its least quantile, 1 from its greatest, linear between
    neighbouring quantiles (repeated quantiles, a jump, are stepped over)."""
    i = np.searchsorted(quantiles, xs, side="right")  # quantiles[i - 1] <= x < quantiles[i]
    out = np.where(i == 0, 0.0, 1.0)
    inner = (i > 0) & (i < len(quantiles))
    j = i[inner]
    q0, q1 = quantiles[j - 1], quantiles[j]
    out[inner] = levels[j - 1] + (levels[j] - levels[j - 1]) * (xs[inner] - q0) / (q1 - q0)
    return out


def _inverse(p: float, knots: np.ndarray, cdf: np.ndarray) -> float:
    i = int(np.searchsorted(cdf, p, side="left"))
    if i == 0:
        return float(knots[0])
    if i == len(knots):
        return float(knots[-1])
    c0, c1 = cdf[i - 1], cdf[i]
    return float(knots[i - 1] + (knots[i] - knots[i - 1]) * (p - c0) / (c1 - c0))


def interval_for_groups(groups: dict[str, str], data: dict[str, Any] | None = None) -> Interval:
    """The interval of a deployment in ``groups`` (dimension -> group), from ``data`` (the shipped table)."""
    data = data if data is not None else table()
    min_points = int(data["min_points"])
    coverage = float(data["coverage"])

    def validated(dim: str) -> dict[str, dict[str, Any]]:
        return {name: g for name, g in data["groups"].get(dim, {}).items() if g["points"] >= min_points}

    usable = {dim: validated(dim)[value] for dim, value in groups.items() if value in validated(dim)}
    missing_required = [d for d in REQUIRED_DIMENSIONS if d in groups and d not in usable]
    # new along a dimension (a model family or dtype outside the set): how far the predictor
    # missed other groups of that dimension when each was left out is part of this deployment's error
    new_along = {dim: validated(dim) for dim in groups if dim not in usable and dim not in REQUIRED_DIMENSIONS and validated(dim)}
    members = [*usable.values(), *(g for by_name in new_along.values() for g in by_name.values())]
    factors: dict[str, tuple[float, float]] = {}
    for metric in data["metrics"]:
        spans = [(g["points_by_metric"][metric], g["quantiles"][metric]) for g in members if g["quantiles"].get(metric) is not None]
        if missing_required or not spans:
            if data["fallback"].get(metric) is None:
                continue  # no validated group has held-out points of this metric: no interval, none invented
            lo, hi = data["fallback"][metric]
        else:
            lo, hi = union_range(spans, data["levels"], coverage)
        factors[metric] = (round(float(lo), 4), round(float(hi), 4))
    named = ", ".join(f"{d} {groups[d]} ({usable[d]['points']} points)" for d in usable)
    unvalidated = [f"{d} {groups[d]}" for d in groups if d not in usable]
    warnings: list[str] = []
    if missing_required:
        what = " and ".join(f"{d} {groups[d]!r}" for d in missing_required)
        basis = f"no validated group for the {what}: {data['fallback_rule']}"
        warnings.append(
            f"prediction interval: no held-out validation for the {what}; the interval is wide "
            f"({', '.join(f'{m} ×{lo:.3g}–{hi:.3g}' for m, (lo, hi) in factors.items())}) — measure and `servescope calibrate`"
        )
    else:
        basis = f"held-out {round(100 * coverage)} % range of its groups' points together: {named}"
        if unvalidated:
            basis += f"; not in the validation set: {', '.join(unvalidated)}"
        for dim, by_name in new_along.items():
            basis += f"; new along the {dim}: with every validated {dim}'s held-out error ({sum(g['points'] for g in by_name.values())} points)"
    return Interval(coverage, factors, basis, not missing_required, dict(groups), warnings)


#: How far outside the validated models' sizes a model may be before the interval says it does not
#: measure that extrapolation (2x: the validated sizes already span 8 B to 405 B parameters).
SIZE_MARGIN = 2.0


@lru_cache(maxsize=1)
def validated_model_sizes() -> tuple[float, float] | None:
    """(least, most) total parameters of the catalog's models in the validated model families."""
    from servescope.catalog.store import Catalog
    from servescope.predict.architecture import architecture
    from servescope.predict.groups import family

    data = table()
    names = {n for n, g in data["groups"].get("model family", {}).items() if g["points"] >= int(data["min_points"])}
    cat = Catalog.load()
    sizes = [architecture(cat.model(key)).total_params for key in cat.ids("models") if family(key) in names]
    return (min(sizes), max(sizes)) if sizes else None


def _size_note(dep: Deployment) -> str | None:
    """A model far smaller or larger than every validated one: the held-out error was measured on none like
    it (a model of 0.1 B parameters is all launch overheads, one of a trillion all communication)."""
    sizes = validated_model_sizes()
    params = dep.arch.total_params
    if sizes is None or sizes[0] / SIZE_MARGIN <= params <= sizes[1] * SIZE_MARGIN:
        return None
    return (
        f"{dep.model.id} has {_count(params)} parameters, outside the {_count(sizes[0])} to {_count(sizes[1])} of the "
        "validated models: the interval does not measure how far the step-time model carries to it"
    )


def _count(params: float) -> str:
    return f"{params / 1e9:.3g} B" if params >= 1e9 else f"{params / 1e6:.3g} M"


def interval_for(dep: Deployment) -> Interval:
    """The deployment's interval (:func:`interval_for_groups`); a model far outside the validated sizes
    is said in its one warning line (appended to the fallback's when there is one), not widened."""
    groups = deployment_groups(dep)
    interval = interval_for_groups({d: groups[d] for d in SCENARIO_DIMENSIONS})
    note = _size_note(dep)
    if note is None:
        return interval
    if interval.warnings:
        warnings = [f"{interval.warnings[0]}; also, {note}", *interval.warnings[1:]]
    else:
        warnings = [f"prediction interval: {note} — measure and `servescope calibrate`"]
    return replace(interval, basis=f"{interval.basis}; {note}", warnings=warnings)


def _e2e_bounds(e2e: float | None, ttft: float | None, f_ttft: tuple[float, float] | None, f_itl: tuple[float, float] | None) -> list[float] | None:
    """E2E = TTFT + its decode (output - 1 tokens at TPOT, whose factors are ITL's): each part
    taken to the same end of its own interval, so E2E's interval holds whenever both parts'
    do (the two errors taken as moving together: never narrower than that)."""
    if e2e is None or ttft is None or f_ttft is None or f_itl is None:
        return None
    decode = max(0.0, e2e - ttft)
    return [ttft * f_ttft[0] + decode * f_itl[0], ttft * f_ttft[1] + decode * f_itl[1]]


def with_intervals(prediction: Prediction, interval: Interval, dep: Deployment, shape: LoadShape | None = None) -> Prediction:
    """``prediction`` with each point's [low, high] per predicted field and the interval's basis;
    a point in a regime known to miss (:mod:`.regimes`, given the load's ``shape``) gets its
    interval widened to cover the misses reported there, and the prediction a warning per regime."""
    basis = interval.basis
    if dep.calibration_name:
        basis += "; held-out error of the uncalibrated predictor (a calibration fitted to measurements of this deployment narrows it)"
    points = []
    met: dict[str, Regime] = {}
    for p in prediction.points:
        here = regimes_for(dep, shape, p.concurrency) if shape is not None else []
        met.update({r.key: r for r in here})
        factors = widen(interval.factors, here)
        bounds = {}
        for metric, names in FIELDS.items():
            f = factors.get(metric)
            for name in names:
                value = getattr(p, name)
                if f is not None and value is not None:
                    bounds[name] = [value * f[0], value * f[1]]
        e2e = _e2e_bounds(p.e2e_ms, p.ttft_ms, factors.get("ttft_ms"), factors.get("itl_ms"))
        if e2e is not None:
            bounds["e2e_ms"] = e2e
        points.append(p.model_copy(update={"intervals": bounds or None}))
    factors_out = {m: [lo, hi] for m, (lo, hi) in interval.factors.items()}
    block = PredictionInterval(
        coverage=interval.coverage,
        factors=factors_out,
        basis=basis,
        validated=interval.validated,
        groups=interval.groups,
        known_misses=sorted(met) or None,
    )
    warnings = [*prediction.warnings, *(regime_warning(r) for r in met.values())]
    return prediction.model_copy(update={"points": points, "interval": block, "warnings": warnings})


__all__ = ["FIELDS", "REQUIRED_DIMENSIONS", "Interval", "interval_for", "interval_for_groups", "table", "union_range", "with_intervals"]
