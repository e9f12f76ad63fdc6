"""What the simulator sends: a workload's planned points (``catalog.plan``, the
same plan the harness sends) or a synthetic ``--isl/--osl`` workload, turned
into phases of ``SimRequest``s with prompt lengths and prefix-cache hashes."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servescope.catalog.plan import PlannedPoint, PlannedRequest
from servescope.predict.deployment import Deployment
from servescope.catalog.arrivals import arrival_offsets_ns
from servescope.predict.sim.load import Phase
from servescope.predict.sim.request import SimRequest
from servescope.predict.tokens import hashes_from_ids, hashes_from_text


@dataclass(frozen=True)
class LoadOptions:
    """Closed loop at each point's concurrency unless ``rate`` is set (open loop)."""

    rate: float | None = None
    arrival: str = "poisson"
    gamma_shape: float = 1.0
    seed: int = 0


@dataclass(frozen=True)
class SyntheticWorkload:
    """Fixed-length random prompts (no shared prefixes): ``--isl N --osl M``."""

    concurrency: tuple[int, ...]
    isl: int
    osl: int
    num_requests: int | None = None
    warmup_requests: int = 0
    requests_per_concurrency: int = 4
    min_requests: int = 32
    range_ratio: float = 0.0
    """Lengths drawn uniformly from [x (1 - r), x (1 + r)] per request (vLLM's
    ``--random-range-ratio``), seeded by the load seed; 0 keeps them exact."""
    continuous_warmup: bool = False
    """False: warmup, then the measured requests as a fresh closed loop (servescope's
    harness: every point starts with a burst). True: one closed loop whose first
    ``warmup_requests`` are excluded (steady-state harnesses such as perf_analyzer/
    genai-perf measure after the start-up burst has passed)."""
    rate: float | None = None
    """Open loop without a concurrency (``predict --rate R`` alone; ``concurrency``
    empty): one point whose requests arrive at R per second, ``num_requests`` of them
    or one simulated minute of arrivals (at least ``min_requests``). Its row is
    labelled by the rate; its concurrency is the most requests in flight."""

    def __post_init__(self) -> None:
        if not self.concurrency and self.rate is None:
            raise ValueError("a synthetic workload needs a concurrency or a rate (give --concurrency or --rate)")
        if self.rate is not None and not self.rate > 0:
            raise ValueError(f"rate {self.rate}: give requests per second > 0")

    @property
    def rate_only(self) -> bool:
        return not self.concurrency

    @property
    def levels(self) -> tuple[int, ...]:
        """The points' concurrencies; an open-loop point without one runs its (empty) warmup at 1."""
        return self.concurrency or (1,)

    @property
    def id(self) -> str:
        if self.rate_only:
            return f"synthetic-r{self.rate:g}-i{self.isl}-o{self.osl}"
        levels = "-".join(str(c) for c in self.concurrency)
        return f"synthetic-c{levels}-i{self.isl}-o{self.osl}"

    def requests_at(self, concurrency: int) -> int:
        if self.num_requests is not None:
            return self.num_requests
        if self.rate_only:
            return max(self.min_requests, math.ceil(60.0 * (self.rate or 0.0)))
        return max(self.min_requests, self.requests_per_concurrency * concurrency)


@dataclass
class _Tokenised:
    count: int
    hashes: tuple[int, ...]


@dataclass
class PromptTokenizer:
    """Counts and hashes prompt text for one deployment (memoised per text)."""

    deployment: Deployment
    chars_per_token: float
    cache: dict[str, _Tokenised] = field(default_factory=dict)

    def __call__(self, req: PlannedRequest) -> _Tokenised:
        hit = self.cache.get(req.prompt)
        if hit is not None:
            return hit
        dep = self.deployment
        bs = dep.engine.block_size
        caching = dep.engine.enable_prefix_caching
        if dep.encoder is not None:
            ids = dep.encoder(req.prompt)
            out = _Tokenised(len(ids) + dep.template_tokens, hashes_from_ids(ids, bs) if caching else ())
        else:
            n = req.input_tokens_nominal or estimate_tokens(req.prompt)
            out = _Tokenised(n + dep.template_tokens, hashes_from_text(req.prompt, n, bs, self.chars_per_token) if caching else ())
        self.cache[req.prompt] = out
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


def phases_from_plan(
    points: list[PlannedPoint], dep: Deployment, load: LoadOptions = LoadOptions(), cache: dict[str, Any] | None = None
) -> list[Phase]:
    """Warmup then measured phase of every planned point, in plan order. ``cache``
    keeps tokenised prompts between calls (per block size and tokenizer)."""
    key = f"{dep.engine.block_size}|{dep.model.tokenizer}|{dep.template_tokens}|{dep.engine.enable_prefix_caching}"
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
            if name == "measured" and load.rate is not None:
                offsets = arrival_offsets_ns(len(reqs), load.rate, load.arrival, load.gamma_shape, load.seed)
            phases.append(Phase(point.index, name, reqs, point.concurrency, offsets))
    return phases


def phases_synthetic(spec: SyntheticWorkload, dep: Deployment, load: LoadOptions = LoadOptions()) -> list[Phase]:
    """Unique prompts of exactly ``isl`` tokens (nothing shared), ``osl`` output tokens."""
    phases: list[Phase] = []
    index = 0
    rng = np.random.default_rng(load.seed)
    r = spec.range_ratio

    def draw(x: int, n: int) -> list[int]:
        if r <= 0:
            return [x] * n
        return np.maximum(1, rng.integers(int(x * (1 - r)), int(x * (1 + r)) + 1, size=n)).tolist()

    for p, conc in enumerate(spec.levels):
        groups = [("warmup", spec.warmup_requests), ("measured", spec.requests_at(conc))]
        pending: list[SimRequest] = []
        for name, n in groups:
            reqs = pending
            isls, osls = draw(spec.isl, n), draw(spec.osl, n)
            prompts = [x + dep.template_tokens for x in isls]
            tag = f"p{p}-{name[0]}"
            # (search simulates the same workload many times: this loop is on its path)
            reqs.extend(
                SimRequest(index + i, f"{tag}{i:05d}", name, p, conc, prompt, _max_tokens(dep, prompt, out), target=prompt)
                for i, (prompt, out) in enumerate(zip(prompts, osls, strict=True))
            )
            index += n
            if spec.continuous_warmup and name == "warmup":
                continue  # the measured requests join this same closed loop
            pending = []
            offsets = None
            if name == "measured" and load.rate is not None:
                offsets = arrival_offsets_ns(len(reqs), load.rate, load.arrival, load.gamma_shape, load.seed)
            phases.append(Phase(p, name, reqs, conc, offsets))
    return phases
