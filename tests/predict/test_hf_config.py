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


# --- Published config.json files of common families ---------------------------------
# Each dict holds the fields of the model's config.json on huggingface.co that decide
# its arithmetic, as published (fields that change nothing here, such as rope settings,
# token ids and norms, are left out). Expected counts are the publishers' own figures.

# meta-llama/Llama-4-Scout-17B-16E/config.json: the language model under text_config;
# one shared expert per MoE layer (Llama4TextMoe.shared_expert), intermediate_size is the
# expert width and intermediate_size_mlp the dense MLP's.
LLAMA4_SCOUT = {
    "architectures": ["Llama4ForConditionalGeneration"],
    "model_type": "llama4",
    "tie_word_embeddings": False,
    "text_config": {
        "model_type": "llama4_text",
        "hidden_size": 5120,
        "intermediate_size": 8192,
        "intermediate_size_mlp": 16384,
        "num_hidden_layers": 48,
        "num_attention_heads": 40,
        "num_key_value_heads": 8,
        "head_dim": 128,
        "num_local_experts": 16,
        "num_experts_per_tok": 1,
        "interleave_moe_layer_step": 1,
        "attention_chunk_size": 8192,
        "vocab_size": 202048,
        "max_position_embeddings": 10485760,
        "torch_dtype": "bfloat16",
    },
    "vision_config": {"model_type": "llama4_vision_model", "hidden_size": 1408, "num_hidden_layers": 34},
}
# meta-llama/Llama-4-Maverick-17B-128E/config.json: the same text model with 128 experts
# on every second layer (interleave_moe_layer_step 2), dense MLPs between.
LLAMA4_MAVERICK = {
    **LLAMA4_SCOUT,
    "text_config": {**LLAMA4_SCOUT["text_config"], "num_local_experts": 128, "interleave_moe_layer_step": 2, "max_position_embeddings": 1048576},
}
# deepseek-ai/DeepSeek-V3/config.json: MLA (q_lora_rank, kv_lora_rank, qk_*_head_dim,
# v_head_dim), 3 dense layers first (first_k_dense_replace), one shared expert of
# moe_intermediate_size, one MTP module (num_nextn_predict_layers, not counted in 671B).
DEEPSEEK_V3 = {
    "architectures": ["DeepseekV3ForCausalLM"],
    "model_type": "deepseek_v3",
    "hidden_size": 7168,
    "intermediate_size": 18432,
    "moe_intermediate_size": 2048,
    "num_hidden_layers": 61,
    "num_attention_heads": 128,
    "num_key_value_heads": 128,
    "q_lora_rank": 1536,
    "kv_lora_rank": 512,
    "qk_nope_head_dim": 128,
    "qk_rope_head_dim": 64,
    "v_head_dim": 128,
    "n_routed_experts": 256,
    "n_shared_experts": 1,
    "num_experts_per_tok": 8,
    "first_k_dense_replace": 3,
    "moe_layer_freq": 1,
    "num_nextn_predict_layers": 1,
    "vocab_size": 129280,
    "max_position_embeddings": 163840,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "quantization_config": {"activation_scheme": "dynamic", "fmt": "e4m3", "quant_method": "fp8", "weight_block_size": [128, 128]},
}
# Qwen/Qwen3-30B-A3B/config.json and Qwen/Qwen3-235B-A22B/config.json: every layer MoE
# (decoder_sparse_step 1, mlp_only_layers []), no shared expert.
QWEN3_30B_A3B = {
    "architectures": ["Qwen3MoeForCausalLM"],
    "model_type": "qwen3_moe",
    "hidden_size": 2048,
    "intermediate_size": 6144,
    "moe_intermediate_size": 768,
    "num_hidden_layers": 48,
    "num_attention_heads": 32,
    "num_key_value_heads": 4,
    "head_dim": 128,
    "num_experts": 128,
    "num_experts_per_tok": 8,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "max_window_layers": 48,
    "sliding_window": None,
    "use_sliding_window": False,
    "vocab_size": 151936,
    "max_position_embeddings": 40960,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
QWEN3_235B_A22B = {
    **QWEN3_30B_A3B,
    "hidden_size": 4096,
    "intermediate_size": 12288,
    "moe_intermediate_size": 1536,
    "num_hidden_layers": 94,
    "num_attention_heads": 64,
    "max_window_layers": 94,
}
# Qwen/Qwen1.5-MoE-A2.7B/config.json (Qwen2MoeForCausalLM): one shared expert
# shared_expert_intermediate_size wide beside 60 routed experts.
QWEN2_MOE_A2_7B = {
    "architectures": ["Qwen2MoeForCausalLM"],
    "model_type": "qwen2_moe",
    "hidden_size": 2048,
    "intermediate_size": 5632,
    "moe_intermediate_size": 1408,
    "shared_expert_intermediate_size": 5632,
    "num_hidden_layers": 24,
    "num_attention_heads": 16,
    "num_key_value_heads": 16,
    "num_experts": 60,
    "num_experts_per_tok": 4,
    "decoder_sparse_step": 1,
    "max_window_layers": 21,
    "sliding_window": 32768,
    "use_sliding_window": False,
    "vocab_size": 151936,
    "max_position_embeddings": 8192,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}
# openai/gpt-oss-120b/config.json: 128 experts, 4 per token, alternating 128-token
# sliding-window and full layers (attention sinks are per-head scalars: no parameters
# that count, no KV), MoE weights in mxfp4.
GPT_OSS_120B = {
    "architectures": ["GptOssForCausalLM"],
    "model_type": "gpt_oss",
    "hidden_size": 2880,
    "intermediate_size": 2880,
    "num_hidden_layers": 36,
    "num_attention_heads": 64,
    "num_key_value_heads": 8,
    "head_dim": 64,
    "num_local_experts": 128,
    "num_experts_per_tok": 4,
    "experts_per_token": 4,
    "sliding_window": 128,
    "layer_types": ["sliding_attention", "full_attention"] * 18,
    "vocab_size": 201088,
    "max_position_embeddings": 131072,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
    "quantization_config": {"quant_method": "mxfp4", "modules_to_not_convert": ["model.layers.*.self_attn", "model.embed_tokens", "lm_head"]},
}
# google/gemma-3-27b-it/config.json: the language model under text_config, which names
# neither vocab_size nor sliding_window_pattern (transformers' Gemma3TextConfig defaults:
# 262208 and 6, i.e. five sliding layers then one global) nor tie_word_embeddings (true).
GEMMA3_27B = {
    "architectures": ["Gemma3ForConditionalGeneration"],
    "model_type": "gemma3",
    "torch_dtype": "bfloat16",
    "text_config": {
        "model_type": "gemma3_text",
        "head_dim": 128,
        "hidden_size": 5376,
        "intermediate_size": 21504,
        "num_attention_heads": 32,
        "num_hidden_layers": 62,
        "num_key_value_heads": 16,
        "query_pre_attn_scalar": 168,
        "sliding_window": 1024,
    },
    "vision_config": {"model_type": "siglip_vision_model", "hidden_size": 1152, "num_hidden_layers": 27},
}


def _counts(cfg: dict[str, object]) -> tuple[float, float, float]:
    a = architecture(model_from_config(cfg, model_id="m"))
    return a.total_params / 1e9, a.active_params / 1e9, a.embedding_params / 1e9


@pytest.mark.parametrize(
    "cfg, total_b, active_b, active_counts_embedding, tol, source",  # tol: of the total; active figures 3 % (see below)
    [
        # Meta, Llama 4 model card: "17B active parameters, 109B total" (Scout), "17B / 400B" (Maverick).
        # 109B includes the vision encoder, which the reader leaves out (text_config only): 2 %.
        (LLAMA4_SCOUT, 109.0, 17.0, True, 0.02, "Llama 4 Scout model card"),
        (LLAMA4_MAVERICK, 400.0, 17.0, True, 0.02, "Llama 4 Maverick model card"),
        # DeepSeek-V3 README: 671B total, 37B activated (README_WEIGHTS.md: 36.6B incl. the 0.9B
        # output head, embedding not counted); the 14B MTP module is not part of the 671B.
        (DEEPSEEK_V3, 671.0, 37.0, False, 0.015, "DeepSeek-V3 README"),
        # Qwen3 model cards: "30.5B in total and 3.3B activated", "235B in total and 22B activated".
        (QWEN3_30B_A3B, 30.5, 3.3, True, 0.015, "Qwen3-30B-A3B model card"),
        (QWEN3_235B_A22B, 235.0, 22.0, True, 0.015, "Qwen3-235B-A22B model card"),
        # Qwen blog 'Qwen1.5-MoE: Matching 7B Model Performance with 1/3 Activated Parameters':
        # 14.3B total, 2.7B activated.
        (QWEN2_MOE_A2_7B, 14.3, 2.7, True, 0.015, "Qwen1.5-MoE blog"),
        # OpenAI gpt-oss model card (2025-08-05): 116.8B total, 5.1B active (embedding not counted).
        (GPT_OSS_120B, 116.8, 5.1, False, 0.015, "gpt-oss model card"),
    ],
)
def test_published_parameter_counts(cfg: dict[str, object], total_b: float, active_b: float, active_counts_embedding: bool, tol: float, source: str) -> None:
    total, active, emb = _counts(cfg)
    assert total == pytest.approx(total_b, rel=tol), source
    # active figures are published to two significant digits (3.3B, 5.1B, 17B, 22B): 3 %
    assert active + (emb if active_counts_embedding else 0.0) == pytest.approx(active_b, rel=0.03), source


def test_llama4_shared_expert_and_interleaved_layers() -> None:
    scout = model_from_config(LLAMA4_SCOUT, model_id="scout")
    assert (scout.num_experts, scout.num_experts_per_tok, scout.num_shared_experts) == (16, 1, 1)
    assert (scout.moe_intermediate_size, scout.intermediate_size, scout.num_moe_layers) == (8192, 16384, 48)
    assert scout.tie_word_embeddings is False  # top-level field, outside text_config
    maverick = architecture(model_from_config(LLAMA4_MAVERICK, model_id="maverick"))
    assert (maverick.moe_layers, maverick.layers - maverick.moe_layers) == (24, 24)  # MoE on layers 1, 3, ..., 47


def test_deepseek_v3_mla_and_dense_first_layers() -> None:
    m = model_from_config(DEEPSEEK_V3, model_id="dsv3")
    assert (m.kv_lora_rank, m.q_lora_rank, m.qk_rope_head_dim, m.qk_nope_head_dim, m.v_head_dim) == (512, 1536, 64, 128, 128)
    assert (m.num_moe_layers, m.num_shared_experts, m.moe_intermediate_size) == (58, 1, 2048)
    a = architecture(m)
    # MLA caches one latent of kv_lora_rank + qk_rope_head_dim per layer (not K and V per head)
    assert a.kv_bytes_per_token(1.0) == 61 * (512 + 64)
    assert m.quantization == "fp8"


def test_qwen2_moe_shared_expert_width() -> None:
    m = model_from_config(QWEN2_MOE_A2_7B, model_id="qwen1.5-moe")
    assert (m.shared_expert_intermediate_size, m.moe_intermediate_size, m.num_moe_layers) == (5632, 1408, 24)
    assert m.sliding_window is None  # use_sliding_window false


def test_qwen3_moe_sparse_step_and_dense_layers() -> None:
    cfg = {**QWEN3_30B_A3B, "decoder_sparse_step": 2, "mlp_only_layers": [1]}
    # transformers Qwen3MoeDecoderLayer: MoE where (i + 1) % step == 0 and i not in mlp_only_layers
    assert model_from_config(cfg, model_id="q").num_moe_layers == 23


def test_gemma3_defaults_and_sliding_pattern() -> None:
    m = model_from_config(GEMMA3_27B, model_id="gemma-3-27b-it")
    assert (m.vocab_size, m.sliding_window, m.sliding_window_layers, m.tie_word_embeddings) == (262208, 1024, 52, True)
    total, _, emb = _counts(GEMMA3_27B)
    # Gemma 3 Technical Report (arXiv:2503.19786) Table 1, 27B: 25,600M non-embedding + 1,416M embedding
    # parameters (the 417M vision encoder apart)
    assert total - emb == pytest.approx(25.6, rel=0.01)
    assert total == pytest.approx(27.016, rel=0.01)


def test_gemma2_alternates_sliding_layers() -> None:
    # google/gemma-2-9b/config.json: every other layer slides (4096 tokens), no layer_types field
    cfg = {
        "architectures": ["Gemma2ForCausalLM"],
        "model_type": "gemma2",
        "hidden_size": 3584,
        "intermediate_size": 14336,
        "num_hidden_layers": 42,
        "num_attention_heads": 16,
        "num_key_value_heads": 8,
        "head_dim": 256,
        "sliding_window": 4096,
        "vocab_size": 256000,
    }
    assert model_from_config(cfg, model_id="g2").sliding_window_layers == 21


def test_qwen2_sliding_window_starts_at_max_window_layers() -> None:
    # transformers Qwen2Config: layers i >= max_window_layers use the window when use_sliding_window is true
    cfg = {**LLAMA, "model_type": "qwen2", "use_sliding_window": True, "sliding_window": 4096, "max_window_layers": 28}
    assert model_from_config(cfg, model_id="q2").sliding_window_layers == 4


def test_tie_word_embeddings_defaults_per_family() -> None:
    base = {k: v for k, v in LLAMA.items() if k != "tie_word_embeddings"}
    assert model_from_config({**base, "model_type": "llama"}, model_id="a").tie_word_embeddings is False  # LlamaConfig
    assert model_from_config({**base, "model_type": "gemma"}, model_id="b").tie_word_embeddings is True  # GemmaConfig


# --- What the reader refuses, one line each -------------------------------------------


def _refused(cfg: dict[str, object], *needles: str) -> str:
    with pytest.raises(ValueError) as info:
        model_from_config(cfg, model_id="x")
    text = str(info.value)
    assert "\n" not in text
    for needle in needles:
        assert needle in text, text
    return text


# Qwen/Qwen3-Next-80B-A3B-Instruct/config.json (the fields the reader uses)
QWEN3_NEXT_80B_A3B = {
    "architectures": ["Qwen3NextForCausalLM"],
    "model_type": "qwen3_next",
    "hidden_size": 2048,
    "intermediate_size": 5120,
    "num_hidden_layers": 48,
    "num_attention_heads": 16,
    "num_key_value_heads": 2,
    "head_dim": 256,
    "linear_conv_kernel_dim": 4,
    "linear_key_head_dim": 128,
    "linear_num_key_heads": 16,
    "linear_num_value_heads": 32,
    "linear_value_head_dim": 128,
    "full_attention_interval": 4,
    "num_experts": 512,
    "num_experts_per_tok": 10,
    "moe_intermediate_size": 512,
    "shared_expert_intermediate_size": 512,
    "decoder_sparse_step": 1,
    "mlp_only_layers": [],
    "vocab_size": 151936,
    "max_position_embeddings": 262144,
    "tie_word_embeddings": False,
    "torch_dtype": "bfloat16",
}


def test_qwen3_next_is_read_as_a_gated_deltanet_hybrid() -> None:
    m = model_from_config(QWEN3_NEXT_80B_A3B, model_id="qwen3-next-80b-a3b")
    # full_attention_interval 4: layers 3, 7, ..., 47 are full attention, the other 36 Gated DeltaNet
    assert m.linear_attention_layers == 36
    assert (m.linear_num_key_heads, m.linear_num_value_heads, m.linear_key_head_dim, m.linear_value_head_dim) == (16, 32, 128, 128)
    assert m.linear_conv_kernel_dim == 4 and m.attn_output_gate is True
    arch = architecture(m)
    # the model card: 80B parameters in total, 3B activated
    assert arch.total_params == pytest.approx(80e9, rel=0.01)
    assert 3.0e9 <= arch.active_params <= 3.6e9
    # only the 12 full-attention layers cache K/V: 2 x 2 heads x 256 x 12 elements a token
    assert arch.kv_elements_per_token() == (2 * 2 * 256 * 12, 0.0)


def test_qwen3_5_layer_types_and_state_dtype_are_read() -> None:
    # Qwen/Qwen3.5-35B-A3B-style config.json: the language model under text_config, layer_types
    # mixing linear_attention and full_attention, the state dtype as mamba_ssm_dtype
    text = {**QWEN3_NEXT_80B_A3B, "model_type": "qwen3_5_moe_text", "num_hidden_layers": 40, "mamba_ssm_dtype": "float32"}
    del text["full_attention_interval"]
    text["layer_types"] = (["linear_attention"] * 3 + ["full_attention"]) * 10
    cfg = {"architectures": ["Qwen3_5MoeForConditionalGeneration"], "model_type": "qwen3_5_moe", "text_config": text}
    m = model_from_config(cfg, model_id="q35")
    assert m.linear_attention_layers == 30 and m.linear_state_dtype == "float32"
    assert architecture(m).full_layers == 10


def test_linear_attention_outside_a_known_hybrid_is_refused() -> None:
    # linear_attention layer kinds in a family whose layers the reader does not know (not Gated DeltaNet)
    cfg = {**QWEN3_30B_A3B, "num_hidden_layers": 40, "layer_types": (["linear_attention"] * 3 + ["full_attention"]) * 10}
    _refused(cfg, "layer_types", "30 of 40", "linear_attention", "not simulated")
    _refused({**QWEN3_30B_A3B, "full_attention_interval": 4, "linear_num_key_heads": 16}, "full_attention_interval", "not simulated")
    _refused({**LLAMA, "model_type": "kimi_linear", "linear_attn_config": {"kda_layers": [1, 2]}}, "not simulated")


@pytest.mark.parametrize(
    "extra, needle",
    [
        ({"hybrid_override_pattern": "M-M-M*-M-"}, "hybrid_override_pattern"),  # NVIDIA Nemotron-H (Mamba2 + attention)
        ({"attn_layer_period": 8, "attn_layer_offset": 4, "mamba_d_state": 16}, "attn_layer_period"),  # AI21 Jamba
        ({"model_type": "mamba", "state_size": 16}, "mamba"),  # state-space model, no attention
        ({"layer_types": ["full_attention", "mamba"] * 16}, "mamba"),  # IBM Granite 4.0 hybrid
    ],
)
def test_state_space_layers_are_refused(extra: dict[str, object], needle: str) -> None:
    _refused({**LLAMA, **extra}, needle, "not simulated")


def test_a_state_space_config_without_attention_fields_is_named_by_its_architecture() -> None:
    # state-spaces/mamba-130m-hf/config.json: no num_attention_heads at all; "config lacks num_attention_heads" said nothing of why
    mamba = {"architectures": ["MambaForCausalLM"], "hidden_size": 768, "num_hidden_layers": 24, "vocab_size": 50280, "state_size": 16}
    _refused(mamba, "architectures: MambaForCausalLM", "recurrent", "not simulated")
    _refused({**mamba, "architectures": ["RwkvForCausalLM"]}, "RwkvForCausalLM", "not simulated")
    _refused({**mamba, "architectures": ["LlamaForCausalLM"]}, "config lacks num_attention_heads")


@pytest.mark.parametrize("value", ["NaN", float("nan"), "32", 32.5, True, None])
def test_a_count_that_is_not_a_whole_number_names_its_field(value: object) -> None:
    if value is None:  # the alias a config used is the name said
        _refused({k: v for k, v in LLAMA.items() if k != "num_attention_heads"} | {"n_head": "x"}, 'n_head: "x" is not a whole number')
        return
    _refused({**LLAMA, "hidden_size": value}, f"hidden_size: {json.dumps(value)} is not a whole number")


def test_a_whole_float_count_is_read() -> None:
    assert model_from_config({**LLAMA, "hidden_size": float(LLAMA["hidden_size"])}, model_id="ok").hidden_size == LLAMA["hidden_size"]  # type: ignore[arg-type]


def test_gemma4_fields_it_cannot_follow_are_refused() -> None:
    # google/gemma-4-31B-it/config.json text_config: global layers with their own KV head count, K = V
    _refused({**LLAMA, "model_type": "gemma4_text", "num_global_key_value_heads": 4}, "num_global_key_value_heads")
    _refused({**LLAMA, "model_type": "gemma4_text", "attention_k_eq_v": True}, "attention_k_eq_v")
    _refused({**LLAMA, "model_type": "gemma4_text", "enable_moe_block": True, "num_experts": 8}, "enable_moe_block")
    # the same fields at values that change nothing are read as usual
    model_from_config({**LLAMA, "num_global_key_value_heads": 8, "attention_k_eq_v": False, "enable_moe_block": False}, model_id="ok")


def test_refusal_names_the_file(tmp_path: Path) -> None:
    p = tmp_path / "config.json"
    p.write_text(json.dumps({**LLAMA, "full_attention_interval": 4}))
    with pytest.raises(DocumentError, match=r"config\.json: full_attention_interval"):
        read_model_config(p)


def test_ungated_mlp_families() -> None:
    # EleutherAI/pythia-6.9b/config.json (GPTNeoXForCausalLM: dense_h_to_4h and dense_4h_to_h, no gate);
    # the Pythia paper (arXiv:2304.01373) Table 1 lists 6,857,302,016 parameters
    cfg = {
        "architectures": ["GPTNeoXForCausalLM"],
        "model_type": "gpt_neox",
        "hidden_size": 4096,
        "intermediate_size": 16384,
        "num_hidden_layers": 32,
        "num_attention_heads": 32,
        "vocab_size": 50432,
        "tie_word_embeddings": False,
    }
    m = model_from_config(cfg, model_id="pythia")
    assert m.gated_mlp is False
    assert architecture(m).total_params == pytest.approx(6_857_302_016, rel=0.005)
