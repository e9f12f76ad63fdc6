"""The compact table (one row per concurrency) of any document that has one:
an EvaluationRun or Prediction as is, a Result by pooling its points."""

from __future__ import annotations

from typing import Any

from servescope.analysis.results import DEFINITION_NOTES, result_points
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.documents.evaluation_run import EvaluationPoint

__all__ = ["DEFINITION_NOTES", "result_points", "table_of"]


def table_of(doc: EvaluationRun | Prediction | Result) -> tuple[list[EvaluationPoint], dict[str, Any]]:
    """(rows, identity) where identity has scenario, workload, harness, notes."""
    if isinstance(doc, Result):
        rows, notes = result_points(doc)
        return rows, {
            "scenario": doc.scenario,
            "workload": doc.workload_id,
            "harness": doc.metadata.harness,
            "notes": notes,
            "name": doc.run_id,
            "timing_mode": doc.timing_mode,
        }
    if isinstance(doc, Prediction):
        return list(doc.points), {
            "scenario": doc.scenario,
            "workload": doc.workload,
            "harness": doc.predictor,
            "notes": [],
            "name": doc.name,
            "timing_mode": "simulated",
        }
    return list(doc.points), {
        "scenario": doc.scenario,
        "workload": doc.workload,
        "harness": doc.harness,
        "notes": list(doc.notes or []),
        "name": doc.name,
        "timing_mode": "explicit",
    }
