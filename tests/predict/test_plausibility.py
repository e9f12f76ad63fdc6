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
