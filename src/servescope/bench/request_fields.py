"""What a request carries beyond prompt, max_tokens, temperature and seed (pure: no sockets).

Two sources:

- the **workload's** request fields (``params.ignore_eos``, ``params.min_tokens``):
  part of the pinned question, so sent only to engines known to accept them. Where
  the engine (detected, or given with ``--engine`` / the launcher of
  ``--engine-args``) is not known to, the run is refused before any request, never
  silently run without them: an engine that does not know a field ignores it or
  rejects the request. ``ignore_eos: false`` is every engine's default and is not
  sent. What is sent is recorded as ``resolved_params.request_fields``.
- the **user's** ``--extra-body`` (a JSON object): sent as given, merged into every
  request, and recorded in the Result's ``args`` as ``request.<key>`` (they change
  what runs, so ``config_id`` sees them). It may send a workload field to any engine
  ("send it anyway"), but not contradict the workload, and not set what servescope
  sets itself.

Which engine accepts which field (checked against each engine's request schema):
vLLM and SGLang take ``ignore_eos`` and ``min_tokens``; llama.cpp's llama-server
takes ``ignore_eos`` and has no ``min_tokens``; TGI, Ollama, hosted APIs and an
unknown engine take neither.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from servescope.documents import WorkloadParams
from servescope.documents.config_id import normalize_engine
from servescope.documents.engine_command import redact_flags
from servescope.errors import UsageError

ACCEPTED_BY: dict[str, tuple[str, ...]] = {
    "ignore_eos": ("vllm", "sglang", "llama.cpp"),
    "min_tokens": ("vllm", "sglang"),
}

# Set by servescope from the workload and the endpoint; --extra-body may not change them.
RESERVED: frozenset[str] = frozenset({"model", "messages", "prompt", "stream", "stream_options", "max_tokens", "max_completion_tokens", "temperature", "seed"})


@dataclass(frozen=True)
class RequestExtras:
    body: dict[str, Any] = field(default_factory=dict)  # merged into every request
    workload_fields: dict[str, Any] = field(default_factory=dict)  # the workload's fields among them
    args: dict[str, Any] = field(default_factory=dict)  # request.<key> of the user's own fields, redacted


def parse_extra_body(text: str) -> dict[str, Any]:
    """``--extra-body``: a JSON object, or one clear line."""
    from servescope.documents.loader import DocumentTooLargeError, parse_json

    try:
        value = parse_json(text, finite_only=True)  # NaN/Infinity: not JSON, and no HTTP body may carry them
    except DocumentTooLargeError as exc:
        raise UsageError(f"--extra-body {exc}") from None
    except ValueError as exc:
        raise UsageError(f"--extra-body is not valid JSON ({exc}); give an object, e.g. '{{\"ignore_eos\": true}}'") from None
    if not isinstance(value, dict):
        raise UsageError(f"--extra-body must be a JSON object, e.g. '{{\"ignore_eos\": true}}', not {type(value).__name__}")
    return value


def _wanted(params: WorkloadParams) -> dict[str, Any]:
    """The workload's request fields that differ from every engine's default."""
    wanted: dict[str, Any] = {}
    if params.ignore_eos:
        wanted["ignore_eos"] = True
    if params.min_tokens is not None:
        wanted["min_tokens"] = params.min_tokens
    return wanted


def _arg_value(value: Any) -> Any:
    """A request field as a flag value: scalars as they are, anything else as compact JSON."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def request_extras(params: WorkloadParams, engine: str | None, extra_body: dict[str, Any] | None, *, workload_id: str = "the workload") -> RequestExtras:
    """What to merge into every request, or a ``UsageError`` before anything is sent."""
    extra = dict(extra_body or {})
    for key in extra:
        if key in RESERVED:
            raise UsageError(f"--extra-body sets {key!r}, which servescope sets from the workload and the endpoint; leave it out")
    eng = normalize_engine(engine or "unknown")
    sent: dict[str, Any] = {}
    for name, value in _wanted(params).items():
        if name in extra:
            if extra[name] != value:
                raise UsageError(f"--extra-body {name}={json.dumps(extra[name])} contradicts the workload's {name}={json.dumps(value)}")
        elif eng not in ACCEPTED_BY[name]:
            engines = "|".join(ACCEPTED_BY[name])
            raise UsageError(
                f"workload {workload_id} sets {name} but engine {eng!r} is not known to accept it; pass --engine {engines} "
                f"if the server is one of those, or --extra-body '{json.dumps({name: value})}' to send it anyway"
            )
        sent[name] = value
    own = {k: v for k, v in extra.items() if k not in sent}
    args = redact_flags({f"request.{k}": _arg_value(v) for k, v in own.items()})
    return RequestExtras(body={**sent, **own}, workload_fields=sent, args=args)


__all__ = ["ACCEPTED_BY", "RESERVED", "RequestExtras", "parse_extra_body", "request_extras"]
