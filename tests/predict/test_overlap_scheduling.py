"""Overlap scheduling (vLLM's async scheduling, SGLang's and TensorRT-LLM's overlap schedulers):
the host's share of an iteration runs while the device runs the previous one, so an iteration
lasts the longer of the two, not their sum. Which engines overlap, by flag and by release, is
``engine_flags.overlap_scheduling``; the step model's side is ``StepTimeModel(overlap_host=...)``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Model
from servescope.predict.architecture import architecture
from servescope.predict.calibration import Calibration
from servescope.predict.deployment import deploy
from servescope.predict.engine_flags import overlap_scheduling
from servescope.predict.step_time import StepTimeModel
from tests.predict.conftest import scenario, toy_hardware

# the toy device's efficiencies at 1, a 1 ms host share per iteration and 10 us per sampled token
HOSTY = Calibration(1.0, 1.0, 1.0, 1.0, 1e-3, 2e-6, 1e-7, 10e-6, 0.0, eager_layer_s=0.0, gemm_eff_16bit=1.0)


def _pair(llama8b: Model, cal: Calibration = HOSTY) -> tuple[StepTimeModel, StepTimeModel]:
    arch = architecture(llama8b)
    return StepTimeModel(arch, toy_hardware(), cal), StepTimeModel(arch, toy_hardware(), cal, overlap_host=True)


def test_overlap_takes_the_hosts_share_out_of_a_decode_iteration(llama8b: Model) -> None:
    """Decode on the toy device is ~14 ms of weights, far above the host's 1 ms + 10 us per token:
    overlapped, the iteration is the device's time alone, i.e. the serial one less the host's share.
    The per-layer floor stays (it is the device's own)."""
    serial, overlapped = _pair(llama8b)
    for batch in (1, 16, 64):
        host = 1e-3 + batch * 1e-7 + batch * 10e-6
        assert overlapped.step_time(decode_tokens=batch, decode_keys_full=batch * 500) == pytest.approx(
            serial.step_time(decode_tokens=batch, decode_keys_full=batch * 500) - host
        )
        assert overlapped.overhead_time(batch, batch) == pytest.approx(32 * 2e-6)  # the layers' floor only


def test_overlapped_iteration_lasts_at_least_the_hosts_share(llama8b: Model) -> None:
    """When the host's share outlasts the device (here a 50 ms host cost), the iteration is the host's time."""
    slow_host = Calibration(1.0, 1.0, 1.0, 1.0, 50e-3, 0.0, 0.0, 0.0, 0.0, eager_layer_s=0.0, gemm_eff_16bit=1.0)
    serial, overlapped = _pair(llama8b, slow_host)
    device = serial.step_time(decode_tokens=4, decode_keys_full=400) - 50e-3
    assert device < 50e-3
    assert overlapped.step_time(decode_tokens=4, decode_keys_full=400) == pytest.approx(50e-3)
    parts = overlapped.breakdown(decode_tokens=4, decode_keys_full=400)
    assert parts.total == pytest.approx(50e-3) and parts.host_wait == pytest.approx(50e-3 - device)
    # a decode run under the same floor: every iteration at least the host's share, and the same as one by one
    run = overlapped.decode_run(np.array([100, 100, 100, 100]), 3)
    one_by_one = [overlapped.step_time(decode_tokens=4, decode_keys_full=4 * (101 + j)) for j in range(3)]
    assert run.tolist() == pytest.approx(one_by_one)


def test_an_overlapped_decode_run_is_the_serial_line_less_the_hosts_share(llama8b: Model) -> None:
    """Where the device outlasts the host, a decode run is still a line: the serial one shifted down by
    the host's share of that batch, the same slope (the KV read per iteration is the device's)."""
    serial, overlapped = _pair(llama8b)
    first_s, slope_s = serial.decode_line(8, 8000)  # type: ignore[misc]
    line = overlapped.decode_line(8, 8000)
    assert line is not None
    assert line[0] == pytest.approx(first_s - (1e-3 + 8 * 1e-7 + 8 * 10e-6)) and line[1] == slope_s


def test_a_prompt_iteration_lasts_the_longest_of_device_launch_floor_and_host(llama8b: Model) -> None:
    """A prompt iteration runs outside CUDA graphs: with overlap it lasts the longest of the device's
    time, the host's launch floor (layers x eager_layer_s) and the host's share, never their sum."""
    arch = architecture(llama8b)
    launch = Calibration(1.0, 1.0, 1.0, 1.0, 1e-3, 2e-6, 1e-7, 10e-6, 0.0, eager_layer_s=5e-3, gemm_eff_16bit=1.0)
    overlapped = StepTimeModel(arch, toy_hardware(), launch, overlap_host=True)
    device_only = StepTimeModel(
        arch, toy_hardware(), replace(launch, step_overhead_s=0.0, token_overhead_s=0.0, output_token_overhead_s=0.0, eager_layer_s=0.0)
    )
    for q in (16, 4096):  # launch floor (32 x 5 ms = 160 ms) above the device; then the device above it
        t = overlapped.step_time(prefill=[(q, 0)])
        assert t == pytest.approx(max(device_only.step_time(prefill=[(q, 0)]), 32 * 5e-3, 1e-3 + q * 1e-7 + 10e-6))
        assert overlapped.breakdown(prefill=[(q, 0)]).total == pytest.approx(t)


@pytest.mark.parametrize(
    "engine, version, args, expected",
    [
        ("vllm", "0.11.0", {}, False),  # before v0.14.0: off unless asked
        ("vllm", "0.11.0", {"async-scheduling": True}, True),
        ("vllm", "unstated", {}, False),
        ("vllm", "0.14.0", {}, True),  # on by default from v0.14.0
        ("vllm", "0.30.0", {"async-scheduling": False}, False),  # --no-async-scheduling
        ("sglang", "0.5.5", {}, True),  # SGLang's overlap scheduler is on by default
        ("sglang", "0.5.5", {"disable-overlap-schedule": True}, False),
        ("sglang", "0.3.5", {}, False),  # before v0.4: off unless --enable-overlap-schedule
        ("sglang", "0.3.5", {"enable-overlap-schedule": True}, True),
        ("sglang", "unstated", {}, True),
        ("trt-llm", "1.2.0rc1", {}, True),
        ("trt-llm", "unstated", {}, True),
        ("trt-llm", "1.2.0rc1", {"disable-overlap-scheduler": True}, False),
        ("trt-llm", "1.2.0rc1", {"disable-overlap-scheduler": "true"}, False),
        ("trt-llm", "1.2.0rc1", {"backend": "tensorrt"}, False),  # prebuilt engines, the C++ runtime
        ("trt-llm", "0.19.0", {}, False),  # before 0.20: off unless enable_overlap_scheduler
        ("trt-llm", "0.19.0", {"enable-overlap-scheduler": True}, True),
        ("trt-llm", "0.20.0", {}, True),
        ("nim", "1.8.0", {}, False),
        ("llama.cpp", "b6000", {}, False),
    ],
)
def test_which_engines_overlap(engine: str, version: str, args: dict[str, Any], expected: bool) -> None:
    assert overlap_scheduling(engine, version, args) is expected


def test_pipeline_parallel_and_drafts_are_taken_as_serial() -> None:
    assert overlap_scheduling("vllm", "0.30.0", {}, pp=2) is False
    assert overlap_scheduling("sglang", "0.5.5", {}, speculative=True) is False


def _engine(args: dict[str, Any], engine: str = "vllm", version: str = "0.11.0") -> dict[str, Any]:
    return {"id": engine, "version": version, "args": args}


@pytest.mark.parametrize("raw", ["--async-scheduling", "--no-async-scheduling"])
def test_vllm_async_scheduling_is_read_not_warned(catalog: Catalog, raw: str) -> None:
    """The flag is simulated: no "not simulated" line any more, and the deployment says what it changes."""
    dep = deploy(scenario(engine=_engine({raw: True})), catalog=catalog)
    assert dep.warnings == []
    assert dep.step_model.overlap_host is (raw == "--async-scheduling")
    assert any(n.startswith("overlap scheduling:") for n in dep.notes) is (raw == "--async-scheduling")


@pytest.mark.parametrize(
    "over, why",
    [
        ({"count": 2, "pp": 2}, "pipeline parallelism"),
        ({"hardware": "generic-cpu", "engine": _engine({"--async-scheduling": True, "--max-model-len": 4096}, version="0.30.0")}, "a CPU device"),
        ({"speculative_method": "eagle", "speculative_tokens": 3}, "speculative decoding"),
    ],
)
def test_async_scheduling_taken_as_off_is_warned(catalog: Catalog, over: dict[str, Any], why: str) -> None:
    over = {"engine": _engine({"--async-scheduling": True}, version="0.30.0"), **over}
    dep = deploy(scenario(**over), catalog=catalog)
    assert dep.step_model.overlap_host is False
    hits = [w for w in dep.warnings if "engine.args.--async-scheduling" in w]
    assert len(hits) == 1 and f"taken as off with {why}" in hits[0], dep.warnings


def test_a_speculative_deployment_is_not_overlapped_even_by_default(catalog: Catalog) -> None:
    """vLLM 0.30 overlaps by default, but with a draft the step model is the speculative one, serial."""
    plain = deploy(scenario(engine=_engine({}, version="0.30.0")), catalog=catalog)
    drafted = deploy(scenario(engine=_engine({}, version="0.30.0"), speculative_method="eagle", speculative_tokens=3), catalog=catalog)
    assert plain.step_model.overlap_host is True and drafted.step_model.overlap_host is False


def test_tensorrt_llm_nested_overlap_switch_is_read(catalog: Catalog) -> None:
    """``pytorch_backend_config.disable_overlap_scheduler`` (written dotted) is the same switch."""
    dep = deploy(scenario(engine=_engine({"pytorch_backend_config.disable_overlap_scheduler": True}, "trt-llm", "1.2.0rc1")), catalog=catalog)
    assert dep.step_model.overlap_host is False and dep.warnings == []


@pytest.mark.parametrize("engine, raw", [("sglang", "--async-scheduling"), ("vllm", "--disable-overlap-schedule")])
def test_another_engines_switch_is_warned_as_unread(catalog: Catalog, engine: str, raw: str) -> None:
    """Each engine's switch is read for that engine only: on another it changes nothing and is named."""
    dep = deploy(scenario(engine=_engine({raw: True}, engine, "0.5.5" if engine == "sglang" else "0.11.0")), catalog=catalog)
    assert any(raw in w and "not simulated" in w for w in dep.warnings), dep.warnings


def test_async_scheduling_shortens_predicted_decode(catalog: Catalog) -> None:
    """End to end: the same deployment with the flag decodes faster by the host's share per iteration."""
    serial = deploy(scenario(engine=_engine({})), catalog=catalog).step_model
    overlapped = deploy(scenario(engine=_engine({"--async-scheduling": True})), catalog=catalog).step_model
    c = serial.cal
    for batch in (1, 32):
        gain = serial.step_time(decode_tokens=batch, decode_keys_full=batch * 1000) - overlapped.step_time(decode_tokens=batch, decode_keys_full=batch * 1000)
        assert gain == pytest.approx(c.step_overhead_s + batch * (c.token_overhead_s + c.output_token_overhead_s))


def test_calibrating_an_overlapped_deployment_fits_the_costs_its_itl_shows(catalog: Catalog) -> None:
    """Under overlap the host's per-iteration and per-token costs leave no trace in ITL, so the default
    fit puts the per-iteration cost on the device's per-layer floor instead of reporting two factors it
    could not move; a deployment without overlap keeps the usual default."""
    from servescope.predict.calibration import DEFAULT_FIT, default_fit_for

    assert default_fit_for("fp8") == DEFAULT_FIT
    fit = default_fit_for("bf16", overlap_host=True)
    assert "layer_overhead_s" in fit and "step_overhead_s" not in fit and "output_token_overhead_s" not in fit
    assert "gemm_eff_16bit" in fit
    # the floor it fits is one an overlapped iteration does pay
    dep = deploy(scenario(engine=_engine({}, version="0.30.0")), catalog=catalog)
    m = dep.step_model
    heavier = StepTimeModel(m.arch, m.hardware, replace(m.cal, layer_overhead_s=2 * m.cal.layer_overhead_s), overlap_host=True)
    heavier_host = StepTimeModel(m.arch, m.hardware, replace(m.cal, step_overhead_s=2 * m.cal.step_overhead_s), overlap_host=True)
    base = StepTimeModel(m.arch, m.hardware, m.cal, overlap_host=True)
    assert heavier.step_time(decode_tokens=8, decode_keys_full=8000) > base.step_time(decode_tokens=8, decode_keys_full=8000)
    assert heavier_host.step_time(decode_tokens=8, decode_keys_full=8000) == base.step_time(decode_tokens=8, decode_keys_full=8000)


def test_calibrate_on_an_overlapped_catalog_scenario_fits_the_per_layer_floor(catalog: Catalog) -> None:
    """``calibrate`` itself picks the overlap-aware default fit (the catalog's vLLM 0.29 scenario overlaps)."""
    from servescope.documents import EvaluationPoint, EvaluationRun
    from servescope.predict.api import predict
    from servescope.predict.calibrate import calibrate
    from servescope.predict.calibration import default_fit_for

    name = "llama-3.1-8b-on-h100"
    dep = deploy(catalog.scenario(name), catalog=catalog)
    assert dep.step_model.overlap_host is True
    pred = predict(name, "sweep-parallel-1-8-i128-o64-v1", catalog=catalog).prediction
    keep = {"concurrency", "ttft_ms", "itl_ms", "output_tokens_per_sec", "mean_isl", "mean_osl"}
    run = EvaluationRun(
        name="synthetic",
        scenario=name,
        harness="servescope-sim",
        engine_version="x",
        workload="sweep-parallel-1-8-i128-o64-v1",
        points=[EvaluationPoint(**p.model_dump(include=keep)) for p in pred.points],
    )
    out = calibrate(name, run, catalog=catalog, max_evaluations=2, date="2026-12-02")
    assert set(out.document.factors) == set(default_fit_for(dep.step_model.weight_dtype, overlap_host=True))
    assert "layer_overhead_s" in out.document.factors and "step_overhead_s" not in out.document.factors
