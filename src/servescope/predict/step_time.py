"""The time of one engine iteration (one forward pass over a batch of prefill
chunks and decode tokens) on one replica of ``tp x pp`` devices.

The iteration is a sum of terms, each bounded by the roofline of the device it
runs on, ``max(flops / (peak * eff), bytes / (bandwidth * memory_bw_eff))``; on a
GPU the GEMM terms (linear, lm_head, moe) combine the two sides as
``(compute^p + memory^p)^(1/p)`` instead (``GEMM_ROOFLINE_P``: a kernel near its
ridge point reaches neither bound):

- **linear**: every scheduled token times the dense weights (attention
  projections, dense MLPs, shared experts, router); the weights are streamed once.
- **lm_head**: tokens that need logits (decodes, and prefills that finish this
  iteration) times the vocab x hidden matrix.
- **moe**: routed experts; FLOPs for k experts per token, bytes for the experts
  the batch touches, ``E * (1 - (1 - k/E)^T)`` in expectation for T tokens
  routed uniformly at random. When the engine's grouped-GEMM kernel is known
  (``calibration.MoeKernel``, chosen in ``deployment``), the FLOPs are those of
  the rows the kernel multiplies: each expert's token count, Binomial(T, k/E)
  (the routing spread, not T*k/E each), padded up to the kernel's row tile
  (``moe_block_m``), at that kernel's measured share of its dtype's peak. The
  roofline stays pooled over the experts (one launch streams every touched
  expert while others compute), not a sum of per-expert maxima.
- **attention**: decode tokens read their sequence's KV cache (memory-bound);
  prefill chunks compute ``q*c + q(q+1)/2`` query-key pairs (compute-bound);
  sliding-window layers see at most the window; MLA decodes in the absorbed
  form and prefills in the expanded one (``architecture``).
- **communication**: tensor parallelism all-reduces the hidden state twice per
  layer (after attention and after the MLP): ring all-reduce,
  ``2 * latency + 2(tp-1)/tp * bytes / (link * comm_bw_eff)``; pipeline
  stages pass the hidden state ``pp - 1`` times.
- **overhead**: fixed per iteration, per layer, per scheduled token and per
  sampled token (see ``calibration.FACTOR_DOCS``). Under an engine's overlap
  scheduling (``overlap_host``: vLLM's async scheduling, SGLang's and
  TensorRT-LLM's overlap schedulers, ``engine_flags.overlap_scheduling``) the
  host's share (the per-iteration, per-token and per-sampled-token terms) runs
  while the device runs the previous iteration: an iteration lasts the longer of
  the two instead of their sum. The per-layer floor stays: it is the device's.

Tensor parallelism divides weights, heads and FLOPs by ``tp`` (KV heads by
``min(tp, kv_heads)``: heads are replicated once tp exceeds them). Pipeline
parallelism divides weights over stages but one iteration still crosses every
stage, so it adds transfers and no speed (micro-batch interleaving is not
modelled). Peak rates missing from a datasheet are derived from another dtype
with ``dtypes.RATE_VS_BF16`` and the derivation is noted in ``notes``.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
from scipy.special import bdtr, bdtrc, ndtr

from servescope.documents import Hardware
from servescope.predict.architecture import Architecture
from servescope.predict.calibration import Calibration, MoeKernel, gemm_efficiency
from servescope.predict.dtypes import RATE_VS_BF16, bytes_per, compute_dtype_for

#: Kernels the host launches for one decoder layer outside CUDA graphs, counted in vLLM's model code
#: (vllm-project/vllm@00a130a03146): a dense layer (``llama.py``) launches 10 (input norm, QKV GEMM,
#: rotary, KV-cache write, attention, output GEMM, post-attention norm, gate-up GEMM, SiLU-and-mul,
#: down GEMM); an MoE layer replaces the MLP's 3 with 7 (router GEMM, top-k softmax, and
#: ``fused_marlin_moe.py``'s block alignment, first grouped GEMM, activation, second grouped GEMM
#: and the sum over the k experts). Host launch time goes with the launches. The same count is
#: taken for every engine with a launch floor (SGLang's and TensorRT-LLM's code were not counted).
DENSE_LAYER_LAUNCHES = 10
MOE_LAYER_LAUNCHES = 14

#: How a GEMM's compute and memory times combine on a GPU: ``(c^p + m^p)^(1/p)``, not ``max(c, m)``.
#: Near the ridge point (a decode batch of a few hundred tokens) a kernel neither streams its weights
#: at full bandwidth nor keeps its tensor cores busy, so it takes longer than either bound alone.
#: p = 1.6 is the exponent that fits Vidur's per-operator GEMM profiles of Llama-2-70B's four projections
#: (cuBLAS, bf16, tp 1-8, 1 to 4,096 tokens) on H100 (microsoft/vidur
#: data/profiling/compute/h100/meta-llama/Llama-2-70b-hf/mlp.csv@683364e9; p 1.61, compute at 0.75 of
#: peak, memory at 0.75 of bandwidth) and on A100 (data/profiling/compute/a100/...@25e529de; p 1.58, 0.74,
#: 0.71). Taken from one device, it fits the other about as well as that device's own fit does (A100 9.9 %
#: mean error against 15.0 % for the best ``max``; H100 15.7 % against 18.3 %), and the ``max`` form
#: comes out 13-28 % fast at 96-384 tokens on both devices. The constants fitted on Llama-2-70B also predict
#: five other profiled models better than ``max`` does (CodeLlama-34B, Llama-2-7B, Qwen-72B, Llama-3-8B,
#: Llama-3-70B: 9-18 % against 14-23 %). That makes it a device-independent shape, so
#: it is applied to the dense, lm-head and routed-expert GEMMs on every GPU. Attention keeps ``max``:
#: there is no profile for its kernels. CPUs keep ``max`` too: there is no measurement there.
#: Derivation: benchmarks/gemm_roofline.py.
GEMM_ROOFLINE_P = 1.6


def eager_layers(arch: Architecture) -> float:
    """Decoder layers in units of a dense layer's host launch time (``Calibration.eager_layer_s``,
    fitted on dense 80-layer models): an MoE layer counts MOE_LAYER_LAUNCHES / DENSE_LAYER_LAUNCHES."""
    return arch.layers + arch.moe_layers * (MOE_LAYER_LAUNCHES - DENSE_LAYER_LAUNCHES) / DENSE_LAYER_LAUNCHES


@dataclass(frozen=True)
class CudaGraphs:
    """The decode batches an engine replays as CUDA graphs: ``sizes`` (tokens per iteration) were
    captured; an engine that pads (``padded``) replays a batch up to the largest of them in the next
    size up, one that does not replays only a batch of exactly a captured size. Any other decode
    iteration is launched kernel by kernel and pays the host launch floor, as a prompt iteration does
    (``Calibration.eager_layer_s``). No sizes: every decode iteration runs eagerly (``--enforce-eager``)."""

    sizes: frozenset[int]
    padded: bool = True

    @property
    def max_tokens(self) -> int:
        return max(self.sizes, default=0)


@dataclass(frozen=True)
class StepBreakdown:
    """Seconds per term of one iteration. ``host_wait``: how much longer the host
    takes to launch an iteration that runs outside CUDA graphs (one carrying prompt
    tokens, or a decode batch the engine has no graph for: ``CudaGraphs``) than the
    device takes to run it (``eager_layers`` x ``Calibration.eager_layer_s``), or,
    under overlap scheduling, to do its own share of the iteration."""

    linear: float
    lm_head: float
    moe: float
    attention: float
    communication: float
    overhead: float
    host_wait: float = 0.0

    @property
    def total(self) -> float:
        return self.linear + self.lm_head + self.moe + self.attention + self.communication + self.overhead + self.host_wait


def peak_flops(hardware: Hardware, dtype: str, notes: list[str] | None = None) -> float:
    """Dense peak FLOP/s of ``hardware`` in ``dtype``; derived from another dtype when the datasheet lacks it."""
    peaks = hardware.peak_tflops
    if dtype in peaks:
        return float(peaks[dtype]) * 1e12
    if dtype == "fp16" and "bf16" in peaks:
        return float(peaks["bf16"]) * 1e12
    if dtype == "bf16" and "fp16" in peaks:
        return float(peaks["fp16"]) * 1e12
    want = RATE_VS_BF16.get(dtype)
    for have in ("bf16", "fp16", "fp8", "int8", "fp4", "int4", "tf32", "fp32"):
        if have not in peaks or want is None:
            continue
        if hardware.device_type == "cpu":
            tflops = float(peaks[have])  # vector units: no width speed-up assumed
        else:
            tflops = float(peaks[have]) * want / RATE_VS_BF16[have]
        if notes is not None:
            notes.append(f"{hardware.id}: no {dtype} peak in its datasheet; derived {tflops:.1f} TFLOP/s from {have}")
        return tflops * 1e12
    raise ValueError(f"hardware {hardware.id} gives no peak_tflops usable for {dtype}")


def lacks_tensor_cores(hardware: Hardware, dtype: str) -> bool:
    """Whether ``hardware`` is a GPU without tensor cores in ``dtype``: its datasheet gives 16-bit tensor
    rates but none in that dtype (fp8 on Ampere, fp4 on Hopper). A datasheet without 16-bit rates
    (GB10's lists fp4 only) says nothing of what it lacks."""
    peaks = hardware.peak_tflops
    return hardware.device_type == "gpu" and dtype not in peaks and ("bf16" in peaks or "fp16" in peaks)


def gemm_dtype(hardware: Hardware, weight_dtype: str, notes: list[str] | None = None) -> str:
    """The dtype the GEMMs over ``weight_dtype`` weights run in on ``hardware``: ``compute_dtype_for``'s,
    except on a GPU whose datasheet gives 16-bit tensor rates but none in that dtype (fp8 on Ampere,
    fp4 on Hopper): it has no such tensor cores, and engines run the weights weight-only, dequantised
    into 16-bit GEMMs (vLLM: "Your GPU does not have native support for FP8 computation ... Weight-only
    FP8 compression will be used leveraging the Marlin kernel"; NVFP4 through Marlin before Blackwell).
    Their share of that peak is the weight-only one (``gemm_eff``), as for AWQ/GPTQ."""
    native = compute_dtype_for(weight_dtype)
    if native in ("fp8", "int8", "fp4") and lacks_tensor_cores(hardware, native):
        if notes is not None:
            notes.append(f"{hardware.id}: no {native} tensor cores in its datasheet; {weight_dtype} weights run weight-only in 16-bit GEMMs")
        return "bf16"
    return native


def moe_block_m(rule: str, tokens: int, experts: int, experts_per_tok: int) -> int:
    """Row tile (BLOCK_SIZE_M) a MoE kernel pads each expert's tokens to, for ``tokens`` in the batch.

    - ``marlin``: the smallest of 8, 16, 32, 48, 64 with tokens x k / E / block < 0.9, else 64
      (vllm-project/vllm@00a130a03146, ``fused_marlin_moe.py``, "M block size selection").
    - ``triton``: 16 while tokens <= E, else 64 (vLLM ``fused_moe.py`` ``get_default_config``, the
      fallback when no tuned config file matches; SGLang's ``fused_moe_triton`` copies it).
    - ``triton-fp8-block``: 64 (the same function's branch for fp8 w8a8 with block scales).
    """
    if rule == "marlin":
        for block in (8, 16, 32, 48, 64):
            if tokens * experts_per_tok / experts / block < 0.9:
                return block
        return 64
    if rule == "triton":
        return 16 if tokens <= experts else 64
    if rule == "triton-fp8-block":
        return 64
    raise ValueError(f"unknown MoE row-tile rule {rule!r}")


def padded_expert_rows(tokens: int, experts: int, experts_per_tok: int, block: int) -> float:
    """Expected rows one MoE layer's grouped GEMM multiplies for ``tokens`` tokens: each expert
    receives X ~ Binomial(tokens, k/E) of them (every token picks k distinct experts, so each
    expert is picked by a token with probability k/E) and the kernel computes ceil(X / block)
    full tiles, E[ceil(X/B)] = sum over j >= 0 of P(X > jB)."""
    if tokens <= 0 or experts <= 0:
        return 0.0
    tiles = float(_tile_tail(tokens, min(1.0, experts_per_tok / experts), block).sum())
    return experts * block * tiles


def _tile_tail(tokens: int, p: float, block: int) -> np.ndarray:
    """P(ceil(X / block) >= m) = P(X > (m - 1) block) for m = 1 .. tokens // block + 1, X ~ Binomial(tokens, p):
    one expert's tiles of ``block`` rows (their sum over m is E[ceil(X / block)])."""
    return bdtrc(np.arange(0, tokens // block + 1, dtype=np.float64) * block, tokens, p)


_Z_MAX: dict[int, float] = {}


def expected_max_std_normal(n: int) -> float:
    """E[max of n independent standard normals] (0 for n = 1; 0.564 for 2, 1.029 for 4, 1.424 for 8):
    the integral of x n phi(x) Phi(x)^(n-1), on a fine grid."""
    if n <= 1:
        return 0.0
    z = _Z_MAX.get(n)
    if z is None:
        x = np.linspace(-10.0, 10.0, 20001)
        dens = n * np.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi) * ndtr(x) ** (n - 1)
        z = _Z_MAX[n] = float(np.sum(x * dens) * (x[1] - x[0]))
    return z


def busiest_rank_rows(tokens: int, experts: int, experts_per_tok: int, block: int, ranks: int) -> float:
    """Expected rows of the busiest of ``ranks`` expert-parallel ranks, each holding ``experts / ranks``
    whole experts: a rank's rows are the sum of its experts' padded loads B ceil(X / B), X ~
    Binomial(tokens, k / E) (``padded_expert_rows``), taken as independent; the busiest rank's is
    the mean plus E[max of ``ranks`` standard normals] standard deviations (normal approximation of
    a sum of E / ranks loads). Uniform routing: real routers' favourite experts are not modelled."""
    if tokens <= 0 or experts <= 0:
        return 0.0
    tail = _tile_tail(tokens, min(1.0, experts_per_tok / experts), block)  # P(ceil(X / B) >= m)
    m = np.arange(1, tail.size + 1, dtype=np.float64)
    mean_tiles = float(tail.sum())
    var_tiles = max(0.0, float(((2.0 * m - 1.0) * tail).sum()) - mean_tiles * mean_tiles)
    per_rank = experts / ranks
    return block * (per_rank * mean_tiles + expected_max_std_normal(ranks) * math.sqrt(per_rank * var_tiles))


def busiest_rank_experts(tokens: int, experts: int, experts_per_tok: int, ranks: int) -> float:
    """Expected distinct experts the busiest of ``ranks`` ranks reads for ``tokens`` tokens: each of a
    rank's E / ranks experts is touched with probability q = 1 - (1 - k / E)^tokens (independently),
    so a rank touches Binomial(E / ranks, q) of them and E[max] = sum over j >= 1 of 1 - F(j - 1)^ranks."""
    if tokens <= 0 or experts <= 0:
        return 0.0
    per_rank = experts // ranks
    q = 1.0 - (1.0 - min(1.0, experts_per_tok / experts)) ** tokens
    j = np.arange(1, per_rank + 1, dtype=np.float64)
    return float((1.0 - bdtr(j - 1.0, per_rank, q) ** ranks).sum())


class StepTimeModel:
    """Iteration time of one replica. Construction is pure arithmetic (no I/O)."""

    #: Query tokens one decoding sequence puts through an iteration (and against the engine's
    #: token budget): 1, or k + 1 under speculative decoding (``speculative``).
    decode_query_tokens: int = 1

    def __init__(
        self,
        arch: Architecture,
        hardware: Hardware,
        calibration: Calibration,
        *,
        tp: int = 1,
        pp: int = 1,
        weight_dtype: str = "bf16",
        kv_dtype: str = "bf16",
        expert_dtype: str | None = None,
        threads: int | None = None,
        state_dtype: str | None = None,
        moe_kernel: MoeKernel | None = None,
        expert_padding: float = 1.0,
        ep: int = 1,
        cuda_graphs: CudaGraphs | None = None,
        overlap_host: bool = False,
    ) -> None:
        self.arch = arch
        self.hardware = hardware
        self.cal = calibration
        self.tp = tp
        self.pp = pp
        self.weight_dtype = weight_dtype
        self.kv_dtype = kv_dtype
        self.notes: list[str] = []
        c = calibration
        compute_dtype = gemm_dtype(hardware, weight_dtype, self.notes)
        act_dtype = "fp32" if weight_dtype == "fp32" else "bf16"
        scale = 1.0
        if hardware.device_type == "cpu" and threads and hardware.cores:
            scale = min(threads, hardware.cores) / hardware.cores
        # dense GEMMs over 16-bit weights reach a larger share of peak than the fp8 / quantised ones
        # ``gemm_eff`` was fitted on (``calibration.gemm_efficiency``: a public profile, not a fit)
        peak = peak_flops(hardware, compute_dtype, self.notes) * scale
        self._gemm_rate = peak * gemm_efficiency(c, weight_dtype)
        self._attn_rate = peak_flops(hardware, act_dtype, self.notes) * scale * c.attn_eff
        self._bw = hardware.memory_bandwidth_gb_s * 1e9 * c.memory_bw_eff
        # (GEMM_ROOFLINE_P on GPUs; None: the plain max)
        self._gemm_p = GEMM_ROOFLINE_P if hardware.device_type == "gpu" else None
        self.weight_bytes = bytes_per(weight_dtype)
        self.expert_bytes = bytes_per(expert_dtype or weight_dtype)
        self.kv_bytes = bytes_per(kv_dtype)
        self.act_bytes = bytes_per(act_dtype)
        a = arch
        self._dense_flops_per_token = 2.0 * a.dense_linear_params / tp
        self._dense_bytes = a.dense_linear_params * self.weight_bytes / tp
        self._head_flops_per_token = 2.0 * a.lm_head_params / tp
        self._head_bytes = a.lm_head_params * self.weight_bytes / tp
        # ``expert_padding``: the routed experts' matrices as the engine lays them out for its kernel
        # (vLLM pads mxfp4 experts for Marlin, ``deployment.expert_padding``): the padding is stored,
        # read and multiplied like the rest of the weights
        self.expert_padding = expert_padding
        # ``ep``: expert parallelism over the tp ranks (vLLM --enable-expert-parallel, SGLang --ep-size):
        # each rank holds experts / ep whole experts instead of a 1/tp slice of each; the same bytes and
        # FLOPs in all, but the step waits for the busiest rank (``busiest_rank_*``)
        self.ep = ep if a.experts and ep > 1 else 1
        self._expert_flops_per_token = 2.0 * a.experts_per_tok * a.expert_params * a.moe_layers / tp * expert_padding
        self._expert_bytes_each = a.expert_params * a.moe_layers * self.expert_bytes / tp * expert_padding
        self.moe_kernel = moe_kernel
        # routed experts without a kernel figure: the share of peak of their own weights' dtype
        # (gpt-oss: bf16 attention, mxfp4 experts)
        expert_eff = gemm_efficiency(c, expert_dtype or weight_dtype)
        self._moe_rate = peak * expert_eff
        if moe_kernel is not None and a.experts:
            eff = expert_eff if moe_kernel.efficiency is None or hardware.figures == "measured" else moe_kernel.efficiency
            self._moe_rate = peak_flops(hardware, moe_kernel.peak_dtype, self.notes) * scale * eff
            self.notes.append(f"routed experts: {moe_kernel.name} ({self._moe_rate / 1e12:.0f} TFLOP/s at prefill sizes; {moe_kernel.source})")
        self._moe_by_tokens: dict[int, float] = {}
        full_f, slide_f = a.attention_flops_per_key()
        self._attn_flops_full = full_f / tp
        self._attn_flops_slide = slide_f / tp
        pf_full, pf_slide = a.prefill_attention_flops_per_key()  # differ from decode's under MLA only
        self._pf_flops_full = pf_full / tp
        self._pf_flops_slide = pf_slide / tp
        kv_heads_dev = math.ceil(a.kv_heads / tp)
        kv_full, kv_slide = a.kv_elements_per_token(kv_heads_dev)
        self._kv_full = kv_full * self.kv_bytes
        self._kv_slide = kv_slide * self.kv_bytes
        self._window = a.sliding_window
        # Gated DeltaNet layers: a constant state per sequence, read and written once per
        # decode token and once per prompt chunk (``architecture``); the recurrent state in
        # ``state_dtype`` (the engine's SSM cache dtype), the convolution state in the activation dtype.
        lin_decode, lin_prefill = a.linear_flops_per_token()
        self._lin_decode_flops = lin_decode / tp
        self._lin_prefill_flops = lin_prefill / tp
        self.state_bytes_per_sequence = a.linear_state_bytes(tp, bytes_per(state_dtype or act_dtype), bytes_per(act_dtype))
        self._lin_io = 2.0 * self.state_bytes_per_sequence
        link = hardware.interconnect
        self._comm_fixed = 0.0
        self._comm_per_token = 0.0
        if tp > 1 or pp > 1:
            if link is None:
                raise ValueError(f"hardware {hardware.id} has no interconnect; tp={tp} pp={pp} needs one")
            bw = link.bandwidth_gb_s * 1e9 * c.comm_bw_eff
            lat = link.latency_us * 1e-6
            msg = a.hidden * self.act_bytes
            if tp > 1:
                n_ar = 2 * a.layers
                self._comm_fixed += n_ar * 2 * lat
                self._comm_per_token += n_ar * 2 * (tp - 1) / tp * msg / bw
            if pp > 1:
                self._comm_fixed += (pp - 1) * lat
                self._comm_per_token += (pp - 1) * msg / bw
        # the host's share of an iteration: in the sum, or (overlap scheduling) a floor beside it
        self.overlap_host = overlap_host
        host = (c.step_overhead_s, c.token_overhead_s, c.output_token_overhead_s)
        self._host_fixed, self._host_per_token, self._host_per_logit = host if overlap_host else (0.0, 0.0, 0.0)
        self._summed_step_s, self._token_ovh, self._logit_ovh = (0.0, 0.0, 0.0) if overlap_host else host
        self._overhead_fixed = self._summed_step_s + a.layers * c.layer_overhead_s
        self._eager_step = eager_layers(a) * c.eager_layer_s  # host launch time of a non-graphed iteration
        # a decode iteration the engine has no CUDA graph for is launched eagerly too (None: all graphed)
        self.cuda_graphs = cuda_graphs if self._eager_step > 0 else None
        self._graph_max = self.cuda_graphs.max_tokens if self.cuda_graphs is not None else sys.maxsize
        self._graph_sizes = self.cuda_graphs.sizes if self.cuda_graphs is not None and not self.cuda_graphs.padded else None
        # the weights' streaming times, constant per model (``_step_time`` reads them)
        self._dense_bytes_s = self._dense_bytes / self._bw
        self._head_bytes_s = self._head_bytes / self._bw
        # a full-attention decode token's seconds per key of KV (``decode_line``)
        self._decode_per_key = max(self._attn_flops_full / self._attn_rate, self._kv_full / self._bw)
        self._fixed_by_batch: dict[int, float] = {}
        self._chunk_alone: dict[tuple[int, int, int], float] = {}

    # --- terms -----------------------------------------------------------------
    def _roof(self, flops: float, rate: float, nbytes: float) -> float:
        return max(flops / rate, nbytes / self._bw)

    def _gemm(self, compute_s: float, memory_s: float) -> float:
        """A GEMM's seconds from its compute-bound and memory-bound times (``GEMM_ROOFLINE_P``)."""
        p = self._gemm_p
        if p is None:
            return memory_s if memory_s > compute_s else compute_s
        return float((compute_s**p + memory_s**p) ** (1.0 / p))

    def linear_time(self, tokens: int) -> float:
        if tokens <= 0:
            return 0.0
        return self._gemm(tokens * self._dense_flops_per_token / self._gemm_rate, self._dense_bytes_s)

    def lm_head_time(self, logits: int) -> float:
        if logits <= 0:
            return 0.0
        return self._gemm(logits * self._head_flops_per_token / self._gemm_rate, self._head_bytes_s)

    def experts_touched(self, tokens: int) -> float:
        """Expected distinct experts per MoE layer that ``tokens`` tokens route to."""
        e, k = self.arch.experts, self.arch.experts_per_tok
        if not e or tokens <= 0:
            return 0.0
        return e * (1.0 - (1.0 - k / e) ** tokens)

    def expert_rows(self, tokens: int) -> float:
        """Rows the routed-expert GEMMs multiply per MoE layer for ``tokens`` tokens: tokens x k
        without a known kernel, else the padded rows of its row tile under binomial routing."""
        a = self.arch
        if self.moe_kernel is None:
            return float(tokens * a.experts_per_tok)
        return padded_expert_rows(tokens, a.experts, a.experts_per_tok, self._expert_block(tokens))

    def _expert_block(self, tokens: int) -> int:
        """The row tile the MoE kernel pads each expert's tokens to (1: no kernel, no padding)."""
        a, kernel = self.arch, self.moe_kernel
        return 1 if kernel is None else moe_block_m(kernel.block_m, tokens, a.experts, a.experts_per_tok)

    def moe_time(self, tokens: int) -> float:
        if not self.arch.experts or tokens <= 0:
            return 0.0
        t = self._moe_by_tokens.get(tokens)
        if t is None:
            # per-token FLOPs already hold k experts: scale by padded rows / (tokens x k)
            if self.ep > 1:
                # the busiest rank's rows and experts, as if every rank were as busy (the /tp constants)
                a = self.arch
                rows = self.ep * busiest_rank_rows(tokens, a.experts, a.experts_per_tok, self._expert_block(tokens), self.ep)
                touched = self.ep * busiest_rank_experts(tokens, a.experts, a.experts_per_tok, self.ep)
            else:
                rows, touched = self.expert_rows(tokens), self.experts_touched(tokens)
            flops = rows / self.arch.experts_per_tok * self._expert_flops_per_token
            t = self._gemm(flops / self._moe_rate, touched * self._expert_bytes_each / self._bw)
            self._moe_by_tokens[tokens] = t
        return t

    def decode_attention_time(self, keys_full: float, keys_sliding: float) -> float:
        """Decode tokens attending ``keys_full`` keys in full layers and ``keys_sliding`` in window layers (summed over the batch)."""
        if keys_full <= 0 and keys_sliding <= 0:
            return 0.0
        flops = self._attn_flops_full * keys_full + self._attn_flops_slide * keys_sliding
        nbytes = self._kv_full * keys_full + self._kv_slide * keys_sliding
        return self._roof(flops, self._attn_rate, nbytes)

    def _sliding_pairs(self, q: int, c: int) -> float:
        w = self._window
        if w is None:
            return 0.0
        end = c + q
        lo, hi = c + 1, min(end, w)
        inside = (lo + hi) * (hi - lo + 1) / 2 if hi >= lo else 0.0
        return inside + max(0, end - max(c, w)) * w

    def prefill_attention_time(self, q: int, c: int) -> float:
        """A chunk of ``q`` new tokens after ``c`` cached ones (causal)."""
        if q <= 0:
            return 0.0
        pairs_full = q * c + q * (q + 1) / 2
        pairs_slide = self._sliding_pairs(q, c) if self._pf_flops_slide else 0.0
        flops = self._pf_flops_full * pairs_full + self._pf_flops_slide * pairs_slide
        ctx = c + q
        nbytes = self._kv_full * ctx + self._kv_slide * (min(ctx, self._window) if self._window else ctx)
        return self._roof(flops, self._attn_rate, nbytes)

    def linear_attention_time(self, decodes: int, prefill_tokens: int = 0, prefill_chunks: int = 0) -> float:
        """Gated DeltaNet layers: ``decodes`` decode tokens and ``prefill_chunks`` prompt
        chunks of ``prefill_tokens`` tokens in all, each reading and writing its sequence's state."""
        if not self._lin_io or (decodes <= 0 and prefill_chunks <= 0):
            return 0.0
        flops = decodes * self._lin_decode_flops + prefill_tokens * self._lin_prefill_flops
        return self._roof(flops, self._attn_rate, (decodes + prefill_chunks) * self._lin_io)

    def communication_time(self, tokens: int) -> float:
        if tokens <= 0 or not (self._comm_fixed or self._comm_per_token):
            return 0.0
        return self._comm_fixed + tokens * self._comm_per_token

    def overhead_time(self, tokens: int, logits: int) -> float:
        return self._overhead_fixed + tokens * self._token_ovh + logits * self._logit_ovh

    def host_time(self, tokens: int, logits: int) -> float:
        """The host's share of an iteration under overlap scheduling, the least it can last (0 without overlap)."""
        if not self.overlap_host or tokens <= 0:
            return 0.0
        return self._host_fixed + tokens * self._host_per_token + logits * self._host_per_logit

    # --- one iteration ---------------------------------------------------------
    def breakdown(
        self,
        decode_tokens: int = 0,
        decode_keys_full: float = 0.0,
        decode_keys_sliding: float = 0.0,
        prefill: Sequence[tuple[int, int]] = (),
        logits: int | None = None,
    ) -> StepBreakdown:
        """Terms of one iteration: ``decode_tokens`` decodes whose sequences hold
        ``decode_keys_*`` keys in all (the new token included), and prefill chunks
        ``(q, c)``; ``logits`` defaults to decodes + chunks."""
        tokens = decode_tokens + sum(q for q, _ in prefill)
        n_logits = decode_tokens + len(prefill) if logits is None else logits
        attn = self.decode_attention_time(decode_keys_full, decode_keys_sliding)
        attn += sum(self.prefill_attention_time(q, c) for q, c in prefill)
        if self._lin_io:
            attn += self.linear_attention_time(decode_tokens, tokens - decode_tokens, len(prefill))
        parts = StepBreakdown(
            linear=self.linear_time(tokens),
            lm_head=self.lm_head_time(n_logits),
            moe=self.moe_time(tokens),
            attention=attn,
            communication=self.communication_time(tokens),
            overhead=self.overhead_time(tokens, n_logits) if tokens else 0.0,
        )
        floor = self._eager_step if prefill or self._eager_decode(decode_tokens) else 0.0
        floor = max(floor, self.host_time(tokens, n_logits))
        if floor > parts.total:
            parts = replace(parts, host_wait=floor - parts.total)
        return parts

    def step_time(
        self,
        decode_tokens: int = 0,
        decode_keys_full: float = 0.0,
        decode_keys_sliding: float = 0.0,
        prefill: Sequence[tuple[int, int]] = (),
        logits: int | None = None,
    ) -> float:
        """``breakdown(...).total``, summed in the same order without building the
        breakdown (the simulator calls this once per prefill iteration)."""
        if not decode_tokens and len(prefill) == 1 and not decode_keys_full and not decode_keys_sliding:
            # one prompt chunk alone (every prefill at low concurrency): memoised
            q, c = prefill[0]
            key = (q, c, 1 if logits is None else logits)
            t = self._chunk_alone.get(key)
            if t is None:
                t = self._chunk_alone[key] = self._step_time(0, 0.0, 0.0, prefill, key[2])
            return t
        return self._step_time(decode_tokens, decode_keys_full, decode_keys_sliding, prefill, logits)

    def _step_time(
        self, decode_tokens: int, decode_keys_full: float, decode_keys_sliding: float, prefill: Sequence[tuple[int, int]], logits: int | None
    ) -> float:
        # The terms of ``breakdown`` inlined (the simulator calls this once per prefill
        # iteration: ~10 method calls fewer), each the same expression in the same order,
        # so the floats are bit-identical: _roof's max(f, b) is ``b if b > f else f`` (what
        # max returns), the GEMM terms go through the same ``_gemm``, and the weights' streaming
        # time ``bytes / bw`` is the same division.
        bw = self._bw
        attn_rate = self._attn_rate
        if len(prefill) == 1:
            q0 = prefill[0][0]
            tokens = decode_tokens + q0
        else:
            tokens = decode_tokens + sum(q for q, _ in prefill)
        n_logits = decode_tokens + len(prefill) if logits is None else logits
        # decode_attention_time
        if decode_keys_full <= 0 and decode_keys_sliding <= 0:
            attn = 0.0
        else:
            f = (self._attn_flops_full * decode_keys_full + self._attn_flops_slide * decode_keys_sliding) / attn_rate
            b = (self._kv_full * decode_keys_full + self._kv_slide * decode_keys_sliding) / bw
            attn = b if b > f else f
        # prefill_attention_time of each chunk
        pf_full, pf_slide, kv_full, kv_slide, window = self._pf_flops_full, self._pf_flops_slide, self._kv_full, self._kv_slide, self._window
        for q, c in prefill:
            if q <= 0:
                continue
            pairs_full = q * c + q * (q + 1) / 2
            pairs_slide = self._sliding_pairs(q, c) if pf_slide else 0.0
            f = (pf_full * pairs_full + pf_slide * pairs_slide) / attn_rate
            ctx = c + q
            b = (kv_full * ctx + kv_slide * (min(ctx, window) if window else ctx)) / bw
            attn += b if b > f else f
        if self._lin_io:
            attn += self.linear_attention_time(decode_tokens, tokens - decode_tokens, len(prefill))
        gemm = self._gemm
        device = gemm(tokens * self._dense_flops_per_token / self._gemm_rate, self._dense_bytes_s) if tokens > 0 else 0.0  # linear_time
        if n_logits > 0:
            device += gemm(n_logits * self._head_flops_per_token / self._gemm_rate, self._head_bytes_s)  # lm_head_time
        device += self.moe_time(tokens) if self.arch.experts else 0.0
        device += attn
        comm_fixed, comm_per_token = self._comm_fixed, self._comm_per_token
        device += comm_fixed + tokens * comm_per_token if tokens > 0 and (comm_fixed or comm_per_token) else 0.0
        if tokens:
            device += self._overhead_fixed + tokens * self._token_ovh + n_logits * self._logit_ovh
        # an iteration carrying prompt tokens runs outside CUDA graphs: it takes at
        # least as long as the host needs to launch it (async launch overlaps the rest)
        t = max(device, self._eager_step) if prefill or self._eager_decode(decode_tokens) else device
        if self.overlap_host and tokens:
            host = self._host_fixed + tokens * self._host_per_token + n_logits * self._host_per_logit
            if host > t:
                t = host
        return t

    @property
    def eager_step_s(self) -> float:
        """The host launch floor of an iteration that runs outside CUDA graphs (seconds)."""
        return self._eager_step

    def _eager_decode(self, batch: int) -> bool:
        """Whether a decode-only iteration of ``batch`` tokens runs outside CUDA graphs."""
        return batch > self._graph_max or (self._graph_sizes is not None and batch > 0 and batch not in self._graph_sizes)

    def _decode_fixed(self, b: int) -> float:
        """Every term of a decode iteration of ``b`` sequences but KV attention (memoised:
        the simulator asks for the same batch sizes over and over); linear-attention
        layers are here, their cost does not grow with the context."""
        t = self._fixed_by_batch.get(b)
        if t is None:
            t = self.linear_time(b) + self.lm_head_time(b) + self.moe_time(b) + self.communication_time(b) + self.overhead_time(b, b)
            if self._lin_io:
                t += self.linear_attention_time(b)
            self._fixed_by_batch[b] = t
        return t

    def decode_line(self, batch: int, keys_sum: float) -> tuple[float, float] | None:
        """Without sliding-window layers a decode run's j-th iteration (j from 0) takes
        ``j * slope + first`` seconds, for ``batch`` sequences holding ``keys_sum`` tokens
        of KV before it: (first, slope), or None with sliding-window layers. Keys grow by
        ``batch`` per iteration and both roofline sides are linear in them, so the attention
        term is keys x the larger seconds-per-key. (``decode_run`` computes the same floats.)"""
        if self._window is not None and self._attn_flops_slide:
            return None
        if batch > self._graph_max or (self._graph_sizes is not None and batch > 0 and batch not in self._graph_sizes):
            return None  # launched eagerly (``_eager_decode``, inlined): max(device, launch floor) is not a line
        per_key = self._decode_per_key
        fixed = self._fixed_by_batch.get(batch)  # (_decode_fixed's memo read inline: one call fewer per decode run)
        if fixed is None:
            fixed = self._decode_fixed(batch)
        first = fixed + per_key * (keys_sum + batch)
        if self.overlap_host and first < self.host_time(batch, batch):
            return None  # the host's share outlasts the device's: max(device, host) is not a line
        return first, per_key * batch

    def decode_run(self, contexts: np.ndarray, steps: int, *, keys_sum: float | None = None, lead: float | None = None) -> np.ndarray:
        """Durations (s) of ``steps`` consecutive decode-only iterations of the
        sequences holding ``contexts`` tokens of KV before the first one; each
        iteration adds one token to every sequence. ``keys_sum``: the caller's
        ``contexts.sum()``; ``lead``: an iteration's duration to put first (the
        result then holds ``steps`` + 1 entries)."""
        b = int(contexts.size)
        keys_total = float(contexts.sum()) if keys_sum is None else keys_sum
        line = self.decode_line(b, keys_total)
        if line is not None:
            first, slope = line
            if lead is None:
                out = np.arange(steps, dtype=np.float64)
                out *= slope
                out += first
                return out
            out = np.arange(-1, steps, dtype=np.float64)
            out *= slope
            out += first
            out[0] = lead
            return out
        fixed = self._decode_fixed(b)
        keys0 = keys_total + b
        j = np.arange(steps, dtype=np.float64)
        keys_full = keys0 + j * b
        if self._window is not None and self._attn_flops_slide:
            grid = np.minimum(contexts[:, None].astype(np.float64) + 1.0 + j[None, :], float(self._window))
            keys_slide = grid.sum(axis=0)
            flops = self._attn_flops_full * keys_full + self._attn_flops_slide * keys_slide
            nbytes = self._kv_full * keys_full + self._kv_slide * keys_slide
            out = fixed + np.maximum(flops / self._attn_rate, nbytes / self._bw)
        else:
            out = fixed + self._decode_per_key * keys_full
        if self._eager_decode(b):
            np.maximum(out, self._eager_step, out=out)
        if self.overlap_host:
            np.maximum(out, self.host_time(b, b), out=out)
        return out if lead is None else np.concatenate(([lead], out))

    # --- facts for capacity and plausibility -------------------------------------
    @property
    def weight_bytes_per_device(self) -> float:
        """Weights one device holds (tp and pp split them)."""
        a = self.arch
        emb = 0.0 if a.tied_embeddings else a.embedding_params
        dense = (a.dense_linear_params + a.lm_head_params + emb + a.per_layer_embedding_params) * self.weight_bytes
        experts = a.routed_expert_params * self.expert_bytes * self.expert_padding
        return (dense + experts) / (self.tp * self.pp)

    @property
    def kv_bytes_per_token_per_device(self) -> float:
        """KV bytes one token adds on one device below the sliding window (pp splits layers)."""
        return (self._kv_full + self._kv_slide) / self.pp

    @property
    def kv_full_bytes_per_token_per_device(self) -> float:
        """The part of that held by full-attention layers (the rest stops growing at the window)."""
        return self._kv_full / self.pp

    @property
    def window_bytes_per_sequence(self) -> float:
        """What a sequence's sliding-window layers hold once past the window, per device: the
        window's tokens (an engine that frees KV outside the window holds no more)."""
        return (self._window or 0) * self._kv_slide / self.pp
