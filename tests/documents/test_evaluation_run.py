"""EvaluationRun: the seed's example, and each "A run is invalid if" rule of
shared/seeds/evaluation-run.txt with the exact path it reports."""

from __future__ import annotations

import copy
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pydantic import ValidationError

from servescope.documents import EvaluationPoint, EvaluationRun, Loaded, load
from servescope.documents.loader import model_issues
from tests.documents.conftest import SEED_EVALUATION_RUN_YAML, WriteFn, errors, issues_of, triples

# The seed example as plain data (what the YAML above parses to).
SEED: dict[str, Any] = {
    "kind": "EvaluationRun",
    "name": "llama-3.1-8b-on-h100-tp2-dp4",
    "scenario": "llama-3.1-8b-on-h100",
    "harness": "aiperf",
    "engine_version": "0.29.0",
    "date": "2026-09-20",
    "points": [
        {
            "concurrency": 1,
            "completed_requests": 96,
            "output_tokens_per_sec": 157.3,
            "input_tokens_per_sec": 2543.0,
            "ttft_ms": 168.6,
            "itl_ms": 6.0,
            "mean_isl": 8015,
            "mean_osl": 496,
            "kv_utilization": 0.10,
        },
        {
            "concurrency": 8,
            "completed_requests": 640,
            "output_tokens_per_sec": 1084.2,
            "ttft_ms": 212.4,
            "itl_ms": 7.1,
            "kv_utilization": 0.62,
            "prefix_cache_hit_rate": 0.54,
        },
    ],
}

REQUIRED_STRINGS = ("name", "scenario", "harness", "engine_version")


def run(**over: Any) -> dict[str, Any]:
    doc = copy.deepcopy(SEED)
    doc.update(over)
    return doc


def with_point(index: int, **over: Any) -> dict[str, Any]:
    doc = run()
    doc["points"][index].update(over)
    return doc


def minimal(points: list[dict[str, Any]]) -> dict[str, Any]:
    return {"kind": "EvaluationRun", "name": "n", "scenario": "s", "harness": "h", "engine_version": "1", "points": points}


# --- the seed example ------------------------------------------------------------------------


def test_seed_example_loads_with_zero_issues(load_text: Callable[..., Loaded]) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML, "run.yaml")
    assert loaded.issues == []
    assert loaded.ok
    doc = loaded.document
    assert isinstance(doc, EvaluationRun)
    assert doc.name == "llama-3.1-8b-on-h100-tp2-dp4"
    assert doc.engine_version == "0.29.0"
    assert doc.date == "2026-09-20"
    assert [p.concurrency for p in doc.points] == [1, 8]
    assert doc.points[0].mean_isl == 8015
    assert doc.points[0].kv_utilization == 0.10
    assert doc.points[1].prefix_cache_hit_rate == 0.54
    assert doc.points[1].input_tokens_per_sec is None  # nothing derived, nothing invented


def test_seed_example_yaml_parses_to_the_same_data(load_text: Callable[..., Loaded]) -> None:
    assert load_text(SEED_EVALUATION_RUN_YAML).data == SEED


def test_seed_example_as_json_loads_too(write: WriteFn) -> None:
    loaded = load(write("run.json", SEED))
    assert loaded.issues == []
    assert isinstance(loaded.document, EvaluationRun)


def test_dump_round_trips_through_validation() -> None:
    doc = EvaluationRun.model_validate(SEED)
    dumped = doc.dump()
    assert dumped["points"][1]["e2e_ms"] is None  # nulls kept
    assert issues_of(dumped) == []
    assert EvaluationRun.model_validate(dumped) == doc


# --- dataset (servescope extension) ----------------------------------------------------------


def test_dataset_is_optional_and_null_by_default() -> None:
    doc = EvaluationRun.model_validate(SEED)
    assert doc.dataset is None and doc.dump()["dataset"] is None


@pytest.mark.parametrize("dataset", ["sharegpt", "random"])
def test_dataset_round_trips(load_text: Callable[..., Loaded], dataset: str) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML + f"dataset: {dataset}\n", "run.yaml")
    assert loaded.issues == [] and isinstance(loaded.document, EvaluationRun)
    assert loaded.document.dataset == dataset
    dumped = loaded.document.dump()
    assert dumped["dataset"] == dataset and issues_of(dumped) == []
    assert EvaluationRun.model_validate(dumped) == loaded.document


@pytest.mark.parametrize("value", ["ShareGPT", "sharegpt_v3", "", 3])
def test_unknown_dataset_is_one_error_that_says_what_to_write(load_text: Callable[..., Loaded], value: object) -> None:
    loaded = load_text(json.dumps(run(dataset=value)), "run.json")
    assert triples(loaded.issues) == [("error", "dataset")]
    line = loaded.issues[0].format("run.json")
    assert "\n" not in line and line.startswith("run.json: dataset: error: unknown dataset")
    assert "give one of sharegpt, random, or leave dataset out where the source does not state it" in line


# --- kind ------------------------------------------------------------------------------------


@pytest.mark.parametrize("kind", ["Evaluationrun", "EvaluationRuns", "evaluation-run", ""])
def test_kind_other_than_evaluation_run_is_an_error_at_kind(kind: str) -> None:
    assert triples(issues_of(run(kind=kind))) == [("error", "kind")]


def test_evaluation_run_model_refuses_another_kind() -> None:
    _, issues = model_issues(EvaluationRun, run(kind="Prediction"))
    assert triples(issues) == [("error", "kind")]
    with pytest.raises(ValidationError) as info:
        EvaluationRun.model_validate(run(kind="Prediction"))
    assert [e["loc"] for e in info.value.errors()] == [("kind",)]


# --- empty strings ---------------------------------------------------------------------------


@pytest.mark.parametrize("field", REQUIRED_STRINGS)
def test_empty_required_string_is_an_error(field: str) -> None:
    issues = issues_of(run(**{field: ""}))
    assert triples(issues) == [("error", field)]
    assert issues[0].message == "must not be empty"


@pytest.mark.parametrize("blank", [" ", "   ", "\t", "\n \t"])
@pytest.mark.parametrize("field", REQUIRED_STRINGS)
def test_whitespace_only_required_string_is_an_error(field: str, blank: str) -> None:
    issues = issues_of(run(**{field: blank}))
    assert triples(issues) == [("error", field)]
    assert issues[0].message == "must not be blank"


def test_optional_strings_may_be_absent() -> None:
    doc = run()
    doc.pop("date")
    assert issues_of(doc) == []
    assert issues_of(run(harness_version=None, date=None)) == []


# --- points ----------------------------------------------------------------------------------


def test_no_points_is_an_error_at_points() -> None:
    issues = issues_of(run(points=[]))
    assert triples(issues) == [("error", "points")]
    assert "at least one point" in issues[0].message


@pytest.mark.parametrize("concurrency", [0, -1, -64])
def test_concurrency_below_one_is_an_error(concurrency: int) -> None:
    assert triples(issues_of(with_point(1, concurrency=concurrency))) == [("error", "points[1].concurrency")]


def test_concurrency_one_is_accepted() -> None:
    assert issues_of(minimal([{"concurrency": 1}])) == []


def test_duplicate_concurrency_is_an_error_at_the_later_point() -> None:
    issues = issues_of(with_point(1, concurrency=1))
    assert triples(issues) == [("error", "points[1].concurrency")]
    assert "already used by points[0]" in issues[0].message


def test_every_repeat_of_a_concurrency_is_reported_against_its_first_use() -> None:
    points = [{"concurrency": c} for c in (4, 8, 4, 16, 8, 4)]
    issues = issues_of(minimal(points))
    assert triples(issues) == [
        ("error", "points[2].concurrency"),
        ("error", "points[4].concurrency"),
        ("error", "points[5].concurrency"),
    ]
    assert ["points[0]" in issues[0].message, "points[1]" in issues[1].message, "points[0]" in issues[2].message] == [
        True,
        True,
        True,
    ]


def test_points_need_not_be_sorted() -> None:
    assert issues_of(minimal([{"concurrency": 8}, {"concurrency": 1}, {"concurrency": 4}])) == []


def test_building_from_python_with_duplicate_concurrency_raises() -> None:
    with pytest.raises(ValidationError, match=r"points\[1\]\.concurrency"):
        EvaluationRun(
            name="n",
            scenario="s",
            harness="h",
            engine_version="1",
            points=[EvaluationPoint(concurrency=2), EvaluationPoint(concurrency=2)],
        )


def test_building_from_python_with_distinct_concurrency_works() -> None:
    doc = EvaluationRun(
        name="n",
        scenario="s",
        harness="h",
        engine_version="1",
        points=[EvaluationPoint(concurrency=1), EvaluationPoint(concurrency=2)],
    )
    assert doc.kind == "EvaluationRun"
    assert [p.concurrency for p in doc.points] == [1, 2]


def test_building_from_python_with_no_points_raises() -> None:
    with pytest.raises(ValidationError, match="at least one point"):
        EvaluationRun(name="n", scenario="s", harness="h", engine_version="1", points=[])


# --- finiteness ------------------------------------------------------------------------------

FLOAT_FIELDS = (
    "output_tokens_per_sec",
    "input_tokens_per_sec",
    "ttft_ms",
    "itl_ms",
    "e2e_ms",
    "kv_utilization",
    "prefix_cache_hit_rate",
)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), float("-inf")])
@pytest.mark.parametrize("field", FLOAT_FIELDS)
def test_non_finite_number_is_an_error(field: str, value: float) -> None:
    issues = issues_of(with_point(0, **{field: value}))
    assert triples(issues) == [("error", f"points[0].{field}")]
    assert "finite" in issues[0].message


@pytest.mark.parametrize("token", [".nan", ".NaN", ".inf", ".Inf", "-.inf", "+.inf"])
@pytest.mark.parametrize("field", ["ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_sec", "kv_utilization"])
def test_non_finite_from_yaml_is_an_error(load_text: Callable[..., Loaded], field: str, token: str) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML + f"  - concurrency: 16\n    {field}: {token}\n")
    assert triples(loaded.issues) == [("error", f"points[2].{field}")]
    assert not loaded.ok


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
@pytest.mark.parametrize("field", ["ttft_ms", "itl_ms", "e2e_ms", "input_tokens_per_sec", "prefix_cache_hit_rate"])
def test_non_finite_from_json_is_an_error(write: WriteFn, field: str, token: str) -> None:
    text = json.dumps(SEED)[:-2] + f', {{"concurrency": 16, "{field}": {token}}}]}}'
    loaded = load(write("run.json", text))
    assert triples(loaded.issues) == [("error", f"points[2].{field}")]


def test_several_non_finite_numbers_are_all_reported(write: WriteFn) -> None:
    text = (
        '{"kind": "EvaluationRun", "name": "n", "scenario": "s", "harness": "h", "engine_version": "1",'
        ' "points": [{"concurrency": 1, "ttft_ms": NaN, "itl_ms": Infinity},'
        ' {"concurrency": 2, "e2e_ms": -Infinity}]}'
    )
    loaded = load(write("run.json", text))
    assert triples(loaded.issues) == [
        ("error", "points[0].ttft_ms"),
        ("error", "points[0].itl_ms"),
        ("error", "points[1].e2e_ms"),
    ]


def test_nan_concurrency_is_an_error(load_text: Callable[..., Loaded]) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML.replace("concurrency: 8", "concurrency: .nan"))
    assert triples(loaded.issues) == [("error", "points[1].concurrency")]


# --- signs and ranges ------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["output_tokens_per_sec", "ttft_ms", "itl_ms"])
@pytest.mark.parametrize("value", [-0.001, -1.0, -1e9])
def test_negative_throughput_or_latency_is_an_error(field: str, value: float) -> None:
    issues = issues_of(with_point(1, **{field: value}))
    assert triples(issues) == [("error", f"points[1].{field}")]
    assert "greater than or equal to 0" in issues[0].message


@pytest.mark.parametrize("field", ["output_tokens_per_sec", "ttft_ms", "itl_ms"])
def test_zero_throughput_or_latency_is_accepted(field: str) -> None:
    assert issues_of(with_point(0, **{field: 0.0})) == []


@pytest.mark.parametrize("field", ["kv_utilization", "prefix_cache_hit_rate"])
@pytest.mark.parametrize("value", [-0.0001, -1.0, 1.0001, 2.0, 100])
def test_fraction_outside_unit_interval_is_an_error(field: str, value: float) -> None:
    assert triples(issues_of(with_point(1, **{field: value}))) == [("error", f"points[1].{field}")]


@pytest.mark.parametrize("field", ["kv_utilization", "prefix_cache_hit_rate"])
@pytest.mark.parametrize("value", [0, 0.0, 1, 1.0, 0.5])
def test_fraction_at_or_inside_the_bounds_is_accepted(field: str, value: float) -> None:
    assert issues_of(with_point(1, **{field: value})) == []


@pytest.mark.parametrize("value", [-1, -100])
def test_negative_preemptions_is_an_error(value: int) -> None:
    assert triples(issues_of(with_point(0, preemptions=value))) == [("error", "points[0].preemptions")]


@pytest.mark.parametrize("value", [0, 3])
def test_zero_or_positive_preemptions_is_accepted(value: int) -> None:
    assert issues_of(with_point(0, preemptions=value)) == []


# --- missing keys, wrong types, unknown keys -------------------------------------------------


@pytest.mark.parametrize("field", [*REQUIRED_STRINGS, "points"])
def test_missing_required_key_is_an_error_at_that_key(field: str) -> None:
    doc = run()
    doc.pop(field)
    issues = issues_of(doc)
    assert triples(issues) == [("error", field)]
    assert issues[0].message == "required field is missing"


def test_all_missing_keys_are_reported_together() -> None:
    issues = issues_of({"kind": "EvaluationRun"})
    assert triples(issues) == [
        ("error", "name"),
        ("error", "scenario"),
        ("error", "harness"),
        ("error", "engine_version"),
        ("error", "points"),
    ]


def test_missing_concurrency_is_an_error_at_the_point() -> None:
    doc = run()
    doc["points"][1].pop("concurrency")
    assert triples(issues_of(doc)) == [("error", "points[1].concurrency")]


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("concurrency", "8"),
        ("concurrency", 1.5),
        ("concurrency", 8.0),
        ("concurrency", True),
        ("concurrency", None),
        ("completed_requests", "96"),
        ("completed_requests", False),
        ("preemptions", True),
        ("mean_isl", 8015.5),
        ("ttft_ms", "168.6"),
        ("kv_utilization", "0.1"),
        ("itl_ms", [6.0]),
    ],
)
def test_wrong_type_in_a_point_is_an_error(field: str, value: Any) -> None:
    issues = issues_of(with_point(1, **{field: value}))
    assert triples(issues) == [("error", f"points[1].{field}")]
    assert f"(got {type(value).__name__}" in issues[0].message


@pytest.mark.parametrize(("field", "value"), [("name", 3), ("engine_version", 0.29), ("harness", None), ("points", {})])
def test_wrong_type_at_top_level_is_an_error(field: str, value: Any) -> None:
    assert triples(issues_of(run(**{field: value}))) == [("error", field)]


def test_unquoted_numeric_engine_version_in_yaml_is_an_error(load_text: Callable[..., Loaded]) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML.replace('engine_version: "0.29.0"', "engine_version: 0.29"))
    assert triples(loaded.issues) == [("error", "engine_version")]
    assert "got float 0.29" in loaded.issues[0].message


def test_quoted_concurrency_in_yaml_is_an_error(load_text: Callable[..., Loaded]) -> None:
    loaded = load_text(SEED_EVALUATION_RUN_YAML.replace("concurrency: 8", 'concurrency: "8"'))
    assert triples(loaded.issues) == [("error", "points[1].concurrency")]


def test_unknown_top_level_key_is_an_error() -> None:
    issues = issues_of(run(harnes_version="1.0"))
    assert triples(issues) == [("error", "harnes_version")]
    assert "unknown field" in issues[0].message


def test_unknown_point_key_is_an_error() -> None:
    assert triples(issues_of(with_point(0, ttft=1.0))) == [("error", "points[0].ttft")]


@pytest.mark.parametrize("date", ["2026-02-30", "2026-13-01", "20 Sep 2026", "2026-09-20T10:00:00Z", "2026/09/20"])
def test_date_must_be_an_iso_date(date: str) -> None:
    assert triples(issues_of(run(date=date))) == [("error", "date")]


def test_servescope_extensions_are_accepted() -> None:
    doc = run(workload="serve-chat-c8-i1k-o256-v1", notes=["aiperf ITL excludes the first token"], harness_version="0.3")
    assert issues_of(doc) == []


# --- the warning -----------------------------------------------------------------------------


def test_throughput_without_ttft_or_itl_draws_a_warning_at_the_point() -> None:
    doc = run()
    del doc["points"][1]["ttft_ms"]
    del doc["points"][1]["itl_ms"]
    issues = issues_of(doc)
    assert triples(issues) == [("warning", "points[1]")]
    assert "no prediction can be compared" in issues[0].message


def test_warning_does_not_make_the_file_fail(load_text: Callable[..., Loaded]) -> None:
    text = "\n".join(line for line in SEED_EVALUATION_RUN_YAML.splitlines() if line not in ("    ttft_ms: 168.6", "    itl_ms: 6.0"))
    loaded = load_text(text + "\n")
    assert triples(loaded.issues) == [("warning", "points[0]")]
    assert loaded.ok
    assert isinstance(loaded.document, EvaluationRun)


@pytest.mark.parametrize("present", [{"ttft_ms": 1.0}, {"itl_ms": 1.0}, {"ttft_ms": 0.0, "itl_ms": 0.0}])
def test_either_latency_present_means_no_warning(present: dict[str, float]) -> None:
    assert issues_of(minimal([{"concurrency": 1, "output_tokens_per_sec": 10.0, **present}])) == []


def test_no_throughput_means_no_warning() -> None:
    assert issues_of(minimal([{"concurrency": 1, "completed_requests": 5}])) == []


def test_warning_and_errors_are_reported_together() -> None:
    points = [{"concurrency": 1, "output_tokens_per_sec": 5.0}, {"concurrency": 1, "ttft_ms": 3.0}]
    assert triples(issues_of(minimal(points))) == [("warning", "points[0]"), ("error", "points[1].concurrency")]


def test_warning_does_not_stop_building_from_python() -> None:
    doc = EvaluationRun.model_validate(minimal([{"concurrency": 1, "output_tokens_per_sec": 5.0}]))
    assert triples(doc.check()) == [("warning", "points[0]")]


# --- properties ------------------------------------------------------------------------------

_finite = st.floats(min_value=0.0, max_value=1e12, allow_nan=False, allow_infinity=False)
_fraction = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_infinity=False)
_count = st.integers(min_value=0, max_value=10**12)
_OPTIONAL_FIELDS: dict[str, st.SearchStrategy[Any]] = {
    "completed_requests": _count,
    "output_tokens_per_sec": _finite,
    "input_tokens_per_sec": _finite,
    "ttft_ms": _finite,
    "itl_ms": _finite,
    "e2e_ms": _finite,
    "mean_isl": _count,
    "mean_osl": _count,
    "kv_utilization": _fraction,
    "prefix_cache_hit_rate": _fraction,
    "preemptions": _count,
}


@st.composite
def valid_points(draw: st.DrawFn) -> list[dict[str, Any]]:
    concurrencies = draw(st.lists(st.integers(min_value=1, max_value=100_000), min_size=1, max_size=8, unique=True))
    points = []
    for c in concurrencies:
        extra = draw(st.fixed_dictionaries({}, optional=_OPTIONAL_FIELDS))
        points.append({"concurrency": c, **extra})
    return points


@settings(max_examples=75, deadline=None)
@given(points=valid_points())
def test_distinct_concurrencies_with_finite_non_negative_numbers_are_valid(points: list[dict[str, Any]]) -> None:
    issues = issues_of(minimal(points))
    assert errors(issues) == []
    # The only possible issue is the seed's warning, exactly where it applies.
    expected_warnings = [f"points[{i}]" for i, p in enumerate(points) if "output_tokens_per_sec" in p and "ttft_ms" not in p and "itl_ms" not in p]
    assert [i.path for i in issues] == expected_warnings


@settings(max_examples=75, deadline=None)
@given(points=valid_points(), data=st.data())
def test_adding_a_duplicate_concurrency_gives_exactly_one_duplicate_error(points: list[dict[str, Any]], data: st.DataObject) -> None:
    source = data.draw(st.integers(min_value=0, max_value=len(points) - 1), label="source")
    at = data.draw(st.integers(min_value=0, max_value=len(points)), label="insert at")
    duplicate = {"concurrency": points[source]["concurrency"], "ttft_ms": 1.0}
    points = [*points[:at], duplicate, *points[at:]]
    later = source + 1 if at <= source else at
    errs = errors(issues_of(minimal(points)))
    assert [(e.path, "already used" in e.message) for e in errs] == [(f"points[{later}].concurrency", True)]


def test_a_random_range_ratio_needs_the_random_dataset() -> None:
    from servescope.documents import EvaluationRun

    base = {"kind": "EvaluationRun", "name": "r", "scenario": "s", "harness": "sglang-bench-serving", "engine_version": "x",
            "points": [{"concurrency": 1, "ttft_ms": 1.0}]}  # fmt: skip
    assert EvaluationRun.model_validate({**base, "dataset": "random", "random_range_ratio": 0.0}).check() == []
    import pydantic
    import pytest

    with pytest.raises(pydantic.ValidationError, match="random_range_ratio: is the random dataset's setting: it needs dataset: random"):
        EvaluationRun.model_validate({**base, "dataset": "sharegpt", "random_range_ratio": 0.0})
