"""What the simulator sends: a workload's planned points (``workload.plan``, the
same plan the harness sends) or a synthetic ``--isl/--osl`` workload, turned
into phases of ``SimRequest``s with prompt lengths and prefix-cache hashes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servescope import limits
from servescope.predict.dataset_lengths import check_means, draw_sharegpt, sharegpt_filter
from servescope.predict.deployment import Deployment
from servescope.predict.replay import Replay, replay, symmetric
from servescope.predict.sessions import message_wraps, template_tokens_for
from servescope.predict.sim.load import Phase
from servescope.predict.sim.request import SimRequest, requests_from_rows
from servescope.predict.stream_chunks import TIMES_EVERY_CHUNK, check_client, check_endpoint
from servescope.predict.tokens import hashes_from_blocks, hashes_from_ids, hashes_from_text
from servescope.workload.adhoc_plan import WARMUP_STREAM
from servescope.workload.arrivals import arrival_offsets_ns, check_span
from servescope.workload.lengths import uniform_lengths
from servescope.workload.load import TRACE_BLOCK_TOKENS
from servescope.workload.plan import PlannedPoint, PlannedRequest


@dataclass(frozen=True)
class LoadOptions:
    """Closed loop at each point's concurrency unless ``rate`` is set (open loop)."""

    rate: float | None = None
    arrival: str = "poisson"  # from the CLI as typed; arrival_offsets_ns refuses an unknown one
    gamma_shape: float = 1.0
    seed: int = 0


@dataclass(frozen=True)
class SyntheticWorkload:
    """Random prompts of about ``isl`` tokens (nothing shared), about ``osl`` output
    tokens each: ``--isl N --osl M``.

    A closed-loop point is replayed the way ``harness`` runs it (``predict.replay``:
    ``steady`` by default - warm-up in the same loop, a measured window held at full
    load, lengths varied); the fields below left ``None`` take that replay's values,
    and a value given overrides it. With ``rate`` and no concurrency it is one
    open-loop point; ``offline`` sends every request at t = 0; ``stages`` is a staged
    Poisson run, one point per stage."""

    concurrency: tuple[int, ...]
    isl: int
    osl: int
    num_requests: int | None = None
    """Measured requests per point (open loop: per stage or point)."""
    warmup_requests: int | None = None
    requests_per_concurrency: int | None = None
    min_requests: int | None = None
    range_ratio: float | None = None
    """Lengths drawn uniformly from [x (1 - r), x (1 + r)] per request (vLLM's
    ``--random-range-ratio``), seeded by the load seed; 0 keeps them exact."""
    continuous_warmup: bool | None = None
    """False: warm-up, then the measured requests as a fresh closed loop (a burst).
    True: one closed loop whose first ``warmup_requests`` are excluded."""
    rate: float | None = None
    """Open loop without a concurrency (``predict --rate R`` alone; ``concurrency``
    empty): one point whose requests arrive at R per second, ``num_requests`` of them
    or one simulated minute of arrivals (at least ``min_requests``). Its row is
    labelled by the rate; its concurrency is the most requests in flight."""
    harness: str = "steady"
    offline: bool = False
    """Every request sent at t = 0 (``predict --max-throughput``: trtllm-bench, MLPerf
    Offline); ``num_requests`` of them (default ``OFFLINE_REQUESTS``)."""
    stages: tuple[tuple[float, float], ...] = ()
    """Staged Poisson arrivals, ``(rate, seconds)`` each (``predict --stages``): one
    arrival process whose rate changes at each stage's start (a backlog carries over);
    one point per stage, its requests those that arrived during it."""
    sharegpt_client: str | None = None
    """A point measured on ShareGPT by this client (``EvaluationRun.harness``, e.g.
    ``vllm-bench-serve``): lengths drawn from an exponential law whose means after that
    client's ShareGPT filter are ``isl``/``osl``, max_tokens = the drawn output
    (``predict.dataset_lengths``), instead of the replay's uniform lengths. None: the replay's."""
    stream_client: str | None = None
    """The client whose stream timing the ITL follows (``predict.stream_chunks``): a client that
    times every chunk, text or not (``vllm-bench-serve``), counts the server's chunks without text
    as gaps of about zero. None: ``--harness vllm``'s client for that replay, else servescope's
    (chunks with text)."""
    endpoint: str | None = None
    """The API that client calls, ``completions`` or ``chat`` (None: the client's default)."""
    label: str | None = None
    """The load's label (``workload.load.Load.label``, ``adhoc-<digest>``) when it came from one: its id."""
    whole_prompt: bool = False
    """True: ``isl`` is the whole prompt as the engine counts it, its chat template's tokens included
    (``run`` cuts an ad-hoc load's text to that); False: the template's tokens come on top."""

    def __post_init__(self) -> None:
        rep = replay(self.harness)  # an unknown harness is one line
        modes = sum((bool(self.offline), bool(self.stages), self.rate is not None and not self.concurrency))
        if modes > 1:
            raise ValueError("give one of a rate alone, offline (max throughput) or stages")
        if not self.concurrency and self.rate is None and not self.offline and not self.stages:
            raise ValueError("a synthetic workload needs a concurrency or a rate (give --concurrency or --rate)")
        if (self.offline or self.stages) and self.concurrency:
            raise ValueError("offline and staged runs have no concurrency of their own; leave --concurrency out")
        if self.rate is not None and not (math.isfinite(self.rate) and self.rate > 0):
            raise ValueError(f"rate {self.rate}: give requests per second > 0")
        for rate, seconds in self.stages:
            if not (math.isfinite(rate) and rate > 0 and math.isfinite(seconds) and seconds > 0):
                raise ValueError(f"stage {rate:g}:{seconds:g}: give rate:seconds with both > 0")
        if self.stages:  # the stages follow each other: their seconds add up to the schedule
            check_span(sum(seconds for _, seconds in self.stages), "--stages")
        if len({r for r, _ in self.stages}) != len(self.stages):
            raise ValueError("each stage needs a different rate (a stage's row is labelled by its rate)")
        if self.isl < 1 or self.osl < 1:
            raise ValueError(f"isl {self.isl}, osl {self.osl}: give lengths >= 1 token")
        if self.num_requests is not None and self.num_requests < 1:
            raise ValueError(f"num_requests {self.num_requests}: give at least 1")
        if self.warmup_requests is not None and self.warmup_requests < 0:
            raise ValueError(f"warmup_requests {self.warmup_requests}: give 0 or more")
        if self.range_ratio is not None:
            symmetric(self.range_ratio)
        if self.sharegpt_client is not None:
            check_means(self.isl, self.osl, sharegpt_filter(self.sharegpt_client))  # an unknown client, impossible means: one line
            if self.range_ratio is not None:
                raise ValueError("give ShareGPT lengths or a range ratio, not both (ShareGPT lengths are drawn from their own law)")
        if self.stream_client is not None:
            check_client(self.stream_client)
        if self.endpoint is not None:
            check_endpoint(self.endpoint)
            if self.timing_client is None:
                raise ValueError(
                    f"endpoint {self.endpoint}: servescope's client times the chunks with text on either endpoint; the endpoint "
                    f"matters to a client that times every chunk ({', '.join(TIMES_EVERY_CHUNK)}: --harness vllm)"
                )
        if rep.needs_requests and self.num_requests is None and self.closed_loop:
            raise ValueError(f"--harness {rep.name}: its default request count is not pinned here; give --num-requests (the count that run measured)")
        self.check_budget()

    def simulated_requests(self) -> int:
        """Requests the simulation would create (warm-up, measured, cool-down), counted without creating any."""
        if self.stages:
            return sum(self.requests_at(1, p) for p in range(len(self.stages)))
        if self.offline:
            return self.requests_at(1)
        return sum(self.warmup_at(c) + self.requests_at(c) + self.cooldown_at(c) for c in self.levels)

    def check_budget(self) -> None:
        """Refuse, before anything is allocated, what would exhaust memory (``servescope.limits``)."""
        for c in self.concurrency:
            if c > limits.MAX_SIMULATED_CONCURRENCY:
                raise ValueError(f"concurrency {c:,} is above the simulator's limit of {limits.MAX_SIMULATED_CONCURRENCY:,} "
                                 "(SERVESCOPE_MAX_SIMULATED_CONCURRENCY)")  # fmt: skip
        for name, value in (("isl", self.isl), ("osl", self.osl)):
            if value > limits.MAX_TOKENS:
                raise ValueError(f"{name} {value:,} is above the limit of {limits.MAX_TOKENS:,} tokens (SERVESCOPE_MAX_TOKENS)")
        total = self.simulated_requests()
        if total > limits.MAX_SIMULATED_REQUESTS:
            raise ValueError(f"this would simulate {total:,} requests, above the limit of {limits.MAX_SIMULATED_REQUESTS:,} "
                             "(SERVESCOPE_MAX_SIMULATED_REQUESTS); give fewer --num-requests or levels")  # fmt: skip

    @property
    def replay(self) -> Replay:
        return replay(self.harness)

    @property
    def timing_client(self) -> str | None:
        """``stream_client``, or the replay's (``vllm bench serve`` for ``--harness vllm``); None: servescope's client."""
        return self.stream_client or self.replay.stream_client

    @property
    def closed_loop(self) -> bool:
        return bool(self.concurrency) and self.rate is None and not self.offline and not self.stages

    @property
    def rate_only(self) -> bool:
        """One or more open-loop points labelled by their rates (no concurrency given)."""
        return not self.concurrency

    @property
    def levels(self) -> tuple[int, ...]:
        """The points' concurrencies; open-loop points without one run their (empty) warm-up at 1."""
        if self.stages:
            return (1,) * len(self.stages)
        return self.concurrency or (1,)

    @property
    def rates(self) -> tuple[float | None, ...]:
        """Each point's offered rate (None: closed loop or offline)."""
        if self.stages:
            return tuple(r for r, _ in self.stages)
        return (self.rate,) * len(self.levels) if self.rate is not None and not self.concurrency else (None,) * len(self.levels)

    @property
    def lengths(self) -> tuple[float, float]:
        """Lengths uniform in [lo L, hi L] (the replay's, or ``range_ratio``'s)."""
        return symmetric(self.range_ratio) if self.range_ratio is not None else self.replay.length_range

    @property
    def id(self) -> str:
        if self.label is not None:
            return self.label
        lengths = f"-i{self.isl}-o{self.osl}" + ("-sharegpt" if self.sharegpt_client else "")
        if self.offline:
            return f"synthetic-offline-n{self.requests_at(1)}{lengths}"
        if self.stages:
            return f"synthetic-stages-{'-'.join(f'r{r:g}x{s:g}s' for r, s in self.stages)}{lengths}"
        if self.rate_only:
            return f"synthetic-r{self.rate:g}{lengths}"
        levels = "-".join(str(c) for c in self.concurrency)
        return f"synthetic-c{levels}{lengths}"

    def warmup_at(self, concurrency: int) -> int:
        """Warm-up requests of a closed-loop point (open loop: only those asked for)."""
        if self.warmup_requests is not None:
            return self.warmup_requests
        return self.replay.warmup_at(concurrency) if self.closed_loop else 0

    def requests_at(self, concurrency: int, stage: int = 0) -> int:
        if self.num_requests is not None:
            return self.num_requests
        if self.offline:
            return OFFLINE_REQUESTS
        if self.stages:
            rate, seconds = self.stages[stage]
            return max(1, math.ceil(rate * seconds))
        rep = self.replay
        if self.rate_only:
            return max(self.min_requests or rep.min_requests, math.ceil(60.0 * (self.rate or 0.0)))
        if self.requests_per_concurrency is None and self.min_requests is None and rep.num_requests is not None:
            return rep.num_requests
        return max(self.min_requests if self.min_requests is not None else rep.min_requests,
                   (self.requests_per_concurrency or rep.requests_per_concurrency) * concurrency)  # fmt: skip

    @property
    def continuous(self) -> bool:
        return self.continuous_warmup if self.continuous_warmup is not None else self.replay.continuous

    def cooldown_at(self, concurrency: int) -> int:
        return self.replay.cooldown_at(concurrency) if self.closed_loop and self.continuous else 0


#: ``--max-throughput`` without ``--num-requests``: vLLM's benchmark_throughput.py and
#: ``vllm bench throughput`` default --num-prompts.
OFFLINE_REQUESTS = 1000


@dataclass
class _Tokenised:
    count: int
    hashes: tuple[int, ...]


@dataclass
class PromptTokenizer:
    """Counts and hashes prompt text for one deployment (memoised per text)."""

    deployment: Deployment
    chars_per_token: float
    cache: dict[str | tuple[tuple[str, ...], str], _Tokenised] = field(default_factory=dict)

    def __call__(self, req: PlannedRequest) -> _Tokenised:
        if not req.prompt and req.input_tokens_nominal is not None:
            # planned by length (an ad-hoc synthetic or trace load): the length is what the engine
            # sees, its template's tokens included (the harness cuts the text to it)
            n = req.input_tokens_nominal
            bs = self.deployment.engine.block_size
            caching = self.deployment.engine.enable_prefix_caching
            return _Tokenised(n, hashes_from_blocks(req.prefix_blocks, n, bs, req.prompt_id, TRACE_BLOCK_TOKENS) if caching else ())
        # a chat line's template wraps each of its messages, not the chat once (each by its role:
        # predict.sessions.template_tokens_for), and the engine tokenises each message's text on its
        # own (no separator between them); a plain prompt is one user message
        roles = [str(m.get("role", "user")) for m in req.messages] if req.messages else ["user"]
        extra = template_tokens_for(self.deployment, roles) - self.deployment.template_tokens
        key: str | tuple[tuple[str, ...], str] = req.prompt if not req.messages else (tuple(roles), req.prompt)
        hit = self.cache.get(key)
        if hit is not None:
            return hit
        dep = self.deployment
        bs = dep.engine.block_size
        caching = dep.engine.enable_prefix_caching
        if dep.encoder is not None:
            encode = dep.encoder
            ids = [i for m in req.messages for i in encode(str(m.get("content", "")))] if req.messages else encode(req.prompt)
            out = _Tokenised(len(ids) + dep.template_tokens + extra, hashes_from_ids(ids, bs) if caching else ())
        else:
            n = req.input_tokens_nominal or estimate_tokens(req.prompt)
            out = _Tokenised(n + dep.template_tokens + extra, hashes_from_text(req.prompt, n, bs, self.chars_per_token) if caching else ())
        self.cache[key] = out
        return out


def estimate_tokens(text: str) -> int:
    """Nominal tokens of text without a count: 1.3 per word (the plan's own estimate)."""
    return max(1, len(text.split()) * 13 // 10)


def chars_per_token(points: list[PlannedPoint]) -> float:
    chars = tokens = 0
    for p in points:
        for r in p.requests:
            chars += len(r.prompt.encode("utf-8"))
            tokens += r.input_tokens_nominal or estimate_tokens(r.prompt)
    return chars / tokens if tokens else 4.0


def _max_tokens(dep: Deployment, prompt: int, wanted: int) -> int:
    eng = dep.engine
    if eng.overflow == "truncate":
        return max(1, min(wanted, eng.max_model_len - prompt))
    return wanted


def phases_from_plan(points: list[PlannedPoint], dep: Deployment, load: LoadOptions = LoadOptions(), cache: dict[str, Any] | None = None) -> list[Phase]:
    """Warmup then measured phase of every planned point, in plan order. ``cache``
    keeps tokenised prompts between calls (per block size and tokenizer)."""
    key = f"{dep.engine.block_size}|{dep.model.tokenizer}|{dep.template_tokens}|{sorted(message_wraps(dep).items())}|{dep.engine.enable_prefix_caching}"
    memo = cache.setdefault(key, {}) if cache is not None else {}
    tok = PromptTokenizer(dep, chars_per_token(points), memo)
    phases: list[Phase] = []
    index = 0
    for point in points:
        for name in ("warmup", "measured"):
            reqs: list[SimRequest] = []
            for pr in point.requests:
                if pr.phase != name:
                    continue
                t = tok(pr)
                reqs.append(
                    SimRequest(
                        index=index,
                        request_id=pr.request_id,
                        phase=name,
                        point=point.index,
                        concurrency=point.concurrency,
                        prompt_tokens=t.count,
                        max_tokens=_max_tokens(dep, t.count, pr.max_tokens),
                        block_hashes=t.hashes,
                        prompt_id=pr.prompt_id,
                        group=pr.group,
                        context_tokens=point.context_tokens,
                        target=t.count,
                    )
                )
                index += 1
            offsets = None
            if name == "measured" and point.offsets_ns is not None:  # a replayed trace: its own schedule
                offsets = list(point.offsets_ns)
            elif name == "measured" and load.rate is not None:
                offsets = arrival_offsets_ns(len(reqs), load.rate, load.arrival, load.gamma_shape, load.seed)  # type: ignore[arg-type]
            phases.append(Phase(point.index, name, reqs, point.concurrency, offsets))
    return phases


def phases_synthetic(spec: SyntheticWorkload, dep: Deployment, load: LoadOptions = LoadOptions(), cache: dict[Any, Any] | None = None) -> list[Phase]:
    """Unique prompts (nothing shared) of lengths drawn per ``spec.lengths``, one
    point per concurrency, per stage, or the one offline point. ``cache`` keeps each
    request's given fields between calls (``Prepared.request_cache``: search simulates
    one workload on many deployments), so a later call makes the same requests from
    them without drawing, formatting or clamping again: fresh objects (a simulation
    fills them in), the same values."""
    # what of the deployment the requests depend on: the template's tokens and the clamp of _max_tokens
    key = (spec, load, dep.template_tokens, dep.engine.overflow, dep.engine.max_model_len)
    if cache is not None:
        rows = cache.get(key)
        if rows is not None:
            return [Phase(point, name, requests_from_rows(reqs), concurrency, offsets, hold) for point, name, reqs, concurrency, offsets, hold in rows]
    phases = _draw_phases(spec, dep, load)
    if cache is not None:
        # (each request's fields before any simulation changes them; a phase's offsets list is
        # only read, so the phases made from these rows share it)
        cache[key] = [
            (ph.point, ph.name, [(r.index, r.request_id, r.phase, r.point, r.concurrency, r.prompt_tokens, r.max_tokens, r.target) for r in ph.requests],
             ph.concurrency, ph.offsets_ns, ph.hold)
            for ph in phases
        ]  # fmt: skip
    return phases


def _draw_phases(spec: SyntheticWorkload, dep: Deployment, load: LoadOptions) -> list[Phase]:
    phases: list[Phase] = []
    index = 0
    rng = np.random.default_rng(load.seed)
    # A load's (``run``'s) measured lengths come from the seed's own stream and its warm-ups' from
    # another (``workload.adhoc_plan``): drawn the same way here, the measured requests predicted
    # are the ones run sends, draw for draw, whatever either side's warm-up, and the replay's own
    # cool-down and stationary-start cuts (run has neither) come from a third stream. Other
    # workloads keep one stream (the validation points' predictions depend on its order).
    if spec.label is not None:
        warm_rng, extra_rng = np.random.default_rng([load.seed, WARMUP_STREAM]), np.random.default_rng([load.seed, WARMUP_STREAM + 1])
    else:
        warm_rng = extra_rng = rng
    lo, hi = spec.lengths

    def draw(x: int, n: int, stream: np.random.Generator) -> list[int]:
        return uniform_lengths(x, lo, hi, n, stream)  # the harness draws an ad-hoc load's lengths with the same function

    sharegpt = sharegpt_filter(spec.sharegpt_client) if spec.sharegpt_client else None

    def requests(p: int, conc: int, name: str, tag: str, n: int) -> list[SimRequest]:
        nonlocal index
        stream = rng if tag == "m" else warm_rng if tag == "w" else extra_rng
        if sharegpt is not None:
            isls, osls = draw_sharegpt(spec.isl, spec.osl, n, stream, sharegpt)
        else:
            isls, osls = draw(spec.isl, n, stream), draw(spec.osl, n, stream)
        added = 0 if spec.whole_prompt else dep.template_tokens
        prompts = [x + added for x in isls]
        # (search simulates the same workload many times: this loop is on its path)
        out = [
            SimRequest(index + i, f"p{p}-{tag}{i:05d}", name, p, conc, prompt, _max_tokens(dep, prompt, o), target=prompt)
            for i, (prompt, o) in enumerate(zip(prompts, osls, strict=True))
        ]
        index += n
        return out

    if spec.stages:
        reqs: list[SimRequest] = []
        offsets: list[int] = []
        start_ns = 0
        for p, (rate, seconds) in enumerate(spec.stages):
            n = spec.requests_at(1, p)
            reqs.extend(requests(p, 1, "measured", "m", n))
            offs = arrival_offsets_ns(n, rate, load.arrival, load.gamma_shape, load.seed + p)  # type: ignore[arg-type]
            offsets.extend(start_ns + o for o in offs)
            start_ns += round(seconds * 1e9)
        return [Phase(0, "measured", reqs, 1, offsets)]
    if spec.offline:
        n = spec.requests_at(1)
        return [Phase(0, "measured", requests(0, n, "measured", "m", n), n, [0] * n)]
    open_loop = load.rate is not None or spec.rate is not None
    for p, conc in enumerate(spec.levels):
        warm = requests(p, conc, "warmup", "w", spec.warmup_at(conc))
        measured = requests(p, conc, "measured", "m", spec.requests_at(conc))
        if open_loop:
            offered = load.rate if load.rate is not None else spec.rate
            assert offered is not None
            offsets_p = arrival_offsets_ns(len(measured), offered, load.arrival, load.gamma_shape, load.seed)  # type: ignore[arg-type]
            phases.append(Phase(p, "warmup", warm, conc))
            phases.append(Phase(p, "measured", measured, conc, offsets_p))
        elif spec.continuous:
            if spec.replay.stationary_start and warm:
                # each client's first request stops at a uniformly random point of its output:
                # the loop starts with completions spread over one request's length, as if it had
                # run forever (the residual life of a renewal process in equilibrium)
                first = warm[: min(conc, len(warm))]
                cuts = extra_rng.integers(1, np.maximum(2, np.asarray([r.max_tokens for r in first]) + 1))
                for r, cut in zip(first, cuts.tolist(), strict=True):
                    r.max_tokens = int(cut)
            cool = requests(p, conc, "warmup", "c", spec.cooldown_at(conc))  # cool-down: sent, not counted
            phases.append(Phase(p, "measured", warm + measured + cool, conc, hold=bool(cool)))
        else:
            phases.append(Phase(p, "warmup", warm, conc))
            phases.append(Phase(p, "measured", measured, conc))
    return phases
