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

The cost of a step, and the simulator's view of it: ``speculative_step``. ``verify_chunks``
gives the time stamps a client sees: the tokens of one verify step arrive together.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from servescope.documents import Scenario
from servescope.documents.config_id import normalize_engine
from servescope.errors import NotModelledError
from servescope.predict.engine_flags import LLAMA_CPP_ENGINES, canonical

METHODS = ("draft_model", "eagle", "eagle3", "mtp", "ngram")


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
    if method != "draft_model" and draft is not None:
        raise _refuse(scenario, f"speculative_draft_model: {draft}", f"only speculative_method draft_model takes a draft model (method is {method})")
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
    "METHODS",
    "AcceptanceDefault",
    "Speculation",
    "expected_tokens",
    "is_speculative_flag",
    "rate_from_length",
    "speculation",
    "stated_tokens",
    "verify_chunks",
]
