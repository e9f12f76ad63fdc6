"""Physics checks of measurements."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.documents import EvaluationPoint, EvaluationRun, Scenario
from servescope.predict.plausibility import decode_floor, plausibility_issues


def run(*points: EvaluationPoint, scenario: str = "llama-3.1-8b-on-h100") -> EvaluationRun:
    return EvaluationRun(name="m", scenario=scenario, harness="h", engine_version="v", points=list(points))


def test_floor_by_hand(catalog: Catalog) -> None:
    f = decode_floor(catalog.scenario("llama-3.1-8b-on-h100"), catalog)
    active = (1_342_177_280 + 5_637_144_576 + 128256 * 4096) * 2  # bf16, embedding lookups excluded
    assert f.weight_seconds == active / 2 / 3350e9  # tp=2 on 3.35 TB/s
    assert f.max_tokens_per_s == 1 / f.weight_seconds


def test_too_fast_decode_is_an_error(catalog: Catalog) -> None:
    issues = plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=1.0), EvaluationPoint(concurrency=8, itl_ms=6.0)), catalog=catalog)
    assert [(i.level, i.path) for i in issues] == [("error", "points[0].itl_ms")]


def test_speculative_decoding_raises_the_bound(catalog: Catalog) -> None:
    scen = catalog.scenario("llama-3.1-8b-on-h100").model_copy(update={"speculative_tokens": 3})
    assert plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=1.0)), scen, catalog=catalog) == []


def test_slow_decode_is_a_warning(catalog: Catalog) -> None:
    issues = plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=5000.0, mean_isl=100, mean_osl=10)), catalog=catalog)
    assert [i.level for i in issues] == ["warning"]


def test_weights_larger_than_the_device(catalog: Catalog) -> None:
    scen = Scenario(name="big", model="llama-3.1-70b", hardware="l4", engine={"id": "vllm", "version": "1"})  # type: ignore[arg-type]
    issues = plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=500.0)), scen, catalog=catalog)
    assert issues[0].level == "error" and "exceed" in issues[0].message


def test_unknown_scenario_is_not_judged(catalog: Catalog) -> None:
    assert plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=0.001), scenario="nobody-knows"), catalog=catalog) == []


def test_tiny_model_is_cache_resident(catalog: Catalog) -> None:
    # 5 MB of weights: faster than DRAM allows is possible, so no error
    assert plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=0.01), scenario="tiny-llama-on-cpu"), catalog=catalog) == []


def test_on_a_simulated_result(catalog: Catalog) -> None:
    from servescope.predict.api import predict
    from servescope.predict.workload_input import SyntheticWorkload

    res = predict("llama-3.1-8b-on-h100", SyntheticWorkload((4,), 256, 32, num_requests=8), catalog=catalog).result
    assert plausibility_issues(res, catalog=catalog) == []


def test_decode_floor_reads_the_kv_dtype_flag(catalog: Catalog) -> None:
    from servescope.predict.plausibility import decode_floor
    from tests.predict.conftest import scenario

    plain = decode_floor(scenario(), catalog)
    fp8 = decode_floor(scenario(engine={"id": "vllm", "version": "0.11.0", "args": {"--kv-cache-dtype": "fp8"}}), catalog)
    assert fp8.kv_seconds_per_token == pytest.approx(plain.kv_seconds_per_token / 2)


# ---- impossible times, whatever the scenario ---------------------------------------


def test_a_latency_of_centuries_is_an_error_even_without_a_known_scenario(catalog: Catalog) -> None:
    # what `predict --rate 1e-300` wrote before the schedule was bounded: an int64 overflow
    doc = run(EvaluationPoint(concurrency=1, ttft_ms=9.2e12, itl_ms=5.0), scenario="nobody-knows")
    issues = plausibility_issues(doc, catalog=catalog)
    assert [(i.level, i.path) for i in issues] == [("error", "points[0].ttft_ms")]
    assert "longer than any latency" in issues[0].message


def test_a_negative_latency_is_an_error(catalog: Catalog) -> None:
    issues = plausibility_issues(run(EvaluationPoint(concurrency=1, itl_ms=5.0, e2e_ms=-3.0), scenario="nobody-knows"), catalog=catalog)
    assert [(i.level, i.path) for i in issues] == [("error", "points[0].e2e_ms")]


def test_impossible_times_in_a_simulated_result_and_prediction(catalog: Catalog) -> None:
    from servescope.predict.api import predict
    from servescope.predict.workload_input import SyntheticWorkload

    sim = predict("llama-3.1-8b-on-h100", SyntheticWorkload((4,), 256, 32, num_requests=8), catalog=catalog)
    assert plausibility_issues(sim.prediction, catalog=catalog) == []
    res = sim.result.model_copy(deep=True)
    assert res.metrics.ttft_ms is not None
    res.metrics.ttft_ms.max = 9.223e12
    res.metrics.duration_s = 40 * 86400.0
    paths = {i.path for i in plausibility_issues(res, catalog=catalog) if i.level == "error"}
    assert paths == {"metrics.ttft_ms.max", "metrics.duration_s"}
    pred = sim.prediction.model_copy(deep=True)
    pred.points[0].ttft_ms = 1e12
    assert [i.path for i in plausibility_issues(pred, catalog=catalog)] == ["points[0].ttft_ms"]


def test_a_week_long_latency_is_still_a_latency(catalog: Catalog) -> None:
    """The bound is a week (run --timeout's maximum): six days is judged by physics only."""
    doc = run(EvaluationPoint(concurrency=1, ttft_ms=6 * 86400e3, itl_ms=5.0), scenario="nobody-knows")
    assert plausibility_issues(doc, catalog=catalog) == []
