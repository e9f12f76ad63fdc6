"""What a ``Model`` document implies for serving: parameter counts by role, FLOPs
and KV-cache bytes per token. Pure arithmetic on the Hugging Face config fields.

Conventions (documented once, used everywhere):

- An MLP is gated (SwiGLU/GeGLU: gate, up, down = 3 matrices of
  hidden x intermediate), which holds for every model the catalog ships, unless
  ``gated_mlp`` is false (up and down: 2 matrices; GPT-2, GPT-NeoX, Falcon).
- Attention per layer: q and o are hidden x (heads * head_dim); k and v are
  hidden x (kv_heads * head_dim), absent on KV-shared layers. Biases and norms
  are ignored (< 0.1 % of parameters).
- MoE: ``num_moe_layers`` layers are MoE layers (every layer when it is null and
  ``num_experts`` is set), the others have a dense MLP of ``intermediate_size``; a
  routed expert is a gated MLP of ``moe_intermediate_size`` (or
  ``intermediate_size``); the shared expert(s) of a layer are one gated MLP of
  ``shared_expert_intermediate_size`` (or ``num_shared_experts`` x the expert
  width) and run for every token; the router is hidden x experts.
- MLA (``kv_lora_rank`` set; DeepSeek-V2/V3): q is hidden x q_lora_rank x heads
  x (nope + rope) (or hidden x heads x (nope + rope) without ``q_lora_rank``);
  the KV down-projection is hidden x (kv_lora_rank + rope), its up-projection
  kv_lora_rank x heads x (nope + v), o is heads x v x hidden. Each layer caches
  one latent of kv_lora_rank + rope elements per token, whatever the heads (so
  tensor parallelism does not split it: every rank holds it, as in vLLM). Decode
  attends in the absorbed form (per head a key of kv_lora_rank + rope, a value of
  kv_lora_rank); prefill in the expanded form (keys nope + rope, values v).
- The LM head is vocab x hidden, multiplied only for tokens that need logits;
  the embedding (and Gemma's per-layer embeddings) are looked up, never
  multiplied, so they cost memory but not bandwidth per step.
- One token attending to n keys costs 2 * heads * (key dim + value dim) * n FLOPs
  per layer (QK^T and PV, 2 FLOPs per multiply-add): 4 * heads * head_dim * n.
- Sliding-window layers attend to at most ``sliding_window`` keys; full-attention
  layers use ``global_head_dim`` when it is set.
- Gated DeltaNet layers (``linear_attention_layers``; Qwen3-Next, Qwen3.5) hold no KV
  cache: each keeps, per sequence, a recurrent state of ``value heads x key dim x
  value dim`` elements and a convolution state of ``(kernel - 1) x conv dim``
  (conv dim = 2 x key heads x key dim + value heads x value dim). Their weights: the
  q/k/v/z input projection ``hidden x (2 key dim + 2 value dim)`` (all heads), the
  b/a gates ``hidden x 2 value heads``, the output projection and the depthwise
  convolution. A decode token reads and writes the state once per layer and costs
  ~7 x key dim x value dim FLOPs per value head (the readout, the delta and the
  rank-one update, 2 FLOPs each, and the decay); a prompt token, in the chunked form
  kernels use (flash-linear-attention's ``chunk_gated_delta_rule``, chunks of
  ``LINEAR_CHUNK`` = 64 tokens), ``2 x (chunk x (2 key dim + value dim) + 3 key dim x
  value dim)`` FLOPs per value head, and each prompt chunk of an iteration reads and
  writes the state once. With ``attn_output_gate`` the full-attention layers' q
  projection is twice as wide (a sigmoid gate on the output).
"""

from __future__ import annotations

from dataclasses import dataclass

from servescope.documents.model import Model

#: Tokens per chunk of the chunked gated-delta-rule kernels (flash-linear-attention's
#: ``chunk_gated_delta_rule``, which vLLM and SGLang call for Qwen3-Next prefill: BT = 64).
LINEAR_CHUNK = 64


@dataclass(frozen=True)
class Architecture:
    """Parameter counts by role and the attention/KV geometry of one model."""

    layers: int
    hidden: int
    heads: int
    kv_heads: int
    head_dim: int
    global_head_dim: int
    vocab: int
    intermediate: int
    expert_intermediate: int
    attn_params: float
    dense_mlp_params: float
    expert_params: float
    experts: int
    experts_per_tok: int
    moe_layers: int
    lm_head_params: float
    embedding_params: float
    per_layer_embedding_params: float
    tied_embeddings: bool
    full_layers: int
    sliding_layers: int
    kv_full_layers: int
    kv_sliding_layers: int
    sliding_window: int | None
    kv_latent: int = 0
    """MLA: elements one layer caches per token (kv_lora_rank + qk_rope_head_dim); 0 otherwise."""
    decode_qk_v: tuple[int, int] = (0, 0)
    """Key and value dims per head a decode token attends with in full layers (global_head_dim twice; MLA: absorbed)."""
    prefill_qk_v: tuple[int, int] = (0, 0)
    """The same for prompt tokens (MLA: expanded)."""
    linear_layers: int = 0
    """Gated DeltaNet layers: a constant state per sequence, no KV cache."""
    linear_heads: int = 0
    """Their value heads (one recurrent state of ``linear_kv_dims`` each)."""
    linear_kv_dims: tuple[int, int] = (0, 0)
    """Key and value dims per linear-attention head."""
    linear_conv_state: int = 0
    """Elements of one layer's convolution state per sequence ((kernel - 1) x conv dim)."""

    def linear_state_bytes(self, tp: int, ssm_bytes: float, conv_bytes: float) -> float:
        """Recurrent (``ssm_bytes`` an element) + convolution (``conv_bytes``) state one sequence
        holds over all linear layers, per device (heads and channels split by ``tp``)."""
        if not self.linear_layers:
            return 0.0
        dk, dv = self.linear_kv_dims
        return self.linear_layers * (self.linear_heads * dk * dv * ssm_bytes + self.linear_conv_state * conv_bytes) / tp

    def linear_flops_per_token(self) -> tuple[float, float]:
        """(decode, prefill) FLOPs of one token over all linear layers (see the module notes)."""
        if not self.linear_layers:
            return 0.0, 0.0
        dk, dv = self.linear_kv_dims
        per_head_decode = 7.0 * dk * dv
        per_head_prefill = 2.0 * (LINEAR_CHUNK * (2 * dk + dv) + 3.0 * dk * dv)
        n = self.linear_layers * self.linear_heads
        return n * per_head_decode, n * per_head_prefill

    @property
    def dense_linear_params(self) -> float:
        """Weights every scheduled token is multiplied by (attention + dense MLPs, shared experts, router)."""
        return self.attn_params + self.dense_mlp_params

    @property
    def routed_expert_params(self) -> float:
        return self.expert_params * self.experts * self.moe_layers

    @property
    def total_params(self) -> float:
        emb = 0.0 if self.tied_embeddings else self.embedding_params
        return self.dense_linear_params + self.routed_expert_params + self.lm_head_params + emb + self.per_layer_embedding_params

    @property
    def active_params(self) -> float:
        """Multiplied per generated token: dense + k experts per MoE layer + LM head."""
        return self.dense_linear_params + self.expert_params * self.experts_per_tok * self.moe_layers + self.lm_head_params

    def kv_elements_per_token(self, kv_heads: float | None = None) -> tuple[float, float]:
        """(full-attention, sliding-window) K+V elements one token adds, over all
        layers that keep their own cache. ``kv_heads`` overrides the head count
        (per-device counts under tensor parallelism)."""
        if self.kv_latent:
            return float(self.kv_latent * self.kv_full_layers), 0.0
        h = self.kv_heads if kv_heads is None else kv_heads
        return 2.0 * h * self.global_head_dim * self.kv_full_layers, 2.0 * h * self.head_dim * self.kv_sliding_layers

    def kv_bytes_per_token(self, kv_bytes: float) -> float:
        """KV bytes one token adds when the context is below the sliding window."""
        full, sliding = self.kv_elements_per_token()
        return (full + sliding) * kv_bytes

    def kv_bytes(self, context: int, kv_bytes: float) -> float:
        """KV bytes a sequence of ``context`` tokens holds (sliding layers cap at the window)."""
        full, sliding = self.kv_elements_per_token()
        window = self.sliding_window or context
        return (full * context + sliding * min(context, window)) * kv_bytes

    def attention_flops_per_key(self) -> tuple[float, float]:
        """(full, sliding) FLOPs for one decode query attending to one key, over all layers."""
        qk, v = self.decode_qk_v
        return 2.0 * self.heads * (qk + v) * self.full_layers, 4.0 * self.heads * self.head_dim * self.sliding_layers

    def prefill_attention_flops_per_key(self) -> tuple[float, float]:
        """(full, sliding) FLOPs for one prompt query attending to one key, over all layers."""
        qk, v = self.prefill_qk_v
        return 2.0 * self.heads * (qk + v) * self.full_layers, 4.0 * self.heads * self.head_dim * self.sliding_layers


def architecture(model: Model) -> Architecture:
    """Derive the serving arithmetic of ``model`` from its config fields."""
    L, h = model.num_hidden_layers, model.hidden_size
    nh, nkv = model.num_attention_heads, model.num_key_value_heads
    d = model.resolved_head_dim
    dg = model.global_head_dim or d
    linear = model.linear_attention_layers or 0
    A = L - linear  # layers with softmax attention (and a KV cache)
    if model.sliding_window is None:
        sliding = 0
    else:
        sliding = model.sliding_window_layers if model.sliding_window_layers is not None else A
    full = A - sliding
    shared = model.num_kv_shared_layers or 0
    own = A - shared
    # KV-shared layers are spread over both kinds in proportion (Gemma 4 E2B: 20 of 35
    # shared, 28 of 35 sliding -> own caches: 12 sliding + 3 full, exactly as its layer_types give).
    kv_sliding = round(sliding * own / A)
    kv_full = own - kv_sliding
    full_shared = full - kv_full
    sliding_shared = sliding - kv_sliding
    latent = 0
    decode_qk_v = prefill_qk_v = (dg, dg)
    if model.uses_mla:
        rank, rope = model.kv_lora_rank or 0, model.qk_rope_head_dim or 0
        nope, v = model.qk_nope_head_dim or 0, model.v_head_dim or 0
        qr = model.q_lora_rank
        q = h * qr + qr * nh * (nope + rope) if qr else h * nh * (nope + rope)
        per_layer = q + h * (rank + rope) + rank * nh * (nope + v) + nh * v * h
        attn = float(per_layer * L)
        latent = rank + rope
        decode_qk_v, prefill_qk_v = (rank + rope, rank), (nope + rope, v)
    else:
        q_o = (3 if model.attn_output_gate else 2) * h * nh * (full * dg + sliding * d)  # (the gate: a second q)
        k_v = 2 * h * nkv * (kv_full * dg + kv_sliding * d)
        attn = float(q_o + k_v)
    lin_heads, lin_dims, conv_state = 0, (0, 0), 0
    if linear:
        nk, nv = model.linear_num_key_heads or 0, model.linear_num_value_heads or 0
        dk, dv = model.linear_key_head_dim or 0, model.linear_value_head_dim or 0
        kernel = model.linear_conv_kernel_dim or 0
        key_dim, value_dim = nk * dk, nv * dv
        conv_dim = 2 * key_dim + value_dim
        per_layer = h * (2 * key_dim + 2 * value_dim) + h * 2 * nv + value_dim * h + conv_dim * kernel
        attn += float(linear * per_layer)
        lin_heads, lin_dims, conv_state = nv, (dk, dv), (kernel - 1) * conv_dim

    experts = model.num_experts or 0
    moe_layers = (model.num_moe_layers if model.num_moe_layers is not None else L) if experts else 0
    dense_layers = L - moe_layers
    inter = model.intermediate_size
    wide = (full_shared + sliding_shared) if model.use_double_wide_mlp else 0
    mats = 2.0 if model.gated_mlp is False else 3.0
    dense_mlp = mats * h * inter * (dense_layers - min(wide, dense_layers)) + mats * h * 2 * inter * min(wide, dense_layers)
    expert_inter = model.moe_intermediate_size or inter
    expert = mats * h * expert_inter if experts else 0.0
    if experts:
        shared = model.shared_expert_intermediate_size or (model.num_shared_experts or 0) * expert_inter
        dense_mlp += moe_layers * (h * experts + mats * h * shared)
    ple = 0.0
    if model.hidden_size_per_layer_input:
        p = model.hidden_size_per_layer_input
        ple = float((model.vocab_size_per_layer_input or model.vocab_size) * L * p)
        dense_mlp += 2.0 * h * p * L + h * L * p  # per-layer gate/projection and the model-level projection
    return Architecture(
        layers=L,
        hidden=h,
        heads=nh,
        kv_heads=nkv,
        head_dim=d,
        global_head_dim=dg,
        vocab=model.vocab_size,
        intermediate=inter,
        expert_intermediate=expert_inter if experts else 0,
        attn_params=attn,
        dense_mlp_params=dense_mlp,
        expert_params=expert,
        experts=experts,
        experts_per_tok=model.num_experts_per_tok or 0,
        moe_layers=moe_layers,
        lm_head_params=float(model.vocab_size * h),
        embedding_params=float(model.vocab_size * h),
        per_layer_embedding_params=ple,
        tied_embeddings=model.tie_word_embeddings,
        full_layers=full,
        sliding_layers=sliding,
        kv_full_layers=kv_full,
        kv_sliding_layers=kv_sliding,
        sliding_window=model.sliding_window,
        kv_latent=latent,
        decode_qk_v=decode_qk_v,
        prefill_qk_v=prefill_qk_v,
        linear_layers=linear,
        linear_heads=lin_heads,
        linear_kv_dims=lin_dims,
        linear_conv_state=conv_state,
    )
