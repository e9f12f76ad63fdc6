"""A scenario's engine flags as the simulator reads them.

``normalized`` gives each flag its canonical name (``config_id``'s rules:
``--max_num_seqs`` = ``max-num-seqs``, ``-tp`` = ``tensor-parallel-size``,
llama.cpp ``-np`` = ``parallel``) and value (a bare flag is ``True``, ``"8"`` is
``8``), and a negated flag its positive form set false (``--no-kv-unified`` →
``kv-unified: False``). The sets below say what becomes of every flag:

- ``READ``: the simulator reads it (``deployment.engine_config``, dtypes);
- ``PARALLEL``: must agree with the scenario's ``tp``/``pp``/``dp`` (the
  simulator reads those fields);
- ``INERT``: changes nothing the simulator could model (addresses, names,
  logging, tokenizer and chat-template choices, credentials);
- everything else is named in one warning (``coverage``), except the flags
  ``coverage`` refuses or warns about by name (speculative decoding, expert
  parallelism, eager mode, CPU offload).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from servescope.documents.config_id import (
    FLAG_DEFAULTS,
    NON_RUNNABLE_FLAGS,
    is_secret_flag,
    normalize_dtype,
    normalize_engine,
    normalize_flag_name,
    normalize_value,
)

LLAMA_CPP_ENGINES = frozenset({"llama.cpp", "ollama"})

READ_LLAMA_CPP = frozenset(
    {"parallel", "ctx-size", "kv-unified", "batch-size", "threads", "threads-batch", "cont-batching", "cache-type-k",
     "cache-type-v", "n-gpu-layers"}
)  # fmt: skip
READ_BATCHING = frozenset(
    {
        "max-num-seqs", "max-running-requests", "max-batch-size",  # vLLM, SGLang, TensorRT-LLM
        "max-num-batched-tokens", "chunked-prefill-size", "max-num-tokens",
        "block-size", "page-size",
        "gpu-memory-utilization", "mem-fraction-static",
        "enable-prefix-caching", "disable-radix-cache",
        "enable-chunked-prefill",
        "max-model-len", "context-length", "max-seq-len",
        "batch-wait-timeout-iters", "batch-wait-max-tokens-ratio",
        "kv-cache-dtype", "dtype", "quantization",
        "mamba-ssm-cache-dtype", "mamba-ssm-dtype",  # vLLM, SGLang: the linear-attention state's dtype
        "enable-mixed-chunk", "schedule-conservativeness",  # SGLang's scheduler
        "disable-hybrid-kv-cache-manager",  # vLLM: sliding-window KV kept for every token
        "moe-backend", "moe-config.backend",  # TensorRT-LLM's MoE kernels (``deployment.moe_kernel_for``)
    }
)  # fmt: skip
#: TensorRT-LLM's (and NIM's) own: its KV pool's fraction, cap and block reuse (its prefix cache), and
#: its capacity policy (``deployment._guaranteed_no_evict``); read for those engines only.
READ_TRT = frozenset({"kv-cache-free-gpu-memory-fraction", "max-tokens", "enable-block-reuse", "capacity-scheduler-policy"})
TRT_ENGINES = frozenset({"trt-llm", "nim"})
#: The switches of each engine's overlap of host and device work (``overlap_scheduling``), read for that
#: engine only: vLLM's --async-scheduling (--no-async-scheduling: off), SGLang's --disable-overlap-schedule
#: (before v0.4: --enable-overlap-schedule), TensorRT-LLM's ``disable_overlap_scheduler`` (before 0.20:
#: ``pytorch_backend_config.enable_overlap_scheduler``).
OVERLAP_FLAGS: dict[str, tuple[str, ...]] = {
    "vllm": ("async-scheduling",),
    "sglang": ("disable-overlap-schedule", "enable-overlap-schedule"),
    "trt-llm": ("disable-overlap-scheduler", "enable-overlap-scheduler"),
}
#: vLLM's first release with async scheduling on by default (v0.14.0 release notes, vllm-project/vllm#27614:
#: "Async scheduling is now enabled by default ... Excludes ... pipeline parallel, CPU backend, non-MTP/Eagle spec decoding").
VLLM_ASYNC_DEFAULT_FROM = (0, 14)
#: SGLang's overlap scheduler is on by default from v0.4 (sgl-project/sglang#2067, Nov 2024: "Turn on
#: --enable-overlap-schedule by default"; the v0.4 "zero-overhead batch scheduler").
SGLANG_OVERLAP_DEFAULT_FROM = (0, 4)
#: TensorRT-LLM's PyTorch backend overlaps by default from 0.20 (NVIDIA/TensorRT-LLM#4174, May 2025: "Enable
#: scheduling overlap by default", ``enable_overlap_scheduler`` renamed ``disable_overlap_scheduler``).
TRT_OVERLAP_DEFAULT_FROM = (0, 20)
PARALLEL: dict[str, str] = {
    "tensor-parallel-size": "tp", "tp-size": "tp", "tp": "tp",
    "pipeline-parallel-size": "pp", "pp-size": "pp",
    "data-parallel-size": "dp", "dp-size": "dp",
}  # fmt: skip
INERT = frozenset(
    {
        "model", "model-path", "model-id", "served-model-name", "alias", "tokenizer", "tokenizer-mode", "tokenizer-path",
        "revision", "code-revision", "tokenizer-revision", "trust-remote-code", "download-dir", "load-format", "seed",
        "chat-template", "chat-template-content-format", "jinja", "enable-auto-tool-choice", "tool-call-parser",
        "reasoning-parser", "response-role", "generation-config", "root-path", "allowed-origins", "allowed-methods",
        "allowed-headers", "middleware", "disable-fastapi-docs", "enable-request-id-headers", "disable-uvicorn-access-log",
        "enable-log-requests", "max-log-len", "log-format", "log-prefix", "log-colors", "log-timestamps", "log-verbosity",
        "enable-metrics", "webui", "props", "threads-http", "mlock", "mmap", "hf-repo", "hf-file", "model-url",
        "skip-tokenizer-init", "distributed-executor-backend", "worker-cls", "disable-log-stats", "disable-log-requests",
        "max-logprobs", "return-tokens-as-token-ids", "enable-prompt-tokens-details", "enable-server-load-tracking",
        "uvicorn-log-level", "backend",
    }
)  # fmt: skip
SPECULATIVE = frozenset(
    {
        "speculative-config", "speculative-model", "num-speculative-tokens", "speculative-algorithm",
        "speculative-draft-model-path", "speculative-num-steps", "speculative-eagle-topk", "speculative-num-draft-tokens",
        "model-draft", "md", "hf-repo-draft", "draft-max", "draft-min", "draft", "draft-p-min", "spec-replace",
        "decoding-config",
    }
)  # fmt: skip
EXPERT_PARALLEL = frozenset(
    {"enable-expert-parallel", "ep-size", "ep", "expert-parallel-size", "moe-expert-parallel-size", "enable-ep-moe",
     "enable-deepep-moe", "moe-a2a-backend", "enable-eplb"}
)  # fmt: skip
EAGER = frozenset({"enforce-eager", "disable-cuda-graph"})
#: The flags that say which decode batches replay CUDA graphs, by the engine that reads them
#: (``deployment.cuda_graphs``; TensorRT-LLM's cuda_graph_config keys written dotted).
CUDA_GRAPH_FLAGS: dict[str, str] = {
    "enforce-eager": "vllm", "cuda-graph-sizes": "vllm", "max-cudagraph-capture-size": "vllm",
    "disable-cuda-graph": "sglang", "cuda-graph-max-bs": "sglang", "cuda-graph-bs": "sglang",
    "cuda-graph-config": "trt-llm", "cuda-graph-config.max-batch-size": "trt-llm", "cuda-graph-config.batch-sizes": "trt-llm",
    "cuda-graph-config.enable-padding": "trt-llm",
}  # fmt: skip


def cuda_graphs_modelled(engine: str, version: str) -> bool:
    """Whether the simulator knows which decode batches this engine replays as CUDA graphs (vLLM, SGLang,
    TensorRT-LLM from 1.0, whose PyTorch backend has ``cuda_graph_config``); elsewhere every decode is taken as graphed."""
    eng = normalize_engine(engine)
    if eng in ("vllm", "sglang"):
        return True
    if eng == "trt-llm":
        known = release(version)
        return known is None or known >= (1, 0)
    return False


def canonical(engine: str, raw: str, value: Any) -> tuple[str, Any]:
    """One flag's canonical name and value."""
    name = normalize_flag_name(normalize_engine(engine), raw)
    val = normalize_value(value)
    if name.startswith("no-") and len(name) > 3 and isinstance(val, bool):
        name, val = name[3:], not val
    return name, val


def normalized(engine: str, args: Mapping[str, Any]) -> dict[str, Any]:
    """``{canonical flag name: canonical value}`` of a scenario's ``engine.args``."""
    out: dict[str, Any] = {}
    for raw, value in args.items():
        name, val = canonical(engine, raw, value)
        if name:
            out[name] = val
    return out


# llama.cpp --cache-type-k/-v names → servescope dtypes (ggml type names)
_GGML_KV = {"f32": "fp32", "f16": "fp16", "bf16": "bf16", "q8_0": "q8_0", "q4_0": "q4_0"}


def kv_dtype_flag(engine: str, flags: Mapping[str, Any]) -> tuple[str, str] | None:
    """(flag name, servescope dtype) of the KV-cache dtype the flags set, if any
    (vLLM/SGLang ``--kv-cache-dtype``, llama.cpp ``--cache-type-k``); ``auto`` is none."""
    if normalize_engine(engine) in LLAMA_CPP_ENGINES:
        if "cache-type-k" not in flags:
            return None
        value = str(flags["cache-type-k"]).lower()
        return "cache-type-k", _GGML_KV.get(value, value)
    if "kv-cache-dtype" not in flags:
        return None
    value = str(flags["kv-cache-dtype"]).lower()
    value = {"fp8_e4m3": "fp8", "fp8_e5m2": "fp8", "fp8_inc": "fp8", "fp8_ds_mla": "fp8"}.get(value, value)
    value = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "float32": "fp32"}.get(value, value)
    return None if value == "auto" else ("kv-cache-dtype", value)


def state_dtype_flag(flags: Mapping[str, Any]) -> str | None:
    """The linear-attention (SSM) state dtype the flags set (vLLM ``--mamba-ssm-cache-dtype``,
    SGLang ``--mamba-ssm-dtype``), as a servescope dtype; ``auto`` is none."""
    value = first(flags, "mamba-ssm-cache-dtype", "mamba-ssm-dtype")
    if value is None:
        return None
    dtype = normalize_dtype(str(value))
    return None if dtype == "auto" else dtype


def is_default(engine: str, name: str, value: Any) -> bool:
    """The flag is set to its engine's documented default (``config_id.FLAG_DEFAULTS``): it changes nothing."""
    default = FLAG_DEFAULTS.get(normalize_engine(engine), {}).get(name, object())
    return type(default) is type(value) and default == value


def is_inert(name: str) -> bool:
    return name in INERT or name in NON_RUNNABLE_FLAGS or is_secret_flag(name) or name.startswith(("ssl-", "log-"))


#: The flag that sets how many front-end processes take requests in (``front_ends``).
API_SERVER_FLAGS: dict[str, tuple[str, ...]] = {"vllm": ("api-server-count", "asc"), "sglang": ("tokenizer-worker-num",)}


def front_ends(engine: str, flags: Mapping[str, Any], replicas: int) -> int:
    """How many front-end processes take requests in, each one request at a time (the intake of
    ``calibration.intake_request_s``). vLLM: ``--api-server-count`` (``-asc``); left unset, vLLM's
    ``vllm/entrypoints/cli/serve.py`` starts one per data-parallel rank ("Defaulting api_server_count to
    data_parallel_size (N)", v0.15.1's log), or one per server under an external load balancer, where
    every rank is a server of its own: one per replica either way. SGLang: ``--tokenizer-worker-num``, default 1 whatever ``--dp-size`` (one
    TokenizerManager feeds the data-parallel controller). Otherwise one per replica."""
    eng = normalize_engine(engine)
    count = first(flags, *API_SERVER_FLAGS.get(eng, ()))
    n = count if type(count) is int else 0
    if n >= 1:
        return n
    return 1 if eng == "sglang" else max(1, replicas)


def read_flags(engine: str) -> frozenset[str]:
    eng = normalize_engine(engine)
    if eng in LLAMA_CPP_ENGINES:
        return READ_LLAMA_CPP
    own = frozenset(OVERLAP_FLAGS.get(eng, ()) + API_SERVER_FLAGS.get(eng, ()))
    return READ_BATCHING | own | (READ_TRT if eng in TRT_ENGINES else frozenset())


def release(version: str) -> tuple[int, int] | None:
    """(major, minor) of a version string such as ``0.14.0`` or ``v0.11.0rc1``; None when it is not one (``unstated``)."""
    m = re.match(r"^v?(\d+)\.(\d+)", version.strip())
    return (int(m[1]), int(m[2])) if m else None


def overlap_taken_off(*, pp: int = 1, cpu: bool = False, speculative: bool = False) -> str | None:
    """Why an engine's overlap scheduling is taken as off whatever its switch says (None: it is not):
    pipeline parallelism and speculative decoding (what an engine overlaps there differs by release:
    vLLM added both in 2026, vllm-project/vllm#31998 and #32359) and a CPU device (vLLM's CPU backend
    has none, v0.14.0 release notes)."""
    return "pipeline parallelism" if pp > 1 else "a CPU device" if cpu else "speculative decoding" if speculative else None


def overlap_scheduling(engine: str, version: str, flags: Mapping[str, Any], *, pp: int = 1, cpu: bool = False, speculative: bool = False) -> bool:
    """Whether the engine prepares iteration n+1 on the host while the device runs iteration n, so the
    host's share of an iteration (scheduling, input preparation, output processing) hides behind the
    device's (``step_time``'s ``overlap_host``):

    - vLLM: ``--async-scheduling``; on by default from v0.14.0 (``VLLM_ASYNC_DEFAULT_FROM``); an
      unstated version is taken as older (off);
    - SGLang: its overlap scheduler, on from v0.4 (or an unstated version) unless
      ``--disable-overlap-schedule``; before, only with ``--enable-overlap-schedule``;
    - TensorRT-LLM's PyTorch backend: its overlap scheduler, on from 0.20 (or an unstated version) unless
      ``disable_overlap_scheduler: true`` ("Enabled by default", TensorRT-LLM docs,
      features/overlap-scheduler); before, only with ``enable_overlap_scheduler: true``; off under
      ``backend: tensorrt`` (prebuilt engines, the C++ runtime);
    - NIM's prebuilt TensorRT engines, the llama.cpp family and anything else: off.

    With pipeline parallelism, speculative decoding or on a CPU it is taken as off (``overlap_taken_off``)."""
    eng = normalize_engine(engine)
    if overlap_taken_off(pp=pp, cpu=cpu, speculative=speculative) or eng not in OVERLAP_FLAGS:
        return False
    known = release(version)
    if eng == "vllm":
        given = flags.get("async-scheduling")
        return _is_on(given) if given is not None else known is not None and known >= VLLM_ASYNC_DEFAULT_FROM
    off_flag, on_flag = OVERLAP_FLAGS[eng]
    if eng == "trt-llm" and str(flags.get("backend", "")).strip().lower() == "tensorrt":
        return False
    if flags.get(off_flag) is not None and _is_on(flags[off_flag]):
        return False
    if flags.get(on_flag) is not None:
        return _is_on(flags[on_flag])
    since = SGLANG_OVERLAP_DEFAULT_FROM if eng == "sglang" else TRT_OVERLAP_DEFAULT_FROM
    return known is None or known >= since


def _is_on(value: Any) -> bool:
    """A switch's value read as on/off: true, 1, "true", "yes", "on"."""
    return value is True or (not isinstance(value, bool) and str(value).strip().lower() in ("1", "true", "yes", "on"))


def first(flags: Mapping[str, Any], *names: str) -> Any:
    """The value of the first of ``names`` that is set."""
    for name in names:
        if name in flags:
            return flags[name]
    return None


#: Flags that spread the experts over the tp ranks (each rank holds experts / tp whole experts):
#: vLLM's --enable-expert-parallel (EP size = tp x dp), SGLang's --enable-ep-moe (ep = tp) and its
#: DeepEP / all-to-all switches, which take expert parallelism with them; and the flags that size it.
EP_SWITCHES = ("enable-expert-parallel", "enable-ep-moe", "enable-deepep-moe", "moe-a2a-backend")
EP_SIZES = ("ep-size", "ep", "expert-parallel-size", "moe-expert-parallel-size")


def flag_int(value: Any) -> int | None:
    """A flag's value as an integer, None when it is not one."""
    try:
        return int(value)
    except (TypeError, ValueError):
        return None


def switched_on(value: Any) -> bool:
    """A flag that turns something on: true, or a size above 1."""
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float):
        return value > 1
    return value is not None and str(value).lower() not in ("", "0", "1", "none", "false")


def trt_moe_backend(flags: dict[str, Any]) -> str | None:
    """TensorRT-LLM's MoE backend (``moe_backend``, or ``moe_config.backend`` written dotted), upper-case; None when not given."""
    value = flags.get("moe-backend") or flags.get("moe-config.backend")
    return str(value).upper() if value else None


def expert_parallel_size(flags: dict[str, Any], tp: int) -> int:
    """How many ranks of a replica the experts are spread over: a stated size, else ``tp`` when a
    switch above is on, else 1 (tensor parallelism of every expert). ``coverage`` refuses a size
    other than 1 or tp (only expert parallelism over the tp ranks is simulated)."""
    size = first(flags, *EP_SIZES)
    if size is not None and not isinstance(size, bool):
        return max(1, flag_int(size) or 1)
    return tp if any(switched_on(flags.get(name)) for name in EP_SWITCHES) else 1


__all__ = [
    "EAGER",
    "EP_SIZES",
    "EP_SWITCHES",
    "EXPERT_PARALLEL",
    "INERT",
    "LLAMA_CPP_ENGINES",
    "PARALLEL",
    "READ_BATCHING",
    "READ_LLAMA_CPP",
    "SPECULATIVE",
    "canonical",
    "expert_parallel_size",
    "first",
    "flag_int",
    "is_default",
    "is_inert",
    "kv_dtype_flag",
    "normalized",
    "overlap_scheduling",
    "overlap_taken_off",
    "read_flags",
    "release",
    "switched_on",
]
