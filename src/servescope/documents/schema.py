"""JSON Schemas (draft 2020-12) generated from the document models, so other
tools can validate servescope documents without servescope."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from servescope.documents.dataset import Dataset, DatasetRow
from servescope.documents.evaluation_run import EvaluationRun
from servescope.documents.hardware import Hardware
from servescope.documents.model import Model
from servescope.documents.prediction import Calibration, Prediction
from servescope.documents.result import Result
from servescope.documents.scenario import Scenario
from servescope.documents.workload import Workload

DRAFT = "https://json-schema.org/draft/2020-12/schema"
SCHEMA_MODELS: dict[str, type[BaseModel]] = {
    "evaluation-run": EvaluationRun,
    "prediction": Prediction,
    "result": Result,
    "workload": Workload,
    "dataset": Dataset,
    "dataset-row": DatasetRow,
    "scenario": Scenario,
    "hardware": Hardware,
    "model": Model,
    "calibration": Calibration,
}


def json_schemas() -> dict[str, dict[str, Any]]:
    """File name stem → schema."""
    out = {}
    for stem, model in SCHEMA_MODELS.items():
        schema = model.model_json_schema(mode="validation")
        out[stem] = {"$schema": DRAFT, "$id": f"https://servescope.dev/schemas/{stem}.schema.json", **schema}
    return out


def render(schema: dict[str, Any]) -> str:
    return json.dumps(schema, indent=2, sort_keys=True) + "\n"


def write_schemas(folder: Path) -> list[Path]:
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for stem, schema in json_schemas().items():
        path = folder / f"{stem}.schema.json"
        path.write_text(render(schema), encoding="utf-8")
        written.append(path)
    return written
