"""Speculative decoding: what a scenario asks for, and what a step of it costs.

**Inputs.** A scenario states the method (``speculative_method``: ``draft_model``,
``eagle``, ``eagle3``, ``mtp``, ``ngram``), the draft tokens per step k
(``speculative_tokens``), the draft model for ``draft_model``
(``speculative_draft_model``: a catalog id or a config.json, as the main model)
and the acceptance: the per-position acceptance rate alpha
(``speculative_acceptance_rate``) or the mean tokens per verify step as engines log
it (``speculative_acceptance_length``, accepted drafts + the target's own token).
The engines' flags say the same (``speculation`` reads them; a flag that
contradicts a field is refused, one line):

- vLLM ``--speculative-config '{"method", "num_speculative_tokens", "model", ...}'``
  (before 0.10: ``--speculative-model``, ``--num-speculative-tokens``); a missing
  method is inferred as vLLM does (``[ngram]``; "eagle3"/"eagle" in the draft's
  name; any other draft: ``draft_model``); ``*mtp`` methods are ``mtp``;
- SGLang ``--speculative-algorithm EAGLE|EAGLE3|NEXTN|MTP|STANDALONE|NGRAM``,
  ``--speculative-num-steps`` (k), ``--speculative-eagle-topk`` and
  ``--speculative-num-draft-tokens`` (a chain: top-k 1 and k + 1 draft tokens),
  ``--speculative-draft-model-path``;
- llama.cpp ``--model-draft``/``-md`` and ``--draft-max``: read, then refused (the
  server drafts a variable number of tokens, stopping below ``--draft-p-min``).

**Acceptance defaults** (chat data, temperature 0), each the alpha whose expected
tokens per step reproduces a published figure:

- ``eagle3``: alpha 0.74: vLLM measured a mean acceptance length of 3.53 at k = 7 for
  Llama-3.1-8B-Instruct with yuhuili/EAGLE3-LLaMA3.1-Instruct-8B on MT-Bench
  (vllm-project/vllm issue #26191, from PR #17504);
- ``eagle``: alpha 0.55: 1.89 at k = 2 and 2.08 at k = 4 for Llama-3-8B-Instruct with
  lmsys/sglang-EAGLE-LLaMA3-Instruct-8B on MT-Bench (vllm-project/vllm PR #16035);
- ``mtp``: alpha 0.85: DeepSeek-V3's technical report (arXiv 2412.19437, section
  5.4.3): "the acceptance rate of the second token prediction ranges between 85% and
  90%" (the low end; one MTP layer reused for k > 1 accepts less at later positions,
  which a constant alpha does not see);
- ``draft_model`` and ``ngram``: none. A draft model's acceptance is a property of the
  pair, an n-gram's of how often the output repeats the prompt (vLLM's ngram on
  code edits accepts 0.81 at the first position, vllm-project/vllm PR #24344; on chat
  far less): the scenario must state it.

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

import json
import math
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from servescope.documents import Hardware, Scenario
from servescope.documents.config_id import normalize_engine
from servescope.errors import NotModelledError
from servescope.predict.architecture import Architecture
from servescope.predict.calibration import Calibration
from servescope.predict.engine_flags import LLAMA_CPP_ENGINES, canonical
from servescope.predict.step_time import StepTimeModel

METHODS = ("draft_model", "eagle", "eagle3", "mtp", "ngram")

#: EAGLE-3 heads' draft vocabulary (``draft_vocab_size`` of the published heads, e.g. yuhuili/EAGLE3-LLaMA3.1-Instruct-8B).
EAGLE3_DRAFT_VOCAB = 32000


@dataclass(frozen=True)
class AcceptanceDefault:
    rate: float
    source: str


DEFAULT_ACCEPTANCE: dict[str, AcceptanceDefault] = {
    "eagle3": AcceptanceDefault(0.74, "default: mean acceptance length 3.53 at k = 7, Llama-3.1-8B EAGLE-3 on MT-Bench, vLLM issue #26191"),
    "eagle": AcceptanceDefault(0.55, "default: 1.89 tokens per step at k = 2, Llama-3-8B EAGLE on MT-Bench, vLLM PR #16035"),
    "mtp": AcceptanceDefault(0.85, "default: DeepSeek-V3 report, second-token acceptance 85-90 %"),
}

# vLLM --speculative-config methods that are an MTP layer of the model (vllm/config/speculative.py)
_VLLM_MTP_SUFFIX = "mtp"
_SGLANG_ALGORITHMS = {"EAGLE": "eagle", "EAGLE3": "eagle3", "NEXTN": "mtp", "MTP": "mtp", "STANDALONE": "draft_model", "NGRAM": "ngram"}
_SPEC_FLAGS = frozenset(
    {
        "speculative-config", "speculative-model", "num-speculative-tokens", "speculative-algorithm",
        "speculative-draft-model-path", "speculative-num-steps", "speculative-eagle-topk", "speculative-num-draft-tokens",
        "speculative-draft-tensor-parallel-size", "speculative-max-model-len",
        "model-draft", "md", "hf-repo-draft", "draft-max", "draft-min", "draft", "draft-n", "draft-p-min", "spec-replace",
        "decoding-config", "speculative_config",
    }
)  # fmt: skip


def is_speculative_flag(name: str) -> bool:
    """A canonical flag name that configures speculative decoding (``speculation`` reads it)."""
    return name in _SPEC_FLAGS or name.startswith("speculative")


def expected_tokens(alpha: float, k: int, left: int | None = None) -> float:
    """Tokens one verify step emits in expectation with k drafts accepted position by position
    with probability alpha: 1 + alpha + ... + alpha^k = (1 - alpha^(k+1)) / (1 - alpha);
    with only ``left`` tokens to go, the first min(k + 1, left) terms."""
    n = k + 1 if left is None else max(0, min(k + 1, left))
    if alpha >= 1.0:
        return float(n)
    return (1.0 - alpha**n) / (1.0 - alpha)


def rate_from_length(length: float, k: int) -> float:
    """The alpha whose ``expected_tokens(alpha, k)`` is ``length`` (1 <= length <= k + 1)."""
    if length >= k + 1:
        return 1.0
    lo, hi = 0.0, 1.0
    for _ in range(60):  # (monotone in alpha: bisection to float precision)
        mid = (lo + hi) / 2
        if expected_tokens(mid, k) < length:
            lo = mid
        else:
            hi = mid
    return (lo + hi) / 2


@dataclass(frozen=True)
class Speculation:
    """What a scenario's speculative decoding resolves to."""

    method: str
    tokens: int
    acceptance_rate: float
    acceptance_source: str
    draft_model: str | None = None

    @property
    def tokens_per_step(self) -> float:
        return expected_tokens(self.acceptance_rate, self.tokens)

    def warning(self, scenario: str) -> str:
        return (
            f"scenario {scenario}: speculative decoding ({self.method}, k = {self.tokens}): acceptance {self.acceptance_rate:.3f} per "
            f"draft position ({self.acceptance_source}), {self.tokens_per_step:.2f} tokens per verify step; simulated at the mean "
            "acceptance (no spread between steps or requests) and not validated: no measured speculative-decoding point is in the "
            "validation set"
        )


def _refuse(scenario: Scenario, where: str, what: str) -> NotModelledError:
    return NotModelledError(f"scenario {scenario.name}: {where}: {what}")


def _int_flag(scenario: Scenario, where: str, value: Any) -> int:
    if isinstance(value, bool) or value is None:
        raise _refuse(scenario, where, f"{value!r} is not a number of tokens; give one")
    try:
        number = int(str(value))
    except ValueError:
        raise _refuse(scenario, where, f"{value!r} is not a number of tokens; give one") from None
    if number < 1:
        raise _refuse(scenario, where, f"{number} draft tokens: give at least 1, or leave speculative decoding out")
    return number


@dataclass
class _Stated:
    """What the flags say (each with the flag it came from, for the one line)."""

    method: tuple[str, str] | None = None
    tokens: tuple[str, int] | None = None
    draft: tuple[str, str] | None = None


def _vllm_method(scenario: Scenario, where: str, method: Any, model: str | None) -> str:
    if method is None:
        if model is None:
            raise _refuse(scenario, where, 'no method and no draft model: give "method" (draft_model, eagle, eagle3, mtp, ngram)')
        name = model.lower()
        if name in ("ngram", "[ngram]"):
            return "ngram"
        if "eagle3" in name:
            return "eagle3"
        if "eagle" in name:
            return "eagle"
        return "draft_model"
    m = str(method).lower()
    if m in ("eagle", "eagle3", "ngram", "draft_model"):
        return m
    if m.endswith(_VLLM_MTP_SUFFIX):
        return "mtp"
    raise _refuse(scenario, where, f"method {method!r} is not simulated (simulated: draft_model, eagle, eagle3, mtp, ngram); predict without it")


def _read_vllm(scenario: Scenario, flags: dict[str, tuple[str, Any]], out: _Stated) -> None:
    if "speculative-config" in flags:
        raw, value = flags["speculative-config"]
        where = f"engine.args.{raw}"
        try:
            cfg = json.loads(value) if isinstance(value, str) else None
        except json.JSONDecodeError:
            cfg = None
        if not isinstance(cfg, dict):
            raise _refuse(
                scenario, where, f'{value!r} is not a JSON object; give it as vLLM takes it, e.g. \'{{"method": "eagle3", "num_speculative_tokens": 3}}\''
            )
        model = cfg.get("model")
        model = str(model) if model is not None else None
        out.method = (where, _vllm_method(scenario, where, cfg.get("method"), model))
        if "num_speculative_tokens" in cfg:
            out.tokens = (f"{where} num_speculative_tokens", _int_flag(scenario, where, cfg["num_speculative_tokens"]))
        if model is not None and out.method[1] == "draft_model":
            out.draft = (f"{where} model", model)
        draft_tp = cfg.get("draft_tensor_parallel_size")
        if draft_tp is not None and draft_tp != scenario.tp:
            raise _refuse(scenario, where, f"draft_tensor_parallel_size {draft_tp} beside tp {scenario.tp}: a draft at another tp is not simulated")
        return
    if "speculative-model" in flags or "num-speculative-tokens" in flags:  # vLLM < 0.10
        model = None
        if "speculative-model" in flags:
            raw, value = flags["speculative-model"]
            model = str(value)
            out.method = (f"engine.args.{raw}", _vllm_method(scenario, f"engine.args.{raw}", None, model))
            if out.method[1] == "draft_model":
                out.draft = (f"engine.args.{raw}", model)
        if "num-speculative-tokens" in flags:
            raw, value = flags["num-speculative-tokens"]
            out.tokens = (f"engine.args.{raw}", _int_flag(scenario, f"engine.args.{raw}", value))


def _read_sglang(scenario: Scenario, flags: dict[str, tuple[str, Any]], out: _Stated) -> None:
    if "speculative-algorithm" not in flags:
        return
    raw, value = flags["speculative-algorithm"]
    where = f"engine.args.{raw}"
    method = _SGLANG_ALGORITHMS.get(str(value).upper())
    if method is None:
        raise _refuse(scenario, where, f"{value} is not simulated (simulated: {', '.join(sorted(_SGLANG_ALGORITHMS))}); predict without it")
    out.method = (where, method)
    steps = flags.get("speculative-num-steps")
    if steps is not None:
        out.tokens = (f"engine.args.{steps[0]}", _int_flag(scenario, f"engine.args.{steps[0]}", steps[1]))
    if method in ("eagle", "eagle3", "mtp", "draft_model"):
        topk = flags.get("speculative-eagle-topk")
        if topk is None:
            raise _refuse(scenario, where, "without --speculative-eagle-topk SGLang picks a draft tree of its own (top-k > 1): not "
                                           "simulated; give --speculative-eagle-topk 1 and --speculative-num-steps K")  # fmt: skip
        if str(topk[1]) != "1":
            raise _refuse(scenario, f"engine.args.{topk[0]}", f"{topk[1]}: tree drafts (top-k > 1, verified with tree attention) are "
                                                             "not simulated; give --speculative-eagle-topk 1 (a chain)")  # fmt: skip
    drafts = flags.get("speculative-num-draft-tokens")
    if drafts is not None and out.tokens is not None and _int_flag(scenario, f"engine.args.{drafts[0]}", drafts[1]) != out.tokens[1] + 1:
        raise _refuse(scenario, f"engine.args.{drafts[0]}", f"{drafts[1]} draft tokens beside {out.tokens[1]} steps: a chain verifies "
                                                           f"steps + 1 = {out.tokens[1] + 1}; anything else is a tree, not simulated")  # fmt: skip
    if "speculative-draft-model-path" in flags and method == "draft_model":
        path = flags["speculative-draft-model-path"]
        out.draft = (f"engine.args.{path[0]}", str(path[1]))


def _read_llama_cpp(scenario: Scenario, flags: dict[str, tuple[str, Any]], out: _Stated) -> None:
    for name in ("model-draft", "md", "hf-repo-draft"):
        if name in flags:
            raw, value = flags[name]
            out.method = (f"engine.args.{raw}", "draft_model")
            out.draft = (f"engine.args.{raw}", str(value))
    for name in ("draft-max", "draft", "draft-n"):
        if name in flags:
            raw, value = flags[name]
            out.tokens = (f"engine.args.{raw}", _int_flag(scenario, f"engine.args.{raw}", value))


def _agree(scenario: Scenario, field: str, have: Any, stated: tuple[str, Any] | None) -> Any:
    if stated is None:
        return have
    where, value = stated
    if have is not None and have != value:
        raise _refuse(scenario, where, f"{value} contradicts {field} {have}; give it once")
    return value


def speculation(scenario: Scenario) -> Speculation | None:
    """The scenario's speculative decoding from its fields and engine flags, None without any;
    ``NotModelledError`` (one line) for what is not simulated, contradicts or is missing."""
    engine = normalize_engine(scenario.engine.id)
    flags: dict[str, tuple[str, Any]] = {}
    for raw, value in scenario.engine.args.items():
        name, val = canonical(scenario.engine.id, raw, value)
        if name and is_speculative_flag(name):
            flags[name] = (raw, val)
    stated_fields = (scenario.speculative_tokens, scenario.speculative_method, scenario.speculative_draft_model,
                     scenario.speculative_acceptance_rate, scenario.speculative_acceptance_length)  # fmt: skip
    if not flags and all(v is None for v in stated_fields):
        return None
    out = _Stated()
    if flags and engine == "vllm":
        _read_vllm(scenario, flags, out)
    elif flags and engine == "sglang":
        _read_sglang(scenario, flags, out)
    elif flags and engine in LLAMA_CPP_ENGINES:
        _read_llama_cpp(scenario, flags, out)
    elif flags:
        raw = next(iter(flags.values()))[0]
        raise _refuse(scenario, f"engine.args.{raw}", f"speculative decoding on {scenario.engine.id} is not simulated (its flags are not "
                                                      "read; vLLM's and SGLang's are); remove the flag to predict plain decoding")  # fmt: skip
    method = _agree(scenario, "speculative_method", scenario.speculative_method, out.method)
    tokens = _agree(scenario, "speculative_tokens", scenario.speculative_tokens, out.tokens)
    draft = _agree(scenario, "speculative_draft_model", scenario.speculative_draft_model, out.draft)
    # where the request for speculative decoding came from: its first flag, else its first field
    names = ("speculative_tokens", "speculative_method", "speculative_draft_model", "speculative_acceptance_rate", "speculative_acceptance_length")
    origin = f"engine.args.{next(iter(flags.values()))[0]}" if flags else next(f"{n}: {v}" for n, v in zip(names, stated_fields, strict=True) if v is not None)
    if engine in LLAMA_CPP_ENGINES:
        raise _refuse(scenario, origin, "speculative decoding on llama.cpp is not simulated: its server drafts a variable number of tokens "
                                        "per step (it stops below --draft-p-min) and verifies slot by slot; remove it to predict plain decoding")  # fmt: skip
    if method is None:
        raise _refuse(scenario, origin, "speculative decoding without a method: give speculative_method (draft_model, eagle, eagle3, "
                                        "mtp, ngram), or remove it to predict plain decoding")  # fmt: skip
    if tokens is None:
        raise _refuse(scenario, origin, "speculative decoding without draft tokens per step: give speculative_tokens (k)")
    if scenario.pp > 1:
        raise _refuse(scenario, f"pp: {scenario.pp}", "speculative decoding with pipeline parallelism is not simulated; predict it with pp 1")
    if method == "draft_model" and draft is None:
        raise _refuse(scenario, "speculative_method: draft_model", "no draft model: give speculative_draft_model (a catalog id or a config.json)")
    rate, length = scenario.speculative_acceptance_rate, scenario.speculative_acceptance_length
    if length is not None:
        if length > tokens + 1:
            raise _refuse(scenario, f"speculative_acceptance_length: {length}", f"more than speculative_tokens {tokens} + 1 tokens per step")
        return Speculation(method, tokens, rate_from_length(length, tokens), f"stated: {length} tokens per step", draft)
    if rate is not None:
        return Speculation(method, tokens, rate, "stated", draft)
    default = DEFAULT_ACCEPTANCE.get(method)
    if default is None:
        why = "depends on the draft and target pair" if method == "draft_model" else "depends on how often the output repeats the prompt"
        raise _refuse(scenario, f"speculative_method: {method}", f"its acceptance {why}, so there is no default: give "
                                                               "speculative_acceptance_rate or speculative_acceptance_length")  # fmt: skip
    return Speculation(method, tokens, default.rate, default.source, draft)


def stated_tokens(scenario: Scenario) -> int | None:
    """Draft tokens per step the scenario asks for (fields or flags), None when it asks for none or
    says it in a way ``speculation`` refuses."""
    try:
        spec = speculation(scenario)
    except NotModelledError:
        return scenario.speculative_tokens
    return spec.tokens if spec else None


# --- the draft as a step-time model -------------------------------------------------------


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


def verify_chunks(times: np.ndarray, per_step: float) -> np.ndarray:
    """The time stamps a client sees of one request's tokens (``times``: one per simulated
    iteration, the first from the prompt): the tokens of one verify step arrive together, so
    after the first token step j delivers the tokens up to index floor(j x E), at that token's
    time (the last step what is left)."""
    n = int(times.size)
    if n <= 2 or per_step <= 1.0:
        return times
    steps = math.ceil((n - 1) / per_step - 1e-9)
    idx = np.minimum(n - 1, np.floor(np.arange(1, steps + 1) * per_step + 1e-9).astype(np.int64))
    return np.concatenate((times[:1], times[idx]))


__all__ = [
    "DEFAULT_ACCEPTANCE",
    "EAGLE3_DRAFT_VOCAB",
    "METHODS",
    "AcceptanceDefault",
    "Speculation",
    "SpeculativeStepTimeModel",
    "expected_tokens",
    "head_architecture",
    "is_speculative_flag",
    "rate_from_length",
    "speculation",
    "stated_tokens",
    "verify_chunks",
]
