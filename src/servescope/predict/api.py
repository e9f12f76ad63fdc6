"""Library entry points behind ``servescope predict``.

::

    run = predict("llama-3.1-8b-on-h100", "serve-chat-c8-i1k-o256-v1")
    run.prediction   # Prediction: one row per concurrency (timing_mode simulated)
    run.result       # Result with simulated per-request records aggregated
    run.records      # the RequestRecords themselves

    predict("llama-3.1-8b-on-h100", SyntheticWorkload((1, 8, 64), isl=1024, osl=256))

``prepare`` + ``simulate`` split the same work so that calibration and search
resolve the workload once and simulate it under many deployments.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from statistics import fmean
from typing import Any

from servescope import limits
from servescope.analysis.metrics import Columns, aggregate_columns, turn_rows
from servescope.catalog.store import Catalog
from servescope.documents import Prediction, Result, Scenario, Workload, load_document
from servescope.documents.prediction import Calibration as CalibrationDocument
from servescope.documents.record import RequestRecord
from servescope.documents.result import Slo
from servescope.predict.calibration import load_calibration
from servescope.predict.coverage import check_workload, context_refusal, lengths_given
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.intervals import interval_for, with_intervals
from servescope.predict.outputs import (
    PointView,
    build_columns,
    build_prediction,
    build_records,
    build_result,
    engine_figures,
    peak_in_flight,
    relabel_concurrency,
)
from servescope.predict.regimes import LoadShape
from servescope.predict.sessions import check_budget, is_multi_turn, message_wraps, session_phases, turn_numbers
from servescope.predict.sim.load import Phase
from servescope.predict.sim.simulator import SimOutcome, Simulation, TtftGiveUp
from servescope.predict.stream_chunks import TIMES_EVERY_CHUNK, textless_chunks
from servescope.predict.unsimulated_cache import unsimulated_cache_warning
from servescope.predict.workload_input import (
    LoadOptions,
    SyntheticWorkload,
    phases_from_plan,
    phases_synthetic,
)
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load_build import ResolvedLoad
from servescope.workload.plan import PlannedPoint, plan

CalibrationInput = CalibrationDocument | dict[str, float] | str | Path | None


@dataclass
class PredictionRun:
    """Everything one prediction produced. ``records`` (one ``RequestRecord`` per
    request, a time stamp per token) are built from the simulation on first use:
    the documents do not need them, and at 10,000 requests they cost as much as
    the simulation itself."""

    prediction: Prediction
    result: Result
    outcome: SimOutcome
    deployment: Deployment
    events: int
    wall_s: float
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    _lazy: _LazyRecords | None = field(default=None, repr=False)

    @property
    def records(self) -> list[RequestRecord]:
        if self._lazy is None:
            self._lazy = _LazyRecords(self.outcome)
        return self._lazy.records


@dataclass
class Prepared:
    """A workload resolved once: planned points (catalog workload) or a synthetic spec."""

    workload_id: str
    load: LoadOptions
    points: list[PlannedPoint] | None = None
    synthetic: SyntheticWorkload | None = None
    resolved: dict[str, Any] = field(default_factory=dict)
    token_cache: dict[str, Any] = field(default_factory=dict)
    request_cache: dict[Any, Any] = field(default_factory=dict)
    """A synthetic workload's requests, per deployment they depend on (``phases_synthetic``)."""

    @property
    def concurrency_of(self) -> dict[int, int]:
        if self.points is not None:
            return {p.index: p.concurrency for p in self.points}
        assert self.synthetic is not None
        return dict(enumerate(self.synthetic.levels))

    @property
    def rate_only(self) -> bool:
        """An open-loop point without a concurrency: its row is labelled by the most requests in flight."""
        return self.synthetic is not None and self.synthetic.rate_only

    @property
    def rate_of(self) -> dict[int, float | None]:
        """Each point's offered rate: a stage's own, else the load's (None in closed loop and offline)."""
        if self.synthetic is not None and (self.synthetic.stages or self.synthetic.offline):
            return dict(enumerate(self.synthetic.rates))
        return {p: self.load.rate for p in self.concurrency_of}

    @property
    def multi_turn(self) -> bool:
        """A load of multi-turn sessions (``predict.sessions``)."""
        return is_multi_turn(self.points)

    @property
    def context_of(self) -> dict[int, int | None]:
        return {p.index: p.context_tokens for p in self.points} if self.points is not None else {}


class _LazyRecords:
    """The records of a simulation, built once, when first asked for (SLO checks,
    ``PredictionRun.records``)."""

    def __init__(self, outcome: SimOutcome, textless: tuple[int, int] = (0, 0)) -> None:
        self.outcome = outcome
        self.textless = textless
        self._built: list[RequestRecord] | None = None

    @property
    def records(self) -> list[RequestRecord]:
        if self._built is None:
            self._built = build_records(self.outcome, self.textless)
        return self._built

    def __iter__(self) -> Iterator[RequestRecord]:
        return iter(self.records)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The simulator allocates millions of small objects it keeps (token times);
    generational GC passes over them are pure overhead, so pause it while it runs."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _calibration(value: CalibrationInput) -> tuple[CalibrationDocument | dict[str, float] | None, str | None]:
    if value is None or isinstance(value, dict | CalibrationDocument):
        return value, (value.name if isinstance(value, CalibrationDocument) else None)
    doc = load_calibration(value)
    return doc, str(value)


def prepare(
    workload: Workload | str | SyntheticWorkload | ResolvedLoad,
    *,
    catalog: Catalog | None = None,
    concurrency: list[int] | None = None,
    rate: float | None = None,
    arrival: str = "poisson",
    gamma_shape: float = 1.0,
    seed: int = 0,
    load_record: dict[str, Any] | None = None,
) -> Prepared:
    """Resolve a workload (plan it from its dataset), a synthetic spec, or a load
    (``workload.load``: a trace or a prompt file is planned as the harness plans it, a
    Workload file from its dataset, each labelled by the load)."""
    if isinstance(workload, ResolvedLoad):
        load_ = workload.load
        if load_.source == "synthetic" and load_.sessions is not None and load_.turns is not None:
            # multi-turn sessions: the plan run sends (same draws, same seed), simulated turn by turn (predict.sessions)
            check_budget(load_.sessions, load_.turns)
            points = plan_load(workload)
            resolved_sessions: dict[str, Any] = {"load_description": load_.record(), "isl": load_.isl, "osl": load_.osl,
                                                 "concurrency": [load_.sessions], "lengths": [1 - load_.range_ratio, 1 + load_.range_ratio],
                                                 "sessions": load_.sessions, "turns": load_.turns, "think_time_ms": load_.think_time_ms,
                                                 "system_prompt_tokens": load_.system_prompt_tokens}  # fmt: skip
            return Prepared(load_.label, LoadOptions(seed=seed), points=points, resolved=resolved_sessions)
        if workload.load.source in ("trace", "prompts"):
            if workload.load.rate is not None:
                rate = workload.load.rate
            load_opts = LoadOptions(rate=rate, arrival=arrival, gamma_shape=gamma_shape, seed=seed)
            points = plan_load(workload)
            resolved_load: dict[str, Any] = {"load_description": workload.load.record()}
            resolved_load["points"] = [{"concurrency": p.concurrency, "measured": p.measured} for p in points]
            return Prepared(workload.load.label, load_opts, points=points, resolved=resolved_load)
        if workload.workload is None:
            raise ValueError(f"a {workload.load.source} load is predicted from a Workload or a SyntheticWorkload")
        labelled = workload.workload.model_copy(update={"id": workload.load.label})
        prepared = prepare(labelled, catalog=catalog, concurrency=concurrency, rate=rate, arrival=arrival, gamma_shape=gamma_shape, seed=seed)
        prepared.resolved["load_description"] = workload.load.record()
        return prepared
    if isinstance(workload, SyntheticWorkload) and workload.rate is not None:
        if rate is not None and rate != workload.rate:
            raise ValueError(f"rate {rate} given beside a synthetic workload at rate {workload.rate}; give one")
        rate = workload.rate
    load = LoadOptions(rate=rate, arrival=arrival, gamma_shape=gamma_shape, seed=seed)
    if isinstance(workload, SyntheticWorkload):
        spec = workload
        if concurrency is not None:
            spec = replace(spec, concurrency=tuple(concurrency))
        lo, hi = spec.lengths
        resolved: dict[str, Any] = {"isl": spec.isl, "osl": spec.osl, "concurrency": list(spec.concurrency),
                                    "harness": spec.replay.name, "lengths": [lo, hi]}  # fmt: skip
        if spec.sharegpt_client:
            # lengths drawn from predict.dataset_lengths' law under that client's ShareGPT filter, not [lo, hi]
            resolved["lengths"] = {"dataset": "sharegpt", "client_filter": spec.sharegpt_client, "law": "exponential"}
        if spec.closed_loop:
            resolved["replay"] = {
                "warmup_requests": [spec.warmup_at(c) for c in spec.levels],
                "measured_requests": [spec.requests_at(c) for c in spec.levels],
                "continuous": spec.continuous,
                "held_full": spec.cooldown_at(spec.levels[0]) > 0,
            }
        if spec.stages:
            resolved["stages"] = [{"rate": r, "seconds": s} for r, s in spec.stages]
        if spec.whole_prompt:
            resolved["isl_includes_template"] = True  # as run sends a load: the engine counts isl tokens in all
        if load_record is not None:
            resolved["load_description"] = load_record
        return Prepared(spec.id, load, synthetic=spec, resolved=resolved)
    cat = catalog or Catalog.load()
    wl = cat.workload(workload) if isinstance(workload, str) else workload
    check_workload(wl)  # image workloads: one line, nothing simulated
    _check_planned_size(wl, concurrency)
    points = plan(wl, cat.dataset_rows(wl.dataset_id), concurrency)
    resolved = wl.params.model_dump(mode="json", exclude_none=True)
    resolved["points"] = [{"concurrency": p.concurrency, "context_tokens": p.context_tokens, "measured": p.measured} for p in points]
    return Prepared(wl.id, load, points=points, resolved=resolved)


def _check_planned_size(wl: Workload, concurrency: list[int] | None) -> None:
    """A workload whose plan alone is past the simulator's limit, refused before it is planned: at
    least its warm-up and measured requests at each level (a Workload file's own numbers, which
    the command line's checks never see; planning a billion warm-ups would take the machine)."""
    p = wl.params
    levels = len(concurrency) if concurrency else (len(wl.sweep.values) if wl.sweep is not None else 1)
    least = ((p.num_requests or 0) + (p.warmup_requests or 0)) * levels
    if least > limits.MAX_SIMULATED_REQUESTS:
        raise ValueError(f"workload {wl.id}: params.num_requests + params.warmup_requests at {levels} level(s) would simulate at least {least:,} "
                         f"requests, above the limit of {limits.MAX_SIMULATED_REQUESTS:,} (SERVESCOPE_MAX_SIMULATED_REQUESTS); give fewer")  # fmt: skip


def run_simulation(prepared: Prepared, dep: Deployment, *, router: str = "round-robin", give_up: TtftGiveUp | None = None) -> SimOutcome:
    """Only the event simulation (no records, no documents): for search. ``give_up``
    stops a one-point run once its TTFT percentile is certain to exceed a limit
    (``SimOutcome.gave_up`` says so; its figures are then partial)."""
    with _gc_paused():
        return Simulation(dep, _phases(prepared, dep), router=router, give_up=give_up).run()


def _phases(prepared: Prepared, dep: Deployment) -> list[Phase]:
    if prepared.synthetic is not None:
        return phases_synthetic(prepared.synthetic, dep, prepared.load, prepared.request_cache)
    assert prepared.points is not None
    if prepared.multi_turn:
        return session_phases(prepared.points, dep)
    return phases_from_plan(prepared.points, dep, prepared.load, prepared.token_cache)


def _load_kind(prepared: Prepared) -> str:
    spec = prepared.synthetic
    if spec is not None and spec.offline:
        return "offline"
    if spec is not None and spec.stages:
        return "stages"
    return "closed" if prepared.load.rate is None else "open"


def _load_shape(prepared: Prepared) -> LoadShape:
    """What the known-miss regimes (``predict.regimes``) read of the load: mean lengths and its loop."""
    kind = _load_kind(prepared)
    spec = prepared.synthetic
    if spec is not None:
        return LoadShape(float(spec.isl), float(spec.osl), kind == "offline", kind == "closed")
    requests = [r for p in prepared.points or [] for r in p.requests if r.phase == "measured"]
    isls = [r.input_tokens_nominal for r in requests if r.input_tokens_nominal is not None]
    osls = [r.max_tokens for r in requests]
    return LoadShape(fmean(isls) if isls else None, fmean(osls) if osls else None, kind == "offline", kind == "closed")


def _textless_chunks(prepared: Prepared, dep: Deployment) -> tuple[tuple[int, int], str | None]:
    """The chunks without text the replayed client times per request (``predict.stream_chunks``)."""
    spec = prepared.synthetic
    if spec is None:
        return (0, 0), None  # a catalog workload is run by servescope's own client
    return textless_chunks(spec.timing_client, dep.engine.engine, spec.endpoint, dep.model.architecture)


def _run_warnings(prepared: Prepared, views: list[PointView]) -> list[str]:
    """What a simulation did that the harness would not: requests past the workload's
    ``timeout_s`` finish here, while the harness cancels them and records a timeout; and a
    closed loop measured over too few requests for its throughput to mean the loop's."""
    # (an offline point sends every request at once: its window is the burst's, by definition, not a loop's)
    loops = _load_kind(prepared) != "offline"
    out = [_short_loop(v) for v in views if loops and v.rate is None and v.concurrency > 1 and 0 < len(v.columns.ok) < 2 * v.concurrency]
    return [w for w in out if w] + _timeout_warnings(prepared, views)


def _cache_warning(prepared: Prepared, dep: Deployment) -> str | None:
    """A planned load's shared prefixes on an engine whose cache is not simulated (``predict.unsimulated_cache``);
    a multi-turn load says it in its own note, and a synthetic load's prompts share nothing."""
    if prepared.points is None or prepared.multi_turn:
        return None
    return unsimulated_cache_warning((r for p in prepared.points for r in p.requests), dep)


def _short_loop(v: PointView) -> str:
    n, c = len(v.columns.ok), v.concurrency
    return (
        f"point c={c}: {n} measured requests at concurrency {c}: throughput over the measured window reads about "
        f"{c / (n + c):.0%} low (the loop fills and drains within it); give --num-requests of at least 16 x the concurrency"
    )


def _timeout_warnings(prepared: Prepared, views: list[PointView]) -> list[str]:
    timeout = prepared.resolved.get("timeout_s")
    if not timeout:
        return []
    limit_ns = float(timeout) * 1e9
    late = total = 0
    for v in views:
        cols = v.columns
        for start, end, ok in zip(cols.start_ns, cols.end_ns, cols.ok, strict=True):
            total += 1
            late += bool(ok and end - start > limit_ns)
    if not late:
        return []
    return [
        f"workload {prepared.workload_id}: params.timeout_s {float(timeout):g}: {late} of {total} measured requests take longer "
        "in the simulation; the harness would record them as timeouts (and cancel them, freeing their slots), the "
        "simulator lets them finish"
    ]


def simulate(
    prepared: Prepared,
    dep: Deployment,
    *,
    router: str = "round-robin",
    slos: list[Slo] | None = None,
    name: str | None = None,
    date: str | None = None,
    documents: bool = True,
    resolved_extra: dict[str, Any] | None = None,
) -> PredictionRun:
    """Simulate a prepared workload on a deployment. ``documents=False`` skips the
    Result (search needs only the Prediction rows); ``resolved_extra`` is added to
    the Result's ``resolved_params`` (what a mode searched, e.g. ``--max-rate``'s probes)."""
    started = time.perf_counter()
    load = prepared.load
    phases = _phases(prepared, dep)
    # a load the context refuses whole is refused here, in one line (not a row of dashes); in part, a warning
    context_line = context_refusal(dep.model, dep.engine.max_model_len, dep.engine.overflow, (r for ph in phases for r in ph.requests),
                                   lengths_given(prepared.synthetic or prepared.workload_id))  # fmt: skip
    with _gc_paused():
        sim = Simulation(dep, phases, router=router)
        outcome = sim.run()
        textless, stream_warning = _textless_chunks(prepared, dep)
        columns = build_columns(outcome, textless)
        lazy = _LazyRecords(outcome, textless)
        ctx = prepared.context_of
        rates = prepared.rate_of
        views = []
        for p, conc in sorted(prepared.concurrency_of.items()):
            phase = outcome.measured.get(p)
            cols = columns.get(p) or Columns()
            if prepared.rate_only:
                conc = relabel_concurrency(outcome, p, peak_in_flight(cols))
            views.append(PointView(p, conc, ctx.get(p), cols, aggregate_columns(cols), engine_figures(dep, [phase] if phase else []), rates.get(p)))
        run_name = name or f"{dep.scenario.name}-{prepared.workload_id}-sim"
        cache_line = _cache_warning(prepared, dep)
        warnings = [*dep.warnings, *([context_line] if context_line else []), *_run_warnings(prepared, views), *([stream_warning] if stream_warning else []),
                    *([cache_line] if cache_line else [])]  # fmt: skip
        interval = interval_for(dep)
        warnings += interval.warnings
        prediction = with_intervals(
            build_prediction(dep, views, name=run_name, workload=prepared.workload_id, seed=load.seed, date=date, warnings=warnings),
            interval,
            dep,
            _load_shape(prepared),
        )
        warnings = list(prediction.warnings)  # with the known-miss regimes' lines
        result: Result | None = None
        if documents:
            resolved = dict(prepared.resolved)
            spec = prepared.synthetic
            if spec is not None and (client := spec.timing_client) is not None:
                # the ITL is that client's: every chunk it times, text or not (predict.stream_chunks)
                resolved["stream_timing"] = {
                    "client": client,
                    "endpoint": spec.endpoint or TIMES_EVERY_CHUNK[client],
                    "textless_chunks": {"before_first_token": textless[0], "after_last_token": textless[1]},
                }
            resolved.update(
                {
                    "load": _load_kind(prepared),
                    "rate": load.rate,
                    "arrival": load.arrival if load.rate is not None else None,
                    "router": router,
                    "predictor": "servescope-sim",
                    "calibration": dep.calibration.as_dict(),
                    "kv_blocks_per_replica": dep.kv.num_blocks,
                    "block_size": dep.engine.block_size,
                    "max_num_seqs": dep.engine.max_num_seqs,
                    "max_num_batched_tokens": dep.engine.max_num_batched_tokens,
                    "warnings": list(warnings),
                    "prediction_interval": prediction.interval.model_dump(mode="json") if prediction.interval else None,
                    **(resolved_extra or {}),
                }
            )
            if prepared.multi_turn:
                assert prepared.points is not None
                resolved["session_prompts"] = {
                    "template_tokens": dep.template_tokens,
                    "template_tokens_by_role": message_wraps(dep),
                    "approximation": "each message of the history adds its role's wrap (the model document's chat_message_tokens; "
                    "a role it leaves out, half the one-message template's tokens, rounded up); an answer is max_tokens long",
                }
                # per turn number, as run reports them (bench.sessions.turn_report's shape)
                resolved["turns"] = turn_rows(lazy.records, turn_numbers(prepared.points))
            result = build_result(
                dep,
                views,
                lazy,
                outcome,
                workload_id=prepared.workload_id,
                run_id=f"{run_name}-seed{load.seed}",
                seed=load.seed,
                resolved=resolved,
                rate=load.rate,
                slos=slos,
            )
    notes = list(dep.notes)
    if prepared.multi_turn and not dep.engine.enable_prefix_caching:
        notes.append("prefix caching is off in this deployment: every turn's whole history is computed again "
                     "(a Scenario with engine.enable_prefix_caching: true models the engine's cache)")  # fmt: skip
    return PredictionRun(
        prediction, result, outcome, dep, outcome.events, time.perf_counter() - started, notes,  # type: ignore[arg-type]
        warnings, lazy,
    )  # fmt: skip


def load_scenario(path: str | Path) -> Scenario:
    """A Scenario document from a file (``DocumentError``, one line, on a bad one).
    A relative ``model: something.json`` is read beside the file when it is there."""
    scen = load_document(path, Scenario)
    if scen.model.endswith(".json") and not Path(scen.model).is_absolute():
        beside = Path(path).parent / scen.model
        if beside.is_file():
            scen = scen.model_copy(update={"model": str(beside)})
    return scen


def resolve_deployment(
    scenario: Scenario | str,
    *,
    catalog: Catalog | None = None,
    calibration: CalibrationInput = None,
    model_config: str | Path | None = None,
) -> Deployment:
    """A catalog scenario (by name) or a Scenario, resolved with its calibration."""
    cat = catalog or Catalog.load()
    scen = cat.scenario(scenario) if isinstance(scenario, str) else scenario
    cal, cal_name = _calibration(calibration)
    return deploy(scen, catalog=cat, model_config=model_config, calibration=cal, calibration_name=cal_name)


def predict(
    scenario: Scenario | str,
    workload: Workload | str | SyntheticWorkload | ResolvedLoad,
    *,
    catalog: Catalog | None = None,
    calibration: CalibrationInput = None,
    model_config: str | Path | None = None,
    concurrency: list[int] | None = None,
    rate: float | None = None,
    arrival: str = "poisson",
    gamma_shape: float = 1.0,
    seed: int = 0,
    router: str = "round-robin",
    slos: list[Slo] | None = None,
    name: str | None = None,
    date: str | None = None,
    load_record: dict[str, Any] | None = None,
) -> PredictionRun:
    """Simulate ``workload`` on ``scenario``; same inputs and seed → identical documents.

    ``concurrency`` overrides a workload's levels (as ``run`` does); ``rate``
    switches the measured phases to open loop (``arrival`` poisson, gamma with
    ``gamma_shape`` < 1 burstier, or constant; a ``SyntheticWorkload`` with a rate
    and no concurrency is one open-loop point labelled by its rate);
    ``calibration`` is a Calibration document, its path, or a dict of factors.
    What the simulator does not model of ``scenario`` is refused
    (``NotModelledError``) or warned (``PredictionRun.warnings``, also in the
    documents): ``predict.coverage``. ``load_record``: the load description
    (``workload.load.Load.record``) a synthetic workload came from, recorded whole."""
    cat = catalog or Catalog.load()
    dep = resolve_deployment(scenario, catalog=cat, calibration=calibration, model_config=model_config)
    prepared = prepare(workload, catalog=cat, concurrency=concurrency, rate=rate, arrival=arrival, gamma_shape=gamma_shape, seed=seed, load_record=load_record)
    return simulate(prepared, dep, router=router, slos=slos, name=name, date=date)


def format_table(prediction: Prediction) -> str:
    """A plain-text table of a prediction's rows (means; ITL pooled over gaps)."""
    head = (
        f"{'conc':>5} {'out tok/s':>10} {'TTFT ms':>9} {'ITL ms':>8} {'TPOT ms':>8} {'E2E ms':>9} "
        f"{'KV':>5} {'prefix':>6} {'preempt':>7} {'queue':>6} {'busy':>5}"
    )
    label = "simulated" + (f", calibration {prediction.calibration}" if prediction.calibration else "")
    rates = sorted({p.request_rate for p in prediction.points if p.request_rate is not None})
    if rates:
        label += ", open loop at " + ", ".join(f"{r:g}" for r in rates) + " req/s"
    elif (prediction.workload or "").startswith("synthetic-offline-"):
        label += ", offline: every request sent at t = 0"
    lines = [f"{prediction.name} ({label})", head]

    def f(v: float | None, fmt: str) -> str:
        return "-" if v is None else format(v, fmt)

    for p in prediction.points:
        q = max(p.queue_length_mean) if p.queue_length_mean else None
        busy = sum(p.device_utilization) / len(p.device_utilization) if p.device_utilization else None
        lines.append(
            f"{p.concurrency:>5} {f(p.output_tokens_per_sec, '10.1f')} {f(p.ttft_ms, '9.1f')} {f(p.itl_ms, '8.2f')} "
            f"{f(p.tpot_ms, '8.2f')} {f(p.e2e_ms, '9.1f')} {f(p.kv_utilization, '5.2f')} {f(p.prefix_cache_hit_rate, '6.2f')} "
            f"{'-' if p.preemptions is None else p.preemptions:>7} {f(q, '6.1f')} {f(busy, '5.2f')}"
        )
    iv = prediction.interval
    if iv is not None:
        lines.append(f"{round(100 * iv.coverage)} % interval (where measurements are expected; {iv.basis}):")

        def span(p: Any, name: str, fmt: str) -> str:
            b = (p.intervals or {}).get(name)
            return "-" if b is None else f"{format(b[0], fmt)}–{format(b[1], fmt)}"

        for p in prediction.points:
            lines.append(
                f"{p.concurrency:>5} out tok/s {span(p, 'output_tokens_per_sec', ',.1f')}, TTFT {span(p, 'ttft_ms', ',.1f')} ms, "
                f"ITL {span(p, 'itl_ms', ',.2f')} ms, TPOT {span(p, 'tpot_ms', ',.2f')} ms, E2E {span(p, 'e2e_ms', ',.1f')} ms"
            )
    bursts = [p for p in prediction.points if p.burst]
    if bursts:  # the client's start unstated: the other reading's own figures, not only the span they make
        lines.append("burst reading (every request of a wave sent at once; the table is steady state):")
        for p in bursts:
            b = p.burst or {}

            def fig(name: str, fmt: str, b: dict[str, float] = b) -> str:
                return "-" if b.get(name) is None else format(b[name], fmt)

            lines.append(
                f"{p.concurrency:>5} out tok/s {fig('output_tokens_per_sec', ',.1f')}, TTFT {fig('ttft_ms', ',.1f')} ms, "
                f"ITL {fig('itl_ms', ',.2f')} ms, TPOT {fig('tpot_ms', ',.2f')} ms, E2E {fig('e2e_ms', ',.1f')} ms"
            )
    return "\n".join(lines)
