"""``Model``: an LLM's architecture, in the vocabulary of a Hugging Face
``config.json`` (so any local config.json can be read the same way)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from servescope.documents.base import Document, Issue, NonEmptyStr, StrictModel, error
from servescope.documents.hardware import Source


class ChatMessageTokens(StrictModel):
    """Tokens the chat template puts around one message of each role in a conversation's history
    (its role header and closing; ChatML's ``<|im_start|>user\\n`` ... ``<|im_end|>\\n``). A role left
    out is taken as half of ``chat_template_tokens``, rounded up. Measured as what one more message
    of the role adds beyond its text; a template that inserts a default system message when none
    is given (Qwen2.5's, Llama 3.1's) is not modelled: its one-message prompt already holds one."""

    system: int | None = Field(default=None, ge=0, description="Around a system message.")
    user: int | None = Field(default=None, ge=0, description="Around a user message (chat_template_tokens less this is the generation prompt).")
    assistant: int | None = Field(default=None, ge=0, description="Around an earlier answer resent in the history.")


class Model(Document):
    kind: Literal["Model"] = "Model"
    id: NonEmptyStr = Field(pattern=r"^[a-z0-9]+(?:[-._][a-z0-9]+)*$")
    name: NonEmptyStr = Field(description="The model's public name, e.g. meta-llama/Llama-3.1-8B-Instruct.")
    architecture: NonEmptyStr = Field(description="HF architectures[0], e.g. LlamaForCausalLM.")
    num_hidden_layers: int = Field(ge=1)
    hidden_size: int = Field(ge=1)
    num_attention_heads: int = Field(ge=1)
    num_key_value_heads: int = Field(ge=1)
    head_dim: int | None = Field(default=None, ge=1, description="Defaults to hidden_size / num_attention_heads.")
    intermediate_size: int = Field(ge=1)
    vocab_size: int = Field(ge=1)
    max_position_embeddings: int | None = Field(default=None, ge=1)
    tie_word_embeddings: bool = False
    num_experts: int | None = Field(default=None, ge=1, description="Routed experts per MoE layer.")
    num_experts_per_tok: int | None = Field(default=None, ge=1)
    num_shared_experts: int | None = Field(default=None, ge=0)
    moe_intermediate_size: int | None = Field(default=None, ge=1)
    num_moe_layers: int | None = Field(
        default=None,
        ge=0,
        description="How many layers are MoE layers (Llama 4 interleave_moe_layer_step, DeepSeek first_k_dense_replace, "
        "Qwen decoder_sparse_step); every layer when null and num_experts is set. The others have a dense MLP of "
        "intermediate_size.",
    )
    shared_expert_intermediate_size: int | None = Field(
        default=None,
        ge=1,
        description="Total width of the shared expert(s) of one MoE layer (Qwen2-MoE's field); num_shared_experts x moe_intermediate_size when null.",
    )
    q_lora_rank: int | None = Field(default=None, ge=1, description="MLA: rank of the query down-projection (none: full q).")
    kv_lora_rank: int | None = Field(default=None, ge=1, description="MLA (DeepSeek-V2/V3): width of the compressed KV latent each layer caches.")
    qk_nope_head_dim: int | None = Field(default=None, ge=1, description="MLA: per-head query/key dims without rotary embedding.")
    qk_rope_head_dim: int | None = Field(default=None, ge=1, description="MLA: per-head rotary query/key dims; the cached rotary key is shared by all heads.")
    v_head_dim: int | None = Field(default=None, ge=1, description="MLA: per-head value dims.")
    attention_chunk_size: int | None = Field(
        default=None,
        ge=1,
        description="Llama 4 chunked local attention: rotary layers attend only within chunks of this many tokens.",
    )
    gated_mlp: bool | None = Field(
        default=None,
        description="false: each MLP is an up and a down projection (GPT-2, GPT-NeoX, Falcon, Phi-2, StarCoder2); "
        "gated (SwiGLU/GeGLU: gate, up, down) when null or true.",
    )
    sliding_window: int | None = Field(default=None, ge=1, description="Window of sliding-window attention layers, tokens.")
    sliding_window_layers: int | None = Field(
        default=None,
        ge=0,
        description="How many layers use the sliding window (from HF layer_types); all layers when null and sliding_window is set.",
    )
    global_head_dim: int | None = Field(default=None, ge=1, description="Head dim of full-attention layers when it differs from head_dim (Gemma 4).")
    num_kv_shared_layers: int | None = Field(default=None, ge=0, description="Last layers that reuse an earlier layer's K/V: no K/V projection, no KV cache.")
    use_double_wide_mlp: bool | None = Field(default=None, description="KV-shared layers use an MLP twice intermediate_size wide (Gemma 4 E2B).")
    hidden_size_per_layer_input: int | None = Field(default=None, ge=1, description="Per-layer embedding width (Gemma PLE): looked up, never multiplied.")
    vocab_size_per_layer_input: int | None = Field(default=None, ge=1)
    linear_attention_layers: int | None = Field(
        default=None,
        ge=1,
        description="Gated DeltaNet (linear attention) layers (Qwen3-Next, Qwen3.5: HF layer_types 'linear_attention' or "
        "full_attention_interval): each keeps a constant recurrent state per sequence and no KV cache.",
    )
    linear_num_key_heads: int | None = Field(default=None, ge=1, description="Gated DeltaNet: query/key heads (HF linear_num_key_heads).")
    linear_num_value_heads: int | None = Field(
        default=None, ge=1, description="Gated DeltaNet: value heads, one recurrent state each (HF linear_num_value_heads)."
    )
    linear_key_head_dim: int | None = Field(default=None, ge=1, description="Gated DeltaNet: per-head key dims (HF linear_key_head_dim).")
    linear_value_head_dim: int | None = Field(default=None, ge=1, description="Gated DeltaNet: per-head value dims (HF linear_value_head_dim).")
    linear_conv_kernel_dim: int | None = Field(
        default=None, ge=1, description="Gated DeltaNet: width of the causal convolution before the recurrence (HF linear_conv_kernel_dim)."
    )
    linear_state_dtype: str | None = Field(
        default=None,
        description="Gated DeltaNet: dtype of the recurrent state the model asks for (HF mamba_ssm_dtype, e.g. float32); engine flags win.",
    )
    attn_output_gate: bool | None = Field(
        default=None,
        description="Full-attention layers gate their output with a second q-sized projection (Qwen3-Next, Qwen3.5): q_proj is twice as wide.",
    )
    mtp_layers: int | None = Field(
        default=None,
        ge=1,
        description="Multi-token-prediction layers the checkpoint ships (HF num_nextn_predict_layers / mtp_num_hidden_layers): "
        "loaded only for speculative decoding (method mtp), not counted in the model's weights.",
    )
    torch_dtype: str | None = Field(default=None, description="HF torch_dtype of the published weights, e.g. bfloat16.")
    quantization: str | None = Field(default=None, description="HF quantization_config.quant_method of the published checkpoint, e.g. mxfp4.")
    chat_template_tokens: int | None = Field(default=None, ge=0, description="Tokens the chat template adds to a one-message prompt (measured or counted).")
    chat_message_tokens: ChatMessageTokens | None = Field(
        default=None,
        description="Tokens the chat template adds around one message of each role of a multi-message prompt (measured or counted); "
        "unset roles: half of chat_template_tokens, rounded up.",
    )
    tokenizer: str | None = Field(
        default=None,
        description="A tokenizer.json that counts this model's tokens: a path, or 'package:' + a file under servescope's data folder.",
    )
    params_total_b: float | None = Field(default=None, gt=0.0, description="Published total parameters, billions.")
    params_active_b: float | None = Field(default=None, gt=0.0, description="Active per token (MoE), billions.")
    sources: list[Source] = Field(default_factory=list)
    notes: str | None = None

    @property
    def uses_mla(self) -> bool:
        """Multi-head latent attention (DeepSeek-V2/V3, Kimi K2): one compressed latent cached per layer."""
        return self.kv_lora_rank is not None

    @property
    def resolved_head_dim(self) -> int:
        return self.head_dim or self.hidden_size // self.num_attention_heads

    def check(self) -> list[Issue]:
        issues = []
        wraps = self.chat_message_tokens
        if wraps is not None and self.chat_template_tokens is None and any(v is not None for v in wraps.model_dump().values()):
            issues.append(error("chat_message_tokens", "needs chat_template_tokens (the one-message prompt the wraps are measured against)"))
        elif wraps is not None and wraps.user is not None and self.chat_template_tokens is not None and wraps.user > self.chat_template_tokens:
            issues.append(error("chat_message_tokens.user", f"{wraps.user} is more than chat_template_tokens ({self.chat_template_tokens}), which includes it"))
        if self.num_attention_heads % self.num_key_value_heads:
            issues.append(error("num_key_value_heads", "must divide num_attention_heads"))
        moe = (self.num_experts, self.num_experts_per_tok)
        if (moe[0] is None) != (moe[1] is None):
            issues.append(error("num_experts_per_tok", "num_experts and num_experts_per_tok go together"))
        if moe[0] is not None and moe[1] is not None and moe[1] > moe[0]:
            issues.append(error("num_experts_per_tok", "cannot exceed num_experts"))
        if self.sliding_window_layers is not None and self.sliding_window_layers > self.num_hidden_layers:
            issues.append(error("sliding_window_layers", "cannot exceed num_hidden_layers"))
        if self.sliding_window_layers and self.sliding_window is None:
            issues.append(error("sliding_window_layers", "needs sliding_window"))
        if self.num_kv_shared_layers is not None and self.num_kv_shared_layers >= self.num_hidden_layers:
            issues.append(error("num_kv_shared_layers", "must leave at least one layer with its own KV"))
        if self.num_moe_layers is not None and self.num_moe_layers > self.num_hidden_layers:
            issues.append(error("num_moe_layers", "cannot exceed num_hidden_layers"))
        if self.num_moe_layers and self.num_experts is None:
            issues.append(error("num_moe_layers", "needs num_experts"))
        mla = {"kv_lora_rank": self.kv_lora_rank, "qk_nope_head_dim": self.qk_nope_head_dim,
               "qk_rope_head_dim": self.qk_rope_head_dim, "v_head_dim": self.v_head_dim}  # fmt: skip
        if any(v is not None for v in mla.values()) and any(v is None for v in mla.values()):
            missing = ", ".join(k for k, v in mla.items() if v is None)
            issues.append(error("kv_lora_rank", f"MLA needs kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim and v_head_dim; missing {missing}"))
        if self.linear_attention_layers is not None:
            lin = {"linear_num_key_heads": self.linear_num_key_heads, "linear_num_value_heads": self.linear_num_value_heads,
                   "linear_key_head_dim": self.linear_key_head_dim, "linear_value_head_dim": self.linear_value_head_dim,
                   "linear_conv_kernel_dim": self.linear_conv_kernel_dim}  # fmt: skip
            missing = ", ".join(k for k, v in lin.items() if v is None)
            if missing:
                issues.append(error("linear_attention_layers", f"Gated DeltaNet layers need {missing}"))
            if self.linear_attention_layers >= self.num_hidden_layers:
                issues.append(error("linear_attention_layers", "must leave at least one full-attention layer"))
            if self.uses_mla or self.sliding_window is not None or self.num_kv_shared_layers:
                issues.append(error("linear_attention_layers", "linear attention beside MLA, sliding windows or KV-shared layers is not modelled"))
        elif self.linear_num_value_heads is not None:
            issues.append(error("linear_num_value_heads", "needs linear_attention_layers (how many layers are linear attention)"))
        if self.params_total_b is not None and self.params_active_b is not None and self.params_active_b > self.params_total_b:
            issues.append(error("params_active_b", "cannot exceed params_total_b"))
        return issues
