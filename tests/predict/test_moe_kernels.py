"""Routed experts as the grouped GEMM the engine runs: each expert's tokens padded to the kernel's
row tile under binomial routing, at the kernel's measured share of peak (``calibration.MOE_KERNELS``),
chosen per engine, device and expert dtype (``deployment.moe_kernel_for``)."""

from __future__ import annotations

import math

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.predict.architecture import architecture
from servescope.predict.calibration import MOE_KERNELS, Calibration
from servescope.predict.deployment import deploy, moe_kernel_for
from servescope.predict.step_time import StepTimeModel, moe_block_m, padded_expert_rows
from tests.predict.conftest import gemm_s


def test_marlin_row_tile_follows_vllm_rule() -> None:
    # smallest of 8/16/32/48/64 with tokens * k / E / block < 0.9 (gpt-oss: E 128, k 4)
    assert moe_block_m("marlin", 1, 128, 4) == 8
    assert moe_block_m("marlin", 200, 128, 4) == 8  # 6.25 tokens per expert / 8 = 0.78
    assert moe_block_m("marlin", 1000, 128, 4) == 48  # 31.25 / 32 = 0.98, / 48 = 0.65
    assert moe_block_m("marlin", 8192, 128, 4) == 64  # 256 per expert: no tile is large enough, the largest
    assert moe_block_m("triton", 128, 128, 8) == 16
    assert moe_block_m("triton", 129, 128, 8) == 64
    assert moe_block_m("triton-fp8-block", 1, 128, 8) == 64
    with pytest.raises(ValueError, match="unknown MoE row-tile rule"):
        moe_block_m("cutlass", 1, 128, 8)


def test_padded_rows_one_token_fills_k_tiles() -> None:
    # one token picks 2 of 8 experts: two tiles of 16 rows, whatever the routing
    assert padded_expert_rows(1, 8, 2, 16) == pytest.approx(32.0)
    assert padded_expert_rows(0, 8, 2, 16) == 0.0


def test_padded_rows_match_simulated_routing() -> None:
    """The binomial expectation against routing drawn token by token (k distinct experts each)."""
    rng = np.random.default_rng(7)
    experts, k, block = 128, 8, 16
    for tokens in (40, 300, 2000):
        draws = []
        for _ in range(400):
            picks = np.argsort(rng.random((tokens, experts)), axis=1)[:, :k]
            counts = np.bincount(picks.ravel(), minlength=experts)
            draws.append(float((np.ceil(counts / block) * block).sum()))
        assert padded_expert_rows(tokens, experts, k, block) == pytest.approx(np.mean(draws), rel=0.01)


def test_padded_rows_bounds() -> None:
    for tokens in (1, 7, 64, 1000, 16384):
        rows = padded_expert_rows(tokens, 128, 4, 64)
        assert tokens * 4 <= rows <= tokens * 4 + 128 * 64
    # a prefill chunk pads little, a decode batch a lot
    assert padded_expert_rows(8192, 128, 4, 64) / (8192 * 4) < 1.15
    assert padded_expert_rows(64, 128, 4, 8) / (64 * 4) > 3.0


def _scenario(model: str, hardware: str, tp: int, engine: str = "vllm", weight: str = "bf16") -> Scenario:
    return Scenario.model_validate(
        {
            "kind": "Scenario",
            "name": "moe-kernel-case",
            "model": model,
            "hardware": hardware,
            "count": tp,
            "tp": tp,
            "engine": {"id": engine, "version": "0.11.0", "max_model_len": 8192},
            "weight_dtype": weight,
        }
    )


@pytest.mark.parametrize(
    ("model", "hardware", "tp", "engine", "weight", "kernel"),
    [
        ("gpt-oss-120b", "h100-sxm", 2, "vllm", "bf16", "marlin-moe-hopper"),  # mxfp4 experts, weight-only on Hopper
        ("gpt-oss-120b", "h200", 1, "sglang", "bf16", "marlin-moe-hopper"),
        ("gpt-oss-120b", "a100-80gb", 2, "vllm", "bf16", "marlin-moe"),
        ("gpt-oss-120b", "b200", 1, "vllm", "bf16", None),  # native fp4 MoE kernels: no public figure
        ("gpt-oss-120b", "h100-sxm", 2, "trt-llm", "bf16", None),  # CUTLASS MoE, in the TensorRT-LLM fit
        ("qwen3-235b-a22b", "h100-sxm", 8, "vllm", "bf16", "triton-fused-moe"),
        ("qwen3-235b-a22b", "h100-sxm", 4, "vllm", "fp8", "triton-fused-moe-fp8"),
        ("llama-3.1-8b", "h100-sxm", 1, "vllm", "bf16", None),  # dense: no experts
    ],
)
def test_deployment_picks_the_engines_moe_kernel(catalog: Catalog, model: str, hardware: str, tp: int, engine: str, weight: str, kernel: str | None) -> None:
    d = deploy(_scenario(model, hardware, tp, engine, weight), catalog=catalog)
    got = d.step_model.moe_kernel
    assert (got.name if got else None) == kernel
    if kernel:
        assert any(n.startswith(f"routed experts: {kernel}") for n in d.notes)


def test_no_moe_kernel_off_nvidia(catalog: Catalog) -> None:
    assert moe_kernel_for("vllm", catalog.hardware("mi300x"), "bf16") is None
    assert moe_kernel_for("llama.cpp", catalog.hardware("h100-sxm"), "bf16") is None


def test_prefill_experts_run_at_the_kernels_rate_and_decode_stays_memory_bound(catalog: Catalog) -> None:
    """gpt-oss-120b at tp 2 on H100 under vLLM: an 8k-token chunk is compute-bound at Marlin's Hopper
    share (0.22 of 989.4 TFLOP/s) on its padded rows; a decode batch still streams the experts it
    touches, so its MoE time is what the pooled roofline gave before."""
    arch = architecture(catalog.model("gpt-oss-120b"))
    hw = catalog.hardware("h100-sxm")
    cal = Calibration()
    kernel = MOE_KERNELS["marlin-moe-hopper"]
    new = StepTimeModel(arch, hw, cal, tp=2, weight_dtype="bf16", expert_dtype="mxfp4", moe_kernel=kernel)
    old = StepTimeModel(arch, hw, cal, tp=2, weight_dtype="bf16", expert_dtype="mxfp4")
    rows = padded_expert_rows(8192, 128, 4, 64)
    flops = rows * 2 * arch.expert_params * arch.moe_layers / 2
    touched_s = new.experts_touched(8192) * arch.expert_params * arch.moe_layers * (4.25 / 8) / 2 / (3350e9 * cal.memory_bw_eff)
    assert new.moe_time(8192) == pytest.approx(gemm_s(flops / (989.4e12 * 0.22), touched_s))
    assert new.moe_time(8192) == pytest.approx(flops / (989.4e12 * 0.22), rel=0.02)  # compute-bound
    # (both compute-bound: the ratio of their compute sides, give or take the bytes' share)
    assert new.moe_time(8192) / old.moe_time(8192) == pytest.approx(rows / (8192 * 4) * cal.gemm_eff / 0.22, rel=0.05)
    # a decode batch: the touched experts' bytes, plus what the padded rows at Marlin's 0.22 of peak add near
    # the ridge (``GEMM_ROOFLINE_P``: ~12 % here, where the plain max gave the bytes alone)
    for batch in (1, 16, 64, 128):
        streamed = new.experts_touched(batch) * arch.expert_params * arch.moe_layers * (4.25 / 8) / 2 / (3350e9 * cal.memory_bw_eff)
        assert streamed < new.moe_time(batch) <= 1.2 * streamed
        assert old.moe_time(batch) <= new.moe_time(batch)


def test_measured_hardware_keeps_unit_efficiency(catalog: Catalog) -> None:
    """A probe-measured device already gives achievable rates: the kernel's datasheet share is not applied again."""
    hw = catalog.hardware("h100-sxm").model_copy(update={"figures": "measured"})
    arch = architecture(catalog.model("qwen3-235b-a22b"))
    m = StepTimeModel(arch, hw, Calibration(gemm_eff=1.0, gemm_eff_16bit=1.0), tp=8, moe_kernel=MOE_KERNELS["triton-fused-moe"])
    rows = padded_expert_rows(16384, 128, 8, 64)
    touched_s = m.experts_touched(16384) * arch.expert_params * arch.moe_layers * 2 / 8 / (3350e9 * Calibration().memory_bw_eff)
    assert m.moe_time(16384) == pytest.approx(gemm_s(rows * 2 * arch.expert_params * arch.moe_layers / 8 / 989.4e12, touched_s))
    assert not math.isnan(m.moe_time(1))


def test_vllm_pads_mxfp4_experts_for_marlin_as_its_load_log_shows(catalog: Catalog) -> None:
    """vLLM's mxfp4 method under Marlin rounds the per-rank expert width up to 128 and the hidden size
    to 256; gpt-oss-120b on one H100 then holds what vLLM logs ("Model loading took 65.9651 GiB",
    vLLM issue #23278), not the checkpoint's 60.7 GiB."""
    d = deploy(_scenario("gpt-oss-120b", "h100-sxm", 1), catalog=catalog)
    assert d.step_model.expert_padding == pytest.approx(2944 * 3072 / (2880 * 2880))
    assert d.kv.weight_bytes / 2**30 == pytest.approx(65.9651, rel=0.01)
    # the padded matrices are what a decode step streams
    plain = StepTimeModel(d.step_model.arch, d.step_model.hardware, Calibration(), tp=1, weight_dtype="bf16", expert_dtype="mxfp4",
                          moe_kernel=d.step_model.moe_kernel)  # fmt: skip
    assert d.step_model.moe_time(16) / plain.moe_time(16) == pytest.approx(d.step_model.expert_padding, rel=1e-6)
    # tp 2: 1,440 per rank rounds up to 1,536
    assert deploy(_scenario("gpt-oss-120b", "h100-sxm", 2), catalog=catalog).step_model.expert_padding == pytest.approx(1536 * 3072 / (1440 * 2880))


@pytest.mark.parametrize(
    ("model", "hardware", "tp", "engine", "weight"),
    [
        ("gpt-oss-120b", "h200", 1, "sglang", "bf16"),  # SGLang's mxfp4 on Hopper: triton_kernels, no such padding
        ("gpt-oss-120b", "b200", 1, "vllm", "bf16"),  # Blackwell: not Marlin
        ("gpt-oss-120b", "h100-sxm", 2, "trt-llm", "bf16"),
        ("qwen3-235b-a22b", "h100-sxm", 4, "vllm", "fp8"),  # Triton fused MoE: no padding
    ],
)
def test_no_expert_padding_elsewhere(catalog: Catalog, model: str, hardware: str, tp: int, engine: str, weight: str) -> None:
    assert deploy(_scenario(model, hardware, tp, engine, weight), catalog=catalog).step_model.expert_padding == 1.0


@pytest.mark.parametrize(
    ("hardware", "engine", "warned"),
    [("h100-sxm", "trt-llm", True), ("h200", "trt-llm", True), ("b200", "trt-llm", False), ("h100-sxm", "vllm", False)],
)
def test_tensorrt_llm_mxfp4_experts_on_hopper_are_warned(catalog: Catalog, hardware: str, engine: str, warned: bool) -> None:
    """Which MoE kernel TensorRT-LLM runs for mxfp4 experts on Hopper is not modelled: one warning line."""
    lines = deploy(_scenario("gpt-oss-120b", hardware, 1, engine, "bf16"), catalog=catalog).warnings
    assert any("TensorRT-LLM's mxfp4 experts on Hopper" in line for line in lines) is warned


@pytest.mark.parametrize(
    ("hardware", "engine", "warned"),
    [("h100-sxm", "sglang", True), ("h200", "sglang", True), ("b200", "sglang", False), ("h100-sxm", "vllm", False)],
)
def test_sglang_mxfp4_experts_on_hopper_are_warned_as_not_validated(catalog: Catalog, hardware: str, engine: str, warned: bool) -> None:
    """SGLang's Hopper path for mxfp4 experts has no public kernel figure and its one public measurement sits
    3.7x below the prediction: one warning line, on Hopper only."""
    lines = deploy(_scenario("gpt-oss-120b", hardware, 1, engine, "bf16"), catalog=catalog).warnings
    assert any("SGLang's mxfp4 experts on Hopper" in line for line in lines) is warned


def test_tensorrt_llm_triton_backend_runs_the_triton_kernels_figure(catalog: Catalog) -> None:
    """``moe_backend: TRITON`` is OpenAI's triton_kernels grouped GEMM, vLLM's other Hopper option, taken as
    Marlin's equal there too: the Hopper figure, and no warning; on Blackwell it changes nothing."""
    doc = _scenario("gpt-oss-120b", "h200", 1, "trt-llm", "bf16").model_dump()
    doc["engine"]["args"] = {"moe_backend": "TRITON"}
    dep = deploy(Scenario.model_validate(doc), catalog=catalog)
    assert dep.step_model.moe_kernel is MOE_KERNELS["marlin-moe-hopper"]
    assert not any("mxfp4 experts on Hopper" in w for w in dep.warnings) and not any("moe_backend" in w for w in dep.warnings)
    assert moe_kernel_for("trt-llm", catalog.hardware("h200"), "mxfp4", "CUTLASS") is None
    assert moe_kernel_for("trt-llm", catalog.hardware("b200"), "mxfp4", "TRITON") is None
    # the same flag on another engine is not read: one line says so
    other = _scenario("gpt-oss-120b", "h200", 1, "vllm", "bf16").model_dump()
    other["engine"]["args"] = {"--moe-backend": "triton"}
    assert any("read as TensorRT-LLM's MoE backend only" in w for w in deploy(Scenario.model_validate(other), catalog=catalog).warnings)


# --- expert parallelism ----------------------------------------------------------------


def test_expected_max_of_normals() -> None:
    from servescope.predict.step_time import expected_max_std_normal

    assert expected_max_std_normal(1) == 0.0
    assert expected_max_std_normal(2) == pytest.approx(1 / math.sqrt(math.pi), rel=1e-6)  # 0.5642
    rng = np.random.default_rng(3)
    for n in (4, 8):
        assert expected_max_std_normal(n) == pytest.approx(rng.standard_normal((200_000, n)).max(axis=1).mean(), abs=0.01)


@pytest.mark.parametrize(("tokens", "block"), [(4, 1), (64, 1), (64, 16), (2048, 64)])
def test_busiest_rank_against_routing_drawn_token_by_token(tokens: int, block: int) -> None:
    """The busiest of 8 ranks (16 of 128 experts each, top 8): its padded rows and distinct experts,
    against routing drawn token by token."""
    from servescope.predict.step_time import busiest_rank_experts, busiest_rank_rows

    rng = np.random.default_rng(11)
    experts, k, ranks = 128, 8, 8
    rows, touched = [], []
    for _ in range(600):
        picks = np.argsort(rng.random((tokens, experts)), axis=1)[:, :k]
        counts = np.bincount(picks.ravel(), minlength=experts).reshape(ranks, -1)
        rows.append((np.ceil(counts / block) * block).sum(axis=1).max())
        touched.append((counts > 0).sum(axis=1).max())
    assert busiest_rank_rows(tokens, experts, k, block, ranks) == pytest.approx(np.mean(rows), rel=0.06)
    assert busiest_rank_experts(tokens, experts, k, ranks) == pytest.approx(np.mean(touched), rel=0.06)


def test_expert_parallel_waits_for_the_busiest_rank(catalog: Catalog) -> None:
    """Qwen3-235B-A22B over 8 H100s: the same bytes and FLOPs as tensor parallelism of every expert,
    but a step waits for the busiest rank - most at small batches (a rank reading more of its
    experts than the average), little for a long prompt chunk."""
    tp_only = deploy(_scenario("qwen3-235b-a22b", "h100-sxm", 8, weight="fp8"), catalog=catalog)
    ep_scen = _scenario("qwen3-235b-a22b", "h100-sxm", 8, weight="fp8")
    ep_scen = ep_scen.model_copy(update={"engine": ep_scen.engine.model_copy(update={"args": {"--enable-expert-parallel": True}})})
    ep = deploy(ep_scen, catalog=catalog)
    assert ep.step_model.ep == 8 and tp_only.step_model.ep == 1
    assert ep.kv.weight_bytes == pytest.approx(tp_only.kv.weight_bytes)
    assert any("expert parallelism over the 8 tp ranks" in w for w in ep.warnings)
    small = ep.step_model.moe_time(4) / tp_only.step_model.moe_time(4)
    large = ep.step_model.moe_time(8192) / tp_only.step_model.moe_time(8192)
    assert small > 1.3 and 1.0 < large < 1.05
    assert all(ep.step_model.moe_time(b) >= tp_only.step_model.moe_time(b) for b in (1, 16, 64, 256, 1024))
