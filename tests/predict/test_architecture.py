"""Parameter counts and KV bytes from config fields, checked against hand arithmetic
and the parameter counts the model publishers state."""

from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Model
from servescope.predict.architecture import architecture


def test_llama_8b_counts_by_hand(llama8b: Model) -> None:
    a = architecture(llama8b)
    attn = 32 * (2 * 4096 * 32 * 128 + 2 * 4096 * 8 * 128)
    mlp = 32 * 3 * 4096 * 14336
    head = 128256 * 4096
    assert a.attn_params == attn == 1_342_177_280
    assert a.dense_mlp_params == mlp
    assert a.lm_head_params == head
    assert a.total_params == attn + mlp + 2 * head == 8_029_995_008
    assert a.active_params == attn + mlp + head


def test_llama_8b_kv_bytes_per_token(llama8b: Model) -> None:
    # 2 (K and V) * 32 layers * 8 KV heads * 128 head dim * 2 bytes (bf16)
    assert architecture(llama8b).kv_bytes_per_token(2.0) == 2 * 32 * 8 * 128 * 2 == 131072


def test_sliding_window_caps_kv(catalog: Catalog) -> None:
    a = architecture(catalog.model("gpt-oss-120b"))
    assert (a.sliding_layers, a.full_layers, a.sliding_window) == (18, 18, 128)
    per_layer = 2 * 8 * 64 * 2  # K+V, 8 kv heads, head dim 64, bf16
    assert a.kv_bytes(100, 2.0) == 36 * per_layer * 100
    assert a.kv_bytes(1000, 2.0) == 18 * per_layer * 1000 + 18 * per_layer * 128


def test_gemma4_kv_sharing_and_head_dims(catalog: Catalog) -> None:
    a = architecture(catalog.model("gemma-4-e2b-it"))
    # 35 layers, the last 20 reuse earlier KV: 15 own caches = 12 sliding (head 256) + 3 full (head 512), 1 KV head
    assert (a.kv_sliding_layers, a.kv_full_layers) == (12, 3)
    assert a.kv_bytes_per_token(2.0) == 2 * 1 * (12 * 256 + 3 * 512) * 2
    # effective (non-PLE) parameters: Google states 2.3B
    assert a.total_params - a.per_layer_embedding_params == pytest.approx(2.3e9, rel=0.03)


@pytest.mark.parametrize(
    "model_id",
    [
        "llama-3.1-8b",
        "llama-3.1-70b",
        "llama-3.3-70b",
        "qwen2.5-7b",
        "qwen3-32b",
        "qwen3-30b-a3b",
        "qwen3-235b-a22b",
        "mixtral-8x7b",
        "mistral-nemo-12b",
        "gpt-oss-120b",
    ],
)
def test_counts_match_published_totals(catalog: Catalog, model_id: str) -> None:
    """The architecture arithmetic reproduces each publisher's total within 1.5 %."""
    model = catalog.model(model_id)
    assert model.params_total_b is not None
    assert architecture(model).total_params / 1e9 == pytest.approx(model.params_total_b, rel=0.015)


@pytest.mark.parametrize(
    "model_id, active_b, with_embedding",
    [("gpt-oss-120b", 5.1, False), ("mixtral-8x7b", 12.9, True), ("qwen3-235b-a22b", 22.0, True), ("qwen3-30b-a3b", 3.3, True)],
)
def test_moe_active_counts(catalog: Catalog, model_id: str, active_b: float, with_embedding: bool) -> None:
    """Active = dense + k experts + LM head; Mistral and Qwen also count the embedding table, OpenAI does not."""
    a = architecture(catalog.model(model_id))
    active = a.active_params + (a.embedding_params if with_embedding else 0.0)
    assert active / 1e9 == pytest.approx(active_b, rel=0.03)
