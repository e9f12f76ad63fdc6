"""``Scenario``: a deployment — model, hardware, engine with its version and
flags, parallelism and dtypes. Named like ``llama-3.1-8b-on-h100``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from pydantic import Field, field_validator

from servescope.documents.base import Document, Issue, NonEmptyStr, NonNegFloat, StrictModel, error

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

    @field_validator("args", mode="before")
    @classmethod
    def _flatten_nested(cls, value: Any) -> Any:
        """A nested mapping, as TensorRT-LLM's extra-llm-api-config YAML is written
        (``kv_cache_config: {free_gpu_memory_fraction: 0.6}``), is the same flags dotted
        (``kv_cache_config.free_gpu_memory_fraction: 0.6``); a list of plain values is the
        values space-separated, as a command line gives them (``batch_sizes: [1, 2, 4]`` =
        ``"1 2 4"``)."""
        if not isinstance(value, Mapping) or not any(isinstance(v, Mapping | list) for v in value.values()):
            return value
        flat: dict[str, Any] = {}

        def walk(prefix: str, tree: Mapping[Any, Any]) -> None:
            for key, item in tree.items():
                name = f"{prefix}.{key}" if prefix else str(key)
                if isinstance(item, Mapping):
                    if not item:
                        raise ValueError(f"{name}: an empty mapping sets nothing; give its keys or drop it")
                    walk(name, item)
                    continue
                if isinstance(item, list) and all(isinstance(v, str | int | float) and not isinstance(v, bool) for v in item):
                    item = " ".join(str(v) for v in item)
                if name in flat and flat[name] != item:
                    raise ValueError(f"{name} is given twice, nested and dotted, with different values ({flat[name]!r}, {item!r}); keep one")
                flat[name] = item

        walk("", value)
        return flat


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
        out: list[Issue] = []
        if self.speculative_acceptance_rate is not None and self.speculative_acceptance_length is not None:
            out.append(error("speculative_acceptance_length", "give speculative_acceptance_rate or speculative_acceptance_length, not both"))
        k, length = self.speculative_tokens, self.speculative_acceptance_length
        if k is not None and length is not None and length > k + 1:
            out.append(error("speculative_acceptance_length", f"{length} tokens per step is more than speculative_tokens {k} + 1 allow"))
        if self.speculative_draft_model is not None and self.speculative_method not in (None, "draft_model"):
            out.append(error("speculative_draft_model", f"only speculative_method draft_model takes a draft model (method is {self.speculative_method})"))
        return out
