"""The step-time model on a round-numbered toy device (100 TFLOP/s bf16,
1000 GB/s, 100 GB/s links with 10 us latency) with every efficiency 1 and every
overhead 0, so each term can be checked by hand."""

from __future__ import annotations

import functools
from dataclasses import replace

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.catalog.store import Catalog
from servescope.documents import Model, Scenario
from servescope.predict.architecture import architecture
from servescope.predict.calibration import Calibration
from servescope.predict.step_time import GEMM_ROOFLINE_P, StepTimeModel, peak_flops
from tests.predict.conftest import gemm_s, toy_hardware

IDEAL = Calibration(1.0, 1.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, eager_layer_s=0.0, gemm_eff_16bit=1.0)
DENSE = 1_342_177_280 + 5_637_144_576  # Llama 3.1 8B attention + MLP weights
HEAD = 128256 * 4096


def model(llama8b: Model, **kw: object) -> StepTimeModel:
    return StepTimeModel(architecture(llama8b), toy_hardware(), IDEAL, **kw)  # type: ignore[arg-type]


def test_decode_gemm_is_memory_bound(llama8b: Model) -> None:
    m = model(llama8b)
    # bytes / bandwidth = 13.96 ms; the FLOPs' 0.14 ms add 0.04 % under the GPU roofline's shape
    assert m.linear_time(1) == pytest.approx(gemm_s(2 * DENSE / 1e14, DENSE * 2 / 1e12))
    assert m.linear_time(1) == pytest.approx(DENSE * 2 / 1e12, rel=1e-3)
    assert m.lm_head_time(1) == pytest.approx(gemm_s(2 * HEAD / 1e14, HEAD * 2 / 1e12))


def test_large_batch_gemm_is_compute_bound(llama8b: Model) -> None:
    m = model(llama8b)
    assert m.linear_time(8192) == pytest.approx(2 * 8192 * DENSE / 1e14, rel=1e-3)  # FLOPs / peak = 1.14 s
    assert m.linear_time(8192) == pytest.approx(gemm_s(2 * 8192 * DENSE / 1e14, DENSE * 2 / 1e12))
    assert m.linear_time(101) > m.linear_time(100)


def test_a_gemm_at_its_ridge_point_reaches_neither_bound(llama8b: Model) -> None:
    """At 100 tokens the toy device's FLOPs and bytes take the same time (2 T P / 1e14 == 2 P / 1e12): a GPU
    GEMM takes 2^(1/p) of it (Vidur's profiles: measured kernels run slower there than either bound,
    ``GEMM_ROOFLINE_P``); a CPU keeps the plain roofline's max."""
    bound = DENSE * 2 / 1e12
    assert model(llama8b).linear_time(100) == pytest.approx(2 ** (1 / GEMM_ROOFLINE_P) * bound)
    cpu = StepTimeModel(architecture(llama8b), toy_hardware(device_type="cpu"), IDEAL)
    assert cpu.linear_time(100) == pytest.approx(bound)
    assert cpu.linear_time(1) == pytest.approx(bound)
    assert cpu.linear_time(8192) == pytest.approx(2 * 8192 * DENSE / 1e14)


def test_decode_attention_reads_kv(llama8b: Model) -> None:
    m = model(llama8b)
    # one sequence attending 1000 keys: 131072 B/token of KV streamed; 4*32*128*32*1000 FLOPs is far below
    assert m.decode_attention_time(1000, 0) == pytest.approx(131072 * 1000 / 1e12)


def test_prefill_attention_is_causal_and_compute_bound(llama8b: Model) -> None:
    m = model(llama8b)
    pairs = 1000 * 1001 / 2
    assert m.prefill_attention_time(1000, 0) == pytest.approx(4 * 32 * 128 * 32 * pairs / 1e14)
    # a chunk after 500 cached tokens attends them all as well
    assert m.prefill_attention_time(100, 500) == pytest.approx(4 * 32 * 128 * 32 * (100 * 500 + 100 * 101 / 2) / 1e14)


def test_tensor_parallel_halves_weights_and_adds_all_reduce(llama8b: Model) -> None:
    m1, m2 = model(llama8b), model(llama8b, tp=2)
    assert m2.linear_time(1) == pytest.approx(m1.linear_time(1) / 2)
    # 2 all-reduces x 32 layers; each 2 x 10 us latency + 2(tp-1)/tp x 4096 x 2 bytes / 100 GB/s per token
    fixed = 64 * 2 * 10e-6
    per_token = 64 * 2 * 0.5 * 4096 * 2 / 100e9
    assert m2.communication_time(1) == pytest.approx(fixed + per_token)
    assert m2.communication_time(1000) == pytest.approx(fixed + 1000 * per_token)
    assert m1.communication_time(1000) == 0.0


def test_overheads_add_linearly(llama8b: Model) -> None:
    cal = Calibration(1.0, 1.0, 1.0, 1.0, step_overhead_s=1e-3, layer_overhead_s=1e-5, token_overhead_s=1e-6, output_token_overhead_s=1e-4, gemm_eff_16bit=1.0)
    m = StepTimeModel(architecture(llama8b), toy_hardware(), cal)
    assert m.overhead_time(tokens=10, logits=4) == pytest.approx(1e-3 + 32 * 1e-5 + 10 * 1e-6 + 4 * 1e-4)


def test_experts_touched() -> None:
    from servescope.predict.architecture import Architecture

    arch = Architecture(
        layers=1, hidden=8, heads=1, kv_heads=1, head_dim=8, global_head_dim=8, vocab=8, intermediate=8,
        expert_intermediate=8, attn_params=0.0, dense_mlp_params=0.0, expert_params=100.0, experts=8,
        experts_per_tok=2, moe_layers=1, lm_head_params=0.0, embedding_params=0.0, per_layer_embedding_params=0.0,
        tied_embeddings=False, full_layers=1, sliding_layers=0, kv_full_layers=1, kv_sliding_layers=0, sliding_window=None,
    )  # fmt: skip
    m = StepTimeModel(arch, toy_hardware(), IDEAL)
    assert m.experts_touched(1) == pytest.approx(2.0)
    assert m.experts_touched(3) == pytest.approx(8 * (1 - (6 / 8) ** 3))
    assert m.experts_touched(10_000) == pytest.approx(8.0)


@pytest.mark.parametrize("q, c, w", [(10, 0, 4), (10, 3, 4), (5, 100, 8), (3, 1, 100), (1, 0, 1)])
def test_sliding_pairs_match_brute_force(llama8b: Model, q: int, c: int, w: int) -> None:
    m = model(llama8b)
    m._window = w
    assert m._sliding_pairs(q, c) == sum(min(p, w) for p in range(c + 1, c + q + 1))


def test_decode_run_equals_single_steps(llama8b: Model) -> None:
    m = StepTimeModel(architecture(llama8b), toy_hardware(), Calibration())
    ctx = np.array([10, 500, 3000], dtype=np.int64)
    run = m.decode_run(ctx, 4)
    for j in range(4):
        keys = float((ctx + 1 + j).sum())
        assert run[j] == pytest.approx(m.step_time(3, keys, 0.0))


def test_missing_dtype_is_derived_and_noted() -> None:
    notes: list[str] = []
    hw = toy_hardware(peak_tflops={"fp4": 400.0})
    assert peak_flops(hw, "bf16", notes) == pytest.approx(100e12)
    assert "derived" in notes[0]


def test_cpu_threads_scale_compute(llama8b: Model) -> None:
    hw = toy_hardware(device_type="cpu", cores=4, peak_tflops={"fp32": 1.0})
    one = StepTimeModel(architecture(llama8b), hw, IDEAL, weight_dtype="fp32", threads=1)
    four = StepTimeModel(architecture(llama8b), hw, IDEAL, weight_dtype="fp32", threads=4)
    assert one.linear_time(8192) == pytest.approx(4 * four.linear_time(8192))


def test_prompt_iterations_last_at_least_the_host_launch(llama8b: Model) -> None:
    """An iteration carrying prompt tokens runs outside CUDA graphs: max(device, layers x eager_layer_s).
    Decode-only iterations (graphed) never wait for the host."""
    from dataclasses import replace

    floor = 0.040
    plain = model(llama8b)
    eager = StepTimeModel(architecture(llama8b), toy_hardware(), replace(IDEAL, eager_layer_s=floor / 32))  # 32 layers
    short = [(16, 0)]  # device time far below the floor
    assert plain.step_time(0, 0.0, 0.0, short) < floor
    assert eager.step_time(0, 0.0, 0.0, short) == pytest.approx(floor)
    assert eager.step_time(4, 400.0, 0.0, short) == pytest.approx(floor)  # mixed: prompt + decodes
    parts = eager.breakdown(0, 0.0, 0.0, short)
    assert parts.total == pytest.approx(floor) and parts.host_wait > 0
    long = [(200_000, 0)]  # device time above the floor: unchanged
    assert eager.step_time(0, 0.0, 0.0, long) == pytest.approx(plain.step_time(0, 0.0, 0.0, long))
    assert eager.breakdown(0, 0.0, 0.0, long).host_wait == 0.0
    ctx = np.array([10, 20], dtype=np.int64)
    assert eager.decode_run(ctx, 3) == pytest.approx(plain.decode_run(ctx, 3))
    assert eager.step_time(2, 32.0, 0.0) == pytest.approx(plain.step_time(2, 32.0, 0.0))


def test_mla_attention_decodes_absorbed_and_prefills_expanded() -> None:
    from servescope.predict.hf_config import model_from_config
    from tests.predict.test_hf_config import DEEPSEEK_V3

    a = architecture(model_from_config(DEEPSEEK_V3, model_id="dsv3"))
    # decode: per head a key of kv_lora_rank + rope (576) and a value of kv_lora_rank (512); prefill: keys 192, values 128
    assert a.attention_flops_per_key() == (2 * 128 * (576 + 512) * 61, 0.0)
    assert a.prefill_attention_flops_per_key() == (2 * 128 * (192 + 128) * 61, 0.0)
    m = StepTimeModel(a, toy_hardware(memory_gb=2000.0), IDEAL, tp=8)
    # the latent is not split by tensor parallelism: every rank caches all 576 elements per layer
    assert m.kv_bytes_per_token_per_device == 61 * 576 * 2
    assert m.prefill_attention_time(1000, 0) == pytest.approx(2 * 128 * 320 * 61 / 8 * 1000 * 1001 / 2 / 1e14)


def _terms_step_time(m: StepTimeModel, nd: int, keys_full: float, keys_slide: float, prefill: list[tuple[int, int]], logits: int | None) -> float:
    """An iteration's time as the sum of the term methods, in ``breakdown``'s order (what
    ``_step_time`` computed before its terms were inlined into it)."""
    tokens = nd + sum(q for q, _ in prefill)
    n_logits = nd + len(prefill) if logits is None else logits
    attn = m.decode_attention_time(keys_full, keys_slide)
    for q, c in prefill:
        attn += m.prefill_attention_time(q, c)
    if m._lin_io:
        attn += m.linear_attention_time(nd, tokens - nd, len(prefill))
    device = (
        m.linear_time(tokens) + m.lm_head_time(n_logits) + m.moe_time(tokens) + attn + m.communication_time(tokens)
        + (m.overhead_time(tokens, n_logits) if tokens else 0.0)
    )  # fmt: skip
    t = max(device, m._eager_step) if prefill else device
    return max(t, m.host_time(tokens, n_logits)) if m.overlap_host and tokens else t


@functools.cache
def _step_models() -> dict[str, StepTimeModel]:
    from servescope.predict.deployment import deploy
    from servescope.predict.hf_config import model_from_config
    from tests.predict.test_hf_config import QWEN3_NEXT_80B_A3B

    def dep(model_id: str, hw: str, tp: int = 1, **kw: object) -> StepTimeModel:
        scen = Scenario(name="t", model=model_id, hardware=hw, count=tp, tp=tp, engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]
        return deploy(scen, catalog=catalog, **kw).step_model  # type: ignore[arg-type]

    catalog = Catalog.load([])
    qnext = model_from_config(QWEN3_NEXT_80B_A3B, model_id="qwen3-next-80b-a3b")
    dense = deploy(Scenario(name="t", model="llama-3.1-8b", hardware="h100-sxm", engine={"id": "vllm", "version": "0.11.0"}), catalog=catalog)  # type: ignore[arg-type]
    return {
        "dense": dense.step_model,
        # no host launch floor, so the device terms' sum itself is compared
        "dense-no-eager": StepTimeModel(dense.step_model.arch, dense.hardware, replace(dense.calibration, eager_layer_s=0.0)),
        "dense-tp4": dep("llama-3.1-70b", "h100-sxm", tp=4),
        "sliding": dep("gemma-4-e2b-it", "l4"),
        "moe-sliding-tp2": dep("gpt-oss-120b", "h100-sxm", tp=2),
        "hybrid-tp4": dep(qnext.id, "h100-sxm", tp=4, model=qnext, hardware=catalog.hardware("h100-sxm")),
        # overlap scheduling: the host's share a floor beside the device's, not a term of the sum;
        # with a 20 ms host share that floor is often the iteration
        "dense-overlap": StepTimeModel(dense.step_model.arch, dense.hardware, dense.calibration, overlap_host=True),
        "dense-slow-host-overlap": StepTimeModel(dense.step_model.arch, dense.hardware, replace(dense.calibration, step_overhead_s=20e-3), overlap_host=True),
    }


_chunk = st.tuples(st.integers(0, 8192), st.integers(0, 40_000))


@settings(max_examples=300, deadline=None)
@given(
    nd=st.integers(0, 512),
    keys=st.integers(0, 4_000_000),
    slide_share=st.floats(0.0, 1.0),
    prefill=st.lists(_chunk, min_size=0, max_size=5),  # (none: a decode-only iteration)
    extra_logits=st.one_of(st.none(), st.integers(0, 5)),
)
def test_step_time_is_the_sum_of_its_terms_bit_for_bit(
    nd: int, keys: int, slide_share: float, prefill: list[tuple[int, int]], extra_logits: int | None
) -> None:
    """``_step_time`` inlines the term methods for speed: every model kind (dense, tp with
    all-reduces, sliding windows, MoE, Gated DeltaNet) gives exactly the float the terms sum to."""
    keys_full = float(keys + nd) if nd else 0.0
    keys_slide = float(int(keys * slide_share)) if nd else 0.0
    logits = None if extra_logits is None else nd + min(extra_logits, len(prefill))
    for name, m in _step_models().items():
        want = _terms_step_time(m, nd, keys_full, keys_slide, prefill, logits)
        assert m._step_time(nd, keys_full, keys_slide, prefill, logits) == want, name
        assert m.step_time(nd, keys_full, keys_slide, prefill, logits) == want, name  # (the one-chunk memo too)


def test_sixteen_bit_weights_use_their_own_gemm_efficiency(llama8b: Model) -> None:
    """bf16/fp16 weights' GEMMs reach ``gemm_eff_16bit`` of peak (Vidur's H100 profile), the fp8 and
    weight-only quantised ones ``gemm_eff`` (what it was fitted on): at 8,192 tokens both are compute-bound."""
    cal = replace(IDEAL, gemm_eff=0.4, gemm_eff_16bit=0.8)
    arch = architecture(llama8b)
    flops = 2 * 8192 * DENSE
    bf16 = StepTimeModel(arch, toy_hardware(), cal, weight_dtype="bf16")
    fp16 = StepTimeModel(arch, toy_hardware(), cal, weight_dtype="fp16")
    awq = StepTimeModel(arch, toy_hardware(), cal, weight_dtype="int4")  # dequantised to bf16 (Marlin-class kernels)
    assert bf16.linear_time(8192) == pytest.approx(flops / (1e14 * 0.8), rel=1e-3)
    assert fp16.linear_time(8192) == pytest.approx(flops / (1e14 * 0.8), rel=1e-3)
    assert awq.linear_time(8192) == pytest.approx(flops / (1e14 * 0.4), rel=1e-3)
    # the default calibration: the 16-bit figure is the larger share (a profile, not the fp8 fit)
    assert Calibration().gemm_eff_16bit > Calibration().gemm_eff


def test_routed_experts_use_the_efficiency_of_their_own_dtype(catalog: Catalog) -> None:
    """gpt-oss: bf16 attention but mxfp4 experts - without a kernel figure the experts keep ``gemm_eff``."""
    arch = architecture(catalog.model("gpt-oss-120b"))
    cal = replace(IDEAL, gemm_eff=0.4, gemm_eff_16bit=0.8)
    mixed = StepTimeModel(arch, toy_hardware(), cal, weight_dtype="bf16", expert_dtype="mxfp4")
    plain = StepTimeModel(arch, toy_hardware(), cal, weight_dtype="bf16")
    tokens = 65536  # every expert busy: compute-bound
    # the compute side doubles (half the share of peak); the bytes side is the experts' (mxfp4: 4.25 bits, not 16)
    bw = 1e12
    mixed_bytes = mixed.experts_touched(tokens) * arch.expert_params * arch.moe_layers * (4.25 / 8) / bw
    plain_bytes = plain.experts_touched(tokens) * arch.expert_params * arch.moe_layers * 2 / bw
    compute = 2 * tokens * arch.experts_per_tok * arch.expert_params * arch.moe_layers / (1e14 * 0.8)
    assert plain.moe_time(tokens) == pytest.approx(gemm_s(compute, plain_bytes), rel=1e-9)
    assert mixed.moe_time(tokens) == pytest.approx(gemm_s(2 * compute, mixed_bytes), rel=1e-9)


def test_an_moe_layer_takes_longer_to_launch_than_a_dense_one(catalog: Catalog) -> None:
    """The host floor of a prompt iteration counts launches: gpt-oss's 36 layers are all MoE layers
    (14 kernels each, 10 for a dense layer), so its floor is 36 x 1.4 dense layers; a dense model's is its layers."""
    floor = 1e-3
    cal = replace(IDEAL, eager_layer_s=floor)
    moe = StepTimeModel(architecture(catalog.model("gpt-oss-120b")), toy_hardware(), cal, weight_dtype="bf16", expert_dtype="mxfp4")
    dense = StepTimeModel(architecture(catalog.model("llama-3.1-8b")), toy_hardware(), cal)
    short = [(16, 0)]  # device time far below either floor
    assert moe.step_time(0, 0.0, 0.0, short) == pytest.approx(36 * 1.4 * floor)
    assert dense.step_time(0, 0.0, 0.0, short) == pytest.approx(32 * floor)
    assert moe.breakdown(0, 0.0, 0.0, short).total == pytest.approx(36 * 1.4 * floor)


def test_fp8_weights_without_fp8_tensor_cores_run_weight_only(llama8b: Model) -> None:
    """An A100-like datasheet (16-bit and int8 rates, no fp8): fp8 weights are dequantised into
    bf16 GEMMs at the weight-only share of peak, not run at a derived fp8 rate; still 1 byte a weight."""
    cal = replace(IDEAL, gemm_eff=0.4, gemm_eff_16bit=0.8)
    arch = architecture(llama8b)
    ampere = toy_hardware(peak_tflops={"bf16": 100.0, "int8": 200.0})
    hopper = toy_hardware(peak_tflops={"bf16": 100.0, "fp8": 200.0})
    fp8_ampere = StepTimeModel(arch, ampere, cal, weight_dtype="fp8")
    fp8_hopper = StepTimeModel(arch, hopper, cal, weight_dtype="fp8")
    int8_ampere = StepTimeModel(arch, ampere, cal, weight_dtype="int8")
    flops = 2 * 8192 * DENSE
    assert fp8_ampere.linear_time(8192) == pytest.approx(flops / (100e12 * 0.4), rel=1e-3)
    assert fp8_hopper.linear_time(8192) == pytest.approx(flops / (200e12 * 0.4), rel=1e-3)
    assert int8_ampere.linear_time(8192) == pytest.approx(flops / (200e12 * 0.4), rel=1e-3)  # int8 tensor cores: native
    assert fp8_ampere.linear_time(1) == pytest.approx(DENSE * 1 / 1e12, rel=1e-2)  # the bytes stay fp8's
    assert any("no fp8 tensor cores" in n for n in fp8_ampere.notes)


@settings(max_examples=60, deadline=None)
@given(ctx=st.lists(st.integers(0, 20_000), min_size=1, max_size=40), steps=st.integers(1, 6))
def test_a_decode_run_is_its_iterations_one_by_one(ctx: list[int], steps: int) -> None:
    """``decode_run`` (a line where it can be one, else vectorised) gives each iteration's time as
    ``step_time`` does one at a time, for every model kind, overlapped or not, whichever floor wins."""
    contexts = np.asarray(ctx, dtype=np.int64)
    for name, m in _step_models().items():
        run = m.decode_run(contexts, steps)
        window = m._window
        for j in range(steps):
            seen = contexts + 1 + j
            keys_slide = float(np.minimum(seen, window).sum()) if window is not None and m._attn_flops_slide else 0.0
            assert run[j] == pytest.approx(m.step_time(len(ctx), float(seen.sum()), keys_slide), rel=1e-9), (name, j)
