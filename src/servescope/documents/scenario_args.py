"""What each engine flag the simulator reads takes, and the check of a scenario's ``engine.args`` against it.

One table, ``ARG_KINDS`` (canonical flag name → kind), says what a flag's value must be; the
engines' own argument types are the reference (vLLM ``vllm/engine/arg_utils.py`` and its config
classes: ``gpu_memory_utilization`` a float in (0, 1], ``max_num_seqs``/``max_num_batched_tokens``/
``block_size``/``max_model_len`` positive integers, ``--enforce-eager`` a store-true switch; SGLang
``server_args.py``; TensorRT-LLM ``llm_args.py``; llama.cpp ``common/arg.cpp``). ``ENGINE_ARG_KINDS``
holds the few values one engine gives a meaning of its own (llama.cpp ``--ctx-size 0``: the
model's context; ``--threads -1``: every core; SGLang ``--chunked-prefill-size -1``: no chunking).

A value outside its kind is refused in one line naming ``engine.args.<flag as written>``, never
read as "unset" (0), simulated as something (a negative size) or dropped (a word where a number
goes). Flags outside the table are either not read by the simulator (``predict`` names them in one
warning) or checked where they are read (dtypes, CUDA-graph batch sizes, speculative decoding).
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from servescope.documents.config_id import normalize_dtype, normalize_engine, normalize_flag_name, normalize_value


@dataclass(frozen=True)
class ArgKind:
    """What a flag's value must be: ``kind`` is int, number or switch (or choice, of ``choices``),
    inside [``low``, ``high``] (``low_open``: above ``low``); ``special``: values outside that
    range the engine gives a meaning of its own, and that meaning."""

    kind: str
    low: float | None = None
    high: float | None = None
    low_open: bool = False
    special: tuple[tuple[int, str], ...] = ()
    choices: tuple[str, ...] = ()

    def wanted(self) -> str:
        """What to give, in words."""
        if self.kind == "switch":
            return "true or false (or the bare flag)"
        if self.kind == "choice":
            return "one of " + ", ".join(self.choices)
        if self.kind == "int":
            base = "a positive integer" if self.low == 1 else f"an integer of at least {self.low:g}"
        elif self.low_open and self.high == 1:
            base = "a fraction in (0, 1]"
        elif self.high == 1:
            base = "a fraction in [0, 1]"
        else:
            base = "a positive number"
        extra = "".join(f", or {value} ({meaning})" for value, meaning in self.special)
        return base + extra


POSITIVE_INT = ArgKind("int", low=1)
COUNT = ArgKind("int", low=0)
FRACTION = ArgKind("number", low=0, high=1, low_open=True)
RATIO = ArgKind("number", low=0, high=1)
POSITIVE = ArgKind("number", low=0, low_open=True)
SWITCH = ArgKind("switch")

#: memory fractions: vLLM CacheConfig gpu_memory_utilization (gt=0, le=1), SGLang mem_fraction_static,
#: TensorRT-LLM KvCacheConfig.free_gpu_memory_fraction
FRACTION_FLAGS = ("gpu-memory-utilization", "mem-fraction-static", "kv-cache-free-gpu-memory-fraction")
#: batch limits, token budgets, pages, context lengths, KV caps, parallel sizes, front ends, llama.cpp slots and threads: ge=1
POSITIVE_INT_FLAGS = (
    "max-num-seqs", "max-running-requests", "max-batch-size", "max-num-batched-tokens", "chunked-prefill-size",
    "max-num-tokens", "block-size", "page-size", "max-model-len", "context-length", "max-seq-len", "max-tokens",
    "tensor-parallel-size", "tp-size", "tp", "pipeline-parallel-size", "pp-size", "data-parallel-size", "dp-size",
    "ep-size", "ep", "expert-parallel-size", "moe-expert-parallel-size", "api-server-count", "asc",
    "tokenizer-worker-num", "parallel", "ctx-size", "batch-size", "threads", "threads-batch",
)  # fmt: skip
SWITCH_FLAGS = (
    "enable-prefix-caching", "disable-radix-cache", "enable-chunked-prefill", "enable-mixed-chunk",
    "disable-hybrid-kv-cache-manager", "enforce-eager", "disable-cuda-graph", "async-scheduling",
    "disable-overlap-schedule", "enable-overlap-schedule", "disable-overlap-scheduler", "enable-overlap-scheduler",
    "enable-block-reuse", "kv-unified", "cont-batching", "enable-expert-parallel", "enable-ep-moe",
    "enable-deepep-moe", "cuda-graph-config.enable-padding",
)  # fmt: skip

#: canonical flag name (``config_id.normalize_flag_name``) → what it takes, for every engine
ARG_KINDS: dict[str, ArgKind] = {
    **dict.fromkeys(FRACTION_FLAGS, FRACTION),
    **dict.fromkeys(POSITIVE_INT_FLAGS, POSITIVE_INT),
    **dict.fromkeys(SWITCH_FLAGS, SWITCH),
    # TensorRT-LLM's batch waiting: iterations (0: none) and a share of the token budget
    "batch-wait-timeout-iters": COUNT,
    "batch-wait-max-tokens-ratio": RATIO,
    "schedule-conservativeness": POSITIVE,
    "capacity-scheduler-policy": ArgKind("choice", choices=("GUARANTEED_NO_EVICT", "MAX_UTILIZATION", "STATIC_BATCH")),
}

_LLAMA_CPP = ("llama.cpp", "ollama")
#: (engine, flag) → a kind of that engine's own
ENGINE_ARG_KINDS: dict[tuple[str, str], ArgKind] = {
    **{(e, "ctx-size"): ArgKind("int", low=1, special=((0, "the model's own context"),)) for e in _LLAMA_CPP},
    **{(e, f): ArgKind("int", low=1, special=((-1, "every core"),)) for e in _LLAMA_CPP for f in ("threads", "threads-batch")},
    ("sglang", "chunked-prefill-size"): ArgKind("int", low=1, special=((-1, "no chunked prefill"),)),
}

#: ``engine.version`` words that say the version is not known (the simulator then takes the engine's defaults)
UNKNOWN_VERSIONS = frozenset({"unstated", "unknown"})
_VERSION = re.compile(r"^[vV]?\d+(\.\d+)*([.+\-_ ]?[A-Za-z(].*)?$|^b\d+$")


def arg_kind(engine: str, name: str) -> ArgKind | None:
    """What the flag ``name`` (canonical) takes under ``engine``; None when the table has no rule for it."""
    return ENGINE_ARG_KINDS.get((normalize_engine(engine), name)) or ARG_KINDS.get(name)


def _shown(value: Any) -> str:
    return repr(value) if isinstance(value, str) else str(value)


def arg_problem(engine: str, raw: str, value: Any) -> str | None:
    """What is wrong with one ``engine.args`` entry (as written), in words; None when nothing is."""
    eng = normalize_engine(engine)
    name = normalize_flag_name(eng, raw)
    kind = arg_kind(eng, name)
    if kind is None and name.startswith("no-") and arg_kind(eng, name[3:]) == SWITCH:
        kind = SWITCH  # --no-X takes a switch too
    if kind is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return f"{value} is not a number; give {kind.wanted()}"
    try:
        val = normalize_value(value)
    except ValueError:
        return f"{_shown(value)} is not a number; give {kind.wanted()}"
    if kind.kind == "switch":
        return None if isinstance(val, bool) else f"{_shown(value)} is not a switch; give {kind.wanted()}"
    if kind.kind == "choice":
        ok = isinstance(val, str) and val.upper() in kind.choices
        return None if ok else f"{_shown(value)} is not a policy it knows; give {kind.wanted()}"
    if isinstance(val, bool) or not isinstance(val, int | float):
        what = "an integer" if kind.kind == "int" else "a number"
        return f"{_shown(value)} is not {what}; give {kind.wanted()}"
    if kind.kind == "int" and not isinstance(val, int):
        return f"{_shown(value)} is not a whole number; give {kind.wanted()}"
    if any(val == special for special, _ in kind.special):
        return None
    below = kind.low is not None and (val <= kind.low if kind.low_open else val < kind.low)
    above = kind.high is not None and val > kind.high
    return f"{_shown(value)} is not {kind.wanted()}" if below or above else None


def arg_problems(engine: str, args: Mapping[str, Any]) -> list[tuple[str, str]]:
    """``(field path, what is wrong)`` for every entry of ``engine.args`` outside its kind."""
    out = []
    for raw, value in args.items():
        problem = arg_problem(engine, raw, value)
        if problem:
            out.append((f"engine.args.{raw}", problem))
    return out


#: the flags that restate a scenario field (``config_id`` refuses them differing from it), by field
DTYPE_FLAGS = {"dtype": "weight_dtype", "kv-cache-dtype": "kv_dtype", "quantization": "quantization"}


def _dtype_value(field: str, value: Any) -> str | None:
    """A dtype or quantization as ``config_id`` compares them: one spelling; ``auto``/``none`` is none."""
    if value is None:
        return None
    if field != "quantization":
        v = normalize_dtype(value)
        return None if v == "auto" else str(v)
    q = str(value).strip().lower()
    return None if q in ("", "none", "null") else q


def arg_conflicts(engine: str, args: Mapping[str, Any], fields: Mapping[str, str | None]) -> list[tuple[str, str]]:
    """``(field path, what is wrong)`` for every entry of ``engine.args`` that is not a value a command line
    gives, that repeats another's flag (``--max_num_seqs`` beside ``--max-num-seqs``) with a different
    value, or that is a dtype flag contradicting its scenario field (``fields``: weight_dtype, kv_dtype,
    quantization) — each of which ``config_id`` would refuse after the prediction is made."""
    eng = normalize_engine(engine)
    out = []
    seen: dict[str, tuple[str, Any]] = {}
    for raw, value in args.items():
        try:
            val = normalize_value(value)
        except ValueError:
            if arg_problem(engine, raw, value) is None:  # (the table's own line names it otherwise)
                out.append((f"engine.args.{raw}", f"{_shown(value)} is not a value a command line gives; give a number, a word or true/false"))
            continue
        name = normalize_flag_name(eng, raw)
        if name.startswith("no-") and len(name) > 3 and isinstance(val, bool):
            name, val = name[3:], not val
        if name in DTYPE_FLAGS:
            val = _dtype_value(DTYPE_FLAGS[name], val)  # (``bfloat16`` is ``bf16``)
        if name in seen and (type(seen[name][1]) is not type(val) or seen[name][1] != val):
            out.append((f"engine.args.{raw}", f"{_shown(value)}: the same flag as {seen[name][0]} with another value; keep one"))
        seen.setdefault(name, (raw, val))
        field = DTYPE_FLAGS.get(name)
        if field is None:
            continue
        have, given = _dtype_value(field, fields.get(field)), val
        if have is not None and given is not None and have != given:
            out.append((f"engine.args.{raw}", f"{_shown(value)} contradicts {field} {fields.get(field)}; make them agree, or leave the flag out"))
    return out


def version_problem(version: str) -> str | None:
    """What is wrong with ``engine.version``; None when it is a release (``0.11.0``, ``v0.5.5.post1``,
    ``1.2.0rc1``, llama.cpp's ``b4567``, ``0.6.0-dev (build 0)``) or says it is not known (``unstated``)."""
    text = version.strip()
    if text.lower() in UNKNOWN_VERSIONS or _VERSION.match(text):
        return None
    return f"{version!r} is not a version; give the engine's release (such as 0.11.0 or b4567), or unstated when it is not known"


__all__ = [
    "ARG_KINDS",
    "DTYPE_FLAGS",
    "arg_conflicts",
    "ENGINE_ARG_KINDS",
    "UNKNOWN_VERSIONS",
    "ArgKind",
    "arg_kind",
    "arg_problem",
    "arg_problems",
    "version_problem",
]
