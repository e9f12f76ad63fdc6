"""The API server's serial intake: how many front ends a deployment has, which engines pay it,
and what a burst of requests sees (``calibration.intake_request_s``, ``engine_flags.front_ends``)."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.predict.api import prepare, simulate
from servescope.predict.calibration import Calibration, default_calibration
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.engine_flags import front_ends, normalized
from servescope.predict.workload_input import SyntheticWorkload
from tests.predict.conftest import scenario


@pytest.mark.parametrize(
    "engine, args, dp, expected",
    [
        ("vllm", {}, 1, 1),
        ("vllm", {}, 4, 4),  # vLLM starts one API server per data-parallel rank unless told otherwise
        ("vllm", {"--api-server-count": 2}, 4, 2),
        ("vllm", {"--api-server-count": 3}, 1, 3),
        ("sglang", {}, 2, 1),  # one TokenizerManager feeds SGLang's data-parallel controller
        ("sglang", {"--tokenizer-worker-num": 4}, 1, 4),
        ("sglang", {"--api-server-count": 3}, 1, 1),  # not SGLang's flag
        ("trt-llm", {}, 2, 2),  # one server per replica
        ("vllm", {"-asc": 2}, 1, 2),  # vLLM's short form
        ("vllm", {"--api-server-count": 0}, 2, 2),  # (headless: not a count; warned)
    ],
)
def test_front_ends(engine: str, args: dict[str, object], dp: int, expected: int) -> None:
    assert front_ends(engine, normalized(engine, args), dp) == expected


def test_deployment_reads_the_api_server_count(catalog: Catalog) -> None:
    dep = deploy(scenario(engine={"id": "vllm", "version": "0.11.0", "args": {"--api-server-count": 4}}), catalog=catalog)
    assert dep.front_ends == 4
    assert not [w for w in dep.warnings if "api-server-count" in w]  # read, not "not simulated"


@pytest.mark.parametrize("value", ["many", 0])
def test_a_count_that_is_not_one_is_refused_with_the_scenario(value: object) -> None:
    """Not simulated at the default with a warning: refused where the Scenario is read (``documents.scenario_args``)."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"engine\.args\.--api-server-count: .*a positive integer"):
        scenario(engine={"id": "vllm", "version": "0.11.0", "args": {"--api-server-count": value}})


def test_vllm_on_a_cpu_pays_the_intake_it_was_measured_with(catalog: Catalog) -> None:
    cpu = catalog.hardware("generic-cpu")
    vllm = default_calibration(cpu, "vllm")
    assert vllm.intake_request_s == Calibration().intake_request_s and vllm.intake_token_s == Calibration().intake_token_s
    assert vllm.request_overhead_s == Calibration().request_overhead_s
    assert default_calibration(cpu, "llama.cpp").intake_request_s == 0


def test_a_calibration_with_its_own_per_request_cost_is_told_of_the_intake(catalog: Catalog) -> None:
    s = scenario()
    old = deploy(s, catalog=catalog, calibration={"request_overhead_s": 0.02})
    assert [w for w in old.warnings if "sets request_overhead_s but not intake_request_s" in w]
    new = deploy(s, catalog=catalog, calibration={"request_overhead_s": 0.02, "intake_request_s": 0.0016})
    assert not [w for w in new.warnings if "intake_request_s" in w]


def test_gpu_engines_pay_the_intake_and_cpu_engines_do_not(catalog: Catalog) -> None:
    gpu = default_calibration(catalog.hardware("h100-sxm"), "vllm")
    assert gpu.intake_request_s == Calibration().intake_request_s > 0 and gpu.intake_token_s > 0
    assert default_calibration(catalog.hardware("h100-sxm"), "trt-llm").intake_request_s == gpu.intake_request_s
    cpu = default_calibration(catalog.hardware("h100-sxm"), "llama.cpp")
    assert cpu.intake_request_s == 0 and cpu.intake_token_s == 0


def ttft_ms(dep: Deployment, spec: SyntheticWorkload) -> float:
    value = simulate(prepare(spec), dep, documents=False).prediction.points[0].ttft_ms
    assert value is not None
    return value


def test_a_burst_reaches_the_engine_together_once_its_whole_intake_is_done(catalog: Catalog) -> None:
    dep = deploy(scenario(), catalog=catalog)
    per_request_ns = (dep.calibration.intake_request_s + 128 * dep.calibration.intake_token_s) * 1e9
    overhead_ns = dep.calibration.request_overhead_s * 1e9
    run = simulate(prepare(SyntheticWorkload((400,), 128, 4, num_requests=400, harness="burst")), dep, documents=False)
    arrivals = {r.arrival_ns - r.start_ns for r in run.outcome.requests}
    assert len(arrivals) == 1  # the event loop advances them all a step at a time: none is through before the rest
    assert arrivals.pop() == pytest.approx(400 * per_request_ns + overhead_ns, rel=1e-6)
    off = deploy(scenario(), catalog=catalog, calibration={"intake_request_s": 0.0, "intake_token_s": 0.0})
    held = run.prediction.points[0].ttft_ms
    free = simulate(prepare(SyntheticWorkload((400,), 128, 4, num_requests=400, harness="burst")), off, documents=False).prediction.points[0].ttft_ms
    assert held is not None and free is not None and held - free == pytest.approx(400 * per_request_ns / 1e6, rel=0.02)
    records = run.records
    assert all(r.first_token_ns is not None for r in records)
    by_id = {r.request_id: r for r in run.outcome.requests}
    assert all(rec.first_token_ns > by_id[rec.request_id].arrival_ns for rec in records)  # no token before its request arrived


def test_one_request_at_a_time_pays_its_own_intake_only(catalog: Catalog) -> None:
    s = scenario()
    dep = deploy(s, catalog=catalog)
    off = deploy(s, catalog=catalog, calibration={"intake_request_s": 0.0, "intake_token_s": 0.0})
    per_request_ms = (dep.calibration.intake_request_s + 128 * dep.calibration.intake_token_s) * 1e3
    lone = SyntheticWorkload((1,), 128, 4, num_requests=4)
    assert ttft_ms(dep, lone) - ttft_ms(off, lone) == pytest.approx(per_request_ms, rel=0.05)
