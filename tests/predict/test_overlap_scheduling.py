"""Overlap scheduling (vLLM's async scheduling, SGLang's and TensorRT-LLM's overlap schedulers):
the host's share of an iteration runs while the device runs the previous one, so an iteration
lasts the longer of the two, not their sum. Which engines overlap, by flag and by release, is
``engine_flags.overlap_scheduling``; the step model's side is ``StepTimeModel(overlap_host=...)``."""

from __future__ import annotations

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


def test_overlap_changes_nothing_without_a_host_share(llama8b: Model) -> None:
    """With every host term at 0 the two models give the same floats, the decode line included."""
    ideal = Calibration(1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, eager_layer_s=0.0, gemm_eff_16bit=1.0)
    serial, overlapped = _pair(llama8b, ideal)
    assert overlapped.decode_line(8, 8000) == serial.decode_line(8, 8000)
    assert overlapped.step_time(decode_tokens=3, prefill=[(512, 0)]) == serial.step_time(decode_tokens=3, prefill=[(512, 0)])


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
        ("trt-llm", "1.2.0rc1", {}, True),
        ("trt-llm", "unstated", {}, True),
        ("trt-llm", "1.2.0rc1", {"disable-overlap-scheduler": True}, False),
        ("trt-llm", "0.17.0", {}, False),
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


def test_async_scheduling_taken_as_off_is_warned(catalog: Catalog) -> None:
    dep = deploy(scenario(count=2, pp=2, engine=_engine({"--async-scheduling": True})), catalog=catalog)
    assert dep.step_model.overlap_host is False
    hits = [w for w in dep.warnings if "engine.args.--async-scheduling" in w]
    assert len(hits) == 1 and "taken as off with pipeline parallelism" in hits[0]


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
