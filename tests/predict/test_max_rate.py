"""predict.max_rate: the highest Poisson rate meeting p99 limits, by bisection."""

from __future__ import annotations

import math

import pytest

from servescope.catalog.store import Catalog
from servescope.predict.deployment import deploy
from servescope.predict.max_rate import (
    MAX_RATE_TOLERANCE,
    NoRateError,
    max_rate,
    predict_max_rate,
)
from servescope.predict.search import parse_slos
from tests.predict.conftest import scenario


@pytest.fixture(scope="module")
def dep(catalog: Catalog):  # type: ignore[no-untyped-def]
    return deploy(scenario(), catalog=catalog)


def test_the_rate_found_meets_the_limits_and_a_step_above_does_not(dep) -> None:  # type: ignore[no-untyped-def]
    slos = parse_slos("p99_ttft_ms<=150,p99_tpot_ms<=12")
    found = max_rate(dep, 512, 64, slos, num_requests=400)
    assert 0 < found.rate < found.capacity_rps
    assert len(found.probes) <= 1 + math.ceil(math.log2(1 / MAX_RATE_TOLERANCE))  # the top, then the bisection
    passing = [p for p in found.probes if p.ok]
    failing = [p for p in found.probes if not p.ok]
    assert max(p.rate for p in passing) == found.rate
    above = min(p.rate for p in failing if p.rate > found.rate)
    assert above - found.rate <= MAX_RATE_TOLERANCE * found.capacity_rps + 1e-9
    for p in passing:
        assert p.values["p99_ttft_ms"] is not None and p.values["p99_ttft_ms"] <= 150
        assert p.values["p99_tpot_ms"] is not None and p.values["p99_tpot_ms"] <= 12


def test_a_loose_limit_stops_at_capacity(dep) -> None:  # type: ignore[no-untyped-def]
    found = max_rate(dep, 256, 32, parse_slos("p99_ttft_ms<=600000"), num_requests=300)
    assert found.at_capacity and found.rate == found.capacity_rps and len(found.probes) == 1


def test_an_impossible_limit_is_one_line(dep) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(NoRateError, match=r"no Poisson rate meets p99_ttft_ms<=0.001 on s: even at .* req/s"):
        max_rate(dep, 256, 32, parse_slos("p99_ttft_ms<=0.001"), num_requests=200)
    with pytest.raises(ValueError, match="needs --slo"):
        max_rate(dep, 256, 32, [], num_requests=200)


def test_documents_of_the_rate_found(catalog: Catalog) -> None:
    run, found = predict_max_rate(scenario(), 512, 64, parse_slos("p99_ttft_ms<=150,tpot_ms<=12"), num_requests=300,
                                  catalog=catalog)  # fmt: skip
    [point] = run.prediction.points
    assert point.request_rate == pytest.approx(found.rate) and point.completed_requests == 300
    block = run.result.resolved_params["max_rate"]
    assert block["slos"] == ["p99_ttft_ms<=150", "tpot_ms<=12"] and block["default_percentile"] == 99.0
    assert len(block["probes"]) == len(found.probes) and block["capacity_rps"] > block["rate"]


def test_slo_statistic_prefixes() -> None:
    slos = parse_slos("p99_ttft_ms<=2000, mean_tpot_ms<50, itl_ms<=30, p99.9_e2e_ms<=9")
    assert [(s.name, s.percentile(90.0)) for s in slos] == [
        ("p99_ttft_ms", 99.0), ("mean_tpot_ms", None), ("itl_ms", 90.0), ("p99.9_e2e_ms", 99.9)]  # fmt: skip
    assert str(slos[0]) == "p99_ttft_ms<=2000"
    for bad in ("p100_ttft_ms<=1", "p0_ttft_ms<=1", "median_ttft_ms<=1"):
        with pytest.raises(ValueError, match="cannot read SLO"):
            parse_slos(bad)
