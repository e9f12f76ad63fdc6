"""calibrate(): recover known factors from a run the simulator itself produced,
and read measured Results and EvaluationRuns."""

from __future__ import annotations

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import EvaluationPoint, EvaluationRun
from servescope.errors import CatalogError, DocumentError
from servescope.predict.api import predict
from servescope.predict.calibrate import calibrate, rows_from_result
from servescope.predict.calibration import Calibration, apply, load_calibration

TRUE = {"step_overhead_s": 0.0009, "output_token_overhead_s": 0.0006}


@pytest.fixture(scope="module")
def measured(catalog: Catalog) -> EvaluationRun:
    """A 'measurement' made by the simulator with known factors."""
    run = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, calibration=TRUE)
    return EvaluationRun(
        name="synthetic-truth",
        scenario="tiny-llama-on-cpu",
        harness="servescope-sim",
        engine_version="x",
        workload="sweep-parallel-1-8-i128-o64-v1",
        points=[
            EvaluationPoint(**p.model_dump(include={"concurrency", "ttft_ms", "itl_ms", "output_tokens_per_sec", "mean_isl", "mean_osl"}))
            for p in run.prediction.points
        ],
    )


def test_fit_recovers_the_truth(catalog: Catalog, measured: EvaluationRun) -> None:
    out = calibrate(
        "tiny-llama-on-cpu", measured, catalog=catalog, factors=("step_overhead_s", "output_token_overhead_s"), max_evaluations=40, date="2026-11-30"
    )
    doc = out.document
    assert out.before.mape()["itl_ms"] > 30
    assert all(v < 2.0 for v in doc.mape_after.values()), doc.mape_after
    assert doc.factors["output_token_overhead_s"] == pytest.approx(0.0006, rel=0.1)
    assert doc.factors["step_overhead_s"] == pytest.approx(0.0009, rel=0.25)
    assert doc.points == 4 and doc.date == "2026-11-30"


def test_calibration_file_round_trip(tmp_path, catalog: Catalog, measured: EvaluationRun) -> None:  # type: ignore[no-untyped-def]
    out = calibrate("tiny-llama-on-cpu", measured, catalog=catalog, factors=("output_token_overhead_s",), max_evaluations=15)
    path = tmp_path / "cal.json"
    path.write_text(out.document.model_dump_json())
    doc = load_calibration(path)
    cal = apply(Calibration(), doc)
    assert cal.output_token_overhead_s == doc.factors["output_token_overhead_s"]
    run = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, calibration=path)
    assert run.prediction.calibration == str(path)
    assert not [w for w in run.warnings if "was fitted on scenario" in w]
    # the same factors on another deployment (a CPU's efficiencies on an H100): said, not assumed to carry
    other = predict("llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, calibration=path, concurrency=[1])
    [line] = [w for w in other.warnings if "was fitted on scenario tiny-llama-on-cpu" in w]
    assert line.startswith("scenario llama-3.1-8b-on-h100: calibration") and "servescope calibrate llama-3.1-8b-on-h100" in line


def test_bad_calibration_files(tmp_path) -> None:  # type: ignore[no-untyped-def]
    p = tmp_path / "c.yaml"
    p.write_text("kind: Calibration\nname: x\nscenario: s\nfitted_from: m\nfactors: {warp_speed: 2.0}\n")
    with pytest.raises(DocumentError, match="unknown factor"):
        load_calibration(p)
    p.write_text("kind: Scenario\n")
    with pytest.raises(DocumentError, match="not a Calibration"):
        load_calibration(p)


def test_points_without_workload_or_lengths_cannot_be_fitted(catalog: Catalog) -> None:
    run = EvaluationRun(name="n", scenario="s", harness="h", engine_version="v", points=[EvaluationPoint(concurrency=1, ttft_ms=10.0)])
    with pytest.raises(CatalogError, match="mean_isl"):
        calibrate("tiny-llama-on-cpu", run, catalog=catalog)


def test_unknown_names_are_refused(catalog: Catalog, measured: EvaluationRun) -> None:
    with pytest.raises(ValueError, match="unknown factor"):
        calibrate("tiny-llama-on-cpu", measured, catalog=catalog, factors=("nope",))
    with pytest.raises(ValueError, match="unknown metric"):
        calibrate("tiny-llama-on-cpu", measured, catalog=catalog, metrics=("nope",))


def test_rows_from_a_result(catalog: Catalog) -> None:
    res = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog).result
    rows = rows_from_result(res)
    assert [r.concurrency for r in rows] == [1, 2, 4, 8]
    assert rows[0].ttft_ms == res.points[0].metrics.ttft_ms.mean  # type: ignore[index,union-attr]


def test_a_documented_harness_is_replayed_the_way_it_runs(catalog: Catalog) -> None:
    """InferenceX's client: burst start, 10 x concurrency requests, all measured,
    lengths uniform in [0.8 L, L]; an undocumented harness: the steady-state rule."""
    from servescope.predict.calibrate import Measured, fit_cases
    from servescope.predict.replay import STEADY_WARMUP

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    point = EvaluationPoint(concurrency=8, ttft_ms=50.0, itl_ms=10.0, mean_isl=1024, mean_osl=1024)
    (case,) = fit_cases(Measured("ix", None, [point], "InferenceX"), scenario, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and spec.replay.name == "inferencex"
    assert spec.requests_at(8) == 10 * 8 and spec.warmup_at(8) == 0 and spec.lengths == (0.8, 1.0)
    (case,) = fit_cases(Measured("other", None, [point], "aiperf"), scenario, catalog, template_tokens=0)
    steady = case.prepared.synthetic
    assert steady is not None and steady.warmup_at(8) == STEADY_WARMUP * 8 and steady.continuous and steady.cooldown_at(8) > 0


def test_a_replay_draws_the_measured_mean_lengths(catalog: Catalog) -> None:
    """InferenceX's 1k1k points say mean_isl = mean_osl = 922, the mean of its draw uniform in
    [0.8 L, L] at L = 1024: the replay is given L = 922 / 0.9, so its requests' mean is the
    measured one (given L = 922 they averaged 830, 10 % short)."""
    from servescope.predict.calibrate import Measured, fit_cases
    from servescope.predict.deployment import deploy
    from servescope.predict.workload_input import phases_synthetic

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    point = EvaluationPoint(concurrency=8, ttft_ms=50.0, itl_ms=10.0, mean_isl=922, mean_osl=922)
    (case,) = fit_cases(Measured("ix", None, [point], "InferenceX"), scenario, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and (spec.isl, spec.osl) == (1024, 1024)
    dep = deploy(scenario, catalog=catalog)
    measured = [q for ph in phases_synthetic(spec, dep) if ph.name == "measured" for q in ph.requests]
    assert abs(sum(q.max_tokens for q in measured) / len(measured) - 922) < 0.02 * 922
    # a replay of exact or centred lengths keeps the mean as it is
    (case,) = fit_cases(Measured("sb", None, [point], "vllm-bench-serve"), scenario, catalog, template_tokens=0)
    assert case.prepared.synthetic is not None and case.prepared.synthetic.isl == 922


def test_a_random_dataset_spread_is_replayed_in_the_clients_meaning(catalog: Catalog) -> None:
    """DataCrunch ran sglang.bench_serving's random dataset at --random-range-ratio 0: each length
    uniform in [1, L] (mean about L / 2), replayed so, not as identical requests (which finish together)."""
    import pytest

    from servescope.errors import CatalogError
    from servescope.predict.calibrate import Measured, fit_cases, random_spread
    from servescope.predict.deployment import deploy
    from servescope.predict.workload_input import phases_synthetic

    assert random_spread("sglang-bench-serving", 0.0, 508, 515) == pytest.approx(507 / 508)
    assert random_spread("sglang-bench-serving", 0.5, 768, 768) == pytest.approx(1 / 3)  # [L/2, L] around 3L/4
    assert random_spread("vllm-bench-serve", 0.25, 1000, 1000) == 0.25
    with pytest.raises(CatalogError, match="not known here"):
        random_spread("aiperf", 0.1, 100, 100)
    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    point = EvaluationPoint(concurrency=400, completed_requests=400, output_tokens_per_sec=1000.0, mean_isl=508, mean_osl=515)
    runs = {
        spread: fit_cases(Measured("dc", None, [point], "sglang-bench-serving", "random", spread), scenario, catalog, template_tokens=0)[0]
        for spread in (None, 0.0)
    }
    dep = deploy(scenario, catalog=catalog)
    out = {k: [q.max_tokens for ph in phases_synthetic(c.prepared.synthetic, dep) for q in ph.requests] for k, c in runs.items()}  # type: ignore[arg-type]
    assert set(out[None]) == {515}  # no stated ratio: the mean lengths
    spread_out = out[0.0]
    assert min(spread_out) < 30 and max(spread_out) > 1000 and abs(sum(spread_out) / len(spread_out) - 515) < 0.05 * 515


def test_a_point_whose_requests_were_all_in_flight_is_replayed_as_that_burst(catalog: Catalog) -> None:
    """`vllm bench serve` with rate inf and no --max-concurrency sends every prompt at t = 0: a
    point that completed no more requests than it had in flight is an offline burst, not a loop
    (replayed as a steady loop at c = 1000 it would simulate 16,000 requests of another load)."""
    from servescope.predict.calibrate import Measured, fit_cases

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    burst = EvaluationPoint(concurrency=500, completed_requests=500, ttft_ms=9000.0, itl_ms=40.0, mean_isl=2000, mean_osl=100)
    (case,) = fit_cases(Measured("gs", None, [burst], "vllm-bench-serve"), scenario, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and spec.replay.name == "burst"
    assert spec.requests_at(500) == 500 and spec.warmup_at(500) == 0
    (case,) = fit_cases(Measured("gs", None, [burst], "sglang-bench-serving"), scenario, catalog, template_tokens=0)
    assert case.prepared.synthetic is not None and case.prepared.synthetic.replay.name == "burst"


def test_a_vllm_bench_serve_loop_is_replayed_as_its_client_runs_it(catalog: Catalog) -> None:
    """`vllm bench serve --max-concurrency C --request-rate inf` (silybench): C clients from a burst
    start, every one of the point's requests measured, no warm-up in the window, exact lengths at
    range ratio 0 - not the steady-state rule (which, desynchronised, put a prefill in nearly every
    iteration: predicted median ITL 22.5 ms against the measured 9.3 ms at c128, 128:128, Qwen3-8B)."""
    from servescope.predict.calibrate import Measured, fit_cases

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    loop = EvaluationPoint(concurrency=8, completed_requests=40, itl_p50_ms=10.0, mean_isl=1024, mean_osl=128)
    (case,) = fit_cases(Measured("sb", None, [loop], "vllm-bench-serve"), scenario, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and spec.replay.name == "vllm"
    assert spec.requests_at(8) == 40 and spec.warmup_at(8) == 0 and spec.lengths == (1.0, 1.0)
    assert not spec.continuous and spec.cooldown_at(8) == 0


def test_identical_requests_from_a_burst_start_stay_in_waves() -> None:
    """The physics behind the replay above, on silybench's own point (Qwen3-8B bf16, H100, vLLM
    0.30.0, c128, 128:128, 640 requests, measured median ITL 9.34 ms): C identical requests
    (exact lengths, --ignore-eos) prefill together and finish together, so most inter-token gaps
    are decode-only iterations; the steady-state rule put a prefill into nearly every one (22.5 ms)."""
    from servescope.catalog.store import packaged_root
    from servescope.predict.api import simulate
    from servescope.predict.calibrate import Measured, fit_cases
    from servescope.predict.deployment import deploy

    cat = Catalog.load([packaged_root() / "validation"])
    scenario = cat.scenario("sb-vllm-0.30.0-qwen3-8b-bf16-h100-tp1")
    dep = deploy(scenario, catalog=cat)
    loop = EvaluationPoint(concurrency=128, completed_requests=640, itl_p50_ms=9.3388, mean_isl=128, mean_osl=128)
    (case,) = fit_cases(Measured("sb", None, [loop], "vllm-bench-serve"), scenario, cat, template_tokens=dep.template_tokens)
    point = simulate(case.prepared, dep, documents=False).prediction.points[0]
    assert point.itl_p50_ms is not None and point.itl_ms is not None
    decode_only = 1e3 * float(dep.step_model.decode_run(np.full(128, 192.0), 1)[0])  # 128 sequences, mid-output
    assert point.itl_p50_ms < 1.15 * decode_only and point.itl_p50_ms < point.itl_ms
    assert abs(point.itl_p50_ms - 9.3388) / 9.3388 < 0.2


def test_a_source_of_medians_is_compared_median_to_median(catalog: Catalog) -> None:
    """silybench publishes median ITL only: held against the predicted median, never the mean
    (under chunked prefill the mean ITL carries every prefill stall; the median does not; replayed in
    steady state, where prefills interleave with decodes)."""
    from servescope.predict.api import simulate
    from servescope.predict.calibrate import Measured, evaluate, fit_cases
    from servescope.predict.calibration import Calibration
    from servescope.predict.deployment import deploy

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    mean_pt = EvaluationPoint(concurrency=32, completed_requests=160, itl_ms=10.0, mean_isl=1024, mean_osl=128)
    median_pt = EvaluationPoint(concurrency=32, completed_requests=160, itl_p50_ms=10.0, mean_isl=1024, mean_osl=128)
    preds = []
    for pt in (mean_pt, median_pt):
        cases = fit_cases(Measured("s", None, [pt], "a-harness-of-unknown-settings"), scenario, catalog, template_tokens=0)
        ev = evaluate(scenario, cases, Calibration(), ("itl_ms",), catalog)
        preds.append(ev.predicted["itl_ms"][0])
    (case,) = fit_cases(Measured("s", None, [median_pt], "a-harness-of-unknown-settings"), scenario, catalog, template_tokens=0)
    run = simulate(case.prepared, deploy(scenario, catalog=catalog), documents=False)
    point = run.prediction.points[0]
    assert point.itl_p50_ms is not None and point.itl_ms is not None and point.itl_p50_ms < point.itl_ms
    assert preds == [point.itl_ms, point.itl_p50_ms]


def test_tensorrt_llm_engines_get_their_own_factors() -> None:
    from servescope.predict.calibration import ENGINE_DEFAULTS, default_calibration

    hw = Catalog.load().hardware("h100-sxm")
    vllm, trt, nim = (default_calibration(hw, e) for e in ("vllm", "trt-llm", "NIM"))
    assert vllm == Calibration()
    for name, value in ENGINE_DEFAULTS["trt-llm"].items():
        assert getattr(trt, name) == value
        # NIM's profiles are prebuilt TensorRT engines: same kernels, no eager prefill launch
        assert getattr(nim, name) == (0.0 if name == "eager_layer_s" else value)
    assert trt.gemm_eff > vllm.gemm_eff and trt.layer_overhead_s < vllm.layer_overhead_s
    assert trt.eager_layer_s > 0 and vllm.eager_layer_s > 0


def test_cpu_engines_have_no_eager_floor() -> None:
    from servescope.predict.calibration import default_calibration

    cat = Catalog.load()
    assert default_calibration(cat.hardware("generic-cpu"), "llama.cpp").eager_layer_s == 0.0
    assert default_calibration(cat.hardware("h100-sxm"), "llama.cpp").eager_layer_s == 0.0


def test_a_pool_of_one_long_request_does_not_thrash() -> None:
    """GPUStack's Qwen3-32B bf16 on one A100 80GB (vLLM 0.11.0, prefix caching on): 100 prompts of
    32,000 tokens at once into a pool of about one of them. vLLM served them one after another at
    a mean ITL of 64.5 ms; when a preempted request lost its computed blocks (recomputed from
    token 0 on each re-admission) the simulation preempted 2,475 times and predicted 709 ms."""
    from servescope.catalog.store import packaged_root
    from servescope.documents import load_document
    from servescope.predict.api import simulate
    from servescope.predict.calibrate import fit_cases, measured_of
    from servescope.predict.deployment import deploy

    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    run = load_document(root / "runs" / "gs-vllm-0.11.0-qwen3-32b-bf16-a100-tp1-random-32000-100-burst-n100.yaml", EvaluationRun)
    scenario = cat.scenario(run.scenario)
    dep = deploy(scenario, catalog=cat)
    (case,) = fit_cases(measured_of(run), scenario, cat, dep.template_tokens)
    point = simulate(case.prepared, dep, documents=False).prediction.points[0]
    measured = run.points[0].itl_ms
    assert measured is not None and point.itl_ms is not None and point.preemptions is not None
    assert abs(point.itl_ms - measured) / measured < 0.25
    assert point.preemptions <= 100  # about one per request, not 25


def test_validation_runs_say_which_dataset_they_used() -> None:
    """The run names and notes say sharegpt / random; the field says it too (null only where the
    source does not: NIM's two runs)."""
    from servescope.catalog.store import packaged_root
    from servescope.documents import load_document

    runs = [load_document(p, EvaluationRun) for p in sorted((packaged_root() / "validation" / "runs").glob("*.yaml"))]
    by_dataset: dict[str | None, list[str]] = {}
    for run in runs:
        by_dataset.setdefault(run.dataset, []).append(run.name)
        if "-sharegpt-" in run.name:
            assert run.dataset == "sharegpt", run.name
        if "-random-" in run.name or run.name.startswith(("ix-", "sb-")):
            assert run.dataset == "random", run.name
    assert len(by_dataset["sharegpt"]) == 30
    assert sorted(by_dataset[None]) == ["nim-1.8.0-llama-3.3-70b-fp8-tp2-i500-o2000", "nim-1.8.0-llama-3.3-70b-fp8-tp2-i5000-o500"]


def test_a_sharegpt_point_is_replayed_with_a_length_distribution() -> None:
    """GPUStack's Qwen3-32B bf16 on one H100 under trtllm-serve, 1000 ShareGPT prompts at once
    (vllm bench serve, measured 1280 output tok/s): with every request at the mean lengths
    (217:202) the replay admitted far more than the engine did and predicted about twice the
    measured rate; with ShareGPT's spread, drawn around those means under vllm bench serve's
    filter, each request reserves its own output (GUARANTEED_NO_EVICT) and the rate falls
    (2026-12-01: 1,085 drawn, 1,593 at the means; the batches TensorRT-LLM's default CUDA graphs
    miss, 33-63 and over 64 but 128, are launched eagerly)."""
    import dataclasses

    from servescope.catalog.store import packaged_root
    from servescope.documents import load_document
    from servescope.predict.calibrate import evaluate, fit_cases, measured_of
    from servescope.predict.deployment import deploy

    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    run = load_document(root / "runs" / "gs-trt-llm-1.2.0rc1-qwen3-32b-bf16-h100-tp1-sharegpt-burst-n1000.yaml", EvaluationRun)
    assert run.dataset == "sharegpt"
    scenario = cat.scenario(run.scenario)
    dep = deploy(scenario, catalog=cat)
    measured = measured_of(run)
    (case,) = fit_cases(measured, scenario, cat, dep.template_tokens)
    assert case.prepared.synthetic is not None and case.prepared.synthetic.sharegpt_client == "vllm-bench-serve"
    (mean_case,) = fit_cases(dataclasses.replace(measured, dataset=None), scenario, cat, dep.template_tokens)
    assert mean_case.prepared.synthetic is not None and mean_case.prepared.synthetic.sharegpt_client is None
    metric = ("output_tokens_per_sec",)
    drawn = evaluate(scenario, [case], dep.calibration, metric, cat).predicted[metric[0]][0]
    means = evaluate(scenario, [mean_case], dep.calibration, metric, cat).predicted[metric[0]][0]
    truth = run.points[0].output_tokens_per_sec
    assert truth is not None
    assert drawn < 0.8 * means
    assert abs(drawn - truth) < 0.7 * abs(means - truth)


def test_sharegpt_from_a_client_of_unknown_filter_is_refused(catalog: Catalog) -> None:
    from servescope.predict.calibrate import Measured, fit_cases

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    point = EvaluationPoint(concurrency=100, completed_requests=100, itl_ms=10.0, mean_isl=217, mean_osl=201)
    with pytest.raises(CatalogError, match="s: dataset sharegpt from harness 'aiperf': that client's ShareGPT length filter is not known"):
        fit_cases(Measured("s", None, [point], "aiperf", "sharegpt"), scenario, catalog, template_tokens=0)
    (case,) = fit_cases(Measured("s", None, [point], "aiperf", "random"), scenario, catalog, template_tokens=0)
    assert case.prepared.synthetic is not None and case.prepared.synthetic.sharegpt_client is None


def test_the_default_fit_fits_the_gemm_efficiency_the_deployment_uses(catalog: Catalog, measured: EvaluationRun) -> None:
    """16-bit weights' GEMMs run at ``gemm_eff_16bit``: fitting ``gemm_eff`` there would move nothing they use."""
    from servescope.predict.calibration import DEFAULT_FIT, default_fit_for
    from servescope.predict.deployment import deploy

    assert default_fit_for("fp8") == DEFAULT_FIT and default_fit_for("int4") == DEFAULT_FIT
    assert "gemm_eff_16bit" in default_fit_for("bf16") and "gemm_eff" not in default_fit_for("bf16")
    weights = deploy(catalog.scenario("tiny-llama-on-cpu"), catalog=catalog).step_model.weight_dtype
    out = calibrate("tiny-llama-on-cpu", measured, catalog=catalog, max_evaluations=2, date="2026-12-01")
    assert set(out.document.factors) == set(default_fit_for(weights))


def test_a_calibration_whose_gemm_eff_no_longer_applies_is_warned(catalog: Catalog) -> None:
    """A calibration fitted before ``gemm_eff_16bit`` sets ``gemm_eff`` only: over bf16 weights it would be silently
    dropped, so it is said in one line; with the 16-bit factor, or over fp8 weights, nothing is said."""
    from servescope.predict.deployment import deploy

    bf16 = catalog.scenario("llama-3.1-8b-on-h100")
    fp8 = bf16.model_copy(update={"weight_dtype": "fp8"})

    def said(scenario: object, factors: dict[str, float]) -> bool:
        return any("sets gemm_eff" in w for w in deploy(scenario, catalog=catalog, calibration=factors).warnings)  # type: ignore[arg-type]

    assert said(bf16, {"gemm_eff": 0.5})
    assert not said(bf16, {"gemm_eff": 0.5, "gemm_eff_16bit": 0.6})
    assert not said(fp8, {"gemm_eff": 0.5})
    assert not said(bf16, {"memory_bw_eff": 0.8})


def test_a_fitted_per_request_cost_is_recorded_with_the_intake_it_was_fitted_beside(catalog: Catalog, measured: EvaluationRun) -> None:
    doc = calibrate("tiny-llama-on-cpu", measured, catalog=catalog, factors=("request_overhead_s",), max_evaluations=6)
    assert set(doc.document.factors) == {"request_overhead_s", "intake_request_s", "intake_token_s"}  # (0 on llama.cpp: said so)
    only = calibrate("tiny-llama-on-cpu", measured, catalog=catalog, factors=("output_token_overhead_s",), max_evaluations=6)
    assert set(only.document.factors) == {"output_token_overhead_s"}


def test_an_open_loop_point_is_replayed_as_poisson_arrivals_at_its_rate(catalog: Catalog) -> None:
    """DataCrunch's online runs (sglang.bench_serving --request-rate R, no concurrency limit): the point
    states its rate; it is replayed as that many requests arriving at R per second, not as a burst of
    all of them (which its concurrency label, the requests sent, would otherwise say), and the
    prediction's row is found by its rate."""
    from servescope.predict.calibrate import Measured, evaluate, fit_cases
    from servescope.predict.calibration import Calibration

    scenario = catalog.scenario("llama-3.1-8b-on-h100")
    point = EvaluationPoint(
        concurrency=40, completed_requests=40, request_rate=2.0, output_tokens_per_sec=128.0, ttft_p50_ms=50.0, itl_p50_ms=8.0, mean_isl=256, mean_osl=64
    )
    (case,) = fit_cases(Measured("dc", None, [point], "sglang-bench-serving"), scenario, catalog, template_tokens=0)
    spec = case.prepared.synthetic
    assert spec is not None and spec.rate == 2.0 and spec.rate_only and spec.requests_at(1) == 40
    ev = evaluate(scenario, [case], Calibration(), ("ttft_ms", "itl_ms", "output_tokens_per_sec"), catalog)
    assert len(ev.predicted["ttft_ms"]) == 1 and len(ev.predicted["itl_ms"]) == 1  # medians, matched by rate
    # at 2 requests/s of 64 tokens the output rate is about the offered 128 tok/s (a burst of 40 would be thousands)
    [tokens_per_s] = ev.predicted["output_tokens_per_sec"]
    assert 80 < tokens_per_s < 160 and ev.predicted["ttft_ms"][0] < 200


def test_the_datacrunch_online_runs_state_their_rates() -> None:
    from servescope.catalog.store import packaged_root
    from servescope.documents import load_document

    runs = [load_document(p, EvaluationRun) for p in sorted((packaged_root() / "validation" / "runs").glob("dc-*-rate*.yaml"))]
    rates = sorted(r.points[0].request_rate for r in runs)  # type: ignore[type-var]
    assert rates == [1.0, 1.0, 2.0, 2.0, 4.0, 4.0, 4.0, 4.0, 8.0, 8.0, 8.0, 8.0, 16.0]  # 70B: 7 runs, 405B: 6
    for run in runs:
        [p] = run.points
        assert p.concurrency == p.completed_requests and f"--request-rate {p.request_rate:g}" in " ".join(run.notes or [])


def test_calibrating_an_approximated_deployment_says_so(catalog: Catalog, measured: EvaluationRun) -> None:
    # the fitted factors absorb whatever the simulator does not model: the outcome carries the deployment's warnings
    assert calibrate("tiny-llama-on-cpu", measured, catalog=catalog, factors=("step_overhead_s",), max_evaluations=2).warnings == []
    scen = catalog.scenario("tiny-llama-on-cpu")
    unread = scen.model_copy(update={"engine": scen.engine.model_copy(update={"args": {**scen.engine.args, "--rope-freq-base": 20000}})})
    out = calibrate(unread, measured, catalog=catalog, factors=("step_overhead_s",), max_evaluations=2)
    assert len(out.warnings) == 1 and "--rope-freq-base" in out.warnings[0], out.warnings


def test_a_factor_fitted_onto_its_bound_is_warned(catalog: Catalog) -> None:
    """The demo's kind of measurement (the tiny model on a CPU much faster than its figures say):
    the fit pins memory_bw_eff on its upper bound and step_overhead_s on its lower one; each
    says so in one line, and a factor inside its bounds says nothing."""
    from servescope.predict.calibrate import bound_warnings

    run = EvaluationRun(name="m", scenario="tiny-llama-on-cpu", harness="servescope", engine_version="x", workload="sweep-parallel-1-8-i128-o64-v1",
                        points=[EvaluationPoint(concurrency=1, ttft_ms=18.7, itl_ms=1.5, output_tokens_per_sec=574.2, mean_isl=180, mean_osl=64),
                                EvaluationPoint(concurrency=4, ttft_ms=80.4, itl_ms=6.1, output_tokens_per_sec=513.1, mean_isl=180, mean_osl=64)])  # fmt: skip
    out = calibrate("tiny-llama-on-cpu", run, catalog=catalog, date="2026-12-01")
    pinned = [w for w in out.warnings if w.startswith("factor ")]
    assert out.document.factors["memory_bw_eff"] == pytest.approx(1.5, rel=1e-3)
    assert out.document.factors["step_overhead_s"] == pytest.approx(1e-8, rel=1e-3)
    assert pinned == [
        "factor memory_bw_eff ended on its upper bound 1.5 (of the hardware's measured figures): the fit wanted more than the model "
        "allows, so it may stand for another cost; check that the scenario describes what was measured (hardware, engine flags), "
        "or fit other factors (--factors)",
        "factor step_overhead_s ended on its lower bound 1e-08 (seconds): the fit wanted less than the model allows, so it may "
        "stand for another cost; check that the scenario describes what was measured (hardware, engine flags), "
        "or fit other factors (--factors)",
    ]
    assert bound_warnings({"gemm_eff": 0.5, "step_overhead_s": 0.001}) == []
    assert [w.split(":")[0] for w in bound_warnings({"gemm_eff": 0.9999, "attn_eff": 0.02})] == [
        "factor gemm_eff ended on its upper bound 1 (of the datasheet peak)",
        "factor attn_eff ended on its lower bound 0.02 (of the datasheet peak)",
    ]


def test_a_measurement_on_other_hardware_is_refused(catalog: Catalog, measured: EvaluationRun) -> None:
    """An H100 scenario fitted to a run measured on the CPU (its scenario, or a Result's hardware
    field, says so) is refused before any fit; another device count too; a measurement that names
    no hardware the catalog knows is fitted with a warning."""
    from servescope.documents import Result
    from servescope.errors import UsageError

    with pytest.raises(UsageError, match=r"scenario llama-3.1-8b-on-h100 runs on 8 x h100-sxm \(gpu: .*\) but m.json was measured on 1 x generic-cpu \(cpu: .*\(its scenario tiny-llama-on-cpu\)"):  # fmt: skip
        calibrate("llama-3.1-8b-on-h100", measured, catalog=catalog, fitted_from="m.json")
    simulated = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, concurrency=[1]).result
    elsewhere = simulated.model_copy(update={"scenario": None})
    other_device = Result.model_validate({**elsewhere.dump(), "hardware": {"id": "h100-sxm", "count": 1}})
    with pytest.raises(UsageError, match=r"measured on 1 x h100-sxm \(gpu: .*\) \(its hardware field\)"):
        calibrate("tiny-llama-on-cpu", other_device, catalog=catalog)
    more_devices = Result.model_validate({**elsewhere.dump(), "hardware": {"id": "generic-cpu", "count": 2}})
    with pytest.raises(UsageError, match=r"runs on 1 x generic-cpu .* measured on 2 x generic-cpu"):
        calibrate("tiny-llama-on-cpu", more_devices, catalog=catalog)
    unknown = measured.model_copy(update={"scenario": "my-own-box"})
    out = calibrate("tiny-llama-on-cpu", unknown, catalog=catalog, factors=("output_token_overhead_s",), max_evaluations=3)
    assert out.warnings[0] == (
        "synthetic-truth does not say which hardware it was measured on (its scenario 'my-own-box' is in neither the catalog nor "
        "the one calibrated): the fit assumes 1 x generic-cpu (cpu: " + catalog.hardware("generic-cpu").name + "), the scenario's; check that it is"
    )


def test_a_fit_on_prompts_the_engine_served_from_a_cache_it_does_not_simulate_says_so(catalog: Catalog, measured: EvaluationRun) -> None:
    # llama.cpp's prompt cache is not simulated: a measurement whose prompts hit it is fitted as if every prompt were computed
    cached = measured.model_copy(update={"points": [p.model_copy(update={"prefix_cache_hit_rate": 0.6 if p.concurrency == 4 else 0.03})
                                                    for p in measured.points]})  # fmt: skip
    out = calibrate("tiny-llama-on-cpu", cached, catalog=catalog, factors=("step_overhead_s",), max_evaluations=2)
    [line] = [w for w in out.warnings if "prefix cache" in w]
    assert line.startswith("synthetic-truth: the engine served up to 60% of a point's prompt tokens from its prefix cache (c=4)")
    assert "tiny-llama-on-cpu does not simulate" in line
    # a template's few cached tokens say nothing; nor does a deployment that simulates the cache
    low = measured.model_copy(update={"points": [p.model_copy(update={"prefix_cache_hit_rate": 0.03}) for p in measured.points]})
    assert not [
        w for w in calibrate("tiny-llama-on-cpu", low, catalog=catalog, factors=("step_overhead_s",), max_evaluations=2).warnings if "prefix cache" in w
    ]
    scen = catalog.scenario("tiny-llama-on-cpu")
    simulated = scen.model_copy(update={"engine": scen.engine.model_copy(update={"enable_prefix_caching": True})})
    assert not [w for w in calibrate(simulated, cached, catalog=catalog, factors=("step_overhead_s",), max_evaluations=2).warnings if "prefix cache" in w]
