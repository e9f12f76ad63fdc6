"""``servescope search``: which parallelism and batch limit serve a workload best
on N devices, under latency SLOs?

For every engine@version and weight dtype asked for (default: vLLM 0.11.0, bf16),
every tensor-parallel size ``tp`` that divides N (and the model's attention
heads), ``dp = N / tp`` replicas, and every ``max_num_seqs`` candidate, the
workload is simulated at increasing concurrency until a point breaks an SLO
(latency only grows with load, so higher levels cannot recover).

Runs are shared. ``max_num_seqs`` candidates are tried largest first; a run in
which no replica ever filled its sequence slots (the cap never decided
anything) and nothing was refused, preempted or evicted is the same run, step
for step, under any ``max_num_seqs`` at least as large as the most sequences
a replica ever ran, and any KV pool at least as large as the most blocks it
ever held (a test checks the ranking and numbers against no sharing). A
configuration's score is the best output throughput per device among the
points that meet every SLO; configurations are ranked by it. Configurations
whose weights do not fit are listed as skipped with the reason.

A level's run stops early once its TTFT percentile is certain to break a TTFT
SLO (``sim.simulator.TtftGiveUp``: enough measured requests were admitted later than
the limit); such a level fails whatever the rest of the run would do, so the ranking
and every score are unchanged (tested on the benchmark cases), and its figures in
``Candidate.measured_at`` are None (not simulated to the end; ``Candidate.gave_up``
says why). ``give_up=False`` simulates every level to its end.

Without levels of its own (``concurrency="sweep"``: a synthetic ``--isl/--osl``
workload and no ``--concurrency``) the search sweeps powers of two from 1 up to
``devices x max(max_num_seqs)`` - the most sequences any configuration can run at
once - or ``SWEEP_CEILING`` if lower (``sweep_levels``). A single level would rank
every configuration at one load, where a configuration with more replicas has not
yet filled its batches (llama-3.1-8b on 8 x H100 at c = 64 ranked tp1-dp8 15th of
20; swept, it is 4th). Each configuration climbs until a level breaks an SLO or
reaches ``dp x max_num_seqs``: there every slot is full and more clients only wait
in the queue (its TTFT grows, its throughput does not), which also bounds a sweep
whose SLO never breaks (an ITL limit alone does not grow with queueing). Doubling
keeps a sweep's cost about twice its top level's (a level replays 16 x c requests
by default, 16,384 at the ceiling, about a second of simulation on one core). A
configuration still meeting the SLO at the highest level tried is counted in
``SearchOutcome.at_top_level``, and the output says its best may lie higher.

An SLO such as ``ttft_ms<=500`` is checked on a statistic of the point's
distribution (``percentile``, default p90; ``mean`` is accepted); a prefix names
its own statistic: ``p99_ttft_ms<=2000``, ``mean_tpot_ms<=50``.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from servescope import limits
from servescope.analysis.metrics import FastStats
from servescope.analysis.stats import percentile as _percentile
from servescope.analysis.stats import weighted_percentile
from servescope.catalog.store import Catalog
from servescope.documents import Hardware, Model, Scenario, Workload
from servescope.documents.scenario_args import version_problem
from servescope.documents.slo import SloSpec, parse_slos
from servescope.errors import BadArgument, ServescopeError
from servescope.predict.api import Prepared, prepare, run_simulation
from servescope.predict.coverage import Lengths, check_workload, context_refusal, lengths_given
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.fanout import run_parts
from servescope.predict.outputs import fast_stats
from servescope.predict.sim.simulator import TtftGiveUp
from servescope.predict.workload_input import SyntheticWorkload

DEFAULT_SEQS: tuple[int, ...] = (32, 64, 128, 256, 512)
SWEEP_CEILING = 1024
"""The highest level of the default sweep (module docstring)."""
DEFAULT_ENGINE: tuple[str, str] = ("vllm", "0.11.0")
_DTYPES = ("fp32", "bf16", "fp16", "fp8", "int8", "int4", "fp4")


def statistic(stats: FastStats, metric: str, pct: float | None) -> float | None:
    """The SLO statistic of a point: mean, or a percentile (analysis.stats method)."""
    if metric == "itl_ms":
        if not stats.itl_weights.size:
            return None
        if pct is None:
            return float((stats.itl_gaps_ms * stats.itl_weights).sum() / stats.itl_weights.sum())
        return weighted_percentile(stats.itl_gaps_ms, stats.itl_weights, pct)
    vals = {"ttft_ms": stats.ttft_ms, "e2e_ms": stats.e2e_ms, "tpot_ms": stats.tpot_ms}[metric]
    if not vals.size:
        return None
    return float(vals.mean()) if pct is None else _percentile(vals, pct)


@dataclass
class Candidate:
    tp: int
    dp: int
    max_num_seqs: int
    engine: str = "vllm"
    engine_version: str = DEFAULT_ENGINE[1]
    weight_dtype: str = "bf16"
    best_concurrency: int | None = None
    output_tokens_per_sec: float | None = None
    per_device: float | None = None
    measured_at: dict[int, dict[str, float | None]] = field(default_factory=dict)
    skipped: str | None = None
    gave_up: dict[int, str] = field(default_factory=dict)
    """Levels whose run was stopped once its TTFT percentile was certain to break the
    SLO (``measured_at`` holds None there: the figures were not simulated to the end)."""
    warnings: list[str] = field(default_factory=list)
    """What the simulator warned of this configuration's deployment (``Deployment.warnings``,
    less the generated scenario's name): what it approximates or does not model."""
    context_refused: bool = False
    """Skipped because its context refuses every request of the workload (``coverage.context_refusal``)."""

    @property
    def label(self) -> str:
        return f"{self.engine}@{self.engine_version}-{self.weight_dtype}-tp{self.tp}-dp{self.dp}-seqs{self.max_num_seqs}"


@dataclass
class SearchOutcome:
    ranked: list[Candidate]
    skipped: list[Candidate]
    slos: list[SloSpec]
    devices: int
    configurations: int
    simulations: int
    wall_s: float
    gave_up: int = 0
    """Simulations stopped early by the TTFT give-up rule."""
    levels: list[int] = field(default_factory=list)
    """The concurrency levels tried, ascending (each configuration up to its first that breaks an SLO)."""
    swept: bool = False
    """The levels are the default sweep (``sweep_levels``)."""
    percentile: float | None = 90.0
    """The percentile an SLO without a prefix is checked on (None: the mean)."""

    @property
    def at_top_level(self) -> list[Candidate]:
        """Ranked configurations whose best level is the highest tried: their best may lie higher."""
        top = max(self.levels, default=None)
        return [c for c in self.ranked if c.best_concurrency is not None and c.best_concurrency == top]

    @property
    def configurations_per_s(self) -> float:
        return self.configurations / self.wall_s if self.wall_s > 0 else float("inf")

    def warnings(self) -> list[tuple[str, list[str]]]:
        """Each distinct warning of the ranked configurations, with the labels of those it concerns
        in rank order, so that a ranking built on an approximated deployment says so as ``predict``
        does (a skipped configuration says why in ``Candidate.skipped`` instead)."""
        seen: dict[str, list[str]] = {}
        for cand in self.ranked:
            for line in cand.warnings:
                seen.setdefault(line, []).append(cand.label)
        return list(seen.items())


def parse_engines(text: str) -> list[tuple[str, str]]:
    """``"vllm@0.11.0,sglang@0.5.2"`` → [(engine, version), ...]; each needs its version
    (it labels the configuration and version-dependent rules read it)."""
    out: list[tuple[str, str]] = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        engine, sep, version = part.partition("@")
        if not sep or not engine.strip() or not version.strip():
            raise ValueError(f"engine {part!r}: write ENGINE@VERSION, e.g. vllm@0.11.0,sglang@0.5.2,trt-llm@1.0.0")
        problem = version_problem(version)
        if problem:
            raise ValueError(f"--engines {part!r}: {problem}")
        out.append((engine.strip(), version.strip()))
    if not out:
        raise ValueError("--engines: give at least one ENGINE@VERSION")
    if len(set(out)) != len(out):
        raise ValueError("--engines: an engine@version is listed twice")
    return out


def parse_dtypes(text: str) -> list[str]:
    """``"bf16,fp8"`` → weight dtypes to try."""
    out = [d.strip().lower() for d in text.split(",") if d.strip()]
    bad = [d for d in out if d not in _DTYPES]
    if not out or bad:
        raise ValueError(f"--dtypes: {', '.join(bad) or 'nothing given'}; give weight dtypes from {', '.join(_DTYPES)}")
    if len(set(out)) != len(out):
        raise ValueError("--dtypes: a dtype is listed twice")
    return out


def sweep_levels(devices: int, max_num_seqs: Sequence[int]) -> list[int]:
    """The default sweep: powers of two from 1 to the first at or above the most sequences
    any configuration runs at once (``devices`` replicas of tp 1 at the largest
    ``max_num_seqs``), at most ``SWEEP_CEILING``."""
    top = min(devices * max(max_num_seqs, default=1), SWEEP_CEILING, limits.MAX_SIMULATED_CONCURRENCY)
    levels = [1]
    while levels[-1] < top:
        levels.append(levels[-1] * 2)
    return [c for c in levels if c <= limits.MAX_SIMULATED_CONCURRENCY]


def tp_choices(devices: int, heads: int) -> list[int]:
    return [t for t in range(1, devices + 1) if devices % t == 0 and heads % t == 0 and (t & (t - 1)) == 0]


@dataclass
class _Job:
    """What every part of a search needs (sent once to each worker: ``predict.fanout``)."""

    catalog: Catalog
    model: Model
    hardware: Hardware
    devices: int
    slos: list[SloSpec]
    workload: Workload | str | SyntheticWorkload
    engines: list[tuple[str, str]]
    weight_dtypes: list[str]
    max_num_seqs: list[int]
    levels: list[int]
    percentile: float | None
    seed: int
    reuse: bool
    give_up: bool = True
    sweep: bool = False
    """The default sweep: each configuration stops at its first level >= dp x max_num_seqs."""
    prepared: dict[int, Prepared] = field(default_factory=dict)
    """Each level's prepared workload, shared by every tp's part in one process (its
    ``request_cache`` then holds each level's requests once for all of them)."""


def _give_up_rule(job: _Job) -> tuple[float, float] | None:
    """(limit ms, percentile) of the first TTFT upper limit checked on a percentile:
    a level's run can stop once that percentile is certain to exceed it."""
    if not job.give_up:
        return None
    for s in job.slos:
        pct = s.percentile(job.percentile)
        if s.metric == "ttft_ms" and s.op in ("<=", "<") and pct is not None:
            return s.threshold, pct
    return None


_Part = tuple[int, tuple[str, str], str]
"""One independent part of a search: (tp, (engine, version), weight dtype). Runs are shared
only within a part (``_search_tp_configs``' key starts with the engine, version and dtype,
and it is kept per tp), so a search split into parts anywhere gives the same figures."""


def _search_part(part: _Part, job: _Job) -> tuple[list[Candidate], list[Candidate], int, int, int]:
    """Every max_num_seqs candidate of one part (``_search_tp`` of the part's engine and dtype)."""
    tp, engine, dtype = part
    return _search_tp(tp, replace(job, engines=[engine], weight_dtypes=[dtype]))  # ``prepared`` stays shared in this process


def _search_tp(tp: int, job: _Job) -> tuple[list[Candidate], list[Candidate], int, int, int]:
    """Every max_num_seqs candidate at one tp: (ranked, skipped, simulations, configurations, runs given up).

    The cyclic garbage collector is paused throughout: a finished run leaves no reference
    cycle (its objects go by reference counting), while a collection that follows each run
    (``run_simulation`` pauses it only during the run) walks every object the run just
    made and still holds - ~2-3 % of a search."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        return _search_tp_configs(tp, job)
    finally:
        if enabled:
            gc.enable()


def _search_tp_configs(tp: int, job: _Job) -> tuple[list[Candidate], list[Candidate], int, int, int]:
    rule = _give_up_rule(job)
    gave_up = 0
    mdl, hw, cat, devices = job.model, job.hardware, job.catalog, job.devices
    dp = devices // tp
    prepared = job.prepared
    ranked: list[Candidate] = []
    skipped: list[Candidate] = []
    sims = 0
    n_configs = 0
    # (engine, version, dtype, level, budget) -> (stats of a run the cap never touched - None
    # when it was given up, the reason beside -, most sequences a replica ran, most blocks a
    # replica held). A run given up is shared too: up to where it stopped it is the same run,
    # step for step, under any cap and pool that hold it, so it stops there as well.
    shared: dict[tuple[str, str, str, int, int], tuple[FastStats | None, str | None, int, int]] = {}
    # The SLO statistics of a run's stats, computed once however many caps share the run
    # (~100 lookups for ~15 runs on the benchmark's sweep: the percentiles were ~3 % of it).
    # Keyed by id, the stats kept beside their figures so that id is never reused meanwhile.
    slo_figures: dict[int, tuple[FastStats, dict[str, float | None]]] = {}
    for (engine, version), dtype, seqs in ((e, d, q) for e in job.engines for d in job.weight_dtypes for q in sorted(set(job.max_num_seqs), reverse=True)):
        n_configs += 1
        cand = Candidate(tp, dp, seqs, engine, version, dtype)
        scen = Scenario(
            name=f"search-{mdl.id}-{hw.id}-{engine}-{version}-{dtype}-tp{tp}-dp{dp}-s{seqs}",
            model=mdl.id,
            hardware=hw.id,
            count=devices,
            tp=tp,
            dp=dp,
            engine={"id": engine, "version": version, "max_num_seqs": seqs},  # type: ignore[arg-type]
            weight_dtype=dtype,  # type: ignore[arg-type]
        )
        try:
            dep = deploy(scen, catalog=cat, model=mdl, hardware=hw)
        except (ServescopeError, ValueError) as exc:
            cand.skipped = str(exc)
            skipped.append(cand)
            continue
        prefix = f"scenario {scen.name}: "
        cand.warnings = [w.removeprefix(prefix) for w in dep.warnings]
        for c in job.levels:
            if c not in prepared:
                prepared[c] = prepare(job.workload, catalog=cat, concurrency=[c], seed=job.seed)
            key = (engine, version, dtype, c, dep.engine.max_num_batched_tokens)
            hit = shared.get(key) if job.reuse else None
            fs: FastStats | None
            if hit is not None and seqs >= hit[2] and dep.kv.num_blocks >= hit[3]:
                fs, reason = hit[0], hit[1]
            else:
                give_up = TtftGiveUp(*rule) if rule is not None else None
                outcome = run_simulation(prepared[c], dep, give_up=give_up)
                sims += 1
                if any(q.failure for q in outcome.requests) and not _context_fits(cand, dep, outcome.requests, job):
                    break
                reason = outcome.gave_up
                gave_up += reason is not None
                fs = fast_stats(outcome, 0) if reason is None else None
                pools = [r.pool for r in outcome.replicas]
                running = max(r.peak_running for r in outcome.replicas)
                # warmup included: a refusal, preemption or eviction anywhere makes the run pool-size dependent
                clean = not any(p.evictions for p in pools) and not any(q.preemptions or q.failure for q in outcome.requests)
                if job.reuse and clean and running < seqs and key not in shared:
                    shared[key] = (fs, reason, running, max(p.peak_occupied for p in pools))
            if fs is None:
                cand.measured_at[c] = {**{s.name: None for s in job.slos}, "output_tokens_per_sec": None}
                cand.gave_up[c] = reason or ""
                break
            memo = slo_figures.get(id(fs))
            if memo is None:
                memo = slo_figures[id(fs)] = (fs, {s.name: statistic(fs, s.metric, s.percentile(job.percentile)) for s in job.slos})
            stats = memo[1]
            cand.measured_at[c] = {**stats, "output_tokens_per_sec": fs.output_tokens_per_sec}
            if not all(s.ok(stats[s.name]) for s in job.slos) or fs.failed:
                break
            tput = fs.output_tokens_per_sec or 0.0
            if cand.output_tokens_per_sec is None or tput > cand.output_tokens_per_sec:
                cand.output_tokens_per_sec = tput
                cand.per_device = tput / devices
                cand.best_concurrency = c
            if job.sweep and c >= dp * seqs:
                break  # every slot full: a higher level only queues
        if cand.context_refused:
            skipped.append(cand)
            continue
        ranked.append(cand)
    return ranked, skipped, sims, n_configs, gave_up


def _context_fits(cand: Candidate, dep: Deployment, requests: Iterable[Lengths], job: _Job) -> bool:
    """False (the candidate marked skipped, with the reason) when the deployment's context refuses every
    request; some refused is a warning of the candidate's, as ``predict`` gives it."""
    try:
        line = context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, requests, lengths_given(job.workload))
    except BadArgument as exc:
        cand.skipped, cand.context_refused = str(exc), True
        return False
    if line is not None and line not in cand.warnings:
        cand.warnings.append(line)
    return True


def search(
    model: str,
    hardware: str,
    devices: int,
    slos: Sequence[SloSpec] | str,
    workload: Workload | str | SyntheticWorkload,
    *,
    catalog: Catalog | None = None,
    engines: Sequence[tuple[str, str]] | str = (DEFAULT_ENGINE,),
    weight_dtypes: Sequence[str] | str = ("bf16",),
    max_num_seqs: Sequence[int] = DEFAULT_SEQS,
    concurrency: Sequence[int] | Literal["sweep"] | None = None,
    percentile: float | None = 90.0,
    seed: int = 0,
    reuse: bool = True,
    give_up: bool = True,
    workers: int = 1,
    ray: str | None = None,
) -> SearchOutcome:
    """Rank (engine@version, weight dtype, tp, dp, max_num_seqs) for ``model`` on
    ``devices`` x ``hardware`` by throughput per device under ``slos``. ``engines``
    are (engine, version) pairs or ``"vllm@0.11.0,sglang@0.5.2"``; ``weight_dtypes``
    a list or ``"bf16,fp8"``. A configuration the simulator refuses (a dtype the
    device cannot hold, a flag it does not model) is listed as skipped with the
    reason. ``concurrency`` overrides the workload's levels; ``"sweep"`` sweeps
    ``sweep_levels`` (module docstring). ``workers`` > 1 searches its parts (each tp,
    engine@version and dtype) in that many forked processes (Linux), ``ray`` (a Ray address
    or ``auto``) as tasks on a Ray cluster (``predict.fanout``); the outcome is the same as
    one process's, order included (only ``wall_s`` differs)."""
    started = time.perf_counter()
    if not 1 <= devices <= limits.MAX_GPUS:
        raise ValueError(f"--gpus {devices:,}: give 1..{limits.MAX_GPUS:,} devices (SERVESCOPE_MAX_GPUS)")
    for seqs in max_num_seqs:
        if not 1 <= seqs <= limits.MAX_SIMULATED_CONCURRENCY:
            raise ValueError(f"max_num_seqs {seqs:,}: give 1..{limits.MAX_SIMULATED_CONCURRENCY:,} (SERVESCOPE_MAX_SIMULATED_CONCURRENCY)")
    cat = catalog or Catalog.load()
    slo_list = parse_slos(slos) if isinstance(slos, str) else list(slos)
    mdl = cat.model(model)
    hw = cat.hardware(hardware)
    sweep = concurrency == "sweep"
    levels: list[int] | None = None
    if concurrency == "sweep":
        levels = sweep_levels(devices, max_num_seqs)
    elif concurrency:
        levels = list(concurrency)
    if levels is None:
        if isinstance(workload, SyntheticWorkload):
            levels = list(workload.concurrency)
        else:
            wl = cat.workload(workload) if isinstance(workload, str) else workload
            check_workload(wl)  # image workloads: one line, nothing searched
            levels = list(wl.sweep.values) if wl.sweep is not None and wl.sweep.axis == "concurrency" else [wl.params.concurrency or 1]
    engine_list = parse_engines(engines) if isinstance(engines, str) else list(engines)
    dtype_list = parse_dtypes(weight_dtypes) if isinstance(weight_dtypes, str) else list(weight_dtypes)
    job = _Job(cat, mdl, hw, devices, slo_list, workload, engine_list, dtype_list, list(max_num_seqs),
               sorted(set(levels)), percentile, seed, reuse, give_up, sweep)  # fmt: skip
    for level in levels:
        if not 1 <= level <= limits.MAX_SIMULATED_CONCURRENCY:
            raise ValueError(f"concurrency {level:,}: give 1..{limits.MAX_SIMULATED_CONCURRENCY:,} (SERVESCOPE_MAX_SIMULATED_CONCURRENCY)")
    tps = tp_choices(devices, mdl.num_attention_heads)
    candidates = len(engine_list) * len(dtype_list) * len(tps) * len(max_num_seqs)
    if candidates > limits.MAX_SEARCH_CANDIDATES:
        raise ValueError(f"this search would try {candidates:,} configurations ({len(engine_list)} --engines x {len(dtype_list)} --dtypes x "
                         f"{len(tps)} tp sizes of --gpus {devices} x {len(max_num_seqs)} --max-num-seqs), each at up to "
                         f"{len(set(levels))} concurrency level{'s' if len(set(levels)) != 1 else ''}, above the limit of {limits.MAX_SEARCH_CANDIDATES:,} (SERVESCOPE_MAX_SEARCH_CANDIDATES); "
                         "give fewer --max-num-seqs, --engines or --dtypes")  # fmt: skip
    work: list[_Part] = [(tp, e, d) for tp in tps for e in engine_list for d in dtype_list]
    parts = run_parts(_search_part, work, job, workers=workers, ray_address=ray)
    ranked = [c for part in parts for c in part[0]]
    skipped = [c for part in parts for c in part[1]]
    if skipped and not ranked and all(c.context_refused for c in skipped):
        raise BadArgument(skipped[0].skipped or "every request exceeds every configuration's context")
    ranked.sort(key=lambda k: (-(k.per_device or -1.0), k.engine, k.engine_version, k.weight_dtype, k.tp, k.max_num_seqs))
    skipped.sort(key=lambda k: (k.engine, k.engine_version, k.weight_dtype, k.tp, k.max_num_seqs))
    return SearchOutcome(ranked, skipped, slo_list, devices, sum(p[3] for p in parts), sum(p[2] for p in parts),
                         time.perf_counter() - started, sum(p[4] for p in parts), job.levels, sweep, percentile)  # fmt: skip


def format_warnings(outcome: SearchOutcome, most_labels: int = 3) -> list[str]:
    """One line per distinct warning of the ranked configurations, naming how many it concerns
    and the first few of them."""
    total = len(outcome.ranked)
    lines = []
    for message, labels in outcome.warnings():
        shown = ", ".join(labels[:most_labels]) + (", ..." if len(labels) > most_labels else "")
        lines.append(f"{message} ({len(labels)} of {total} configurations: {shown})")
    return lines


def levels_lines(outcome: SearchOutcome) -> list[str]:
    """Which concurrency levels were tried; and, when some configurations still met the SLO at
    the highest, that their best may lie above it."""
    line = f"concurrency levels tried: {', '.join(map(str, outcome.levels))}"
    if outcome.swept:
        line += " (default sweep, each configuration up to dp x max_num_seqs; --concurrency sets others)"
    lines = [line]
    high = outcome.at_top_level
    if high:
        lines.append(f"{len(high)} of {len(outcome.ranked)} configurations still met the SLO at {outcome.levels[-1]}, "
                     "the highest level tried: their best may lie higher (--concurrency with higher levels)")  # fmt: skip
    return lines


def _slo_said(slo: SloSpec, percentile: float | None) -> str:
    """An SLO as it is checked: an unprefixed one names the statistic search applies (``ttft_ms<=500 (p90)``),
    which predict --max-rate (p99) and run --slo (per request) read otherwise."""
    if slo.stat is not None:
        return str(slo)
    return f"{slo} ({'mean' if percentile is None else f'p{percentile:g}'})"


def format_search(outcome: SearchOutcome, top: int = 10, bands: dict[str, tuple[float, float]] | None = None) -> str:
    """The ranking; ``bands`` (configuration label -> [low, high] of its out tok/s, as ``predict``'s
    interval gives it) adds a column: the ranking itself is by the point figures."""
    lines = [
        (
            f"{outcome.configurations} configurations, {outcome.simulations} simulations"
            + (f" ({outcome.gave_up} stopped once their TTFT broke the SLO)" if outcome.gave_up else "")
            + f" in {outcome.wall_s:.2f} s ({outcome.configurations_per_s:.1f} configurations/s); "
            f"SLO: {', '.join(_slo_said(s, outcome.percentile) for s in outcome.slos) or 'none'}"
        ),
    ]
    width = max([22, *(len(c.label) for c in [*outcome.ranked[:top], *outcome.skipped])])
    lines.extend(levels_lines(outcome))
    if bands is not None and outcome.ranked:
        lines.append("ranked by the predicted out tok/s per device, each level held to the SLO by its predicted figures; the interval is where "
                     "a measurement of the best level's out tok/s is expected (predict's 80 % interval, docs/predicting.md)")  # fmt: skip
    lines.append(
        f"{'rank':>4} {'config':<{width}} {'best conc':>9} {'out tok/s':>10} {'per device':>10}" + ("  80 % interval of out tok/s" if bands is not None else "")
    )
    for i, c in enumerate(outcome.ranked[:top], 1):
        if c.per_device is None:
            lines.append(f"{i:>4} {c.label:<{width}} {'-':>9} {'-':>10} {'-':>10}  (no level meets the SLO)")
        else:
            band = (bands or {}).get(c.label)
            shown = f"  {band[0]:.1f}–{band[1]:.1f}" if band is not None else ("  -" if bands is not None else "")
            lines.append(f"{i:>4} {c.label:<{width}} {c.best_concurrency:>9} {c.output_tokens_per_sec:>10.1f} {c.per_device:>10.1f}{shown}")
    for c in outcome.skipped:
        lines.append(f"   - {c.label:<{width}} skipped: {c.skipped}")
    return "\n".join(lines)
