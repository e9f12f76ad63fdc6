"""Prediction: the rows of an EvaluationRun, produced by a simulator."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from servescope.documents import Prediction, PredictionPoint, load
from tests.documents.conftest import WriteFn, issues_of, triples

PREDICTION: dict[str, Any] = {
    "kind": "Prediction",
    "name": "llama-3.1-8b-on-h100-sim",
    "scenario": "llama-3.1-8b-on-h100",
    "workload": "serve-chat-c8-i1k-o256-v1",
    "predictor": "servescope-sim",
    "predictor_version": "0.1.0",
    "timing_mode": "simulated",
    "engine_version": "0.6.3",
    "seed": 0,
    "date": "2026-09-21",
    "points": [
        {
            "concurrency": 1,
            "output_tokens_per_sec": 150.0,
            "ttft_ms": 160.0,
            "itl_ms": 6.2,
            "tpot_ms": 6.3,
            "device_utilization": [0.0, 1.0],
            "queue_length_mean": [0.0, 0.25],
            "queue_length_max": [0, 1],
        },
        {"concurrency": 8, "output_tokens_per_sec": 1000.0, "itl_ms": 7.0, "kv_utilization": 0.6},
    ],
}


def prediction(**over: Any) -> dict[str, Any]:
    doc = copy.deepcopy(PREDICTION)
    doc.update(over)
    return doc


def with_point(index: int, **over: Any) -> dict[str, Any]:
    doc = prediction()
    doc["points"][index].update(over)
    return doc


def test_valid_prediction_has_no_issues(write: WriteFn) -> None:
    loaded = load(write("prediction.json", PREDICTION))
    assert loaded.issues == []
    doc = loaded.document
    assert isinstance(doc, Prediction)
    assert doc.timing_mode == "simulated"
    assert isinstance(doc.points[0], PredictionPoint)
    assert doc.points[0].device_utilization == [0.0, 1.0]


def test_timing_mode_defaults_to_simulated() -> None:
    doc = prediction()
    del doc["timing_mode"]
    assert issues_of(doc) == []
    assert Prediction.model_validate(doc).timing_mode == "simulated"


@pytest.mark.parametrize("mode", ["explicit", "Simulated", "", "measured"])
def test_timing_mode_must_be_simulated(mode: str) -> None:
    assert triples(issues_of(prediction(timing_mode=mode))) == [("error", "timing_mode")]


@pytest.mark.parametrize(("values", "bad_index"), [([0.5, 1.01], 1), ([-0.01, 0.5], 0), ([0.2, 0.3, 7.0], 2), ([float("nan")], 0)])
def test_device_utilization_outside_unit_interval_is_an_error(values: list[float], bad_index: int) -> None:
    issues = issues_of(with_point(0, device_utilization=values))
    assert triples(issues) == [("error", f"points[0].device_utilization[{bad_index}]")]


def test_device_utilization_bounds_are_inclusive() -> None:
    assert issues_of(with_point(0, device_utilization=[0, 1, 0.0, 1.0])) == []


def test_negative_queue_lengths_are_errors() -> None:
    assert triples(issues_of(with_point(0, queue_length_mean=[0.5, -0.5]))) == [("error", "points[0].queue_length_mean[1]")]
    assert triples(issues_of(with_point(0, queue_length_max=[-1]))) == [("error", "points[0].queue_length_max[0]")]


def test_queue_length_max_must_be_integers() -> None:
    assert triples(issues_of(with_point(0, queue_length_max=[1.5]))) == [("error", "points[0].queue_length_max[0]")]


def test_duplicate_concurrency_is_an_error_at_the_later_point() -> None:
    issues = issues_of(with_point(1, concurrency=1))
    assert triples(issues) == [("error", "points[1].concurrency")]
    assert "already used by points[0]" in issues[0].message


def test_no_points_is_an_error() -> None:
    assert triples(issues_of(prediction(points=[]))) == [("error", "points")]


@pytest.mark.parametrize(("field", "value"), [("concurrency", 0), ("ttft_ms", -1.0), ("kv_utilization", 1.5)])
def test_point_rules_of_evaluation_run_apply(field: str, value: float) -> None:
    assert triples(issues_of(with_point(1, **{field: value}))) == [("error", f"points[1].{field}")]


def test_throughput_without_latency_draws_the_same_warning() -> None:
    doc = prediction()
    del doc["points"][1]["itl_ms"]
    assert triples(issues_of(doc)) == [("warning", "points[1]")]


@pytest.mark.parametrize("field", ["name", "scenario", "predictor", "predictor_version"])
def test_required_strings_must_be_present_and_not_blank(field: str) -> None:
    doc = prediction()
    doc.pop(field)
    assert triples(issues_of(doc)) == [("error", field)]
    assert triples(issues_of(prediction(**{field: "  "}))) == [("error", field)]


def test_measured_only_shape_is_not_a_prediction() -> None:
    # An EvaluationRun's "harness" is not a Prediction field.
    assert triples(issues_of(prediction(harness="aiperf"))) == [("error", "harness")]


def test_building_from_python_with_duplicate_concurrency_raises() -> None:
    with pytest.raises(ValidationError, match=r"points\[1\]\.concurrency"):
        Prediction(
            name="p",
            scenario="s",
            predictor="sim",
            predictor_version="1",
            points=[PredictionPoint(concurrency=4), PredictionPoint(concurrency=4)],
        )
