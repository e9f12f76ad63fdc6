"""``Prediction``: the rows of an ``EvaluationRun``, produced by a simulator.

Same point shape as a measured run so the two can be compared field by field,
plus the fields only a simulation can know (timing_mode ``simulated``, see
shared/seeds/metrics-contract.txt): per-device utilization and queue lengths.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from servescope.documents.base import Document, IsoDate, Issue, NonEmptyStr, NonNegFloat, NonNegInt, UnitFloat
from servescope.documents.evaluation_run import EvaluationPoint, check_points


class PredictionPoint(EvaluationPoint):
    """A simulated point: the measured shape plus simulated-only fields."""

    device_utilization: list[UnitFloat] | None = Field(
        default=None, description="Per device: fraction of simulated time it was busy, [0, 1]."
    )
    queue_length_mean: list[NonNegFloat] | None = Field(
        default=None, description="Per device/replica: time-averaged number of waiting requests."
    )
    queue_length_max: list[NonNegInt] | None = Field(
        default=None, description="Per device/replica: largest number of waiting requests."
    )
    tpot_ms: float | None = Field(default=None, ge=0.0, description="Mean per-request (E2E - TTFT)/(osl - 1), ms.")


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
    points: list[PredictionPoint]

    def check(self) -> list[Issue]:
        return check_points(list(self.points))
