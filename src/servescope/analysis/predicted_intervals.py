"""A predicted point's interval as the documents carry it, checked before anyone judges by it.

A Prediction point has its own ``intervals`` (``[low, high]`` per field, validated with the document). The
simulated Result that ``predict`` writes beside it carries the same, per row of its table, under
``resolved_params.prediction_interval.points`` (:data:`STORED_POINT_INTERVALS`), beside the block's
factors; ``compare``, ``report`` and ``validate`` read a prediction's folder by that result.json, and
resolved_params is free-form, so it is checked here: a verdict against an interval that cannot be one
(low above high, NaN, negative, read against another point) would be a wrong number.
"""

from __future__ import annotations

import json
import math
from typing import Any

from servescope.documents import EvaluationRun, Prediction, Result

STORED_POINT_INTERVALS = "points"
"""The key, under a simulated Result's ``resolved_params.prediction_interval``, of each point's own
interval as its Prediction gives it (``[{"concurrency": c, "intervals": {field: [low, high]}}]``, in the
Result's point order; written by ``predict``): the factors alone miss a point's known-miss widening,
the burst reading an unstated client start spans, and E2E, which has no factor."""


def _pair(value: Any, where: str) -> tuple[float, float]:
    if not (isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) and not isinstance(v, bool) for v in value)):
        raise ValueError(f"{where}: {json.dumps(value)[:60]} is not [low, high]")
    lo, hi = float(value[0]), float(value[1])
    if not (math.isfinite(lo) and math.isfinite(hi)) or lo < 0:
        raise ValueError(f"{where}: [{lo:g}, {hi:g}]: give finite, non-negative [low, high]")
    if lo > hi:
        raise ValueError(f"{where}: low {lo:g} is above high {hi:g}: give [low, high]")
    return lo, hi


def stored_intervals(doc: EvaluationRun | Prediction | Result) -> list[tuple[int, dict[str, tuple[float, float]] | None]] | None:
    """A simulated Result's points' own intervals (:data:`STORED_POINT_INTERVALS`), in its point order;
    None for any other document, and for a simulated Result written before they were stored (its factors
    are then all there is). ValueError naming the field when the block is malformed (a hand-edited file):
    a verdict against an impossible interval would be a wrong number."""
    if not isinstance(doc, Result) or doc.timing_mode != "simulated" or doc.resolved_params.get("prediction_interval") is None:
        return None
    where = "resolved_params.prediction_interval"
    block = doc.resolved_params["prediction_interval"]
    if not isinstance(block, dict):
        raise ValueError(f"{where}: not an object")
    factors = block.get("factors")
    if not isinstance(factors, dict):
        raise ValueError(f"{where}.factors: not an object of metric: [low, high]")
    for metric, pair in factors.items():
        _pair(pair, f"{where}.factors.{metric}")
    entries = block.get(STORED_POINT_INTERVALS)
    if entries is None:
        return None
    if not isinstance(entries, list):
        raise ValueError(f"{where}.{STORED_POINT_INTERVALS}: not a list")
    out: list[tuple[int, dict[str, tuple[float, float]] | None]] = []
    for i, entry in enumerate(entries):
        at = f"{where}.{STORED_POINT_INTERVALS}[{i}]"
        conc = entry.get("concurrency") if isinstance(entry, dict) else None
        if not isinstance(conc, int) or isinstance(conc, bool):
            raise ValueError(f"{at}: not an object with a whole-number concurrency")
        bounds = entry.get("intervals")
        if bounds is not None and not isinstance(bounds, dict):
            raise ValueError(f"{at}.intervals: not an object of field: [low, high]")
        out.append((conc, None if bounds is None else {name: _pair(pair, f"{at}.intervals.{name}") for name, pair in bounds.items()}))
    # one entry per row of the Result's table (its first point at each concurrency, as ``result_points``
    # and the Prediction keep it), in order: an interval read against another point would be a wrong verdict
    rows = list(dict.fromkeys(p.concurrency for p in doc.points)) if doc.points else None
    if rows is not None and [c for c, _ in out] != rows:
        raise ValueError(f"{where}.{STORED_POINT_INTERVALS}: concurrencies {[c for c, _ in out]} do not match the points' {rows}")
    if rows is None and len(out) > 1:
        raise ValueError(f"{where}.{STORED_POINT_INTERVALS}: {len(out)} entries for a Result of one point")
    return out


def result_point_intervals(doc: Result, concurrency: int) -> dict[str, tuple[float, float]] | None:
    """The stored interval of the Result's row at ``concurrency`` (its first point there; its only one
    when it has no points list)."""
    stored = stored_intervals(doc)
    if not stored:
        return None
    if not doc.points:
        return stored[0][1]
    return next((bounds for conc, bounds in stored if conc == concurrency), None)


__all__ = ["STORED_POINT_INTERVALS", "result_point_intervals", "stored_intervals"]
