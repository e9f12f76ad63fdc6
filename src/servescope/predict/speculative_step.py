"""Speculative decoding's step cost (inputs: ``speculative``).

**Physics** (``SpeculativeStepTimeModel``, the step-time model's own terms). One
verify step of B decoding sequences runs the target on B x (k + 1) query tokens:
GEMMs with M = B(k + 1) and the weights read once, each sequence's KV read once
and its attention FLOPs x (k + 1); and k sequential draft passes at batch B:

- ``draft_model``: k decode passes of the draft model on the same devices (tp as
  the target);
- ``eagle``/``eagle3``: one decoder layer of the target's shape plus its fc
  (2h x h; EAGLE-3: 3h x h and q/k/v over 2h inputs) and an LM head (the target's;
  EAGLE-3's own 32,000-token draft vocabulary, the ``draft_vocab_size`` of the
  published EAGLE-3 heads);
- ``mtp``: one decoder layer of the target (a MoE layer when the model is MoE)
  plus ``eh_proj`` (2h x h) and the target's LM head;
- ``ngram``: nothing (a host-side lookup).

A draft pass pays the per-layer and per-token overheads, not the iteration's fixed
one (no scheduling or output processing of its own). The expected tokens per step,
``E = (1 - alpha^(k+1)) / (1 - alpha)`` (fewer when fewer are left), divide it: the
simulator keeps one token per decode iteration and an iteration takes
(draft + verify) / E. A prompt-carrying iteration costs what the engine runs (the
chunks, the decoders' verify, the draft's prefill of the chunks and its drafts for
them) less the (E - 1) / E of the decoders' step the later iterations already
charge, so the total device time is kept. Tokens reach the client in chunks, one
per verify step (``verify_chunks``). The draft's weights and its KV (per token, beside
the target's) come off the KV pool, as vLLM allocates them.

**Approximations, stated.** Every step accepts the mean (no spread between steps or
requests, so ITL has no acceptance spread); a request's last step is charged
pro rata; EAGLE's first draft pass takes the accepted tokens as one token; the
draft's sliding-window layers are costed as full attention. Not validated: no
measured speculative-decoding point is in the validation set (a warning says so on
every such prediction).
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np

from servescope.documents import Hardware
from servescope.predict.architecture import Architecture
from servescope.predict.calibration import Calibration
from servescope.predict.speculative import Speculation
from servescope.predict.step_time import StepTimeModel

#: EAGLE-3 heads' draft vocabulary (``draft_vocab_size`` of the published heads, e.g. yuhuili/EAGLE3-LLaMA3.1-Instruct-8B).
EAGLE3_DRAFT_VOCAB = 32000


def head_architecture(target: Architecture, method: str) -> tuple[Architecture, bool]:
    """The draft head of ``method`` (eagle, eagle3, mtp) as a one-layer architecture of the
    target's shape, and whether its LM head is the target's (shared: no weights of its own)."""
    a = target
    h = a.hidden
    layers = max(1, a.layers)
    attn = a.attn_params / layers
    gated_mlp = 3.0 * h * a.intermediate
    experts, moe_layers, expert = 0, 0, 0.0
    if method == "mtp":
        fc = 2.0 * h * h  # eh_proj: [embedding; hidden] -> hidden
        if a.experts and a.moe_layers:
            dense_layers = a.layers - a.moe_layers
            mlp = (a.dense_mlp_params - gated_mlp * dense_layers) / a.moe_layers  # router + shared experts of one MoE layer
            experts, moe_layers, expert = a.experts, 1, a.expert_params
        else:
            mlp = gated_mlp
        vocab, shared = a.vocab, True
    elif method == "eagle3":
        fc = 3.0 * h * h + h * (a.heads + 2 * a.kv_heads) * a.head_dim  # fc over 3 hidden states; q/k/v over 2h inputs
        mlp, vocab, shared = gated_mlp, EAGLE3_DRAFT_VOCAB, False
    else:  # eagle
        fc = 2.0 * h * h
        mlp, vocab, shared = gated_mlp, a.vocab, True
    head = replace(
        a,
        layers=1,
        vocab=vocab,
        attn_params=attn,
        dense_mlp_params=mlp + fc,
        expert_params=expert,
        experts=experts,
        experts_per_tok=a.experts_per_tok if experts else 0,
        moe_layers=moe_layers,
        lm_head_params=float(vocab * h),
        embedding_params=0.0,
        per_layer_embedding_params=0.0,
        tied_embeddings=True,
        full_layers=1,
        sliding_layers=0,
        kv_full_layers=1,
        kv_sliding_layers=0,
        sliding_window=None,
        linear_layers=0,
        linear_heads=0,
        linear_kv_dims=(0, 0),
        linear_conv_state=0,
    )
    return head, shared


class SpeculativeStepTimeModel(StepTimeModel):
    """The target's step-time model with speculative decoding: each decode iteration the
    simulator runs is 1 / E of a verify step (draft + verify), so it still emits one token
    per decoding sequence (see the module notes)."""

    def __init__(
        self,
        arch: Architecture,
        hardware: Hardware,
        calibration: Calibration,
        *,
        speculation: Speculation,
        draft: StepTimeModel | None,
        draft_shares_lm_head: bool = False,
        **kwargs: Any,
    ) -> None:
        if kwargs.get("overlap_host"):
            # its draft and verify passes add the host terms themselves (``_verify_fixed``, ``_draft_pass_fixed``)
            raise ValueError("speculative decoding is simulated without overlap scheduling (engine_flags.overlap_scheduling)")
        super().__init__(arch, hardware, calibration, **kwargs)
        self.spec = speculation
        self.draft = draft
        self.query = speculation.tokens + 1
        self.decode_query_tokens = self.query
        self.per_step = speculation.tokens_per_step
        self._draft_shares_lm_head = draft_shares_lm_head
        self._spec_fixed: dict[int, float] = {}
        d = draft
        self._draft_per_key = 0.0
        if d is not None:
            # the draft's every layer over every key (its sliding layers as full ones: module notes)
            self._draft_per_key = max((d._attn_flops_full + d._attn_flops_slide) / d._attn_rate, (d._kv_full + d._kv_slide) / d._bw)
        self.notes.append(f"speculative decoding: {speculation.method}, k = {speculation.tokens}, {self.per_step:.2f} tokens per verify step")

    # --- the draft -------------------------------------------------------------------
    def _draft_pass_fixed(self, b: int) -> float:
        """One draft pass at batch ``b`` but its attention: no iteration overhead of its own."""
        d = self.draft
        if d is None or b <= 0:
            return 0.0
        c = d.cal
        return (
            d.linear_time(b) + d.lm_head_time(b) + d.moe_time(b) + d.communication_time(b)
            + d.arch.layers * c.layer_overhead_s + b * c.token_overhead_s
        )  # fmt: skip

    def _draft_prefill(self, prefill: list[tuple[int, int]] | tuple[tuple[int, int], ...]) -> float:
        """The draft's pass over the prompt chunks (its KV of them; EAGLE/MTP heads read the target's hidden states)."""
        d = self.draft
        if d is None or not prefill:
            return 0.0
        q = sum(n for n, _ in prefill)
        c = d.cal
        attn = sum(d.prefill_attention_time(n, ctx) for n, ctx in prefill)
        return d.linear_time(q) + d.moe_time(q) + d.communication_time(q) + attn + d.arch.layers * c.layer_overhead_s + q * c.token_overhead_s

    # --- the verify step ----------------------------------------------------------------
    def _verify_fixed(self, b: int) -> float:
        q = b * self.query
        c = self.cal
        t = (
            self.linear_time(q) + self.lm_head_time(q) + self.moe_time(q) + self.communication_time(q)
            + self._overhead_fixed + q * c.token_overhead_s + b * self.per_step * c.output_token_overhead_s
        )  # fmt: skip
        if self._lin_io:
            t += self.linear_attention_time(0, q, b)  # each sequence's state read and written once, k + 1 tokens through it
        return t

    def _verify_attention(self, keys_full: float, keys_sliding: float) -> float:
        """k + 1 query tokens per sequence: the KV read once, the FLOPs k + 1 times."""
        if keys_full <= 0 and keys_sliding <= 0:
            return 0.0
        flops = self.query * (self._attn_flops_full * keys_full + self._attn_flops_slide * keys_sliding)
        nbytes = self._kv_full * keys_full + self._kv_slide * keys_sliding
        return self._roof(flops, self._attn_rate, nbytes)

    def _step_fixed(self, b: int) -> float:
        """Every term of a verify step of ``b`` sequences (drafts included) but the KV attention."""
        t = self._spec_fixed.get(b)
        if t is None:
            t = self._spec_fixed[b] = self._verify_fixed(b) + self.spec.tokens * self._draft_pass_fixed(b)
        return t

    def verify_step_time(self, b: int, keys_full: float, keys_sliding: float = 0.0) -> float:
        """One whole draft + verify step of ``b`` decoding sequences holding ``keys_*`` keys (the new token included)."""
        if b <= 0:
            return 0.0
        draft_attn = self.spec.tokens * self._draft_per_key * (keys_full + keys_sliding) if self.draft is not None else 0.0
        return self._step_fixed(b) + self._verify_attention(keys_full, keys_sliding) + draft_attn

    # --- what the simulator calls ----------------------------------------------------------
    def _decode_fixed(self, b: int) -> float:
        return self._step_fixed(b) / self.per_step

    def decode_line(self, batch: int, keys_sum: float) -> tuple[float, float] | None:
        if self._window is not None and self._attn_flops_slide:
            return None
        per_key = max(self.query * self._attn_flops_full / self._attn_rate, self._kv_full / self._bw)
        per_key = (per_key + self.spec.tokens * self._draft_per_key) / self.per_step
        return self._decode_fixed(batch) + per_key * (keys_sum + batch), per_key * batch

    def decode_run(self, contexts: np.ndarray, steps: int, *, keys_sum: float | None = None, lead: float | None = None) -> np.ndarray:
        b = int(contexts.size)
        keys_total = float(contexts.sum()) if keys_sum is None else keys_sum
        if self.decode_line(b, keys_total) is not None:
            return super().decode_run(contexts, steps, keys_sum=keys_total, lead=lead)
        assert self._window is not None
        j = np.arange(steps, dtype=np.float64)
        keys_full = keys_total + b + j * b
        grid = np.minimum(contexts[:, None].astype(np.float64) + 1.0 + j[None, :], float(self._window))
        keys_slide = grid.sum(axis=0)
        flops = self.query * (self._attn_flops_full * keys_full + self._attn_flops_slide * keys_slide)
        nbytes = self._kv_full * keys_full + self._kv_slide * keys_slide
        attn = np.maximum(flops / self._attn_rate, nbytes / self._bw)
        if self.draft is not None:
            attn += self.spec.tokens * self._draft_per_key * keys_full
        out = (self._step_fixed(b) + attn) / self.per_step
        return out if lead is None else np.concatenate(([lead], out))

    def step_time(
        self,
        decode_tokens: int = 0,
        decode_keys_full: float = 0.0,
        decode_keys_sliding: float = 0.0,
        prefill: Any = (),
        logits: int | None = None,
    ) -> float:
        nd = decode_tokens
        if not prefill:
            return self.verify_step_time(nd, decode_keys_full, decode_keys_sliding) / self.per_step
        finishing = (logits - nd) if logits is not None else len(prefill)
        q_prompt = sum(q for q, _ in prefill)
        tokens = nd * self.query + q_prompt
        n_logits = nd * self.query + finishing
        c = self.cal
        attn = self._verify_attention(decode_keys_full, decode_keys_sliding)
        for q, ctx in prefill:
            attn += self.prefill_attention_time(q, ctx)
        if self._lin_io:
            attn += self.linear_attention_time(0, tokens, nd + len(prefill))
        device = (
            self.linear_time(tokens) + self.lm_head_time(n_logits) + self.moe_time(tokens) + attn + self.communication_time(tokens)
            + self._overhead_fixed + tokens * c.token_overhead_s + (nd * self.per_step + finishing) * c.output_token_overhead_s
        )  # fmt: skip
        device = max(device, self._eager_step)
        # the draft: its pass over the chunks, then k drafts for every sequence that decodes next
        drafted = nd + finishing
        device += self._draft_prefill(prefill) + self.spec.tokens * self._draft_pass_fixed(drafted)
        if self.draft is not None:
            device += self.spec.tokens * self._draft_per_key * (decode_keys_full + decode_keys_sliding)
        if not nd:
            return device
        # the decoders get one token here and E - 1 more over the next iterations, which charge them
        decode = self.verify_step_time(nd, decode_keys_full, decode_keys_sliding)
        return max(device - (self.per_step - 1.0) / self.per_step * decode, decode / self.per_step)

    # --- memory ------------------------------------------------------------------------
    @property
    def draft_weight_bytes_per_device(self) -> float:
        d = self.draft
        if d is None:
            return 0.0
        own = d.weight_bytes_per_device
        return own - d._head_bytes if self._draft_shares_lm_head else own

    @property
    def weight_bytes_per_device(self) -> float:
        return super().weight_bytes_per_device + self.draft_weight_bytes_per_device

    @property
    def kv_bytes_per_token_per_device(self) -> float:
        extra = self.draft.kv_bytes_per_token_per_device if self.draft is not None else 0.0
        return super().kv_bytes_per_token_per_device + extra

    @property
    def kv_full_bytes_per_token_per_device(self) -> float:
        extra = self.draft.kv_bytes_per_token_per_device if self.draft is not None else 0.0
        return super().kv_full_bytes_per_token_per_device + extra


__all__ = ["EAGLE3_DRAFT_VOCAB", "SpeculativeStepTimeModel", "head_architecture"]
