"""``Prediction``: the rows of an ``EvaluationRun``, produced by a simulator.

Same point shape as a measured run so the two can be compared field by field,
plus the fields only a simulation can know (timing_mode ``simulated``, see
shared/seeds/metrics-contract.txt): per-device utilization and queue lengths.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from servescope.documents.base import (
    Document,
    IsoDate,
    Issue,
    NonEmptyStr,
    NonNegFloat,
    NonNegInt,
    StrictModel,
    UnitFloat,
    error,
    warning,
)
from servescope.documents.evaluation_run import EvaluationPoint, check_points

#: Each predicted field and the interval metric whose factors bound it (``predict.intervals`` fills the
#: points' intervals by it; ``analysis.compare`` reads a simulated Result's factors by it).
INTERVAL_METRIC_OF_FIELD = {
    "ttft_ms": "ttft_ms",
    "ttft_p50_ms": "ttft_ms",
    "itl_ms": "itl_ms",
    "itl_p50_ms": "itl_ms",
    "tpot_ms": "itl_ms",
    "output_tokens_per_sec": "output_tokens_per_sec",
    # a load's input and output tokens per request are fixed: its input rate is its output rate times one number
    "input_tokens_per_sec": "output_tokens_per_sec",
}


#: [low, high]
def _ordered(pair: list[float]) -> list[float]:
    if pair[0] > pair[1]:
        raise ValueError(f"low {pair[0]:g} is above high {pair[1]:g}: give [low, high]")
    return pair


Range = Annotated[list[NonNegFloat], Field(min_length=2, max_length=2), AfterValidator(_ordered)]
#: The fields a point's interval (and its burst reading) may name: E2E's interval is TTFT's and its
#: decode part's (predict.intervals), not a factor of its own.
INTERVAL_FIELDS = (*INTERVAL_METRIC_OF_FIELD, "e2e_ms")


class PredictionInterval(StrictModel):
    """How far to trust the rows: ``predicted × factors[metric]`` held ``coverage`` of the predictor's
    held-out measurements in the groups named by ``basis`` (``servescope.predict.intervals``)."""

    coverage: UnitFloat = Field(description="Share of held-out measurements the interval held, e.g. 0.8.")
    factors: dict[str, Range] = Field(description="Per metric (ttft_ms, itl_ms, output_tokens_per_sec): [low, high] multipliers of the predicted value.")
    basis: NonEmptyStr = Field(description="Which groups' held-out error the interval comes from, or why it is wide.")
    validated: bool = Field(
        description="False when the deployment's engine or hardware generation has no validated group: the interval is the fallback, as wide as the widest validated group's."
    )
    groups: dict[str, str] = Field(
        default_factory=dict, description="The deployment's group along each dimension (engine, hardware generation, weight dtype, model family)."
    )
    known_misses: list[NonEmptyStr] | None = Field(
        default=None,
        description="Regimes the predictor is known to miss (servescope.predict.regimes) that widened some points' intervals; a warning names each.",
    )
    client_start: str | None = Field(
        default=None,
        description="How the client started its closed loop when nobody said: the points' intervals then span both readings (predict.semantics).",
    )


class PredictionPoint(EvaluationPoint):
    """A simulated point: the measured shape plus simulated-only fields."""

    device_utilization: list[UnitFloat] | None = Field(default=None, description="Per device: fraction of simulated time it was busy, [0, 1].")
    queue_length_mean: list[NonNegFloat] | None = Field(default=None, description="Per device/replica: time-averaged number of waiting requests.")
    queue_length_max: list[NonNegInt] | None = Field(default=None, description="Per device/replica: largest number of waiting requests.")
    tpot_ms: float | None = Field(default=None, ge=0.0, description="Mean per-request (E2E - TTFT)/(osl - 1), ms.")
    intervals: dict[str, Range] | None = Field(
        default=None,
        description="Per predicted field (ttft_ms, ttft_p50_ms, itl_ms, itl_p50_ms, tpot_ms, e2e_ms, output_tokens_per_sec, "
        "input_tokens_per_sec): [low, high], the range the measurement is expected in (Prediction.interval says how sure and why).",
    )
    burst: dict[str, NonNegFloat] | None = Field(
        default=None,
        description="When the client's start was not stated: the other reading's figures, every request of a wave sent at once "
        "(the point's own figures are the steady state's; its intervals span both).",
    )
    request_rate: float | None = Field(
        default=None,
        gt=0.0,
        description="Open loop (predict --rate): the requests per second offered. With --rate alone (no "
        "concurrency) concurrency is the most requests the simulated clients had in flight; otherwise it is the "
        "point's concurrency, as a measured run labels it.",
    )


class Prediction(Document):
    """What the simulator predicts for a scenario, one row per concurrency."""

    kind: Literal["Prediction"] = "Prediction"
    name: NonEmptyStr
    scenario: NonEmptyStr
    workload: str | None = Field(default=None, description="Workload id predicted, when one was used.")
    predictor: NonEmptyStr = Field(description="The simulator that produced the rows, e.g. servescope-sim.")
    predictor_version: NonEmptyStr
    timing_mode: Literal["simulated"] = "simulated"
    engine_version: str | None = None
    calibration: str | None = Field(default=None, description="Calibration applied, if any (file or id).")
    seed: int | None = None
    date: IsoDate | None = None
    warnings: list[str] = Field(
        default_factory=list,
        description="What of the scenario the simulator does not model and approximated instead, one line each (what it refuses is never predicted).",
    )
    interval: PredictionInterval | None = Field(default=None, description="The intervals' coverage and basis (null: predicted before intervals shipped).")
    points: list[PredictionPoint]

    def check(self) -> list[Issue]:
        """As an EvaluationRun's points, except that open-loop rows (a staged run, a
        rate search) are told apart by their offered rate: two stages may keep the
        same number of requests in flight."""
        issues = [i for i in check_points(list(self.points)) if "already used" not in i.message]
        seen: dict[tuple[int, float | None], int] = {}
        for i, point in enumerate(self.points):
            key = (point.concurrency, point.request_rate)
            if key in seen:
                what = f"concurrency {point.concurrency}" + (f" at rate {point.request_rate:g}" if point.request_rate else "")
                message = f"{what} already used by points[{seen[key]}]; each point needs a different concurrency (or rate)"
                issues.append(error(f"points[{i}].concurrency", message))
            else:
                seen[key] = i
        for i, point in enumerate(self.points):
            issues += _interval_issues(i, point)
        return issues


def _interval_issues(i: int, point: PredictionPoint) -> list[Issue]:
    """A point's interval names predicted fields, each with a figure; the figure (and the burst reading's,
    which the interval spans) lies in it. A figure outside is a warning, not an error: an interval is where
    measurements land, and a predictor biased on every held-out point could exclude its own figure; none of
    the shipped groups does, so a hand-edited file is the likely cause."""
    issues = []
    for name, (low, high) in (point.intervals or {}).items():
        at = f"points[{i}].intervals.{name}"
        value = getattr(point, name, None) if name in INTERVAL_FIELDS else None
        if name not in INTERVAL_FIELDS:
            issues.append(error(at, f"not a predicted field with an interval; give one of {', '.join(INTERVAL_FIELDS)}"))
        elif value is None:
            issues.append(error(at, f"an interval for a figure the point does not give ({name} is null): give the figure or leave the interval out"))
        elif not low <= value <= high:
            issues.append(warning(at, f"[{low:g}, {high:g}] does not hold the point's own {name} {value:g}"))
        burst = (point.burst or {}).get(name)
        if burst is not None and not low <= burst <= high:
            issues.append(warning(at, f"[{low:g}, {high:g}] does not hold the burst reading's {name} {burst:g}, which it should span"))
    for name in point.burst or {}:
        if name not in INTERVAL_FIELDS:
            issues.append(error(f"points[{i}].burst.{name}", f"not a predicted field; give one of {', '.join(INTERVAL_FIELDS)}"))
    return issues


class Calibration(Document):
    """Fitted step-time factors for one scenario (``servescope calibrate``).

    ``factors`` overrides the step-time model's named constants (efficiencies and
    overheads, see ``servescope.predict.calibration``); a factor not listed keeps
    its default. ``mape_before``/``mape_after`` are the fit's errors, percent,
    per metric, on the measured points it was fitted to.
    """

    kind: Literal["Calibration"] = "Calibration"
    name: NonEmptyStr
    scenario: NonEmptyStr
    fitted_from: NonEmptyStr = Field(description="The measured EvaluationRun/Result (name or path) it was fitted to.")
    factors: dict[str, float] = Field(description="Named step-time constants and their fitted values.")
    metrics: list[str] = Field(default_factory=list, description="Metrics the fit minimised the error of.")
    mape_before: dict[str, float] = Field(default_factory=dict, description="MAPE per metric with defaults, percent.")
    mape_after: dict[str, float] = Field(default_factory=dict, description="MAPE per metric after the fit, percent.")
    points: NonNegInt | None = Field(default=None, description="Measured points the fit used.")
    predictor_version: str | None = None
    date: IsoDate | None = None
    notes: str | None = None

    def check(self) -> list[Issue]:
        issues: list[Issue] = []
        for key, value in self.factors.items():
            if value < 0:
                issues.append(error(f"factors.{key}", "must not be negative"))
        return issues
