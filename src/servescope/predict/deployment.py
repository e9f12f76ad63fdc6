"""A scenario resolved into everything the simulator needs: architecture, device,
engine limits, the step-time model, the KV pool and the calibration in force.

Engine knobs come from the scenario's explicit fields first, then its engine
args (``--max-num-seqs 256``), then the engine's own defaults:

- **vLLM v1** (``vllm/engine/arg_utils.py``, OpenAI-server usage context):
  ``max_num_seqs`` 1024 and ``max_num_batched_tokens`` 8192 on devices with at
  least 70 GiB that are not A100s, 256 and 2048 otherwise; block size 16,
  ``gpu_memory_utilization`` 0.9, prefix caching and chunked prefill on.
- **SGLang**: the same continuous-batching model with page size 1 and its radix
  prefix cache (approximated by block hashing at page size 1).
- **llama.cpp server**: ``--parallel`` slots, each with ``--ctx-size / parallel``
  tokens of KV (``--no-kv-unified``), a logical batch of ``--batch-size`` (2048)
  tokens per iteration, prompts longer than a slot refused, generation stopped
  at the slot's end; its per-slot prompt cache is not modelled.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from servescope.catalog.store import Catalog
from servescope.documents import Hardware, Model, Scenario
from servescope.documents.config_id import normalize_dtype, normalize_engine
from servescope.documents.prediction import Calibration as CalibrationDocument
from servescope.errors import CatalogError, NotModelledError
from servescope.predict.architecture import Architecture, architecture
from servescope.predict.calibration import MOE_KERNELS, SIXTEEN_BIT, Calibration, MoeKernel, apply, default_calibration, factors_of
from servescope.predict.coverage import is_hopper, review, vllm_v0
from servescope.predict.dtypes import from_torch_dtype, kv_dtype_for
from servescope.predict.engine_flags import (
    TRT_ENGINES,
    canonical,
    cuda_graphs_modelled,
    expert_parallel_size,
    first,
    front_ends,
    kv_dtype_flag,
    normalized,
    overlap_scheduling,
    state_dtype_flag,
    trt_moe_backend,
)
from servescope.predict.hf_config import read_model_config
from servescope.predict.kv_capacity import V0_RUNTIME_RESERVE_BYTES, KvCapacity, kv_capacity, sglang_setup_bytes
from servescope.predict.speculative import Speculation, speculation
from servescope.predict.speculative_step import SpeculativeStepTimeModel, head_architecture
from servescope.predict.step_time import CudaGraphs, StepTimeModel, lacks_tensor_cores
from servescope.predict.tokens import Encoder, load_encoder

GIB = 1024**3
_LLAMA_CPP = ("llama.cpp", "llamacpp", "llama-cpp", "ollama")


@dataclass(frozen=True)
class EngineConfig:
    """The scheduling limits of one replica."""

    engine: str
    scheduler: str
    max_num_seqs: int
    max_num_batched_tokens: int
    block_size: int
    enable_prefix_caching: bool
    enable_chunked_prefill: bool
    max_model_len: int
    gpu_memory_utilization: float
    fixed_kv_tokens: int | None = None
    overflow: str = "reject"
    threads: int | None = None
    # TensorRT-LLM's batch waiting: new prefills are held until the batch would hold
    # ``batch_wait_tokens`` tokens or the oldest has waited ``batch_wait_iters`` iterations.
    batch_wait_iters: int = 0
    batch_wait_tokens: int = 0
    # TensorRT-LLM's default capacity policy, GUARANTEED_NO_EVICT: a request is started only when
    # the KV blocks of its prompt plus its max output, and those of every running request, fit;
    # nothing is ever preempted (MAX_UTILIZATION schedules as vLLM does).
    reserve_to_completion: bool = False
    # SGLang's --schedule-conservativeness: scales the output it reserves for running requests
    schedule_conservativeness: float = 1.0


@dataclass
class Deployment:
    scenario: Scenario
    model: Model
    hardware: Hardware
    arch: Architecture
    engine: EngineConfig
    calibration: Calibration
    calibration_name: str | None
    step_model: StepTimeModel
    kv: KvCapacity
    encoder: Encoder | None
    template_tokens: int
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    """What of this scenario the simulator does not model, one line each (``coverage.review``)."""
    front_ends: int = 1
    """API-server processes that take requests in, one at a time each (``engine_flags.front_ends``)."""

    @property
    def replicas(self) -> int:
        return self.scenario.dp

    @property
    def devices_per_replica(self) -> int:
        return self.scenario.tp * self.scenario.pp


def _int(value: Any) -> int | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return int(str(value))
    except ValueError:
        return None


def _threads(flags: dict[str, Any]) -> int | None:
    """llama.cpp's --threads; -1 (every core) is the device's own count, as when not given."""
    threads = _int(flags.get("threads"))
    return None if threads == -1 else threads


#: SGLang's --max-prefill-tokens default (python/sglang/srt/server_args.py): a prefill step's tokens
#: when prompts are not chunked (--chunked-prefill-size -1)
SGLANG_MAX_PREFILL_TOKENS = 16384


def _positive(scenario: Scenario, flags: dict[str, Any], name: str) -> float | None:
    """A flag that must be a positive number: its value, None when not given, one line otherwise."""
    value = flags.get(name)
    if value is None:
        return None
    number = _float(value)
    if number is None or not number > 0:
        raise CatalogError(f"scenario {scenario.name}: engine.args --{name} {value!r} is not a positive number; give one, or leave it out")
    return number


def _float(value: Any) -> float | None:
    if value is None or isinstance(value, bool):
        return None
    try:
        return float(str(value))
    except ValueError:
        return None


#: trtllm-serve's --max_batch_size and --max_num_tokens when not given: ``BuildConfig``'s 2,048 requests and
#: 8,192 tokens on every GPU (NVIDIA/TensorRT-LLM tensorrt_llm/commands/serve.py ``get_llm_args`` defaults to
#: ``BuildConfig.model_fields[...]``; tensorrt_llm/builder.py ``BuildConfig``). Not NIM's: its profiles carry their own.
TRTLLM_SERVE_DEFAULTS = (2048, 8192)


def engine_config(scenario: Scenario, model: Model, hardware: Hardware) -> EngineConfig:
    e = scenario.engine
    flags = normalized(e.id, e.args)
    eid = e.id.lower()
    max_pos = model.max_position_embeddings or 131072
    if eid in _LLAMA_CPP:
        parallel = e.max_num_seqs or _int(flags.get("parallel")) or 1
        ctx_total = _int(flags.get("ctx-size"))
        ctx_total = max_pos if ctx_total == 0 else ctx_total  # llama.cpp: -c 0 is the model's own context
        unified = flags.get("kv-unified") is not False
        per_slot = e.max_model_len or (ctx_total // parallel if ctx_total and not unified else ctx_total) or 4096
        fixed = ctx_total or per_slot * parallel
        return EngineConfig(
            engine=e.id,
            scheduler="vllm-v1",
            max_num_seqs=parallel,
            max_num_batched_tokens=e.max_num_batched_tokens or _int(flags.get("batch-size")) or 2048,
            block_size=e.block_size or 1,
            enable_prefix_caching=bool(e.enable_prefix_caching) if e.enable_prefix_caching is not None else False,
            enable_chunked_prefill=True,
            max_model_len=per_slot,
            gpu_memory_utilization=1.0,
            fixed_kv_tokens=fixed,
            overflow="truncate",
            threads=_threads(flags),
        )
    big = hardware.device_memory_bytes >= 70 * GIB and "a100" not in hardware.id.lower()
    engine = normalize_engine(eid)
    sglang = engine == "sglang"
    sgl_chunk, sgl_fraction = sglang_memory_defaults(hardware, scenario.tp, scenario.pp) if sglang else (0, 0.0)
    # SGLang's max_running_requests follows its KV pool (deploy() sets it once the pool is known);
    # trtllm-serve takes BuildConfig's limits whatever the GPU (TRTLLM_SERVE_DEFAULTS); vLLM's depend on it
    serve_seqs, serve_tokens = TRTLLM_SERVE_DEFAULTS if engine == "trt-llm" else (0, 0)
    seqs = e.max_num_seqs or _int(first(flags, "max-num-seqs", "max-running-requests", "max-batch-size"))
    seqs = seqs or serve_seqs or (1024 if big or sglang else 256)
    batched = e.max_num_batched_tokens or _int(first(flags, "max-num-batched-tokens", "chunked-prefill-size", "max-num-tokens"))
    # SGLang's --chunked-prefill-size -1: prompts are not chunked; a step takes up to --max-prefill-tokens
    # (16,384 by default, server_args.py) and a longer prompt alone
    unchunked = sglang and batched == -1
    batched = max(SGLANG_MAX_PREFILL_TOKENS, e.max_model_len or max_pos) if unchunked else batched
    batched = batched or sgl_chunk or serve_tokens or (8192 if big else 2048)
    block = e.block_size or _int(first(flags, "block-size", "page-size")) or (1 if sglang else 16)
    trt = engine in TRT_ENGINES
    fraction_flags = ("gpu-memory-utilization", "mem-fraction-static") + (("kv-cache-free-gpu-memory-fraction",) if trt else ())
    util = e.gpu_memory_utilization or _float(first(flags, *fraction_flags)) or sgl_fraction or 0.9
    prefix = e.enable_prefix_caching
    if prefix is None:
        prefix = (
            flags.get("enable-prefix-caching") is not False
            and flags.get("disable-radix-cache") is not True
            and not (trt and flags.get("enable-block-reuse") is False)  # TensorRT-LLM's prefix cache
        )
    chunked = e.enable_chunked_prefill if e.enable_chunked_prefill is not None else flags.get("enable-chunked-prefill") is not False
    chunked = chunked and not unchunked
    max_len = e.max_model_len or _int(first(flags, "max-model-len", "context-length", "max-seq-len")) or max_pos
    wait_iters = _int(flags.get("batch-wait-timeout-iters")) or 0
    wait_ratio = _float(flags.get("batch-wait-max-tokens-ratio")) or 0.0
    budget = max(batched, seqs if chunked else batched)
    # SGLang runs prefill passes alone unless --enable-mixed-chunk (sim/sglang_scheduler.py)
    scheduler = "sglang" if sglang and flags.get("enable-mixed-chunk") is not True else "vllm-v1"
    return EngineConfig(
        engine=e.id,
        scheduler=scheduler,
        max_num_seqs=seqs,
        max_num_batched_tokens=budget,
        block_size=block,
        enable_prefix_caching=bool(prefix),
        enable_chunked_prefill=bool(chunked),
        max_model_len=max_len,
        gpu_memory_utilization=util,
        overflow="reject",
        batch_wait_iters=wait_iters if wait_ratio > 0 or wait_iters else 0,
        batch_wait_tokens=int(wait_ratio * budget) if wait_ratio > 0 else budget,
        reserve_to_completion=_guaranteed_no_evict(e.id, flags),
        schedule_conservativeness=_positive(scenario, flags, "schedule-conservativeness") or 1.0,
    )


def sglang_memory_defaults(hardware: Hardware, tp: int, pp: int) -> tuple[int, float]:
    """SGLang's ``chunked_prefill_size`` and ``mem_fraction_static`` when the server is not told:
    by the GPU's memory (nvidia-smi MiB), as ``ServerArgs._handle_gpu_memory_settings`` sets them
    (sgl-project/sglang python/sglang/srt/server_args.py, 0.5.x): chunks of 2k under 35 GB, 4k
    under 60 GB, 8k under 160 GB (A100 80 GB, H100, H200), else 16k; CUDA graphs up to 8 / 24
    (tp < 4) or 80 / 32 or 160 / 256 or 512 / 512 sequences; and ``(memory - reserved) /
    memory`` with reserved = 512 MiB + 1.5 x max(chunk, 2048) + 2 x graph batch + tp x pp / 8
    GiB, at least 10 GiB on GPUs over 60 GB."""
    mem = hardware.device_memory_bytes / 2**20
    chunk, graph_bs = _sglang_by_memory(mem, tp < 4)
    reserved = 512 + max(chunk, 2048) * 1.5 + graph_bs * 2 + tp * pp / 8 * 1024
    if mem > 60 * 1024:
        reserved = max(reserved, 10 * 1024)
    return chunk, round((mem - reserved) / mem, 3)


def sglang_cuda_graph_max_bs(hardware: Hardware, tp: int) -> int:
    """SGLang's default ``cuda_graph_max_bs`` (``sglang_memory_defaults``' table)."""
    return _sglang_by_memory(hardware.device_memory_bytes / 2**20, tp < 4)[1]


def _sglang_by_memory(mem: float, small_tp: bool) -> tuple[int, int]:
    if mem < 20 * 1024:
        chunk, graph_bs = 2048, 8
    elif mem < 35 * 1024:
        chunk, graph_bs = 2048, 24 if small_tp else 80
    elif mem < 60 * 1024:
        chunk, graph_bs = 4096, 32 if small_tp else 160
    elif mem < 160 * 1024:
        chunk, graph_bs = 8192, 256 if small_tp else 512
    else:
        chunk, graph_bs = 16384, 512
    return chunk, graph_bs


def sglang_max_running_requests(pool_tokens: int, context_len: int) -> int:
    """SGLang's default cap on running requests: its request pool, ``pool / context_len x 512``
    held to [2048, 4096], and at most half the KV pool's tokens (``ModelRunner`` /
    ``Scheduler``: ``min(max_total_num_tokens // 2, req_to_token_pool.size)``)."""
    estimated = max(min(int(pool_tokens / max(context_len, 1) * 512), 4096), 2048)
    return max(1, min(estimated, pool_tokens // 2))


def _state_dtype(scenario: Scenario, model: Model, flags: dict[str, Any]) -> str:
    """The dtype of a linear-attention layer's recurrent state: the engine's flag, else what
    the model's config asks (``mamba_ssm_dtype``; vLLM's ``auto`` reads it), else the engine's
    default: SGLang ``--mamba-ssm-dtype float32`` (python/sglang/srt/server_args.py), vLLM the
    model dtype (``mamba_ssm_cache_dtype: auto``, vllm/config/cache.py)."""
    flagged = state_dtype_flag(flags)
    if flagged is not None and flagged not in ("bf16", "fp16", "fp32"):
        raise CatalogError(
            f"scenario {scenario.name}: engine.args --mamba-ssm-cache-dtype / --mamba-ssm-dtype {flagged!r} is not a state dtype; "
            "give auto, bfloat16, float16 or float32"
        )
    asked = flagged or from_torch_dtype(model.linear_state_dtype)
    if asked:
        return str(asked)
    if normalize_engine(scenario.engine.id) == "sglang":
        return "fp32"
    return from_torch_dtype(model.torch_dtype) or "bf16"


def _guaranteed_no_evict(engine_id: str, flags: dict[str, Any]) -> bool:
    """TensorRT-LLM (and NIM's TensorRT-LLM profiles) admit under GUARANTEED_NO_EVICT unless told
    otherwise: "GUARANTEED_NO_EVICT (default) ... guarantee that a started request is never paused"
    (https://nvidia.github.io/TensorRT-LLM/performance/performance-tuning-guide/useful-runtime-flags.html;
    ``SchedulerConfig.capacity_scheduler_policy`` defaults to it in tensorrt_llm/llmapi/llm_args.py)."""
    if normalize_engine(engine_id) not in TRT_ENGINES:
        return False
    policy = flags.get("capacity-scheduler-policy")
    return policy is None or str(policy).strip().upper() != "MAX_UTILIZATION"


def _memory_rule(scenario: Scenario, flags: dict[str, Any]) -> dict[str, Any]:
    """The engine's own way of sizing its KV pool (``kv_capacity``'s ``rule``, reserve and cap)."""
    engine = normalize_engine(scenario.engine.id)
    if engine in TRT_ENGINES:
        cap = flags.get("max-tokens")
        # (sliding-window layers keep max_attention_window tokens each: TensorRT-LLM's variable sliding window attention)
        return {"rule": "trt-llm", "max_tokens": int(cap) if isinstance(cap, (int, float)) and cap > 0 else None, "windowed": True}
    if engine == "sglang":
        return {"rule": "sglang", "reserve_bytes": sglang_setup_bytes(scenario.tp)}
    if vllm_v0(scenario):
        return {"reserve_bytes": V0_RUNTIME_RESERVE_BYTES}
    if engine == "vllm":
        # V1's hybrid KV cache manager frees a sliding-window layer's blocks once they leave the window,
        # unless --disable-hybrid-kv-cache-manager (vllm/v1/core/single_type_kv_cache_manager.py)
        return {"windowed": flags.get("disable-hybrid-kv-cache-manager") is not True}
    return {}


def cuda_graphs(scenario: Scenario, eng: EngineConfig, hardware: Hardware, flags: dict[str, Any]) -> CudaGraphs | None:
    """The decode batches the engine replays as CUDA graphs (``step_time.CudaGraphs``; a larger or,
    without padding, an uncaptured batch is launched eagerly); None where every decode iteration is
    taken to replay one (NIM's prebuilt engines, CPU engines, other engines, TensorRT-LLM before 1.0).

    - vLLM V1 (0.8+): ``[1, 2, 4] + 8..248 by 8 + 256..max by 16`` up to ``min(2 x max_num_seqs,
      512)``, padded (vllm/config: ``cuda_graph_sizes`` / ``max_cudagraph_capture_size``); V0: 8..256
      by 8 up to ``min(max_num_seqs, 256)`` rounded up to a captured size. ``--cuda-graph-sizes`` / ``--max-cudagraph-capture-size``
      read; ``--enforce-eager``: none.
    - SGLang: up to ``cuda_graph_max_bs``, padded, by the GPU's memory and tp
      (``sglang_cuda_graph_max_bs``) unless ``--cuda-graph-max-bs`` / ``--cuda-graph-bs`` say;
      ``--disable-cuda-graph``: none.
    - TensorRT-LLM 1.0+ (PyTorch backend): ``cuda_graph_config`` (written ``cuda_graph_config.max_batch_size``,
      ``.batch_sizes``, ``.enable_padding`` in engine.args; ``cuda_graph_config: null`` or ``false`` for none);
      its default ``CudaGraphConfig()`` captures up to 128 without padding, i.e. only batches of
      1-32, 64 and 128 replay (tensorrt_llm/llmapi/llm_args.py ``_generate_cuda_graph_batch_sizes``;
      the API reference's ``DecodeCudaGraphConfig``: ``enable_padding`` False, "if neither is provided,
      a default max_batch_size of 128 is used", nvidia.github.io/TensorRT-LLM/llm-api/reference)."""
    engine = normalize_engine(scenario.engine.id)
    if not cuda_graphs_modelled(scenario.engine.id, scenario.engine.version):
        return None
    if engine == "vllm":
        if flags.get("enforce-eager") is True:
            return CudaGraphs(frozenset())
        if vllm_v0(scenario):
            # V0 rounds max_num_seqs up to the next captured size (``_get_graph_batch_size``) within 1, 2, 4, 8..256;
            # its eager decode once a sequence outgrows max_seq_len_to_capture (8,192) is not modelled
            captured = (1, 2, 4, *range(8, 257, 8))
            top = min(x for x in captured if x >= min(eng.max_num_seqs, 256))
            return CudaGraphs(frozenset(x for x in captured if x <= top))
        given = _batch_sizes(scenario, "cuda-graph-sizes", flags)
        if given is not None and len(given) > 1:
            return CudaGraphs(frozenset(given))
        top = (_batch_sizes(scenario, "max-cudagraph-capture-size", flags) or given or [min(2 * eng.max_num_seqs, 512)])[0]
        return CudaGraphs(frozenset(x for x in (1, 2, 4, *range(8, min(top, 255) + 1, 8), *range(256, top + 1, 16)) if x <= top) | {top})
    if engine == "sglang":
        if flags.get("disable-cuda-graph") is True:
            return CudaGraphs(frozenset())
        listed = _batch_sizes(scenario, "cuda-graph-bs", flags)
        if listed is not None:
            return CudaGraphs(frozenset(listed))
        top = (_batch_sizes(scenario, "cuda-graph-max-bs", flags) or [sglang_cuda_graph_max_bs(hardware, scenario.tp)])[0]
        return CudaGraphs(frozenset(x for x in (1, 2, 4, *range(8, top + 1, 8)) if x <= top) | {top})
    if engine == "trt-llm":
        # ``cuda_graph_config: null`` (or false) turns CUDA graphs off (a bare null reads as True once normalised)
        raw_off = any(canonical(scenario.engine.id, k, v)[0] == "cuda-graph-config" and (v is None or str(v).strip().lower() in ("null", "none", "false"))
                      for k, v in scenario.engine.args.items())  # fmt: skip
        if raw_off:
            return CudaGraphs(frozenset())
        padded = flags.get("cuda-graph-config.enable-padding") is True
        listed = _batch_sizes(scenario, "cuda-graph-config.batch-sizes", flags)
        if listed is not None:
            return CudaGraphs(frozenset(listed), padded)
        top = (_batch_sizes(scenario, "cuda-graph-config.max-batch-size", flags) or [128])[0]
        sizes = [1, 2, 4, *range(8, 129, 8)] if padded else [*range(1, 33), 64, 128]
        sizes += [2**i for i in range(8, math.ceil(math.log2(top)))] if top > 1 else []
        return CudaGraphs(frozenset(x for x in sizes if x <= top) | {top}, padded)
    return None


def _cuda_graph_note(step: StepTimeModel, max_num_seqs: int) -> str | None:
    """One line when some decode batches the engine may run have no CUDA graph (``cuda_graphs``)."""
    graphs = step.cuda_graphs
    if graphs is None:
        return None
    floor_ms = step.eager_step_s * 1e3
    if not graphs.sizes:
        return f"CUDA graphs off: every decode iteration is launched eagerly (at least {floor_ms:.1f} ms)"
    if not graphs.padded and max_num_seqs > 1:
        return (
            f"CUDA graphs for decode batches of exactly {_ranges(sorted(graphs.sizes))} (no padding); any other batch is "
            f"launched eagerly (at least {floor_ms:.1f} ms)"
        )
    if max_num_seqs > graphs.max_tokens:
        return f"CUDA graphs up to {graphs.max_tokens} decode tokens; a larger decode batch is launched eagerly (at least {floor_ms:.1f} ms)"
    return None


def _ranges(sizes: list[int]) -> str:
    """``[1, 2, 3, 64]`` → ``1-3, 64``."""
    out: list[str] = []
    start = prev = sizes[0]
    for x in [*sizes[1:], None]:
        if x is not None and x == prev + 1:
            prev = x
            continue
        out.append(f"{start}-{prev}" if prev > start else f"{start}")
        if x is not None:
            start = prev = x
    return ", ".join(out)


def _batch_sizes(scenario: Scenario, name: str, flags: dict[str, Any]) -> list[int] | None:
    """A flag's batch size or sizes (``64``, ``"1 2 4 8"``, ``"1,2,4"``); None when not given."""
    value = flags.get(name)
    if value is None:
        return None
    parts = str(value).replace(",", " ").split() if isinstance(value, str) else [value]
    sizes = [_int(v) for v in parts]
    if not sizes or any(v is None or v < 1 for v in sizes):
        raise CatalogError(f"scenario {scenario.name}: engine.args {name} {value!r}: give a positive whole batch size, or several "
                           "separated by spaces")  # fmt: skip
    return [v for v in sizes if v is not None]


def _v0_profile_tokens(scenario: Scenario, eng: EngineConfig, flags: dict[str, Any]) -> int | None:
    """vLLM's V0 engine (before 0.8) profiles memory with chunked prefill off up to 32k of context,
    i.e. one forward pass of ``max_model_len`` tokens (``kv_capacity``); None for every other engine."""
    if not vllm_v0(scenario):
        return None
    if flags.get("enable-chunked-prefill") is True or eng.max_model_len > 32768:
        return None
    return max(eng.max_num_batched_tokens, eng.max_model_len)


def moe_kernel_for(engine_id: str, hardware: Hardware, expert_dtype: str, moe_backend: str | None = None) -> MoeKernel | None:
    """The grouped GEMM vLLM and SGLang run routed experts with on NVIDIA GPUs without native 4-bit
    tensor cores (Ampere, Ada, Hopper), whose measured efficiency ``calibration.MOE_KERNELS`` holds:

    - 16-bit experts: the Triton ``fused_moe`` kernel (vLLM's default unquantised MoE method;
      SGLang's ``fused_moe_triton``);
    - fp8 experts where the device has fp8 tensor cores: the same kernel's w8a8 block-scaled variant;
    - weight-only 4-bit experts (mxfp4 as gpt-oss ships them, int4), and fp8 where the device has no
      fp8 tensor cores: Marlin (vLLM's mxfp4 backend before Blackwell; InferenceX forces it with
      VLLM_MXFP4_USE_MARLIN=1; vLLM 0.10's other Hopper option, OpenAI's triton_kernels, has no
      public figure and is taken to be Marlin's equal; Marlin's share of peak is lower on Hopper,
      ``MOE_KERNELS["marlin-moe-hopper"]``).

    TensorRT-LLM with ``moe_backend: TRITON`` (``moe_config.backend``) and weight-only 4-bit experts
    on a GPU without native 4-bit tensor cores runs the same OpenAI triton_kernels grouped GEMM as
    vLLM's Hopper option (the backend TensorRT-LLM's gpt-oss guide recommends on Hopper), so it takes
    the same figure.

    None (the calibration's ``gemm_eff`` for every GEMM, as before) for TensorRT-LLM's other backends
    and NIM (their CUTLASS MoE kernels are in the TensorRT-LLM factors' fit), for Blackwell (native
    fp4/fp8 MoE kernels: no public figure), for CPU engines and for other vendors."""
    engine = normalize_engine(engine_id)
    triton = engine == "trt-llm" and str(moe_backend or "").upper() == "TRITON"
    if engine not in ("vllm", "sglang") and not triton:
        return None
    if hardware.device_type != "gpu" or hardware.vendor.strip().lower() != "nvidia":
        return None
    if not lacks_tensor_cores(hardware, "fp4"):
        return None
    if triton and expert_dtype not in ("mxfp4", "int4", "fp4"):
        return None  # (TensorRT-LLM's other experts stay in its fitted rate)
    if expert_dtype in ("bf16", "fp16"):
        return MOE_KERNELS["triton-fused-moe"]
    if expert_dtype == "fp8" and not lacks_tensor_cores(hardware, "fp8"):
        return MOE_KERNELS["triton-fused-moe-fp8"]
    if expert_dtype in ("mxfp4", "int4", "fp4", "fp8"):
        return MOE_KERNELS["marlin-moe-hopper" if is_hopper(hardware) else "marlin-moe"]
    return None


def expert_padding(engine_id: str, arch: Architecture, tp: int, expert_dtype: str | None, kernel: MoeKernel | None, ep: int = 1) -> float:
    """How much larger the routed experts are as the engine lays them out than as the checkpoint holds them.

    vLLM's mxfp4 MoE method under Marlin (``Mxfp4Backend.MARLIN``, its backend before Blackwell) pads
    each expert because "the moe marlin kernel requires that for each linear n % 256 == 0 and
    k % 128 == 0": the per-rank intermediate size is rounded up to a multiple of 128 and the hidden
    size to 256 (vllm/model_executor/layers/quantization/mxfp4.py, ``create_weights``). For gpt-oss
    (hidden and expert width 2,880) at tp 1 that is 2,944 x 3,072 against 2,880 x 2,880, 9.0 % more
    expert bytes: 65.8 GiB of weights where the checkpoint's tensors are 60.7 GiB; vLLM logs
    "Model loading took 65.9651 GiB" for gpt-oss-120b on one H100 under Marlin (vLLM issue #23278).
    Under expert parallelism (``ep`` > 1) each rank holds whole experts: the full width is padded.
    1.0 for every other engine, dtype and kernel (none is known to pad)."""
    if normalize_engine(engine_id) != "vllm" or expert_dtype != "mxfp4" or kernel is None or not kernel.name.startswith("marlin"):
        return 1.0
    inter = arch.expert_intermediate // (1 if ep > 1 else tp)  # whole experts under expert parallelism
    if inter <= 0 or arch.hidden <= 0:
        return 1.0
    return (-(-inter // 128) * 128) * (-(-arch.hidden // 256) * 256) / (inter * arch.hidden)


def _speculative_step_model(
    scenario: Scenario, spec: Speculation, arch: Architecture, hw: Hardware, cal: Calibration, catalog: Catalog | None, step_args: dict[str, Any]
) -> SpeculativeStepTimeModel:
    """The target's step model with its draft: a draft model on the same devices (tp as the target,
    its checkpoint's dtype unless the scenario's weight_dtype is stated), an EAGLE/MTP head of the
    target's shape, or none (n-gram)."""
    draft: StepTimeModel | None = None
    shared = False
    head_args = {**step_args, "pp": 1, "threads": None, "state_dtype": None}
    if spec.method == "draft_model":
        assert spec.draft_model is not None  # (speculation refuses draft_model without one)
        try:
            if spec.draft_model.endswith(".json"):
                draft_doc = read_model_config(spec.draft_model)
            else:
                draft_doc = (catalog or Catalog.load()).model(spec.draft_model)
        except CatalogError as exc:
            raise CatalogError(f"scenario {scenario.name}: speculative_draft_model {spec.draft_model}: {exc}") from None
        draft_weight = scenario.weight_dtype if scenario.weight_dtype != "auto" else (from_torch_dtype(draft_doc.torch_dtype) or "bf16")
        draft_arch = architecture(draft_doc)
        backend = trt_moe_backend(normalized(scenario.engine.id, scenario.engine.args))
        moe = moe_kernel_for(scenario.engine.id, hw, draft_weight, backend) if draft_arch.experts else None
        draft = StepTimeModel(
            draft_arch, hw, cal, **{**head_args, "weight_dtype": draft_weight, "expert_dtype": None, "moe_kernel": moe, "expert_padding": 1.0}
        )
    elif spec.method in ("eagle", "eagle3", "mtp"):
        head, shared = head_architecture(arch, spec.method)
        moe_args = {} if head.experts else {"moe_kernel": None, "expert_padding": 1.0}  # (an MTP layer of a MoE model is one of its MoE layers)
        draft = StepTimeModel(head, hw, cal, **{**head_args, **moe_args})
    return SpeculativeStepTimeModel(arch, hw, cal, speculation=spec, draft=draft, draft_shares_lm_head=shared, **step_args)


def resolve_model(scenario: Scenario, catalog: Catalog, model_config: str | Path | None = None) -> Model:
    if model_config is not None:
        return read_model_config(model_config)
    if scenario.model.endswith(".json"):
        return read_model_config(scenario.model)
    return catalog.model(scenario.model)


def routed_expert_dtype(scenario: Scenario, model: Model) -> str | None:
    """The dtype the routed experts are stored in when it is not the weights' own: ``mxfp4`` where the
    scenario, its engine's ``--quantization`` or the checkpoint (gpt-oss) quantises them so; None otherwise."""
    flags = normalized(scenario.engine.id, scenario.engine.args)
    quant = str(scenario.quantization or flags.get("quantization") or model.quantization or "").lower()
    return "mxfp4" if quant == "mxfp4" and model.num_experts else None


def deploy(
    scenario: Scenario,
    *,
    catalog: Catalog | None = None,
    model: Model | None = None,
    hardware: Hardware | None = None,
    model_config: str | Path | None = None,
    calibration: CalibrationDocument | dict[str, float] | None = None,
    calibration_name: str | None = None,
) -> Deployment:
    """Resolve ``scenario`` (model and hardware from the catalog unless given)."""
    cat = catalog
    if model is None or hardware is None:
        cat = cat or Catalog.load()
    mdl = model or resolve_model(scenario, cat, model_config)  # type: ignore[arg-type]
    hw = hardware or cat.hardware(scenario.hardware)  # type: ignore[union-attr]
    arch = architecture(mdl)
    eng = engine_config(scenario, mdl, hw)
    cal = apply(default_calibration(hw, scenario.engine.id), calibration)
    name = calibration_name or (calibration.name if isinstance(calibration, CalibrationDocument) else None)
    flags = normalized(scenario.engine.id, scenario.engine.args)
    weight = scenario.weight_dtype if scenario.weight_dtype != "auto" else (from_torch_dtype(mdl.torch_dtype) or "bf16")
    if scenario.weight_dtype == "auto" and normalize_dtype(flags.get("dtype")) in ("bf16", "fp16", "fp32"):
        weight = normalize_dtype(flags["dtype"])  # vLLM/SGLang --dtype casts the checkpoint
    warnings = review(scenario, mdl, arch, hw, weight_dtype=weight, max_model_len=eng.max_model_len)
    if isinstance(calibration, CalibrationDocument) and calibration.scenario != scenario.name:
        # its factors are another deployment's efficiencies (a CPU's, say, on an H100): said, not assumed to carry
        warnings.append(
            f"scenario {scenario.name}: calibration{' ' + name if name else ''} was fitted on scenario {calibration.scenario}; "
            "its factors are that deployment's (its hardware, engine and model), applied here as they are: fit one to "
            f"measurements of {scenario.name} (servescope calibrate {scenario.name} --from RUN)"
        )
    factors = factors_of(calibration)
    if weight in SIXTEEN_BIT and "gemm_eff" in factors and "gemm_eff_16bit" not in factors:
        # a calibration fitted before the 16-bit figure existed: its gemm_eff no longer reaches these GEMMs
        warnings.append(
            f"scenario {scenario.name}: calibration{' ' + name if name else ''} sets gemm_eff, which GEMMs over {weight} weights do not use "
            "(they run at gemm_eff_16bit); refit it with `servescope calibrate` or set gemm_eff_16bit"
        )
    if "request_overhead_s" in factors and not {"intake_request_s", "intake_token_s"} & set(factors) and cal.intake_request_s:
        # a per-request cost fitted before the front end's intake was simulated already holds it
        warnings.append(
            f"scenario {scenario.name}: calibration{' ' + name if name else ''} sets request_overhead_s but not intake_request_s: "
            f"the API server's intake ({cal.intake_request_s * 1e3:.2f} ms + {cal.intake_token_s * 1e6:.2f} us per prompt token, "
            "queued) now adds to it; if it was fitted before servescope simulated the intake, refit it with `servescope calibrate` "
            "or set intake_request_s: 0 and intake_token_s: 0"
        )
    kv_flag = kv_dtype_flag(scenario.engine.id, flags)
    kv_asked = scenario.kv_dtype if scenario.kv_dtype != "auto" or kv_flag is None else kv_flag[1]
    kv = kv_dtype_for(kv_asked, weight, from_torch_dtype(mdl.torch_dtype))
    expert = routed_expert_dtype(scenario, mdl)
    state = _state_dtype(scenario, mdl, flags) if arch.linear_layers else None
    kernel = moe_kernel_for(scenario.engine.id, hw, expert or weight, trt_moe_backend(flags)) if arch.experts else None
    spec = speculation(scenario)
    ep = expert_parallel_size(flags, scenario.tp) if arch.experts else 1
    step_args: dict[str, Any] = {
        "tp": scenario.tp,
        "pp": scenario.pp,
        "weight_dtype": weight,
        "kv_dtype": kv,
        "expert_dtype": expert,
        "threads": eng.threads,
        "state_dtype": state,
        "moe_kernel": kernel,
        "expert_padding": expert_padding(scenario.engine.id, arch, scenario.tp, expert, kernel, ep),
        "ep": ep,
    }
    overlap = overlap_scheduling(scenario.engine.id, scenario.engine.version, flags, pp=scenario.pp, cpu=hw.device_type == "cpu", speculative=spec is not None)
    if spec is None:
        step = StepTimeModel(arch, hw, cal, cuda_graphs=cuda_graphs(scenario, eng, hw, flags), overlap_host=overlap, **step_args)
    else:
        if spec.method == "mtp" and not mdl.mtp_layers:
            raise NotModelledError(
                f"scenario {scenario.name}: speculative method mtp: model {mdl.id} ships no multi-token-prediction layer "
                "(config.json num_nextn_predict_layers / mtp_num_hidden_layers); use eagle, eagle3 or draft_model"
            )
        step = _speculative_step_model(scenario, spec, arch, hw, cal, cat, step_args)
        warnings.append(spec.warning(scenario.name))
    cap = kv_capacity(
        step,
        gpu_memory_utilization=eng.gpu_memory_utilization,
        block_size=eng.block_size,
        max_num_batched_tokens=eng.max_num_batched_tokens,
        max_num_seqs=eng.max_num_seqs,
        fixed_tokens=eng.fixed_kv_tokens,
        profile_tokens=_v0_profile_tokens(scenario, eng, flags),
        **_memory_rule(scenario, flags),
    )
    seqs_given = scenario.engine.max_num_seqs or first(flags, "max-num-seqs", "max-running-requests", "max-batch-size")
    if normalize_engine(scenario.engine.id) == "sglang" and not seqs_given and cap.fits:
        eng = replace(eng, max_num_seqs=sglang_max_running_requests(cap.tokens, eng.max_model_len))
    if not cap.fits:
        raise CatalogError(
            f"scenario {scenario.name}: {mdl.id} does not fit on {hw.id} with tp={scenario.tp} pp={scenario.pp}: "
            f"{cap.weight_bytes / GIB:.1f} GiB of weights per device, {hw.device_memory_bytes / GIB:.1f} GiB of memory"
        )
    if normalize_engine(scenario.engine.id) == "vllm" and cap.tokens < eng.max_model_len:
        # vLLM checks at start-up that one request of max_model_len fits in its KV pool and exits otherwise
        # ("... KV cache is needed, which is larger than the available KV cache memory").
        short = (eng.max_model_len - cap.tokens) * cap.kv_bytes_per_token
        what = (
            f"scenario {scenario.name}: its KV pool holds an estimated {cap.tokens:,} tokens per replica "
            f"({cap.kv_pool_bytes / GIB:.1f} GiB after {cap.weight_bytes / GIB:.1f} GiB of weights per device), fewer than "
            f"max_model_len {eng.max_model_len:,}"
        )
        if short > cap.activation_bytes + cap.reserve_bytes:  # short even if profiling and the runtime took nothing
            raise CatalogError(f"{what}: vLLM would not start; lower --max-model-len, raise --gpu-memory-utilization or use a larger tp")
        warnings.append(
            f"{what}, within the uncertainty of the activation and runtime estimate "
            f"({(cap.activation_bytes + cap.reserve_bytes) / GIB:.1f} GiB): vLLM may refuse to start; "
            f"lower --max-model-len to be sure"
        )
    notes = list(step.notes)
    graph_note = _cuda_graph_note(step, eng.max_num_seqs)
    if graph_note:
        notes.append(graph_note)
    if step.overlap_host:
        notes.append(
            f"overlap scheduling: the host's share of an iteration ({cal.step_overhead_s * 1e3:.2f} ms + "
            f"{cal.token_overhead_s * 1e6:.1f} us per scheduled token + {cal.output_token_overhead_s * 1e6:.0f} us per sampled token) "
            "runs while the device runs the previous one"
        )
    intake = front_ends(scenario.engine.id, flags, scenario.dp)
    if cal.intake_request_s or cal.intake_token_s:
        notes.append(
            f"API-server intake: {intake} front-end process{'es' if intake > 1 else ''}, {cal.intake_request_s * 1e3:.2f} ms + "
            f"{cal.intake_token_s * 1e6:.2f} us per prompt token of each request before the scheduler sees it, in send order; "
            "requests sent at once reach it together when the burst's intake is done"
        )
    encoder = load_encoder(mdl.tokenizer)
    if mdl.tokenizer and encoder is None:
        notes.append(f"tokenizer {mdl.tokenizer} unavailable (install 'tokenizers'); prompt lengths are nominal")
    return Deployment(
        scenario=scenario,
        model=mdl,
        hardware=hw,
        arch=arch,
        engine=eng,
        calibration=cal,
        calibration_name=name,
        step_model=step,
        kv=cap,
        encoder=encoder,
        template_tokens=mdl.chat_template_tokens or 0,
        notes=notes,
        warnings=warnings,
        front_ends=intake,
    )
