"""Multi-turn sessions in the simulator (``predict --sessions S --turns N``): the same
plan ``run`` sends (``workload.adhoc_plan``: S sessions of N turns, each turn's new user
message and answer lengths drawn by the same function, with the same seed), turned into
one simulated phase whose turns carry the whole history, and the per-turn figures
``run`` reports (``bench.sessions.turn_report``'s shape).

Turn k's prompt, as the engine counts it: the session's system message (if any), every
earlier user message and answer, this turn's user message, and the chat template's
tokens around each message plus the generation prompt. ``Model.chat_template_tokens`` is
what the template adds to a *one*-message prompt (a user message's wrap and the generation
prompt); ``Model.chat_message_tokens`` what it puts around one message of each role
(``message_wraps``; measured on the embedded llama.cpp engine for the shipped model: ChatML
wraps a system message in 8 of its tokenizer's tokens, a user message in 6 and an answer in
7, so its generation prompt is 11 - 6 = 5). A role the model document leaves out is taken
to add ``tokens_per_message`` = half of the one-message template, rounded up. An answer is
its ``max_tokens`` long (``run`` holds outputs at ``--osl``); how the engine counts an answer's
text when it is sent back is not modelled.

Prefix cache: each session is one token stream (ids a function of the session and the
position only), so turn k+1's prompt begins with turn k's prompt and answer token for
token, as a chat template renders a growing history; a turn's block hashes run over its
prompt and its answer, and the replica caches the answer's full blocks when the turn
ends (``sim.replica``), as vLLM v1 caches every full block it computed and llama.cpp
keeps a slot's whole context.
"""

from __future__ import annotations

from servescope import limits
from servescope.predict.deployment import Deployment
from servescope.predict.sim.load import Phase
from servescope.predict.sim.request import SimRequest
from servescope.predict.tokens import hashes_from_blocks
from servescope.workload.plan import PlannedPoint


def tokens_per_message(template_tokens: int) -> int:
    """What the chat template is taken to add per message of a role the model document does not
    give (see the module's note): half the one-message template, rounded up."""
    return -(-template_tokens // 2)


def message_wraps(dep: Deployment) -> dict[str, int]:
    """The tokens the chat template puts around one message of each role: the model document's
    ``chat_message_tokens``, a role it leaves out ``tokens_per_message``."""
    given = dep.model.chat_message_tokens
    default = tokens_per_message(dep.template_tokens)
    out = {"system": default, "user": default, "assistant": default}
    if given is not None:
        out.update({role: n for role, n in given.model_dump().items() if n is not None})
    return out


def generation_prompt_tokens(dep: Deployment, wraps: dict[str, int]) -> int:
    """The template's generation prompt: the one-message template less a user message's wrap."""
    return max(0, dep.template_tokens - wraps["user"])


def template_tokens_for(dep: Deployment, roles: list[str]) -> int:
    """What the chat template adds to a prompt of messages with these ``roles``: each message's
    wrap, and the generation prompt. An unknown role (``tool``, ``developer``) counts as a user
    message."""
    wraps = message_wraps(dep)
    return generation_prompt_tokens(dep, wraps) + sum(wraps.get(role, wraps["user"]) for role in roles)


def is_multi_turn(points: list[PlannedPoint] | None) -> bool:
    return bool(points) and any(r.session is not None for p in points or [] for r in p.requests[:1])


def check_budget(sessions: int, turns: int) -> None:
    """Refuse, before planning, a session load past the simulator's limits (``servescope.limits``)."""
    if sessions > limits.MAX_SIMULATED_CONCURRENCY:
        raise ValueError(f"--sessions {sessions:,} is above the simulator's limit of {limits.MAX_SIMULATED_CONCURRENCY:,} "
                         "concurrent sessions (SERVESCOPE_MAX_SIMULATED_CONCURRENCY)")  # fmt: skip
    if sessions * turns > limits.MAX_SIMULATED_REQUESTS:
        raise ValueError(f"--sessions {sessions:,} x --turns {turns:,} would simulate {sessions * turns:,} requests, above the limit of "
                         f"{limits.MAX_SIMULATED_REQUESTS:,} (SERVESCOPE_MAX_SIMULATED_REQUESTS); give fewer sessions or turns")  # fmt: skip


def _sessions(point: PlannedPoint) -> dict[str, list[int]]:
    """Each session's requests (their places in the point), in turn order."""
    out: dict[str, list[int]] = {}
    for i, r in enumerate(point.requests):
        out.setdefault(r.session or r.request_id, []).append(i)
    return out


def _admissible(dep: Deployment, prompt: int, answer: int) -> bool:
    """What ``Simulation.admission_check`` lets through (the replicas' pools are alike)."""
    eng = dep.engine
    if prompt >= eng.max_model_len or (eng.overflow == "reject" and prompt + answer > eng.max_model_len):
        return False
    return -(-(prompt + answer) // eng.block_size) <= dep.kv.num_blocks


def session_phases(points: list[PlannedPoint], dep: Deployment) -> list[Phase]:
    """One phase per planned point: every session's turns, each turn's prompt its whole history."""
    eng = dep.engine
    bs, caching, max_len = eng.block_size, eng.enable_prefix_caching, eng.max_model_len
    wraps = message_wraps(dep)
    # a turn's prompt ends with its user message's wrap and the generation prompt (the one-message
    # template); the next turn's history keeps the user message's wrap and closes the answer
    generation = generation_prompt_tokens(dep, wraps)
    phases: list[Phase] = []
    index = 0
    for point in points:
        reqs: list[SimRequest | None] = [None] * len(point.requests)
        follow: dict[SimRequest, SimRequest] = {}
        for name, places in _sessions(point).items():
            first = point.requests[places[0]]
            history = first.system_tokens_nominal + wraps["system"] if first.system_tokens_nominal else 0
            lengths: list[tuple[int, int]] = []
            for place in places:
                pr = point.requests[place]
                assert pr.input_tokens_nominal is not None  # a session's turns are planned by length
                prompt = history + pr.input_tokens_nominal + dep.template_tokens
                answer = max(1, min(pr.max_tokens, max_len - prompt)) if eng.overflow == "truncate" else pr.max_tokens
                lengths.append((prompt, answer))
                # the next turn resends this prompt less the generation prompt, and the answer in its wrap
                history = prompt - generation + answer + wraps["assistant"]
            # the turns before the first the engine refuses (too long for the context or the pool): the
            # later ones are never sent, so only these need hashes (each turn's prompt and answer)
            sent = next((k for k, (prompt, answer) in enumerate(lengths) if not _admissible(dep, prompt, answer)), len(lengths))
            stream: tuple[int, ...] = ()
            if caching and sent:
                stream = hashes_from_blocks((), max(p + a for p, a in lengths[:sent]), bs, tail_key=f"session-{point.index}-{name}")
            before: SimRequest | None = None
            for k, (place, (prompt, answer)) in enumerate(zip(places, lengths, strict=True)):
                pr = point.requests[place]
                req = SimRequest(index=0, request_id=pr.request_id, phase=pr.phase, point=point.index, concurrency=point.concurrency,
                                 prompt_tokens=prompt, max_tokens=answer, block_hashes=stream[: (prompt + answer) // bs] if k < sent else (),
                                 prompt_id=pr.prompt_id, group=pr.group, context_tokens=point.context_tokens, target=prompt)  # fmt: skip
                reqs[place] = req
                if before is not None:
                    follow[before] = req
                before = req
        ordered = [r for r in reqs if r is not None]
        for r in ordered:
            r.index = index
            index += 1
        phases.append(Phase(point.index, "measured", ordered, point.concurrency, follow=follow, think_ns=point.think_time_ns))
    return phases


def turn_numbers(points: list[PlannedPoint]) -> dict[str, int]:
    """Each request's turn number (1-based) in its session."""
    number: dict[str, int] = {}
    for point in points:
        for places in _sessions(point).values():
            for k, place in enumerate(places, start=1):
                number[point.requests[place].request_id] = k
    return number


__all__ = [
    "check_budget",
    "generation_prompt_tokens",
    "is_multi_turn",
    "message_wraps",
    "session_phases",
    "template_tokens_for",
    "tokens_per_message",
    "turn_numbers",
]
