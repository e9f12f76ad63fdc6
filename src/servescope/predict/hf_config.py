"""Read a Hugging Face ``config.json`` into a ``Model`` document (``--model-config PATH``).

Field names follow transformers' configs; the common aliases of older
architectures are accepted (GPT-2's ``n_layer``/``n_embd``/``n_head``, Mixtral's
``num_local_experts``, gpt-oss's ``experts_per_token``, DeepSeek's
``n_routed_experts``/``n_shared_experts``). Multimodal configs keep the language
model under ``text_config``: its fields win, and the vision tower is not counted
(a note says so). A field a published config omits takes the default of its
transformers config class (``_TYPE_DEFAULTS``), else ``PretrainedConfig``'s.

How each family's fields are read:

- **MoE layers**: every layer unless the config says otherwise — Llama 4's
  ``interleave_moe_layer_step`` (or ``moe_layers``), DeepSeek/GLM's
  ``first_k_dense_replace`` and ``moe_layer_freq``, Qwen's ``decoder_sparse_step``
  and ``mlp_only_layers``, each by its transformers modelling code's rule.
- **Shared experts**: Qwen2-MoE/Qwen3.5's ``shared_expert_intermediate_size``,
  DeepSeek's ``n_shared_experts`` x ``moe_intermediate_size``, Llama 4's one
  shared expert per MoE layer (its ``intermediate_size`` is the expert width and
  ``intermediate_size_mlp`` the dense MLP's).
- **MLA** (DeepSeek-V2/V3, Kimi K2): ``q_lora_rank``, ``kv_lora_rank``,
  ``qk_nope_head_dim``, ``qk_rope_head_dim``, ``v_head_dim``. Multi-token
  prediction modules (``num_nextn_predict_layers``) are not counted: engines load
  them only for speculative decoding.
- **Sliding windows**: ``sliding_window`` counts only when the config uses it
  (Qwen2/3 ship a window with ``use_sliding_window: false``); ``layer_types``
  says which layers slide, else Gemma 3/Cohere 2's ``sliding_window_pattern``
  (every n-th layer global), Gemma 2's alternation, Qwen2's
  ``max_window_layers`` (layers from there on slide), else every layer.
- **Llama 4 chunked attention** (``attention_chunk_size``) is kept on the Model;
  the simulator warns that it runs those layers as full attention.

- **Gated DeltaNet hybrids** (Qwen3-Next, Qwen3.5): ``layer_types``' ``linear_attention``
  layers (else all but every ``full_attention_interval``-th), ``linear_num_key_heads``,
  ``linear_num_value_heads``, ``linear_key_head_dim``, ``linear_value_head_dim``,
  ``linear_conv_kernel_dim``, ``mamba_ssm_dtype`` and the full-attention output gate.

What the simulator cannot follow is refused with one line naming the field:
other recurrent or state-space layers (Mamba, Jamba, Nemotron-H, Granite 4 hybrids,
MiniMax lightning attention, Kimi Linear), Gemma 4's per-layer-kind KV heads, K = V
attention and MoE block.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from servescope import limits
from servescope.documents import Model
from servescope.errors import DocumentError

_ALIASES: dict[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layer", "num_layers", "n_layers"),
    "hidden_size": ("hidden_size", "n_embd", "d_model", "dim"),
    "num_attention_heads": ("num_attention_heads", "n_head", "num_heads", "n_heads"),
    "num_key_value_heads": ("num_key_value_heads", "num_kv_heads", "n_kv_heads", "multi_query_group_num"),
    "intermediate_size": ("intermediate_size", "ffn_dim", "n_inner", "ffn_hidden_size"),
    "vocab_size": ("vocab_size", "padded_vocab_size"),
    "max_position_embeddings": ("max_position_embeddings", "n_positions", "max_seq_len", "seq_length"),
    "num_experts": ("num_experts", "num_local_experts", "n_routed_experts", "moe_num_experts"),
    "num_experts_per_tok": ("num_experts_per_tok", "experts_per_token", "num_experts_per_token", "moe_top_k"),
    "num_shared_experts": ("num_shared_experts", "n_shared_experts"),
}

# transformers config classes whose tie_word_embeddings defaults to false (LlamaConfig, Qwen2Config, ...)
_UNTIED = ("llama", "llama4", "llama4_text", "mistral", "mixtral", "qwen2", "qwen2_moe", "qwen3", "qwen3_moe",
           "deepseek_v2", "deepseek_v3", "gpt_oss", "phi3", "glm4_moe", "olmoe", "granite", "granitemoe")  # fmt: skip

# Defaults of transformers' config classes for fields published config.json files omit
# (PretrainedConfig's tie_word_embeddings default, true, holds for every other type).
_TYPE_DEFAULTS: dict[str, dict[str, Any]] = {
    # Gemma3TextConfig: vocab_size 262208, sliding_window_pattern 6 (google/gemma-3-27b-it's
    # text_config names neither)
    "gemma3_text": {"vocab_size": 262208, "sliding_window_pattern": 6},
    "gemma3": {"vocab_size": 262208, "sliding_window_pattern": 6},
    **{t: {"tie_word_embeddings": False} for t in _UNTIED},
}

# transformers model types whose MLP is not gated (up and down projections only).
_UNGATED_MLP = frozenset({"gpt2", "gpt_neox", "gptj", "gpt_bigcode", "opt", "bloom", "falcon", "phi", "starcoder2", "mpt"})

_ATTENTION_LAYER_KINDS = frozenset({"full_attention", "sliding_attention", "chunked_attention", "attention"})

# Fields that mean some layers are not attention layers (recurrent state, no KV growth).
_NOT_ATTENTION_FIELDS: tuple[tuple[str, str], ...] = (
    ("full_attention_interval", "hybrid linear attention (Qwen3-Next/Qwen3.5 Gated DeltaNet layers)"),
    ("hybrid_override_pattern", "Mamba2 layers between attention layers (Nemotron-H)"),
    ("layers_block_type", "Mamba layers between attention layers"),
    ("attn_layer_period", "Mamba layers between attention layers (Jamba)"),
    ("attn_type_list", "lightning (linear) attention layers (MiniMax)"),
    ("linear_attn_config", "linear attention layers (Kimi Linear)"),
    ("linear_num_value_heads", "linear attention layers"),
    ("linear_num_key_heads", "linear attention layers"),
    ("mamba_d_state", "Mamba layers"),
    ("mamba_n_heads", "Mamba layers"),
    ("mamba_num_heads", "Mamba layers"),
)
_RECURRENT_TYPES = frozenset(
    {"mamba", "mamba2", "falcon_mamba", "rwkv", "rwkv5", "rwkv6", "rwkv7", "jamba", "zamba", "zamba2", "bamba",
     "falcon_h1", "nemotron_h", "granitemoehybrid", "lfm2", "plamo2", "minimax", "recurrent_gemma", "kimi_linear", "xlstm"}
)  # fmt: skip
# Hybrids of Gated DeltaNet and full attention, which the simulator follows (``architecture``).
_GATED_DELTANET_TYPES = frozenset({"qwen3_next", "qwen3_5", "qwen3_5_moe", "qwen3_5_text", "qwen3_5_moe_text"})
_GATED_DELTANET_FIELDS = frozenset({"full_attention_interval", "linear_num_value_heads", "linear_num_key_heads"})
# Qwen3NextConfig / Qwen3_5TextConfig defaults (transformers) for the linear-attention fields a config omits.
_GATED_DELTANET_DEFAULTS = {"linear_conv_kernel_dim": 4, "linear_key_head_dim": 128, "linear_value_head_dim": 128,
                            "linear_num_key_heads": 16, "linear_num_value_heads": 32, "full_attention_interval": 4}  # fmt: skip
_NOT_SIMULATED = (
    "not simulated: such layers keep a constant state per sequence (no KV cache growth), and costed as attention "
    "they would overstate KV use and attention time; no prediction is made for this model"
)


def _first(cfg: dict[str, Any], names: tuple[str, ...]) -> Any:
    for name in names:
        if cfg.get(name) is not None:
            return cfg[name]
    return None


def slug(text: str) -> str:
    """A catalog id from a model name: ``meta-llama/Llama-3.1-8B`` → ``llama-3.1-8b``."""
    tail = text.rstrip("/").split("/")[-1].lower()
    out = re.sub(r"[^a-z0-9._-]+", "-", tail).strip("-._")
    return out or "model"


def _refuse_what_is_not_attention(cfg: dict[str, Any], layers: int | None) -> None:
    """One line for the first layer kind the simulator cannot follow."""
    deltanet = str(cfg.get("model_type") or "").lower() in _GATED_DELTANET_TYPES
    followed = _ATTENTION_LAYER_KINDS | ({"linear_attention"} if deltanet else set())
    layer_types = cfg.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        others = Counter(str(t) for t in layer_types if str(t) not in followed)
        if others:
            kinds = ", ".join(f"{n} of {len(layer_types)} layers are {kind}" for kind, n in others.most_common())
            raise ValueError(f"layer_types: {kinds} (layers that are not attention layers) are {_NOT_SIMULATED}")
    for key, what in _NOT_ATTENTION_FIELDS:
        if deltanet and key in _GATED_DELTANET_FIELDS:
            continue
        if cfg.get(key) not in (None, [], "", 0):
            raise ValueError(f"{key}: {cfg[key]!r} means {what}, which are {_NOT_SIMULATED}")
    for key in ("model_type",):
        mt = str(cfg.get(key) or "").lower()
        if mt in _RECURRENT_TYPES:
            raise ValueError(f"model_type: {mt} has recurrent (state-space or linear-attention) layers, which are {_NOT_SIMULATED}")
    if layers is not None and isinstance(layer_types, list) and layer_types and len(layer_types) != layers:
        raise ValueError(f"layer_types: {len(layer_types)} entries for {layers} layers (num_hidden_layers); fix the config")


def _whole(name: str, value: Any) -> int:
    """A count read from the config: a whole number (``32`` or ``32.0``), else one line naming the field."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    raise ValueError(f"{name}: {json.dumps(value)} is not a whole number; give the count the model was built with")


#: Words in an ``architectures`` class name for layers the simulator does not follow.
_RECURRENT_ARCHITECTURE_WORDS = ("mamba", "rwkv", "jamba", "zamba", "bamba", "xlstm", "recurrentgemma", "falconh1", "nemotronh")


def _refuse_recurrent_architectures(archs: Any) -> None:
    for arch in archs if isinstance(archs, list) else []:
        squashed = str(arch).lower().replace("_", "").replace("-", "")
        if any(word in squashed for word in _RECURRENT_ARCHITECTURE_WORDS):
            raise ValueError(f"architectures: {arch} has recurrent (state-space) layers, which are {_NOT_SIMULATED}")


def _refuse_gemma4_variants(cfg: dict[str, Any], kv_heads: int) -> None:
    g = cfg.get("num_global_key_value_heads")
    if g is not None and int(g) != kv_heads:
        raise ValueError(
            f"num_global_key_value_heads: {g} KV heads on full-attention layers beside {kv_heads} on sliding ones "
            "(Gemma 4) is not modelled: KV bytes and attention time would be wrong; no prediction is made for this model"
        )
    if cfg.get("attention_k_eq_v") is True:
        raise ValueError(
            "attention_k_eq_v: true (keys reused as values, Gemma 4) is not modelled: the KV cache would be counted twice; no prediction is made for this model"
        )
    if cfg.get("enable_moe_block") is True:
        raise ValueError(
            "enable_moe_block: true (Gemma 4's MoE block) is not modelled: its experts' weights and FLOPs would be missed; no prediction is made for this model"
        )


def _linear_attention_layers(cfg: dict[str, Any], layers: int) -> int | None:
    """Gated DeltaNet layers of a Qwen3-Next / Qwen3.5 config: ``layer_types``' ``linear_attention``
    entries, else every layer but each ``full_attention_interval``-th (Qwen3NextConfig.layer_types)."""
    if str(cfg.get("model_type") or "").lower() not in _GATED_DELTANET_TYPES:
        return None
    layer_types = cfg.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        n = sum(1 for t in layer_types if str(t) == "linear_attention")
    else:
        interval = int(cfg.get("full_attention_interval") or _GATED_DELTANET_DEFAULTS["full_attention_interval"])
        n = layers - layers // interval
    return n or None


def _moe_layers(cfg: dict[str, Any], layers: int) -> int | None:
    """How many layers are MoE layers, by the rule of the family's transformers modelling code."""
    listed = cfg.get("moe_layers")
    if isinstance(listed, list):
        return len(listed)  # Llama4TextConfig.moe_layers
    step = cfg.get("interleave_moe_layer_step")
    if isinstance(step, int) and step > 0:
        return len(range(step - 1, layers, step))  # Llama4TextConfig: layers step-1, 2*step-1, ...
    first_dense = cfg.get("first_k_dense_replace")
    freq = cfg.get("moe_layer_freq")
    if first_dense is not None or freq is not None:
        k, f = int(first_dense or 0), int(freq or 1)
        return sum(1 for i in range(layers) if i >= k and i % f == 0)  # DeepseekV3DecoderLayer
    sparse = cfg.get("decoder_sparse_step")
    only_mlp = cfg.get("mlp_only_layers") or []
    if sparse is not None or only_mlp:
        s = int(sparse or 1)
        return sum(1 for i in range(layers) if i not in only_mlp and (i + 1) % s == 0)  # Qwen2/3MoeDecoderLayer
    return None


def _sliding_layers(cfg: dict[str, Any], model_type: str, layers: int, window: int | None) -> int | None:
    """How many layers use the window (None: every layer)."""
    if window is None:
        return None
    layer_types = cfg.get("layer_types")
    if isinstance(layer_types, list) and layer_types:
        return sum(1 for t in layer_types if "sliding" in str(t))
    pattern = cfg.get("sliding_window_pattern")
    if isinstance(pattern, int) and pattern > 0:
        return sum(1 for i in range(layers) if (i + 1) % pattern != 0)  # Gemma3/Cohere2: every pattern-th layer global
    if model_type == "gemma2":
        return sum(1 for i in range(layers) if (i + 1) % 2)  # Gemma2Config.layer_types: even layers slide
    mwl = cfg.get("max_window_layers")
    if model_type.startswith("qwen") and isinstance(mwl, int):
        return max(0, layers - mwl)  # Qwen2Config.layer_types: layers >= max_window_layers slide
    return None


def model_from_config(config: dict[str, Any], *, model_id: str | None = None, name: str | None = None, source: str | None = None) -> Model:
    """Build a ``Model`` from the parsed contents of a ``config.json``; ``ValueError``
    (one line, naming the field) for what the simulator cannot follow."""
    if not isinstance(config, dict):
        raise ValueError("a config.json holds a JSON object")
    text = config.get("text_config")
    cfg: dict[str, Any] = {**config, **text} if isinstance(text, dict) else dict(config)
    model_type = str(cfg.get("model_type") or "").lower()
    for key, value in _TYPE_DEFAULTS.get(model_type, {}).items():
        cfg.setdefault(key, value)
    archs = config.get("architectures") or cfg.get("architectures") or [cfg.get("model_type") or "unknown"]
    fields: dict[str, Any] = {}
    for key, names in _ALIASES.items():
        fields[key] = _first(cfg, names)
        if fields[key] is not None:
            fields[key] = _whole(next(n for n in names if cfg.get(n) is not None), fields[key])
    _refuse_recurrent_architectures(archs)
    missing = [k for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size") if fields[k] is None]
    if missing:
        _refuse_what_is_not_attention(cfg, None)  # a state-space config lacks attention heads: named as what it is
        raise ValueError(f"config lacks {', '.join(missing)}")
    layers = int(fields["num_hidden_layers"])
    _refuse_what_is_not_attention(cfg, layers)
    if fields["num_key_value_heads"] is None:
        fields["num_key_value_heads"] = fields["num_attention_heads"]
    _refuse_gemma4_variants(cfg, int(fields["num_key_value_heads"]))
    if fields["intermediate_size"] is None:
        fields["intermediate_size"] = 4 * fields["hidden_size"]

    window = cfg.get("sliding_window")
    if cfg.get("use_sliding_window") is False or not isinstance(window, int) or window <= 0:
        window = None
    sliding_layers = _sliding_layers(cfg, model_type, layers, window)

    experts = int(fields["num_experts"]) if fields["num_experts"] else None
    inter = int(fields["intermediate_size"])
    moe_inter = int(cfg["moe_intermediate_size"]) if cfg.get("moe_intermediate_size") else None
    shared_n = fields["num_shared_experts"]
    shared_width = cfg.get("shared_expert_intermediate_size") or None
    moe_layers = None
    if experts:
        moe_layers = _moe_layers(cfg, layers)
        if cfg.get("intermediate_size_mlp"):
            # Llama 4: intermediate_size is the expert (and shared expert) width, intermediate_size_mlp the dense MLP's
            moe_inter, inter = inter, int(cfg["intermediate_size_mlp"])
        if model_type.startswith("llama4"):
            shared_n = 1  # Llama4TextMoe always has one shared expert
        if shared_width and shared_n is None:
            shared_n = 1
    notes = []
    if isinstance(config.get("vision_config"), dict):
        notes.append("vision tower (vision_config) not counted: parameters and image inputs are the language model's only")
    mtp = cfg.get("num_nextn_predict_layers") or cfg.get("mtp_num_hidden_layers")
    if mtp:
        notes.append(f"{mtp} multi-token-prediction layer(s) not counted: engines load them only for speculative decoding")
    gated = False if model_type in _UNGATED_MLP else None
    quant = cfg.get("quantization_config")
    mid = model_id or slug(name or str(cfg.get("_name_or_path") or archs[0]))
    doc = {
        "kind": "Model",
        "id": mid,
        "name": name or str(cfg.get("_name_or_path") or mid),
        "architecture": str(archs[0]),
        "num_hidden_layers": layers,
        "hidden_size": int(fields["hidden_size"]),
        "num_attention_heads": int(fields["num_attention_heads"]),
        "num_key_value_heads": int(fields["num_key_value_heads"]),
        "head_dim": int(cfg["head_dim"]) if cfg.get("head_dim") else None,
        "intermediate_size": inter,
        "vocab_size": int(fields["vocab_size"]),
        "max_position_embeddings": int(fields["max_position_embeddings"]) if fields["max_position_embeddings"] else None,
        "tie_word_embeddings": bool(cfg.get("tie_word_embeddings", True)),
        "num_experts": experts,
        "num_experts_per_tok": int(fields["num_experts_per_tok"]) if experts and fields["num_experts_per_tok"] else None,
        "num_shared_experts": int(shared_n) if shared_n is not None and experts else None,
        "moe_intermediate_size": moe_inter,
        "num_moe_layers": moe_layers,
        "shared_expert_intermediate_size": int(shared_width) if shared_width and experts else None,
        "gated_mlp": gated,
        "sliding_window": window,
        "sliding_window_layers": sliding_layers,
        "attention_chunk_size": int(cfg["attention_chunk_size"]) if cfg.get("attention_chunk_size") else None,
        "global_head_dim": int(cfg["global_head_dim"]) if cfg.get("global_head_dim") else None,
        "num_kv_shared_layers": int(cfg["num_kv_shared_layers"]) if cfg.get("num_kv_shared_layers") else None,
        "use_double_wide_mlp": bool(cfg["use_double_wide_mlp"]) if "use_double_wide_mlp" in cfg else None,
        "hidden_size_per_layer_input": int(cfg["hidden_size_per_layer_input"]) if cfg.get("hidden_size_per_layer_input") else None,
        "vocab_size_per_layer_input": int(cfg["vocab_size_per_layer_input"]) if cfg.get("vocab_size_per_layer_input") else None,
        "torch_dtype": cfg.get("torch_dtype") or cfg.get("dtype"),
        "quantization": quant.get("quant_method") if isinstance(quant, dict) else None,
        "mtp_layers": int(mtp) if mtp else None,
        "sources": [{"field": "all", "source": source}] if source else [],
        "notes": "; ".join(notes) or None,
    }
    if cfg.get("kv_lora_rank") is not None:
        for key in ("kv_lora_rank", "q_lora_rank", "qk_nope_head_dim", "qk_rope_head_dim", "v_head_dim"):
            doc[key] = int(cfg[key]) if cfg.get(key) else None
    linear = _linear_attention_layers(cfg, layers)
    if linear:
        doc["linear_attention_layers"] = linear
        for key in ("linear_num_key_heads", "linear_num_value_heads", "linear_key_head_dim", "linear_value_head_dim", "linear_conv_kernel_dim"):
            doc[key] = int(cfg.get(key) or _GATED_DELTANET_DEFAULTS[key])
        doc["linear_state_dtype"] = cfg.get("mamba_ssm_dtype")
        # Qwen3NextAttention always gates its output (q_proj is 2 x heads x head_dim); Qwen3.5 says so in attn_output_gate
        doc["attn_output_gate"] = bool(cfg.get("attn_output_gate", True))
    return Model.model_validate(doc)


def _read_config_json(p: Path) -> Any:
    """The JSON of a config.json, within the document limits (size, depth), or one line."""
    from servescope.documents.loader import DocumentTooLargeError, parse_json
    from servescope.documents.walk import file_type

    odd = file_type(p)
    if odd is not None:
        raise DocumentError(str(p), f"is {odd}, not a config.json file")
    try:
        if p.stat().st_size > limits.MAX_DOCUMENT_BYTES:
            raise DocumentError(str(p), f"is larger than {limits.MAX_DOCUMENT_BYTES // (1024 * 1024)} MiB; not a model's config.json")
        text = p.read_text(encoding="utf-8-sig")
    except OSError as exc:
        raise DocumentError(str(p), f"cannot be read: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise DocumentError(str(p), f"is not UTF-8 text (byte {exc.start}); expected a model's config.json") from exc
    try:
        return parse_json(text)
    except DocumentTooLargeError as exc:  # nested too deeply, too many values
        raise DocumentError(str(p), f"{exc}; not a model's config.json") from exc
    except ValueError as exc:
        raise DocumentError(str(p), f"is not JSON ({exc})") from exc


def read_model_config(path: str | Path, *, model_id: str | None = None, name: str | None = None) -> Model:
    """``Model`` from a local ``config.json`` (or a folder holding one)."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    config = _read_config_json(p)
    try:
        return model_from_config(config, model_id=model_id or slug(p.parent.name if p.parent.name else "model"), name=name, source=str(p))
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise DocumentError(str(p), f"{where}: {first['msg']}" if where else first["msg"]) from exc
    except ValueError as exc:
        raise DocumentError(str(p), str(exc)) from exc


__all__ = ["model_from_config", "read_model_config", "slug"]
