"""Read a Hugging Face ``config.json`` into a ``Model`` document (``--model-config PATH``).

Field names follow transformers' configs; the common aliases of older
architectures are accepted (GPT-2's ``n_layer``/``n_embd``/``n_head``, Mixtral's
``num_local_experts``, gpt-oss's ``experts_per_token``). Multimodal configs keep
the language model under ``text_config``: its fields win. Defaults are
transformers' own: ``num_key_value_heads`` = heads, ``tie_word_embeddings`` =
true (``PretrainedConfig``'s default). ``sliding_window`` counts only when the
config uses it (Qwen2/3 ship a window with ``use_sliding_window: false``), and
``layer_types`` says how many layers slide.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

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


def model_from_config(config: dict[str, Any], *, model_id: str | None = None, name: str | None = None, source: str | None = None) -> Model:
    """Build a ``Model`` from the parsed contents of a ``config.json``."""
    if not isinstance(config, dict):
        raise ValueError("a config.json holds a JSON object")
    text = config.get("text_config")
    cfg: dict[str, Any] = {**config, **text} if isinstance(text, dict) else dict(config)
    archs = config.get("architectures") or cfg.get("architectures") or [cfg.get("model_type") or "unknown"]
    fields: dict[str, Any] = {}
    for key, names in _ALIASES.items():
        fields[key] = _first(cfg, names)
    missing = [k for k in ("num_hidden_layers", "hidden_size", "num_attention_heads", "vocab_size") if fields[k] is None]
    if missing:
        raise ValueError(f"config lacks {', '.join(missing)}")
    if fields["num_key_value_heads"] is None:
        fields["num_key_value_heads"] = fields["num_attention_heads"]
    if fields["intermediate_size"] is None:
        fields["intermediate_size"] = 4 * fields["hidden_size"]
    window = cfg.get("sliding_window")
    if cfg.get("use_sliding_window") is False or not isinstance(window, int) or window <= 0:
        window = None
    layer_types = cfg.get("layer_types")
    sliding_layers = None
    if window is not None and isinstance(layer_types, list) and layer_types:
        sliding_layers = sum(1 for t in layer_types if "sliding" in str(t))
    quant = cfg.get("quantization_config")
    mid = model_id or slug(name or str(cfg.get("_name_or_path") or archs[0]))
    shared = fields["num_shared_experts"]
    doc = {
        "kind": "Model",
        "id": mid,
        "name": name or str(cfg.get("_name_or_path") or mid),
        "architecture": str(archs[0]),
        "num_hidden_layers": int(fields["num_hidden_layers"]),
        "hidden_size": int(fields["hidden_size"]),
        "num_attention_heads": int(fields["num_attention_heads"]),
        "num_key_value_heads": int(fields["num_key_value_heads"]),
        "head_dim": int(cfg["head_dim"]) if cfg.get("head_dim") else None,
        "intermediate_size": int(fields["intermediate_size"]),
        "vocab_size": int(fields["vocab_size"]),
        "max_position_embeddings": int(fields["max_position_embeddings"]) if fields["max_position_embeddings"] else None,
        "tie_word_embeddings": bool(cfg.get("tie_word_embeddings", True)),
        "num_experts": int(fields["num_experts"]) if fields["num_experts"] else None,
        "num_experts_per_tok": int(fields["num_experts_per_tok"]) if fields["num_experts"] and fields["num_experts_per_tok"] else None,
        "num_shared_experts": int(shared) if shared is not None and fields["num_experts"] else None,
        "moe_intermediate_size": int(cfg["moe_intermediate_size"]) if cfg.get("moe_intermediate_size") else None,
        "sliding_window": window,
        "sliding_window_layers": sliding_layers,
        "global_head_dim": int(cfg["global_head_dim"]) if cfg.get("global_head_dim") else None,
        "num_kv_shared_layers": int(cfg["num_kv_shared_layers"]) if cfg.get("num_kv_shared_layers") else None,
        "use_double_wide_mlp": bool(cfg["use_double_wide_mlp"]) if "use_double_wide_mlp" in cfg else None,
        "hidden_size_per_layer_input": int(cfg["hidden_size_per_layer_input"]) if cfg.get("hidden_size_per_layer_input") else None,
        "vocab_size_per_layer_input": int(cfg["vocab_size_per_layer_input"]) if cfg.get("vocab_size_per_layer_input") else None,
        "torch_dtype": cfg.get("torch_dtype") or cfg.get("dtype"),
        "quantization": quant.get("quant_method") if isinstance(quant, dict) else None,
        "sources": [{"field": "all", "source": source}] if source else [],
    }
    return Model.model_validate(doc)


def read_model_config(path: str | Path, *, model_id: str | None = None, name: str | None = None) -> Model:
    """``Model`` from a local ``config.json`` (or a folder holding one)."""
    p = Path(path)
    if p.is_dir():
        p = p / "config.json"
    try:
        config = json.loads(p.read_text(encoding="utf-8"))
    except OSError as exc:
        raise DocumentError(str(p), f"cannot be read: {exc.strerror or exc}") from exc
    except json.JSONDecodeError as exc:
        raise DocumentError(str(p), f"is not JSON: {exc.msg} (line {exc.lineno})") from exc
    try:
        return model_from_config(config, model_id=model_id or slug(p.parent.name if p.parent.name else "model"), name=name, source=str(p))
    except ValueError as exc:
        raise DocumentError(str(p), str(exc)) from exc


__all__ = ["model_from_config", "read_model_config", "slug"]
