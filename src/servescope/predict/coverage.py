"""What the simulator models of a deployment, and one clear line for what it does not.

``review`` looks at a scenario, its model and its engine flags before anything is
simulated. What would make a prediction meaningless is **refused**: a
``NotModelledError`` whose one line says where (``speculative_tokens``,
``engine.args.--cpu-offload-gb``), what is not modelled and what to do. What
leaves a prediction meaningful but approximate is **warned**: one line per
feature, kept in ``Deployment.warnings`` and written into the Prediction
(``warnings``) and the simulated Result (``resolved_params.warnings``).

Speculative decoding is read, and what of it is not simulated refused, by
``speculative.speculation`` (its fields and the engines' draft/EAGLE/MTP/n-gram flags).

Refused: a tensor-parallel size that does not divide the attention heads, an engine on a device it
has no backend for (TensorRT-LLM and NIM off NVIDIA, vLLM and SGLang on Apple GPUs), weights offloaded to CPU memory, llama.cpp partial GPU offload, parallel flags
or engine fields that contradict the scenario's own fields, KV dtypes the
simulator does not know or that contradict ``kv_dtype``.

Warned: SGLang on a CPU, vLLM releases before 0.8 (V0 engine, simulated as V1), SGLang releases before 0.5 (simulated with 0.5's defaults unless
the scenario pins them), expert parallelism (simulated as tensor parallelism of the experts),
vLLM data parallelism of a MoE model (one engine sharding experts over every
rank, simulated as independent replicas), SGLang DP attention, pipeline
parallelism (no micro-batch overlap), eager mode (decode simulated as
graphed), a ``quantization`` the weight dtype does not reflect, Llama 4
chunked attention past its chunk (simulated as full attention), Gated DeltaNet
hybrids (their state held in the KV pool as vLLM V1 holds it), an engine
without a model of its own (simulated as vLLM v1), and every engine flag the
simulator does not read (listed in one line). Flags that change nothing the
simulator could model (addresses, names, logging, credentials: see
``engine_flags.INERT``) and flags at the engine's documented default pass
silently.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from servescope.documents import Hardware, Model, Scenario, Workload
from servescope.documents.config_id import normalize_dtype, normalize_engine
from servescope.errors import BadArgument, NotModelledError
from servescope.predict.architecture import Architecture
from servescope.predict.dtypes import BYTES_PER_ELEMENT
from servescope.predict.engine_flags import (
    CUDA_GRAPH_FLAGS,
    EAGER,
    EP_SIZES,
    EXPERT_PARALLEL,
    LLAMA_CPP_ENGINES,
    PARALLEL,
    SPECULATIVE,
    canonical,
    cuda_graphs_modelled,
    flag_int,
    is_default,
    is_inert,
    kv_dtype_flag,
    normalized,
    overlap_taken_off,
    read_flags,
    release,
    switched_on,
    trt_moe_backend,
)
from servescope.predict.speculative import is_speculative_flag


@dataclass(frozen=True)
class Finding:
    refuse: bool
    where: str
    message: str


#: Engines with a model (or fitted defaults) of their own; any other runs as vLLM v1.
MODELLED_ENGINES = frozenset({"vllm", "sglang", "trt-llm", "nim", "llama.cpp", "ollama"})

#: What a ``quantization`` method means for the weights: the weight_dtype that reflects it
#: (None: no single width; "experts" for mxfp4, which the simulator reads on MoE experts).
QUANTIZATION_WIDTH: dict[str, str | None] = {
    "fp8": "fp8", "fbgemm_fp8": "fp8", "ptpc_fp8": "fp8", "modelopt": "fp8",
    "awq": "int4", "awq_marlin": "int4", "gptq": "int4", "gptq_marlin": "int4", "marlin": "int4",
    "int8": "int8", "w8a8": "int8", "w8a8_int8": "int8", "smoothquant": "int8",
    "fp4": "fp4", "nvfp4": "fp4", "modelopt_fp4": "fp4",
    "mxfp4": "experts",
}  # fmt: skip

# Scenario engine fields and the flags that set the same thing (bool flags: True/False, inverted ones marked).
_FIELD_FLAGS: dict[str, tuple[str, ...]] = {
    "max_num_seqs": ("max-num-seqs", "max-running-requests", "max-batch-size", "parallel"),
    "max_num_batched_tokens": ("max-num-batched-tokens", "chunked-prefill-size", "max-num-tokens", "batch-size"),
    "block_size": ("block-size", "page-size"),
    "gpu_memory_utilization": ("gpu-memory-utilization", "mem-fraction-static"),
    "max_model_len": ("max-model-len", "context-length", "max-seq-len"),
    "enable_prefix_caching": ("enable-prefix-caching", "!disable-radix-cache"),
    "enable_chunked_prefill": ("enable-chunked-prefill",),
}


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return str(a) == str(b)


def _scenario_findings(s: Scenario, model: Model, arch: Architecture) -> list[Finding]:
    out: list[Finding] = []
    if s.pp > 1:
        out.append(Finding(False, f"pp: {s.pp}",
                           "pipeline stages are simulated one iteration at a time (no micro-batch overlap between stages): "
                           f"only the stage-to-stage transfers are modelled, so throughput under load is understated (up to {s.pp}x); "
                           "one request's latency is as modelled"))  # fmt: skip
    eng = normalize_engine(s.engine.id)
    if s.dp > 1 and arch.experts and eng == "vllm":
        out.append(Finding(False, f"dp: {s.dp}",
                           f"vLLM runs the {s.dp} data-parallel ranks of a MoE model as one engine whose experts are sharded over all "
                           f"{s.dp} x {s.tp} devices (data-parallel attention); simulated as {s.dp} independent replicas that each "
                           "hold every expert"))  # fmt: skip
    if vllm_v0(s):
        out.append(Finding(False, f"engine.version: {s.engine.version}",
                           "vLLM before 0.8 runs its V0 engine by default (other scheduler and defaults: prefix caching off, "
                           "chunked prefill only for long contexts); simulated as the V1 scheduler with V1's defaults"))  # fmt: skip
    if sglang_before_05(s) and not _sglang_defaults_pinned(s):
        out.append(Finding(False, f"engine.version: {s.engine.version}",
                           "SGLang before 0.5 set its memory and batch defaults otherwise (v0.4: mem_fraction_static by tp, 0.88 at "
                           "tp 1 to 0.81 at tp 8; CUDA graphs up to 160 sequences; prefill chunks of 8,192 tokens on every GPU); "
                           "simulated with 0.5's defaults by GPU memory: give --mem-fraction-static, --cuda-graph-max-bs and "
                           "--chunked-prefill-size to pin them"))  # fmt: skip
    if eng not in MODELLED_ENGINES:
        out.append(Finding(False, f"engine.id: {s.engine.id}",
                           "no model of this engine: simulated with vLLM v1's scheduler and defaults"))  # fmt: skip
    return out


#: Engines that serve on NVIDIA GPUs only (TensorRT-LLM's kernels; NIM is built on it).
NVIDIA_ONLY_ENGINES = frozenset({"trt-llm", "nim"})


def _deployment_findings(s: Scenario, model: Model, arch: Architecture, hardware: Hardware) -> list[Finding]:
    """What the engine itself would refuse to start: a tensor-parallel size that does not split the
    attention heads, an engine on a device it has no backend for. A prediction of a deployment that
    cannot run is refused; SGLang's CPU backend (Intel Xeon with AMX) is warned, its CPU defaults not modelled."""
    out: list[Finding] = []
    eng = normalize_engine(s.engine.id)
    if eng not in LLAMA_CPP_ENGINES and s.tp > 1 and arch.heads % s.tp:
        fits = ", ".join(str(t) for t in range(1, min(arch.heads, 64) + 1) if arch.heads % t == 0)
        out.append(Finding(True, f"tp: {s.tp}",
                           f"does not divide {model.id}'s {arch.heads} attention heads: {s.engine.id} refuses to start (the heads are "
                           f"split evenly over the tensor-parallel ranks); use a tp of {fits}"))  # fmt: skip
    elif eng not in LLAMA_CPP_ENGINES and s.tp > 1 and not model.uses_mla and arch.kv_heads and s.tp % arch.kv_heads and arch.kv_heads % s.tp:
        # vLLM's QKVParallelLinear: KV heads split over the ranks, or each replicated on a whole number of them
        out.append(Finding(True, f"tp: {s.tp}",
                           f"neither divides nor is a multiple of {model.id}'s {arch.kv_heads} KV heads: {s.engine.id} refuses to start "
                           "(each rank holds a whole share of the KV heads, or whole copies of one)"))  # fmt: skip
    vendor = hardware.vendor.strip().lower()
    if eng in NVIDIA_ONLY_ENGINES and vendor != "nvidia":
        out.append(Finding(True, f"engine.id: {s.engine.id}",
                           f"serves on NVIDIA GPUs only, and hardware {hardware.id} is {hardware.vendor} {hardware.device_type}: "
                           "use vllm or sglang (or llama.cpp) for it"))  # fmt: skip
    elif vendor == "apple" and eng not in LLAMA_CPP_ENGINES:
        out.append(Finding(True, f"engine.id: {s.engine.id}",
                           f"has no backend for Apple GPUs (Metal), and hardware {hardware.id} is one: llama.cpp and Ollama serve on it; "
                           "use engine.id llama.cpp"))  # fmt: skip
    elif eng == "sglang" and hardware.device_type == "cpu":
        out.append(Finding(False, f"engine.id: {s.engine.id}",
                           f"on a CPU (hardware {hardware.id}): SGLang's CPU backend (Intel Xeon with AMX) and its CPU defaults are not "
                           "modelled; simulated with its GPU scheduler and defaults on the CPU's figures, far from what it would serve"))  # fmt: skip
    return out


#: Catalog ids of Hopper (sm_90) devices: the only architecture with wgmma, which Marlin does not use.
HOPPER_IDS = ("h100", "h200", "h20", "h800", "gh200")


def is_hopper(hardware: Hardware) -> bool:
    """Whether ``hardware`` is a Hopper GPU (by catalog id: ``h100-sxm``, ``h200``, ``h20``...)."""
    return hardware.vendor.strip().lower() == "nvidia" and hardware.id.split("-")[0] in HOPPER_IDS


def _quantization_findings(s: Scenario, model: Model, arch: Architecture, hardware: Hardware, weight_dtype: str, flags: dict[str, Any]) -> list[Finding]:
    if s.quantization:
        where, method = "quantization", s.quantization
    elif flags.get("quantization"):
        where, method = f"engine.args quantization: {flags['quantization']}", str(flags["quantization"])
    elif model.quantization:
        where, method = f"model {model.id} quantization", model.quantization
    else:
        return []
    q = method.lower()
    head = f"{where}: {q}" if where == "quantization" else where
    if q not in QUANTIZATION_WIDTH or QUANTIZATION_WIDTH[q] is None:
        return [Finding(False, head, f"not read by the simulator: weights are costed as weight_dtype {weight_dtype}")]
    width = QUANTIZATION_WIDTH[q]
    backend = trt_moe_backend(normalized(s.engine.id, s.engine.args))
    if q == "mxfp4" and arch.experts and normalize_engine(s.engine.id) == "trt-llm" and is_hopper(hardware) and backend != "TRITON":
        return [Finding(False, head, "TensorRT-LLM's mxfp4 experts on Hopper: which MoE kernel runs, and how fast, is not "
                                     "modelled (its TRTLLM backend does not run on Hopper, CUTLASS support was unfinished at 1.0 "
                                     "and TRITON is the one recommended: TensorRT-LLM tech blog 9, NVIDIA/TensorRT-LLM#7101); "
                                     "predicted at the fitted TensorRT-LLM GEMM rate, several times too fast against GPUStack's "
                                     "TensorRT-LLM 1.0 on one H100 (233 ms mean TPOT)")]  # fmt: skip
    if q == "mxfp4" and arch.experts and normalize_engine(s.engine.id) == "sglang" and is_hopper(hardware):
        return [Finding(False, head, "SGLang's mxfp4 experts on Hopper (OpenAI's triton_kernels, taken at Marlin's rate: no public "
                                     "figure) are not validated: GPUStack's SGLang 0.5.3rc0 gpt-oss-120b ShareGPT burst on one H100 "
                                     "ran at 866 output tok/s, 3.7x below the prediction, and about 44 requests decoded at a time "
                                     "where vLLM 0.10.2 ran about 135 on the same GPU (cause not found)")]  # fmt: skip
    if width == "experts" or width == weight_dtype:
        return []
    return [Finding(False, head, f"{width} weights, but weight_dtype is {weight_dtype}: the simulator costs weights by "
                                 f"weight_dtype only; set weight_dtype: {width}")]  # fmt: skip


def _flag_findings(s: Scenario, model: Model, arch: Architecture, hardware: Hardware) -> list[Finding]:
    e = s.engine
    eng = normalize_engine(e.id)
    flags = normalized(e.id, e.args)
    read = read_flags(e.id)
    out: list[Finding] = []
    unread: list[str] = []
    spelled: dict[str, tuple[str, Any]] = {}  # canonical name -> (raw key, value): one setting written twice
    for raw, value in e.args.items():
        name, val = canonical(e.id, raw, value)
        where = f"engine.args.{raw}"
        if not name or is_inert(name):
            continue
        if name in spelled and spelled[name][1] != val:
            first_raw, first_val = spelled[name]
            out.append(Finding(True, where, f"{val!r} and engine.args.{first_raw} {first_val!r} are the same setting ({name}) with "
                                            "different values; keep one"))  # fmt: skip
        spelled.setdefault(name, (raw, val))
        if name in SPECULATIVE or is_speculative_flag(name):
            continue  # read by ``speculative.speculation``, which refuses what it does not simulate
        if name in EXPERT_PARALLEL:
            if not switched_on(val):
                continue
            if not arch.experts:
                out.append(Finding(False, where, "the model has no experts: no effect"))
            elif name in EP_SIZES and not isinstance(val, bool) and flag_int(val) not in (1, s.tp):
                out.append(Finding(True, where, f"{val} expert-parallel ranks with tp {s.tp}: only expert parallelism over the tp "
                                                f"ranks is simulated; give {s.tp} or drop the flag"))  # fmt: skip
            elif name in ("enable-deepep-moe", "moe-a2a-backend", "enable-eplb"):
                out.append(Finding(False, where, "simulated as expert parallelism over the tp ranks (the busiest rank under uniform "
                                                 "routing); the all-to-all dispatch and combine, and expert load balancing, are not "
                                                 "modelled"))  # fmt: skip
            else:
                out.append(Finding(False, where, f"expert parallelism over the {s.tp} tp ranks: each holds {arch.experts // max(s.tp, 1)} "
                                                 "whole experts and the step waits for the busiest under uniform routing; routers' "
                                                 "favourite experts (skew) are not modelled"))  # fmt: skip
        elif name in PARALLEL:
            field = PARALLEL[name]
            have = getattr(s, field)
            if not _same(val, have):
                out.append(Finding(True, where, f"{val} contradicts {field} {have}: the simulator uses the scenario's {field}; "
                                                "make them agree"))  # fmt: skip
        elif name in CUDA_GRAPH_FLAGS:
            out.extend(_cuda_graph_findings(s, where, name, val, flags))
        elif name == "cpu-offload-gb":
            if isinstance(val, int | float) and not isinstance(val, bool) and val > 0:
                out.append(Finding(True, where, f"{val} GB of weights offloaded to CPU memory (streamed over PCIe every step) is not "
                                                "simulated; remove the flag or predict a deployment whose weights fit"))  # fmt: skip
        elif name == "enable-dp-attention":
            if val is True:
                out.append(Finding(False, where, "data-parallel attention (attention per rank, experts shared by all ranks) is not "
                                                 f"simulated: simulated as {s.dp} independent replicas"))  # fmt: skip
        elif name == "stream-interval":
            if not isinstance(val, int) or isinstance(val, bool) or val < 1:
                out.append(Finding(True, where, f"{val!r} is not a number of iterations; give a whole number of 1 or more"))
            elif val != 1:
                out.append(Finding(False, where, f"{val}: the engine streams tokens {val} to a chunk; not simulated: every token is taken "
                                                 "to reach the client as its own chunk, so ITL (a gap between chunks) is understated "
                                                 f"about {val} times; TPOT and throughput are not affected, and TTFT only where the "
                                                 "engine holds back the first token too"))  # fmt: skip
        elif name in read:
            out.extend(_read_flag_findings(s, arch, hardware, raw, name, val, flags))
        elif not is_default(eng, name, val):
            unread.append(raw)
    out.extend(_field_contradictions(s, flags))
    if unread:
        out.append(Finding(False, "engine.args", f"{', '.join(unread)} not simulated (read by the engine, not by the "
                                                 "simulator): predicted as if they were at the engine's defaults"))  # fmt: skip
    return out


def _cuda_graph_findings(s: Scenario, where: str, name: str, val: Any, flags: dict[str, Any]) -> list[Finding]:
    """A flag that says which decode batches replay CUDA graphs: modelled (``deployment.cuda_graphs``) for its
    own engine, without a draft; one line otherwise."""
    if name in EAGER and val is False:
        return []
    eng = normalize_engine(s.engine.id)
    if CUDA_GRAPH_FLAGS[name] != eng or not cuda_graphs_modelled(s.engine.id, s.engine.version):
        reader = {"vllm": "vLLM's", "sglang": "SGLang's", "trt-llm": "TensorRT-LLM's (1.0 and later)"}[CUDA_GRAPH_FLAGS[name]]
        return [Finding(False, where, f"{val}: read as {reader} CUDA graph setting only; for {s.engine.id} {s.engine.version} "
                                      "every decode iteration is taken to replay a graph")]  # fmt: skip
    if any(n in SPECULATIVE or is_speculative_flag(n) for n in flags):
        return [Finding(False, where, f"{val}: with speculative decoding the simulator takes every verify iteration to replay "
                                      "CUDA graphs (only prompt iterations pay the host launch floor); with fewer graphs TPOT is "
                                      "likely understated")]  # fmt: skip
    return []


def _read_flag_findings(s: Scenario, arch: Architecture, hardware: Hardware, raw: str, name: str, val: Any, flags: dict[str, Any]) -> list[Finding]:
    where = f"engine.args.{raw}"
    if name in ("moe-backend", "moe-config.backend") and normalize_engine(s.engine.id) != "trt-llm":
        return [Finding(False, where, f"{val}: read as TensorRT-LLM's MoE backend only; for {s.engine.id} it is not simulated "
                                      "(its default MoE kernel is assumed)")]  # fmt: skip
    if name == "n-gpu-layers" and hardware.device_type != "cpu":
        n = int(val) if isinstance(val, int) and not isinstance(val, bool) else None
        if n is not None and 0 <= n < arch.layers:
            return [Finding(True, where, f"{n} of {arch.layers} layers on the GPU: partial offload (the rest run on the CPU) "
                                         "is not simulated; offload every layer (-ngl 99) or predict a CPU deployment")]  # fmt: skip
    if name == "threads-batch" and "threads" in flags and not _same(val, flags["threads"]):
        return [Finding(False, where, f"{val} prompt threads beside --threads {flags['threads']}: the simulator runs prompts "
                                      f"with --threads {flags['threads']} too")]  # fmt: skip
    if name == "cont-batching" and val is False:
        return [Finding(True, where, "continuous batching off is not simulated; turn it back on to predict")]
    if name == "cache-type-v":
        k = str(flags.get("cache-type-k", "f16")).lower()
        if str(val).lower() != k:
            return [Finding(True, where, f"cache-type-k {k} and cache-type-v {val} differ: different K and V cache types are "
                                         "not modelled; give both the same type")]  # fmt: skip
    if name in ("kv-cache-dtype", "cache-type-k"):
        got = kv_dtype_flag(s.engine.id, flags)
        if got is not None:
            if got[1] not in BYTES_PER_ELEMENT:
                return [Finding(True, where, f"{val}: KV dtype unknown to the simulator (known: "
                                             f"{', '.join(sorted(BYTES_PER_ELEMENT))})")]  # fmt: skip
            if s.kv_dtype != "auto" and got[1] != s.kv_dtype:
                return [Finding(True, where, f"{val} contradicts kv_dtype {s.kv_dtype}; give it once")]
    if name == "dtype":
        d = normalize_dtype(val)
        if d in ("bf16", "fp16", "fp32") and s.weight_dtype in ("bf16", "fp16", "fp32") and d != s.weight_dtype:
            return [Finding(True, where, f"{val} contradicts weight_dtype {s.weight_dtype}; set weight_dtype: {d}")]
    if name in ("async-scheduling", "enable-overlap-schedule", "enable-overlap-scheduler") and val is True:
        drafts = bool(s.speculative_tokens) or any(n in SPECULATIVE or is_speculative_flag(n) for n in flags)
        why = overlap_taken_off(pp=s.pp, cpu=hardware.device_type == "cpu", speculative=drafts)
        if why:
            return [Finding(False, where, f"taken as off with {why}: the host's share of each iteration is added to the device's, "
                                          "not overlapped with it (what an engine overlaps there differs by release)")]  # fmt: skip
    return []


def _field_contradictions(s: Scenario, flags: dict[str, Any]) -> list[Finding]:
    out = []
    eng = normalize_engine(s.engine.id)
    for field, names in _FIELD_FLAGS.items():
        have = getattr(s.engine, field)
        if have is None:
            continue
        for name in names:
            inverted = name.startswith("!")
            name = name.lstrip("!")
            if name not in flags or (name in ("parallel", "batch-size") and eng not in LLAMA_CPP_ENGINES):
                continue
            val = flags[name]
            val = (not val) if inverted and isinstance(val, bool) else val
            if not _same(val, have):
                raw = next((r for r in s.engine.args if canonical(s.engine.id, r, s.engine.args[r])[0] == name), name)
                out.append(Finding(True, f"engine.args.{raw}", f"{flags[name]} contradicts engine.{field} {have}; give it once"))
    return out


def _model_findings(s: Scenario, model: Model, max_model_len: int) -> list[Finding]:
    out = []
    chunk = model.attention_chunk_size
    if chunk and max_model_len > chunk:
        out.append(Finding(False, f"model {model.id}",
                           f"attention_chunk_size {chunk} (Llama 4 chunked local attention on its rotary layers) is simulated as "
                           f"full attention: past {chunk} tokens of context, KV use and attention time are overstated"))  # fmt: skip
    if model.linear_attention_layers:
        engine = normalize_engine(s.engine.id)
        pool = ("its separate Mamba state pool (max_mamba_cache_size) is simulated that way too" if engine == "sglang"
                else "page-size alignment of states and KV pages is not modelled")  # fmt: skip
        prefix = (
            "; with prefix caching on, a prefix hit assumes the state at the hit is cached too (vLLM's mamba_cache_mode align)"
            if s.engine.enable_prefix_caching is not False and engine in ("vllm", "sglang")
            else ""
        )
        out.append(Finding(False, f"model {model.id}",
                           f"{model.linear_attention_layers} Gated DeltaNet layers: each running request's state is held in the KV "
                           f"pool, as vLLM V1's hybrid KV manager does ({pool}){prefix}"))  # fmt: skip
    return out


def findings(scenario: Scenario, model: Model, arch: Architecture, hardware: Hardware, *, weight_dtype: str, max_model_len: int) -> list[Finding]:
    """Everything ``review`` would refuse or warn about, in order."""
    return [
        *_scenario_findings(scenario, model, arch),
        *_deployment_findings(scenario, model, arch, hardware),
        *_flag_findings(scenario, model, arch, hardware),
        *_quantization_findings(scenario, model, arch, hardware, weight_dtype, normalized(scenario.engine.id, scenario.engine.args)),
        *_model_findings(scenario, model, max_model_len),
    ]


def _release_before(scenario: Scenario, engine: str, first: tuple[int, int]) -> bool:
    """Whether the scenario runs ``engine`` at a stated release older than ``first`` (an unstated one is not)."""
    known = release(scenario.engine.version)
    return normalize_engine(scenario.engine.id) == engine and known is not None and known < first


def vllm_v0(scenario: Scenario) -> bool:
    """vLLM before 0.8: its V0 engine runs by default (other scheduler, defaults and memory profiling)."""
    return _release_before(scenario, "vllm", (0, 8))


def sglang_before_05(scenario: Scenario) -> bool:
    """SGLang before 0.5, whose defaults ``deployment.sglang_memory_defaults`` does not hold: v0.4's
    ``ServerArgs`` took mem_fraction_static from tp alone and capped CUDA graphs at 160 sequences
    (python/sglang/srt/server_args.py of that release); 0.5 sizes both by GPU memory."""
    return _release_before(scenario, "sglang", (0, 5))


def _sglang_defaults_pinned(scenario: Scenario) -> bool:
    """Whether the scenario gives every default that changed at SGLang 0.5 - the memory fraction, the
    token budget and the CUDA graphs, as field or flag - so that nothing is taken from 0.5."""
    e = scenario.engine
    flags = normalized(e.id, e.args)

    def given(field_name: str) -> bool:
        return getattr(e, field_name) is not None or any(f in flags for f in _FIELD_FLAGS[field_name])

    graphs = any(flag in flags for flag, engine in CUDA_GRAPH_FLAGS.items() if engine == "sglang")
    return given("gpu_memory_utilization") and given("max_num_batched_tokens") and graphs


def check_workload(workload: Workload) -> None:
    """Image workloads and scored image suites are refused: the simulator models LLM serving."""
    if workload.renders_images:
        what = "an image workload" if workload.kind == "image" else "a scored image suite"
        raise NotModelledError(
            f"workload {workload.id} is {what}: the simulator models LLM serving (tokens, KV cache, batching), not diffusion; "
            "measure it with servescope run WORKLOAD --endpoint URL"
        )


class Lengths(Protocol):
    """What of a request the context bounds: its prompt and the output it asks for."""

    @property
    def prompt_tokens(self) -> int: ...
    @property
    def max_tokens(self) -> int: ...


def overflows(max_model_len: int, overflow: str, prompt: int, max_tokens: int) -> bool:
    """Whether the engine refuses this request for its context, as the simulator's admission does
    (``sim.simulator``): a prompt that fills the context, or (an engine that rejects rather than
    truncates) a prompt plus its output beyond it."""
    return prompt >= max_model_len or (overflow == "reject" and prompt + max_tokens > max_model_len)


def lengths_given(workload: object) -> str:
    """What set a load's lengths, in the user's words: ``--isl 1,000,000 + --osl 16`` for a synthetic
    load (anything with ``isl`` and ``osl``), ``workload ID`` for a catalog workload or its id."""
    isl, osl = getattr(workload, "isl", None), getattr(workload, "osl", None)
    if isinstance(isl, int) and isinstance(osl, int):
        return f"--isl {isl:,} + --osl {osl:,}"
    return f"workload {workload if isinstance(workload, str) else getattr(workload, 'id', workload)}"


def context_refusal(model: Model, max_model_len: int, overflow: str, requests: Iterable[Lengths], given: str) -> str | None:
    """Refuse (``BadArgument``, one line, exit code 2) a load every request of which a deployment's
    context (its ``EngineConfig.max_model_len`` and ``overflow``) refuses - it would be "predicted" as a row of dashes; a warning line (the count and the
    reason) when some are; None when none are. ``given``: what set the lengths, in the user's words
    (``--isl 1000000 + --osl 16``, ``workload serve-chat-...``)."""
    total = refused = 0
    longest = (0, 0)
    reject = overflow == "reject"
    for req in requests:
        total += 1
        prompt = req.prompt_tokens
        # (``overflows``, inline: once per request of every prediction)
        if prompt >= max_model_len or (reject and prompt + req.max_tokens > max_model_len):
            refused += 1
            longest = max(longest, (prompt, req.max_tokens))
    if not refused:
        return None
    model_len = model.max_position_embeddings
    if model_len is not None and max_model_len < model_len:
        context = f"{model.id}'s context of {max_model_len:,} tokens (the scenario's max_model_len)"
        advice = f"give shorter lengths, or a longer max_model_len (the model takes {model_len:,})"
    else:
        context = f"{model.id}'s context of {max_model_len:,} tokens (max_model_len)"
        advice = "give shorter lengths (the model takes no more)"
    if overflow == "reject":
        what = f"prompt + output up to {longest[0]:,} + {longest[1]:,} tokens"
    else:
        what = f"prompts up to {longest[0]:,} tokens (the slot's output is cut at its end, the prompt is not)"
    if refused == total:
        raise BadArgument(f"{given} exceeds {context}: every request would be refused; {advice}")
    return f"{refused:,} of {total:,} requests ({given}) exceed {context} and are refused (context-overflow): {what}"


def review(scenario: Scenario, model: Model, arch: Architecture, hardware: Hardware, *, weight_dtype: str, max_model_len: int) -> list[str]:
    """The warning lines of a deployment; ``NotModelledError`` (one line) for the first refusal."""
    found = findings(scenario, model, arch, hardware, weight_dtype=weight_dtype, max_model_len=max_model_len)
    lines = [f"scenario {scenario.name}: {f.where}: {f.message}" for f in found]
    refused = [line for f, line in zip(found, lines, strict=True) if f.refuse]
    if refused:
        more = f" (and {len(refused) - 1} more)" if len(refused) > 1 else ""
        raise NotModelledError(refused[0] + more)
    return lines


__all__ = [
    "HOPPER_IDS",
    "MODELLED_ENGINES",
    "QUANTIZATION_WIDTH",
    "Finding",
    "Lengths",
    "NotModelledError",
    "context_refusal",
    "findings",
    "overflows",
    "is_hopper",
    "review",
    "vllm_v0",
]
