"""``Scenario``: a deployment — model, hardware, engine with its version and
flags, parallelism and dtypes. Named like ``llama-3.1-8b-on-h100``."""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, model_validator

from servescope.documents.base import Document, Issue, NonEmptyStr, NonNegFloat, StrictModel, error
from servescope.documents.config_id import normalize_engine
from servescope.documents.scenario_args import arg_conflicts, arg_problems, version_problem

SpeculativeMethod = Literal["draft_model", "eagle", "eagle3", "mtp", "ngram"]
Dtype = Literal["fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4", "q8_0", "q6_k", "q5_k_m", "q4_k_m", "q4_0", "auto"]
FlagValue = str | int | float | bool | None


class EngineSpec(StrictModel):
    id: NonEmptyStr = Field(description="Engine name: vllm, sglang, llama.cpp, tgi, ollama, trt-llm, ...")
    version: NonEmptyStr
    args: dict[str, FlagValue] = Field(default_factory=dict, description="Engine flags as given on its command line (names normalised for config_id).")
    max_num_seqs: int | None = Field(default=None, ge=1)
    max_num_batched_tokens: int | None = Field(default=None, ge=1)
    block_size: int | None = Field(default=None, ge=1)
    gpu_memory_utilization: float | None = Field(default=None, gt=0.0, le=1.0)
    enable_prefix_caching: bool | None = None
    enable_chunked_prefill: bool | None = None
    max_model_len: int | None = Field(default=None, ge=1)

    @model_validator(mode="before")
    @classmethod
    def _non_finite_args(cls, data: Any) -> Any:
        """A NaN or infinite flag value (YAML ``.nan``, ``.inf``) is kept as its word, so ``Scenario.check``
        refuses it in one line naming the flag rather than as four type mismatches."""
        if not isinstance(data, Mapping) or not isinstance(data.get("args"), Mapping):
            return data
        args = data["args"]
        if not any(isinstance(v, float) and not math.isfinite(v) for v in args.values()):
            return data
        kept = {k: str(v) if isinstance(v, float) and not math.isfinite(v) else v for k, v in args.items()}
        return {**data, "args": kept}

    @model_validator(mode="before")
    @classmethod
    def _structured_args(cls, data: Any) -> Any:
        """``engine.args`` written as structured YAML is read as the command line it stands for:

        - TensorRT-LLM / NIM: a nested mapping, as its extra-llm-api-config YAML is written
          (``kv_cache_config: {free_gpu_memory_fraction: 0.6}``), is the same flags dotted
          (``kv_cache_config.free_gpu_memory_fraction: 0.6``); a null inside it is a key left at its
          default (that YAML's meaning) and is dropped;
        - any other engine: a mapping is the flag's JSON, as vLLM's and SGLang's JSON-valued flags take
          it (``--speculative-config: {method: eagle3}`` = ``'{"method": "eagle3"}'``);
        - a list of numbers or names is the values space-separated, as a command line gives a
          multi-value flag (``batch_sizes: [1, 2, 4]`` = ``"1 2 4"``).

        The same flag given twice (nested and dotted) with different values, an empty mapping or list,
        a key that is not a name and a list of anything else are refused, each in one line."""
        if not isinstance(data, Mapping):
            return data
        args = data.get("args")
        if not isinstance(args, Mapping) or not any(isinstance(v, Mapping | list) for v in args.values()):
            return data
        nested_is_dotted = normalize_engine(str(data.get("id", ""))) in ("trt-llm", "nim")
        flat: dict[str, Any] = {}

        def plain(name: str, item: Any) -> Any:
            if isinstance(item, list):
                if not item or not all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in item):
                    raise ValueError(f"{name}: {item!r}: give a non-empty list of numbers or names (a command line's values)")
                return " ".join(str(v) for v in item)
            if isinstance(item, Mapping) and not nested_is_dotted:
                return json.dumps(item)
            return item

        def walk(prefix: str, tree: Mapping[Any, Any]) -> None:
            for key, item in tree.items():
                if not isinstance(key, str):
                    raise ValueError(f"{prefix + '.' if prefix else ''}{key!r} is not a flag name; quote it")
                name = f"{prefix}.{key}" if prefix else key
                if isinstance(item, Mapping) and (nested_is_dotted or not item):
                    if not item:
                        raise ValueError(f"{name}: an empty mapping sets nothing; give its keys or drop it")
                    walk(name, item)
                    continue
                if item is None and prefix:
                    continue  # a key of a nested block left at its default
                item = plain(name, item)
                if name in flat and (type(flat[name]) is not type(item) or flat[name] != item):
                    raise ValueError(f"{name} is given twice, nested and dotted, with different values ({flat[name]!r}, {item!r}); keep one")
                flat[name] = item

        walk("", args)
        return {**data, "args": flat}


class Scenario(Document):
    kind: Literal["Scenario"] = "Scenario"
    name: NonEmptyStr = Field(pattern=r"^[a-z0-9]+(?:[-._][a-z0-9]+)*$")
    description: str = ""
    model: NonEmptyStr = Field(description="Model id from the catalog (or a path to a config.json).")
    hardware: NonEmptyStr = Field(description="Hardware id from the catalog.")
    count: int = Field(default=1, ge=1, description="Devices used in total (tp * pp * dp).")
    engine: EngineSpec
    tp: int = Field(default=1, ge=1)
    pp: int = Field(default=1, ge=1)
    dp: int = Field(default=1, ge=1)
    weight_dtype: Dtype = "bf16"
    kv_dtype: Dtype = "auto"
    quantization: str | None = None
    speculative_tokens: int | None = Field(default=None, ge=1, description="Speculative decoding: draft tokens proposed per step (none when null).")
    speculative_method: SpeculativeMethod | None = Field(
        default=None,
        description="Speculative decoding: how drafts are proposed (a small draft model, an EAGLE/EAGLE-3 head, the model's MTP layer, n-gram lookup).",
    )
    speculative_draft_model: NonEmptyStr | None = Field(
        default=None, description="speculative_method draft_model: the draft model's catalog id (or a path to its config.json)."
    )
    speculative_acceptance_rate: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Speculative decoding: probability that a draft token is accepted, given the ones before it were."
    )
    speculative_acceptance_length: float | None = Field(
        default=None,
        ge=1.0,
        description="Speculative decoding: mean tokens emitted per verify step (accepted drafts + the target's own token), as engines log it.",
    )
    price_per_device_hour_usd: NonNegFloat | None = None
    notes: str | None = None

    def check(self) -> list[Issue]:
        if self.tp * self.pp * self.dp != self.count:
            return [error("count", f"count {self.count} != tp*pp*dp = {self.tp * self.pp * self.dp}")]
        out: list[Issue] = self._engine_issues()
        if self.speculative_acceptance_rate is not None and self.speculative_acceptance_length is not None:
            out.append(error("speculative_acceptance_length", "give speculative_acceptance_rate or speculative_acceptance_length, not both"))
        k, length = self.speculative_tokens, self.speculative_acceptance_length
        if k is not None and length is not None and length > k + 1:
            out.append(error("speculative_acceptance_length", f"{length} tokens per step is more than speculative_tokens {k} + 1 allow"))
        if self.speculative_draft_model is not None and self.speculative_method not in (None, "draft_model"):
            out.append(error("speculative_draft_model", f"only speculative_method draft_model takes a draft model (method is {self.speculative_method})"))
        return out

    def _engine_issues(self) -> list[Issue]:
        """``engine.version`` a version, each ``engine.args`` value of its kind (``scenario_args``), and a
        dtype flag (``--dtype``, ``--kv-cache-dtype``, ``--quantization``) agreeing with its field."""
        e = self.engine
        out = [error("engine.version", problem)] if (problem := version_problem(e.version)) else []
        out += [error(path, problem) for path, problem in arg_problems(e.id, e.args)]
        fields = {"weight_dtype": self.weight_dtype, "kv_dtype": self.kv_dtype, "quantization": self.quantization}
        out += [error(path, problem) for path, problem in arg_conflicts(e.id, e.args, fields)]
        return out
