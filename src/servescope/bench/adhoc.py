"""What ``servescope run`` does for an ad-hoc load (``workload.load``) once the endpoint is
known and before the first measured request: builds the prompt text of every
length-planned request for the served model's tokenizer (``bench.prompt_tokenizer``,
``workload.prompt_text``), less the tokens the endpoint adds itself; holds the output at
``max_tokens`` with ``ignore_eos`` and per-request ``min_tokens`` where the engine takes
them (``bench.request_fields.ACCEPTED_BY``); and, after the run, reports requested
against actual lengths per point, the actual ones from the engine's usage."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from statistics import fmean
from typing import Any

import aiohttp

from servescope.bench.endpoint import Endpoint
from servescope.bench.outcome import PointOutcome
from servescope.bench.prompt_tokenizer import PROBE_TOKENS, served_tokenizer, template_tokens
from servescope.bench.request_fields import ACCEPTED_BY
from servescope.documents.config_id import normalize_engine
from servescope.errors import UsageError
from servescope.workload.load import Load
from servescope.workload.plan import PlannedPoint
from servescope.workload.prompt_text import PromptBuilder, build_prompts


@dataclass
class AdhocPrepared:
    points: list[PlannedPoint]
    body: dict[str, Any] = field(default_factory=dict)  # merged into every request (ignore_eos)
    resolved: dict[str, Any] = field(default_factory=dict)  # recorded in resolved_params


def check_api(load: Load, points: list[PlannedPoint], api: str) -> None:
    """A prompt file's chats need the chat API: one line before anything is sent."""
    if api != "chat" and any(r.messages is not None for p in points for r in p.requests):
        raise UsageError(f"--input-file {load.prompts.path if load.prompts else ''}: its lines give messages (a chat); run them with --api chat")
    if api != "chat" and load.sessions is not None:
        raise UsageError("--sessions sends each turn with its history as a chat; run it with --api chat")


def _hold_output(engine_id: str, points: list[PlannedPoint], user_body: dict[str, Any]) -> tuple[list[PlannedPoint], dict[str, Any], dict[str, Any]]:
    eng = normalize_engine(engine_id)
    body: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    if eng in ACCEPTED_BY["ignore_eos"] and "ignore_eos" not in user_body:
        body["ignore_eos"] = True
        fields["ignore_eos"] = True
    if eng in ACCEPTED_BY["min_tokens"] and "min_tokens" not in user_body:
        points = [dataclasses.replace(p, requests=[dataclasses.replace(r, min_tokens=r.max_tokens) for r in p.requests]) for p in points]
        fields["min_tokens"] = "max_tokens of each request"
    return points, body, fields


async def prepare_adhoc(
    session: aiohttp.ClientSession,
    endpoint: Endpoint,
    engine_id: str,
    load: Load,
    points: list[PlannedPoint],
    *,
    tokenizer: Path | None,
    user_body: dict[str, Any],
    timeout_s: float,
    notice: Callable[[str], None],
) -> AdhocPrepared:
    """The points ready to send, and what to record about how they were made."""
    from servescope.bench.engine.tokenizer import corpus_text

    resolved: dict[str, Any] = {}
    if load.source in ("synthetic", "trace"):
        tok, source = await served_tokenizer(session, endpoint, tokenizer)
        builder = await PromptBuilder.create(tok, corpus_text(), load.seed)
        probe, probe_tokens = await builder.exact(-1, PROBE_TOKENS)
        added = await template_tokens(session, endpoint, probe, probe_tokens, timeout_s)
        if added is None:
            notice("the endpoint reports no usage: the tokens its chat template adds are not known; prompts are cut to the content's length")
        points = await build_prompts(points, builder, added or 0)
        resolved["prompt_tokens"] = {
            "tokenizer": source,
            "added_by_endpoint": added,
            "note": f"prompt text cut to the requested length less the {added or 0} tokens the {endpoint.api} endpoint adds (chat template, BOS), "
            "measured once with a one-token request",
        }
    # a prompt file's outputs too: its --osl (or a line's max_tokens) is the length asked, and the one a prediction
    # of the same load simulates; left to stop at an end-of-sequence, the two would not be the same load
    if load.source in ("synthetic", "trace", "prompts"):
        points, body, fields = _hold_output(engine_id, points, user_body)
        own: dict[str, Any] = {k: user_body[k] for k in ("ignore_eos", "min_tokens") if k in user_body}  # the user's own choice, said as such
        if not fields and own and (own.get("ignore_eos") is True or own.get("min_tokens")):
            fields = {**own, "set_by": "--extra-body"}
        elif not fields and own:
            said = ", ".join(f"{k} {json.dumps(v)}" for k, v in own.items())
            notice(f"--extra-body sets {said}: outputs may stop before max_tokens (requested against actual lengths follow the table)")
        elif not fields:
            notice(
                f"engine {engine_id!r} is not known to take ignore_eos or min_tokens: outputs may stop before max_tokens "
                f"(pass --engine {'|'.join(ACCEPTED_BY['ignore_eos'])} if the server is one of those, or --extra-body)"
            )
        resolved["output_held_by"] = fields or None
    else:
        body = {}
    return AdhocPrepared(points, body, resolved)


def length_report(points: list[PlannedPoint], outcomes: list[PointOutcome]) -> list[dict[str, Any]]:
    """Per point: requested against actual input and output lengths of the measured requests
    that completed (actual: the engine's usage; requests without it are left out, and counted)."""
    planned = {r.request_id: r for p in points for r in p.requests}
    out = []
    for o in outcomes:
        done = [r for r in o.records if r.phase == "measured" and r.ok and r.request_id in planned]
        usage = [r for r in done if r.token_count_source == "server-usage" and r.input_tokens is not None and r.output_tokens is not None]
        row: dict[str, Any] = {"point": o.point.index, "concurrency": o.point.concurrency, "completed": len(done), "with_usage": len(usage)}
        # a session's turn is asked for its new message only; the engine counts the whole history
        asked_in = [None if planned[r.request_id].session is not None else planned[r.request_id].input_tokens_nominal for r in usage]
        if usage and all(a is not None for a in asked_in):
            diffs = [r.input_tokens - a for r, a in zip(usage, asked_in, strict=True) if r.input_tokens is not None and a is not None]
            row |= {"requested_input_mean": fmean(a for a in asked_in if a is not None), "input_mean": fmean(r.input_tokens or 0 for r in usage),
                    "input_max_abs_diff": max(abs(d) for d in diffs)}  # fmt: skip
        if usage:
            row |= {
                "requested_output_mean": fmean(planned[r.request_id].max_tokens for r in usage),
                "output_mean": fmean(r.output_tokens or 0 for r in usage),
                "output_exact": sum(1 for r in usage if r.output_tokens == planned[r.request_id].max_tokens),
            }
        out.append(row)
    return out


__all__ = ["AdhocPrepared", "check_api", "length_report", "prepare_adhoc"]
