"""The checked-in JSON Schemas are current and valid draft 2020-12 schemas,
and they accept what the models accept (and refuse an unknown field)."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
import pytest

from servescope.documents.schema import SCHEMA_MODELS, json_schemas, render

SCHEMA_DIR = Path(__file__).resolve().parents[1] / "schemas"


@pytest.mark.parametrize("stem", sorted(SCHEMA_MODELS))
def test_checked_in_schema_is_current(stem: str) -> None:
    path = SCHEMA_DIR / f"{stem}.schema.json"
    assert path.is_file(), f"missing {path}; run `make schemas`"
    assert path.read_text(encoding="utf-8") == render(json_schemas()[stem]), f"{path} is stale; run `make schemas`"


@pytest.mark.parametrize("stem", sorted(SCHEMA_MODELS))
def test_schema_is_valid_against_metaschema(stem: str) -> None:
    schema = json.loads((SCHEMA_DIR / f"{stem}.schema.json").read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    jsonschema.Draft202012Validator.check_schema(schema)


def test_no_stray_schema_files() -> None:
    expected = {f"{stem}.schema.json" for stem in SCHEMA_MODELS}
    assert {p.name for p in SCHEMA_DIR.glob("*.json")} == expected


def test_evaluation_run_schema_agrees_with_model() -> None:
    schema = json.loads((SCHEMA_DIR / "evaluation-run.schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    good = {
        "kind": "EvaluationRun",
        "name": "n",
        "scenario": "s",
        "harness": "aiperf",
        "engine_version": "0.29.0",
        "points": [{"concurrency": 1, "ttft_ms": 10.0, "kv_utilization": 0.5}],
    }
    assert list(validator.iter_errors(good)) == []
    bad = json.loads(json.dumps(good))
    bad["points"][0]["kv_utilisation"] = 0.5
    assert list(validator.iter_errors(bad)) != []
    bad = json.loads(json.dumps(good))
    bad["points"][0]["kv_utilization"] = 1.5
    assert list(validator.iter_errors(bad)) != []
