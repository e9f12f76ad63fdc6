"""Result: one execution of one workload on one configuration, and its cross-field rules."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pydantic import ValidationError

from servescope.documents import Metrics, Result, config_id, load
from tests.documents.conftest import WriteFn, issues_of, triples

ENGINE = "vllm"
VERSION = "0.6.3"
ARGS: dict[str, Any] = {"--max-num-seqs": 64, "--enable-prefix-caching": True}
DTYPE = "bf16"
KV_DTYPE = "fp8"

# 10 requests: 8 completed, 2 failed (both timeouts).
RESULT: dict[str, Any] = {
    "kind": "Result",
    "run_id": "2026-09-20T10-00-00Z-abc123",
    "workload_id": "serve-chat-c8-i1k-o256-v1",
    "scenario": "llama-3.1-8b-on-h100",
    "config_id": config_id(ENGINE, VERSION, ARGS, dtype=DTYPE, kv_dtype=KV_DTYPE),
    "timing_mode": "explicit",
    "engine": {"id": ENGINE, "version": VERSION},
    "model": {"id": "meta-llama/Llama-3.1-8B-Instruct", "dtype": DTYPE, "kv_dtype": KV_DTYPE},
    "hardware": {"id": "h100-sxm", "count": 1},
    "args": ARGS,
    "metrics": {
        "total_requests": 10,
        "completed_requests": 8,
        "failed_requests": 2,
        "success_rate": 0.8,
        "duration_s": 12.5,
        "output_tokens_total": 2048,
        "output_tokens_per_sec": 163.84,
        "ttft_ms": {"count": 8, "mean": 22.0, "min": 10.0, "p50": 20.0, "p90": 30.0, "p95": 35.0, "p99": 40.0, "max": 41.0},
    },
    "failures": [{"stage": "stream", "category": "timeout", "count": 2, "message": "no token for 30 s"}],
    "blocked_by_reason_code": {"timeout": 2},
    "throughput": 8,
    "metadata": {"pipeline_mode": "deterministic", "non_deterministic": False},
}

SIMULATED_ONLY = ("device_utilization", "device_queue_length_mean", "device_queue_length_max")
SIMULATED_VALUES: dict[str, list[Any]] = {
    "device_utilization": [0.5, 1.0],
    "device_queue_length_mean": [0.25, 0.0],
    "device_queue_length_max": [3, 0],
}


def result(**over: Any) -> dict[str, Any]:
    doc = copy.deepcopy(RESULT)
    doc.update(over)
    return doc


def with_metrics(**over: Any) -> dict[str, Any]:
    doc = result()
    doc["metrics"].update(over)
    return doc


def test_config_id_fixture_was_computed_from_the_same_inputs() -> None:
    # Recomputing with every input spelled differently must give the id stored in RESULT.
    assert RESULT["config_id"] == config_id("vLLM", "v0.6.3", {"max_num_seqs": "64", "--enable-prefix-caching": None}, dtype="bfloat16", kv_dtype="fp8_e4m3")


def test_minimal_valid_result_passes(write: WriteFn) -> None:
    loaded = load(write("result.json", RESULT))
    assert loaded.issues == []
    doc = loaded.document
    assert isinstance(doc, Result)
    assert doc.schema_version == "0.3"
    assert doc.metrics.ttft_ms is not None and doc.metrics.ttft_ms.p90 == 30.0
    assert doc.expected_config_id() == RESULT["config_id"]


def test_building_a_valid_result_from_python_works() -> None:
    assert Result.model_validate(RESULT).throughput == 8


# --- config_id -----------------------------------------------------------------------------------


def test_wrong_config_id_is_an_error_at_config_id() -> None:
    issues = issues_of(result(config_id="0123456789abcdef"))
    assert triples(issues) == [("error", "config_id")]
    assert RESULT["config_id"] in issues[0].message


@pytest.mark.parametrize("bad", ["XYZ", "0123456789ABCDEF", "0123456789abcde", "0123456789abcdef0"])
def test_malformed_config_id_is_an_error_at_config_id(bad: str) -> None:
    assert triples(issues_of(result(config_id=bad))) == [("error", "config_id")]


@pytest.mark.parametrize(
    "change",
    [
        lambda d: d["model"].update(dtype="fp16"),
        lambda d: d["model"].update(kv_dtype=None),
        lambda d: d["model"].update(quantization="awq"),
        lambda d: d["engine"].update(version="0.6.4"),
        lambda d: d["engine"].update(id="sglang"),
        lambda d: d["args"].update({"--max-num-seqs": 128}),
        lambda d: d["args"].update({"--enable-chunked-prefill": True}),
    ],
)
def test_changing_what_ran_without_changing_config_id_is_an_error(change: Any) -> None:
    doc = result(args=dict(ARGS))
    change(doc)
    assert triples(issues_of(doc)) == [("error", "config_id")]


def test_changing_only_non_runnable_args_keeps_config_id_valid() -> None:
    doc = result(args={**ARGS, "--port": 8000, "--host": "0.0.0.0"})
    doc["model"]["dtype"] = "bfloat16"
    assert issues_of(doc) == []


def test_conflicting_args_are_an_error_at_args() -> None:
    issues = issues_of(result(args={**ARGS, "max_num_seqs": 32}))
    assert triples(issues) == [("error", "args")]
    assert "given twice" in issues[0].message


# --- distributions -------------------------------------------------------------------------------


def test_percentiles_out_of_order_are_an_error_at_the_later_percentile() -> None:
    doc = result()
    doc["metrics"]["ttft_ms"]["p50"] = 31.0  # > p90 = 30.0
    issues = issues_of(doc)
    assert triples(issues) == [("error", "metrics.ttft_ms.p90")]
    assert issues[0].message == "percentiles out of order: p50=31.0 > p90=30.0"


@pytest.mark.parametrize(
    ("over", "path"),
    [
        ({"min": 21.0}, "metrics.ttft_ms.p50"),
        ({"p95": 29.0}, "metrics.ttft_ms.p95"),
        ({"p99": 34.0}, "metrics.ttft_ms.p99"),
        ({"max": 39.0}, "metrics.ttft_ms.max"),
    ],
)
def test_each_percentile_pair_is_checked(over: dict[str, float], path: str) -> None:
    doc = result()
    doc["metrics"]["ttft_ms"].update(over)
    assert triples(issues_of(doc)) == [("error", path)]


def test_absent_percentiles_are_skipped_in_the_order_check() -> None:
    doc = with_metrics(itl_ms={"p50": 5.0, "p99": 9.0}, e2e_ms={"min": 1.0, "max": 1.0, "mean": 1.0})
    assert issues_of(doc) == []
    doc = with_metrics(itl_ms={"p50": 10.0, "p99": 9.0})
    assert triples(issues_of(doc)) == [("error", "metrics.itl_ms.p99")]


def test_mean_outside_min_max_is_an_error() -> None:
    doc = result()
    doc["metrics"]["ttft_ms"]["mean"] = 50.0
    assert triples(issues_of(doc)) == [("error", "metrics.ttft_ms.mean")]


def test_point_distributions_are_checked_with_their_path() -> None:
    points = [
        {"concurrency": 1, "metrics": {"ttft_ms": {"p50": 5.0, "p90": 6.0}}},
        {"concurrency": 8, "metrics": {"ttft_ms": {"p50": 9.0, "p90": 8.0}}},
    ]
    assert triples(issues_of(result(points=points))) == [("error", "points[1].metrics.ttft_ms.p90")]


# --- counts that must add up ---------------------------------------------------------------------


def test_completed_plus_failed_must_equal_total() -> None:
    issues = issues_of(with_metrics(total_requests=11, success_rate=8 / 11))
    assert triples(issues) == [("error", "metrics.total_requests")]
    assert issues[0].message == "completed (8) + failed (2) != total (11)"


def test_success_rate_must_equal_completed_over_total() -> None:
    issues = issues_of(with_metrics(success_rate=0.9))
    assert triples(issues) == [("error", "metrics.success_rate")]
    assert issues[0].message == "0.9 != completed/total = 0.800000"


def test_goodput_above_requests_per_sec_is_an_error() -> None:
    # 8 completed in 12.5 s = 0.64 req/s; at most those 8 met every SLO
    assert issues_of(with_metrics(requests_per_sec=0.64, goodput_requests_per_sec=0.64)) == []
    assert issues_of(with_metrics(requests_per_sec=0.64, goodput_requests_per_sec=0.4)) == []
    issues = issues_of(with_metrics(requests_per_sec=0.64, goodput_requests_per_sec=0.72))
    assert triples(issues) == [("error", "metrics.goodput_requests_per_sec")]


def test_throughput_must_equal_completed_requests() -> None:
    issues = issues_of(result(throughput=7))
    assert triples(issues) == [("error", "throughput")]
    assert issues[0].message == "throughput (7) must equal completed_requests (8)"


def test_failures_total_must_match_blocked_by_reason_code() -> None:
    issues = issues_of(result(blocked_by_reason_code={"timeout": 1}))
    assert triples(issues) == [("error", "blocked_by_reason_code.timeout")]
    assert issues[0].message == "counts 1, failures[] lists 2 for 'timeout'"


def test_failures_total_must_match_failed_requests() -> None:
    doc = result(
        failures=[{"stage": "stream", "category": "timeout", "count": 3, "message": "slow"}],
        blocked_by_reason_code={"timeout": 3},
    )
    issues = issues_of(doc)
    assert triples(issues) == [("error", "failures")]
    assert issues[0].message == "failures[] counts 3, metrics.failed_requests is 2"


def test_failure_category_missing_from_blocked_by_reason_code_is_an_error() -> None:
    doc = result(
        failures=[
            {"stage": "stream", "category": "timeout", "count": 1, "message": "slow"},
            {"stage": "connect", "category": "connection", "count": 1, "message": "refused"},
        ],
        blocked_by_reason_code={"timeout": 2},
    )
    assert triples(issues_of(doc)) == [
        ("error", "blocked_by_reason_code.connection"),
        ("error", "blocked_by_reason_code.timeout"),
    ]


def test_several_failure_entries_of_one_category_add_up() -> None:
    doc = result(
        failures=[
            {"stage": "stream", "category": "timeout", "count": 1, "message": "slow stream"},
            {"stage": "first-token", "category": "timeout", "count": 1, "message": "no first token"},
        ]
    )
    assert issues_of(doc) == []


def test_failure_count_must_be_positive() -> None:
    doc = result(failures=[{"stage": "stream", "category": "timeout", "count": 0, "message": "x"}])
    assert ("error", "failures[0].count") in triples(issues_of(doc))


def test_failures_per_category_must_match_blocked_by_reason_code() -> None:
    doc = result(blocked_by_reason_code={"timeout": 1, "other": 1})  # totals agree (2), categories do not
    assert any(level == "error" for level, _ in triples(issues_of(doc)))


# --- SLOs ----------------------------------------------------------------------------------------

SLO = {"id": "ttft-500", "metric": "ttft_ms", "op": "<=", "threshold": 500.0}


def test_violation_naming_an_unknown_slo_is_an_error() -> None:
    issues = issues_of(result(violations_by_invariant_id={"ttft-500": 3}))
    assert triples(issues) == [("error", "violations_by_invariant_id.ttft-500")]


def test_violation_naming_a_known_slo_is_fine() -> None:
    assert issues_of(result(slos=[SLO], violations_by_invariant_id={"ttft-500": 3}, on_time_rate=0.625)) == []


def test_on_time_rate_without_slos_is_an_error() -> None:
    assert triples(issues_of(result(on_time_rate=0.5))) == [("error", "on_time_rate")]


def test_p50_turnaround_above_p95_is_an_error() -> None:
    assert triples(issues_of(result(p50_turnaround_s=2.0, p95_turnaround_s=1.5))) == [("error", "p95_turnaround_s")]


# --- timing modes --------------------------------------------------------------------------------


@pytest.mark.parametrize("name", SIMULATED_ONLY)
def test_simulated_only_metric_in_explicit_mode_is_an_error(name: str) -> None:
    issues = issues_of(with_metrics(**{name: SIMULATED_VALUES[name]}))
    assert triples(issues) == [("error", f"metrics.{name}")]
    assert "simulated" in issues[0].message


def test_simulated_only_metrics_are_accepted_in_simulated_mode() -> None:
    doc = with_metrics(**SIMULATED_VALUES)
    doc["timing_mode"] = "simulated"
    assert issues_of(doc) == []


def test_simulated_only_metrics_keep_their_ranges() -> None:
    doc = with_metrics(device_utilization=[0.5, 1.5])
    doc["timing_mode"] = "simulated"
    assert triples(issues_of(doc)) == [("error", "metrics.device_utilization[1]")]


@pytest.mark.parametrize("mode", ["measured", "Explicit", ""])
def test_unknown_timing_mode_is_an_error(mode: str) -> None:
    assert triples(issues_of(result(timing_mode=mode))) == [("error", "timing_mode")]


# --- nothing invented ----------------------------------------------------------------------------


def test_all_metrics_null_is_valid() -> None:
    doc = result(
        metrics={name: None for name in Metrics.model_fields},
        failures=[],
        blocked_by_reason_code={},
        throughput=None,
    )
    assert issues_of(doc) == []
    built = Result.model_validate(doc)
    assert built.dump()["metrics"]["ttft_ms"] is None


def test_empty_metrics_block_is_valid() -> None:
    doc = result(metrics={}, failures=[], blocked_by_reason_code={})
    del doc["throughput"]
    assert issues_of(doc) == []


def test_metrics_block_itself_is_required() -> None:
    doc = result()
    del doc["metrics"]
    assert triples(issues_of(doc)) == [("error", "metrics")]


def test_unknown_metric_is_an_error() -> None:
    assert triples(issues_of(with_metrics(tokens_per_sec=5.0))) == [("error", "metrics.tokens_per_sec")]


def test_non_finite_metric_is_an_error() -> None:
    assert triples(issues_of(with_metrics(output_tokens_per_sec=float("inf")))) == [("error", "metrics.output_tokens_per_sec")]


def test_building_an_inconsistent_result_from_python_raises() -> None:
    with pytest.raises(ValidationError, match="throughput"):
        Result.model_validate(result(throughput=7))


def test_a_config_id_by_the_earlier_rule_is_a_warning_not_an_error() -> None:
    from servescope.documents.config_id import legacy_config_id

    args = {**ARGS, "--no-enforce-eager": None}
    old = legacy_config_id(ENGINE, VERSION, args, DTYPE, KV_DTYPE)
    assert old != config_id(ENGINE, VERSION, args, dtype=DTYPE, kv_dtype=KV_DTYPE)
    found = issues_of(result(args=args, config_id=old))
    assert triples(found) == [("warning", "config_id")] and "earlier rule" in found[0].message
    assert triples(issues_of(result(args=args, config_id="0123456789abcdef"))) == [("error", "config_id")]
