"""When a prediction misses its measurement by much, the command that fits the
simulator to that measurement: ``servescope compare`` prints it as one line.

A comparison qualifies when one side is predicted (a Prediction, or a Result of
the simulator) and the other measured, both of the same scenario (a forced
comparison of two scenarios does not: fitting one scenario to another's run is
wrong), and a metric that ``calibrate`` fits is off by more than
``CALIBRATE_HINT_PCT`` (its MAPE over the paired points). A prediction that says its load shares
prefixes the engine caches and the simulation does not (``compare.PREFIX_CACHE_NOT_SIMULATED``)
does not: its miss is that cache, not the step times ``calibrate`` fits."""

from __future__ import annotations

import shlex
from pathlib import Path

from servescope.analysis.compare import Comparison
from servescope.documents import EvaluationRun, Prediction, Result

CALIBRATE_HINT_PCT = 25.0
"""MAPE (percent) above which a fit is worth suggesting: past the spread of repeated
measurements and of the catalog's datasheet-derived factors."""

CALIBRATED_METRICS: tuple[str, ...] = ("ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_sec")
"""The metrics ``servescope calibrate`` can fit (``predict.calibrate.METRICS``; a test holds them
equal: analysis does not import the predictor)."""


def _predicted(doc: EvaluationRun | Prediction | Result) -> bool:
    return isinstance(doc, Prediction) or (isinstance(doc, Result) and doc.timing_mode == "simulated")


def _scenario(doc: EvaluationRun | Prediction | Result) -> str | None:
    return doc.scenario


def calibrate_hint(
    comparison: Comparison,
    sides: tuple[tuple[EvaluationRun | Prediction | Result, Path], tuple[EvaluationRun | Prediction | Result, Path]],
    threshold_pct: float = CALIBRATE_HINT_PCT,
) -> str | None:
    """One line suggesting ``servescope calibrate`` with its arguments, or None (module docstring).
    ``sides`` are (document, the file it was read from) for A and B."""
    predicted = [s for s in sides if _predicted(s[0])]
    measured = [s for s in sides if not _predicted(s[0])]
    if len(predicted) != 1 or len(measured) != 1:
        return None
    (pred, _), (meas, meas_path) = predicted[0], measured[0]
    if comparison.cache_not_simulated:
        return None  # a fit would fold the engine's prefix cache into the step-time factors
    scenario = _scenario(pred)
    if not scenario or (_scenario(meas) and _scenario(meas) != scenario):
        return None
    # the error of the prediction relative to the measurement, whichever side compare took as B
    measured_is_a = (sides[0] is measured[0]) != comparison.turned  # (compare puts a prediction first)
    errors: dict[str, list[float]] = {}
    for p in comparison.pairs:
        pred_value, meas_value = (p.b, p.a) if measured_is_a else (p.a, p.b)
        if p.metric in CALIBRATED_METRICS and meas_value:
            errors.setdefault(p.metric, []).append(abs(pred_value - meas_value) / abs(meas_value) * 100.0)
    mape = {m: sum(v) / len(v) for m, v in errors.items()}
    off = sorted((m for m in mape if mape[m] > threshold_pct), key=lambda m: -mape[m])
    if not off:
        return None
    named = ", ".join(f"{m} {mape[m]:.0f} %" for m in off)
    cal = f"calibration-{scenario}.json"
    command = f"servescope calibrate {shlex.quote(scenario)} --from {shlex.quote(str(meas_path))} --out {shlex.quote(cal)}"
    return (
        f"hint: the prediction misses the measurement by more than {threshold_pct:g} % (MAPE: {named}); "
        f"fit the simulator to it with `{command}`, then predict with `--calibration {shlex.quote(cal)}`"
    )
