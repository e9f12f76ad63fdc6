"""--model-config: any local config.json becomes a Model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.errors import DocumentError
from servescope.predict.architecture import architecture
from servescope.predict.hf_config import model_from_config, read_model_config, slug

LLAMA = {
    "architectures": ["LlamaForCausalLM"],
    "hidden_size": 4096,
    "intermediate_size": 14336,
    "max_position_embeddings": 131072,
    "num_attention_heads": 32,
    "num_hidden_layers": 32,
    "num_key_value_heads": 8,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "vocab_size": 128256,
}


def test_llama_config_round_trip(tmp_path: Path) -> None:
    folder = tmp_path / "Llama-3.1-8B-Instruct"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps(LLAMA))
    m = read_model_config(folder)
    assert m.id == "llama-3.1-8b-instruct"
    assert (m.num_hidden_layers, m.num_key_value_heads, m.resolved_head_dim) == (32, 8, 128)
    assert architecture(m).kv_bytes_per_token(2.0) == 131072


def test_unused_sliding_window_is_ignored() -> None:
    cfg = {**LLAMA, "sliding_window": 131072, "use_sliding_window": False}
    assert model_from_config(cfg, model_id="q").sliding_window is None


def test_layer_types_count_sliding_layers() -> None:
    cfg = {**LLAMA, "sliding_window": 128, "layer_types": ["sliding_attention", "full_attention"] * 16}
    m = model_from_config(cfg, model_id="g")
    assert (m.sliding_window, m.sliding_window_layers) == (128, 16)


def test_moe_aliases_and_text_config() -> None:
    cfg = {
        "architectures": ["SomeForConditionalGeneration"],
        "text_config": {**LLAMA, "num_local_experts": 8, "experts_per_token": 2},
    }
    m = model_from_config(cfg, model_id="moe")
    assert (m.num_experts, m.num_experts_per_tok, m.architecture) == (8, 2, "SomeForConditionalGeneration")


def test_gpt2_aliases_and_defaults() -> None:
    m = model_from_config({"architectures": ["GPT2LMHeadModel"], "n_layer": 12, "n_embd": 768, "n_head": 12, "vocab_size": 50257}, model_id="gpt2")
    assert (m.num_hidden_layers, m.num_key_value_heads, m.intermediate_size, m.tie_word_embeddings) == (12, 12, 3072, True)


def test_errors_are_document_errors(tmp_path: Path) -> None:
    with pytest.raises(DocumentError, match="cannot be read"):
        read_model_config(tmp_path / "missing.json")
    bad = tmp_path / "config.json"
    bad.write_text("{not json")
    with pytest.raises(DocumentError, match="not JSON"):
        read_model_config(bad)
    bad.write_text(json.dumps({"hidden_size": 8}))
    with pytest.raises(DocumentError, match="lacks"):
        read_model_config(bad)


def test_slug() -> None:
    assert slug("meta-llama/Llama-3.1-8B") == "llama-3.1-8b"
    assert slug("Qwen/Qwen3 30B (A3B)") == "qwen3-30b-a3b"
