"""``config_id``: a canonical fingerprint of what an engine was asked to run.

Two setups that run the same thing get the same id however they were written;
any difference that can change what runs gives a different id. Steps:

1. engine name and version are normalised (``vLLM`` → ``vllm``, ``v0.6.3`` → ``0.6.3``);
2. flag names are normalised (``--max_num_seqs`` → ``max-num-seqs``; case is kept,
   short flags are case-sensitive) and engine
   aliases resolved (llama.cpp ``-np`` → ``parallel``, vLLM ``-tp`` →
   ``tensor-parallel-size``);
3. values are normalised (``"true"``/``"on"`` → ``true``, ``"8"`` → ``8``,
   ``"0.90"`` → ``0.9``, a bare flag → ``true``; dtype spellings unified), and a
   negated boolean flag is its positive form set false (``--no-enable-prefix-caching``
   → ``enable-prefix-caching: false``, ``--no-cont-batching`` → ``cont-batching: false``);
4. flags that cannot change what runs (host, port, logging) and credentials (any
   flag whose name ends in key/token/secret/password or names a password or a
   secret: ``--api-key``, ``--hf-token``, ``--admin-api-key``,
   ``--ssl-keyfile-password``; see ``is_secret_flag``) are dropped, and so are
   flags set to the engine's documented default (only defaults that do not
   depend on the version or the hardware are listed: vLLM's prefix caching, on
   by default in V1 and off in V0, is not); a flag given twice with different
   values is an error, even when one of them is the default (``--X`` with ``--no-X``);
5. dtype / KV dtype / quantization are taken from the arguments when given there;
   given both ways with different values is an error;
6. the result is serialised as sorted, compact JSON and hashed with sha256; the
   id is the first 16 hex digits.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Mapping
from typing import Any

ENGINE_ALIASES: dict[str, str] = {
    "llamacpp": "llama.cpp",
    "llama-cpp": "llama.cpp",
    "llama_cpp": "llama.cpp",
    "llama-server": "llama.cpp",
    "llama.cpp": "llama.cpp",
    "vllm": "vllm",
    "sglang": "sglang",
    "tgi": "tgi",
    "text-generation-inference": "tgi",
    "ollama": "ollama",
    "trtllm": "trt-llm",
    "tensorrt-llm": "trt-llm",
    "trt-llm": "trt-llm",
}

# Short flags and synonyms → canonical long name, per engine.
FLAG_ALIASES: dict[str, dict[str, str]] = {
    "vllm": {
        "tp": "tensor-parallel-size",
        "pp": "pipeline-parallel-size",
        "dp": "data-parallel-size",
        "q": "quantization",
        "max-seq-len": "max-model-len",
    },
    "tgi": {"quantize": "quantization"},
    "sglang": {
        "tp": "tp-size",
        "tensor-parallel-size": "tp-size",
        "dp": "dp-size",
        "data-parallel-size": "dp-size",
        "context-length": "context-length",
    },
    # TensorRT-LLM's extra-llm-api-config YAML nests these (written dotted in a scenario); trtllm-serve's
    # CLI flag and the flat key are the same setting (tensorrt_llm/llmapi/llm_args.py KvCacheConfig,
    # SchedulerConfig; trtllm-serve --kv_cache_free_gpu_memory_fraction); NIM's TensorRT-LLM takes
    # the same (the entry is shared below)
    "trt-llm": {
        "kv-cache-config.free-gpu-memory-fraction": "kv-cache-free-gpu-memory-fraction",
        "free-gpu-memory-fraction": "kv-cache-free-gpu-memory-fraction",
        "kv-cache-config.max-tokens": "max-tokens",
        "kv-cache-config.enable-block-reuse": "enable-block-reuse",
        "kv-cache-config.dtype": "kv-cache-dtype",
        "scheduler-config.capacity-scheduler-policy": "capacity-scheduler-policy",
        # the overlap scheduler's switch, also written under pytorch_backend_config (before 0.20: enable_...)
        "pytorch-backend-config.disable-overlap-scheduler": "disable-overlap-scheduler",
        "pytorch-backend-config.enable-overlap-scheduler": "enable-overlap-scheduler",
    },
    "llama.cpp": {
        "c": "ctx-size",
        "np": "parallel",
        "ngl": "n-gpu-layers",
        "gpu-layers": "n-gpu-layers",
        "t": "threads",
        "tb": "threads-batch",
        "b": "batch-size",
        "ub": "ubatch-size",
        "fa": "flash-attn",
        "cb": "cont-batching",
        "ctk": "cache-type-k",
        "ctv": "cache-type-v",
        "m": "model",
        "n": "n-predict",
        "s": "seed",
        "hft": "hf-token",
        "nocb": "no-cont-batching",
    },
}

FLAG_ALIASES["nim"] = FLAG_ALIASES["trt-llm"]

# Documented defaults; a flag set to its default is dropped.
FLAG_DEFAULTS: dict[str, dict[str, Any]] = {
    "vllm": {
        "tensor-parallel-size": 1,
        "pipeline-parallel-size": 1,
        "data-parallel-size": 1,
        "block-size": 16,
        "gpu-memory-utilization": 0.9,
        "swap-space": 4,
        "dtype": "auto",
        "kv-cache-dtype": "auto",
        "seed": 0,
    },
    "sglang": {"tp-size": 1, "dp-size": 1, "dtype": "auto", "kv-cache-dtype": "auto"},
    "llama.cpp": {
        "parallel": 1,
        "cont-batching": True,
        "batch-size": 2048,
        "ubatch-size": 512,
        "cache-type-k": "f16",
        "cache-type-v": "f16",
        "n-predict": -1,
    },
}

# Flags that change nothing about what runs.
NON_RUNNABLE_FLAGS: frozenset[str] = frozenset(
    {
        "host",
        "port",
        "api-key",
        "log-level",
        "uvicorn-log-level",
        "disable-log-requests",
        "disable-log-stats",
        "log-disable",
        "verbose",
        "metrics",
        "slots",
        "served-model-name",
        "alias",
        "ssl-keyfile",
        "ssl-certfile",
        "ssl-key-file",
        "ssl-cert-file",
        "api-key-file",
        "timeout",
        "log-file",
    }
)

DTYPE_ALIASES: dict[str, str] = {
    "bfloat16": "bf16",
    "bf16": "bf16",
    "float16": "fp16",
    "half": "fp16",
    "fp16": "fp16",
    "f16": "fp16",
    "float32": "fp32",
    "float": "fp32",
    "fp32": "fp32",
    "f32": "fp32",
    "fp8": "fp8",
    "fp8_e4m3": "fp8",
    "fp8-e4m3": "fp8",
    "auto": "auto",
}

_DTYPE_FLAGS = {"dtype": "dtype", "kv-cache-dtype": "kv_dtype", "quantization": "quantization"}
_TRUE = {"true", "yes", "on"}
_FALSE = {"false", "no", "off"}


def normalize_engine(engine: str) -> str:
    key = engine.strip().lower()
    return ENGINE_ALIASES.get(key, key)


def normalize_version(version: str) -> str:
    v = version.strip()
    return v[1:] if v[:1] in ("v", "V") and v[1:2].isdigit() else v


# A credential's name: its last word is one of these, or any word is one of the second set.
_SECRET_LAST_WORDS = frozenset({"key", "apikey", "token", "secret", "password", "passwd", "credential", "credentials"})
_SECRET_ANY_WORDS = frozenset({"password", "passwd", "secret"})
_SECRET_SHORT_FLAGS = frozenset({"hft"})  # llama.cpp -hft = --hf-token


def is_secret_flag(name: str) -> bool:
    """Whether a flag carries a credential (vLLM/SGLang/TGI/llama.cpp ``--api-key``,
    ``--hf-token``/``-hft``, ``--admin-api-key``, ``--ssl-keyfile-password``,
    ``--token``...). By words, so ``--max-num-batched-tokens`` and
    ``--long-prefill-token-threshold`` are not. A ``request.`` prefix (a
    request-body field recorded as an arg) is looked through."""
    key = name.strip().lstrip("-").strip().replace("_", "-").lower()
    key = key.removeprefix("request.")
    words = [w for w in key.replace(".", "-").split("-") if w]
    if not words:
        return False
    return key in _SECRET_SHORT_FLAGS or words[-1] in _SECRET_LAST_WORDS or any(w in _SECRET_ANY_WORDS for w in words)


def normalize_flag_name(engine: str, name: str) -> str:
    # Case is kept: engines' short flags are case-sensitive (llama.cpp -c is ctx-size, -C cpu-mask).
    key = name.strip().lstrip("-").strip().replace("_", "-")
    return FLAG_ALIASES.get(engine, {}).get(key, key)


def normalize_dtype(value: Any) -> Any:
    if isinstance(value, str):
        return DTYPE_ALIASES.get(value.strip().lower(), value.strip().lower())
    return value


def normalize_value(value: Any) -> Any:
    """Canonical JSON-able form of a flag value."""
    if value is None:
        return True  # a bare flag such as --enable-prefix-caching
    if isinstance(value, bool):
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ValueError(f"flag value {value!r} is not finite")
        return int(value) if value.is_integer() else value
    if isinstance(value, str):
        s = value.strip()
        low = s.lower()
        if low in _TRUE:
            return True
        if low in _FALSE:
            return False
        try:
            return int(s)
        except ValueError:
            pass
        try:
            return normalize_value(float(s))
        except ValueError:
            return s
    if isinstance(value, (list, tuple)):
        return [normalize_value(v) for v in value]
    raise ValueError(f"flag value {value!r} has unsupported type {type(value).__name__}")


def _same(a: Any, b: Any) -> bool:
    """Equal and of the same type (``True`` is not the default ``1``)."""
    return type(a) is type(b) and a == b


def _normal_field(key: str, value: Any) -> Any:
    """dtype/kv_dtype: unified spelling, ``auto`` → None; quantization: lower-case, ``none`` → None."""
    if value is None:
        return None
    if key in ("dtype", "kv_dtype"):
        v = normalize_dtype(value)
        return None if v == "auto" else v
    q = str(value).strip().lower()
    return None if q in ("", "none", "null") else q


# What the rule before credentials, --no-X and TensorRT-LLM's nested keys were normalised (servescope 2026-12) lacked;
# ``legacy_config_id`` recomputes an id written then, so such a Result is told apart from a wrong one.
_NEW_NON_RUNNABLE = frozenset({"ssl-key-file", "ssl-cert-file", "api-key-file"})
_NEW_ALIASES = {"tgi": {"quantize"}, "llama.cpp": {"hft", "nocb"}, "trt-llm": set(FLAG_ALIASES["trt-llm"]), "nim": set(FLAG_ALIASES["nim"])}


def canonical_config(
    engine: str,
    version: str,
    args: Mapping[str, Any] | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    quantization: str | None = None,
    *,
    legacy: bool = False,
) -> dict[str, Any]:
    """The normalised configuration that ``config_id`` hashes (``legacy``: by the earlier rule)."""
    eng = normalize_engine(engine)
    seen: dict[str, Any] = {}
    for raw_name, raw_value in (args or {}).items():
        name = normalize_flag_name(eng, raw_name)
        if legacy and raw_name.strip().lstrip("-").strip().replace("_", "-") in _NEW_ALIASES.get(eng, set()):
            name = raw_name.strip().lstrip("-").strip().replace("_", "-")
        if legacy:
            if not name or (name in NON_RUNNABLE_FLAGS and name not in _NEW_NON_RUNNABLE):
                continue
        elif not name or name in NON_RUNNABLE_FLAGS or is_secret_flag(name):
            continue
        value = normalize_value(raw_value)
        if not legacy and name.startswith("no-") and len(name) > 3 and isinstance(value, bool):
            name, value = name[3:], not value  # --no-X is X=false (argparse BooleanOptionalAction, llama.cpp)
            if name in NON_RUNNABLE_FLAGS:
                continue
        if name in _DTYPE_FLAGS:
            value = _normal_field(_DTYPE_FLAGS[name], value)
        if name in seen and not _same(seen[name], value):
            raise ValueError(f"flag {name!r} given twice with different values ({seen[name]!r}, {value!r})")
        seen[name] = value
    defaults = FLAG_DEFAULTS.get(eng, {})
    flags = {k: v for k, v in seen.items() if k not in _DTYPE_FLAGS and not (k in defaults and _same(defaults[k], v))}
    fields: dict[str, Any] = {}
    for flag, key in _DTYPE_FLAGS.items():
        given = _normal_field(key, {"dtype": dtype, "kv_dtype": kv_dtype, "quantization": quantization}[key])
        from_args = seen.get(flag)
        if given is not None and from_args is not None and given != from_args:
            raise ValueError(f"{key} {given!r} contradicts the {flag!r} flag ({from_args!r})")
        fields[key] = given if given is not None else from_args
    return {
        "engine": eng,
        "version": normalize_version(version),
        "flags": dict(sorted(flags.items())),
        **fields,
    }


def config_id(
    engine: str,
    version: str,
    args: Mapping[str, Any] | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    quantization: str | None = None,
) -> str:
    """16 hex digits of sha256 over the canonical configuration."""
    return _digest(canonical_config(engine, version, args, dtype, kv_dtype, quantization))


def legacy_config_id(
    engine: str,
    version: str,
    args: Mapping[str, Any] | None = None,
    dtype: str | None = None,
    kv_dtype: str | None = None,
    quantization: str | None = None,
) -> str:
    """The id by the rule before ``--no-X`` and credentials were normalised; a
    Result that carries it was written by an earlier servescope, not mis-fingerprinted."""
    return _digest(canonical_config(engine, version, args, dtype, kv_dtype, quantization, legacy=True))


def _digest(canon: dict[str, Any]) -> str:
    blob = json.dumps(canon, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()[:16]


def parse_flags(argv: list[str]) -> dict[str, Any]:
    """Turn a command line (``--max-num-seqs 64 --enable-prefix-caching -tp=2``)
    into a flag mapping; a flag not followed by a value is a bare flag."""
    flags: dict[str, Any] = {}
    i = 0
    while i < len(argv):
        token = argv[i]
        if not token.startswith("-") or token in ("-", "--"):
            raise ValueError(f"expected a flag, got {token!r}")
        if "=" in token:
            name, value = token.split("=", 1)
            flags[name] = value
            i += 1
            continue
        nxt = argv[i + 1] if i + 1 < len(argv) else None
        if nxt is not None and not (nxt.startswith("-") and not _is_number(nxt)):
            flags[token] = nxt
            i += 2
        else:
            flags[token] = None
            i += 1
    return flags


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
