"""Turn a simulation into the documents a measurement produces: per-request
``RequestRecord``s in the harness's shape (simulated ns times) and the same
requests as ``analysis.metrics.Columns``, which the one place the metric
formulas live (``analysis.metrics.aggregate_columns``) turns into a
``Prediction`` (one row per concurrency) and a simulated ``Result``
(``timing_mode: simulated``, deterministic pipeline), plus what only a
simulation knows: device utilization, queue lengths, KV use, prefix hits,
preemptions."""

from __future__ import annotations

import math
import platform
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from operator import attrgetter
from typing import Any

import numpy as np

from servescope import __version__
from servescope.analysis import results
from servescope.analysis.metrics import Aggregate, Columns, FastStats, achieved_rate, aggregate_columns, timeline_stats
from servescope.analysis.results import EngineFigures, ResultIdentity, metrics_of, result_point
from servescope.documents import Prediction, Result, config_id
from servescope.documents.engine_command import redact_flags
from servescope.documents.record import RequestRecord
from servescope.documents.result import Metrics, Slo
from servescope.predict.deployment import Deployment
from servescope.predict.sim.replica import ReplicaStats
from servescope.predict.sim.request import SimRequest
from servescope.predict.sim.simulator import PhaseOutcome, SimOutcome
from servescope.predict.speculative import verify_chunks
from servescope.predict.speculative_step import SpeculativeStepTimeModel

PREDICTOR = "servescope-sim"


def _tokens_per_chunk(outcome: SimOutcome) -> float | None:
    """Tokens per verify step under speculative decoding (they reach the client as one chunk), else None."""
    model = outcome.replicas[0].model if outcome.replicas else None
    return model.per_step if isinstance(model, SpeculativeStepTimeModel) else None


def _with_textless(times: np.ndarray, textless: tuple[int, int]) -> np.ndarray:
    """A request's chunk times with the chunks without text its client times (``predict.stream_chunks``):
    ``lead`` copies of the first token's time before it, ``trail`` of the last's after it."""
    lead, trail = textless
    return np.concatenate((np.repeat(times[:1], lead), times, np.repeat(times[-1:], trail)))


def build_records(outcome: SimOutcome, textless: tuple[int, int] = (0, 0)) -> list[RequestRecord]:
    """One record per request, in request order, times in simulated ns. ``textless``: chunks
    without text the measuring client times, before the first token and after the last
    (``predict.stream_chunks``), as chunks at those tokens' times."""
    records: list[RequestRecord] = []
    ends = [r.step_ends for r in outcome.replicas]
    per_chunk = _tokens_per_chunk(outcome)
    padded = textless != (0, 0)
    for req in sorted(outcome.requests, key=lambda q: q.index):
        rec = RequestRecord(
            request_id=req.request_id,
            phase=req.phase,  # type: ignore[arg-type]
            concurrency=req.concurrency,
            point=req.point,
            context_tokens=req.context_tokens,
            prompt_id=req.prompt_id,
            group=req.group,
            start_ns=req.start_ns,
            sent_ns=req.start_ns,
            input_tokens=req.prompt_tokens,
            token_count_source="simulated",
        )
        if req.failure is not None:
            stage, category, message, status = req.failure
            rec.ok = False
            rec.stage, rec.category, rec.error, rec.http_status = stage, category, message, status
            rec.end_ns = req.arrival_ns
            rec.output_tokens = 0
            if category == "cancelled":  # a session's turn never sent (sim.load): nothing counted, as the harness records it
                rec.input_tokens = rec.output_tokens = rec.token_count_source = None
        else:
            e = ends[req.replica]
            segs = req.segments
            times = e[segs[0][0] : segs[0][1] + 1] if len(segs) == 1 else np.concatenate([e[a : b + 1] for a, b in segs])
            chunks = times if per_chunk is None else verify_chunks(times, per_chunk)
            chunk = (_with_textless(chunks, textless) if padded else chunks).tolist()
            rec.chunk_ns = chunk
            rec.first_token_ns = chunk[0]
            rec.end_ns = chunk[-1]
            rec.output_tokens = int(times.size)
            rec.cached_tokens = req.cached_tokens
            rec.finish_reason = "length"
            if req.preemptions:
                rec.server_timings = {"preemptions": req.preemptions}
        records.append(rec)
    return records


def build_columns(outcome: SimOutcome, textless: tuple[int, int] = (0, 0)) -> dict[int, Columns]:
    """The measured requests of each point as ``analysis.metrics.Columns``, built
    straight from the simulation: exactly what ``Columns.add`` makes of the records
    ``build_records`` writes with the same ``textless`` (a test holds them equal),
    without a Python object per token — so the metric formulas run on a simulation
    as on a measurement."""
    per_chunk = _tokens_per_chunk(outcome)
    ends = [r.step_ends for r in outcome.replicas]
    padded = textless != (0, 0)
    by_point: dict[int, Columns] = {}
    pieces: dict[int, list[np.ndarray]] = {}
    for req in sorted(outcome.requests, key=_by_index):
        if req.phase != "measured":
            continue
        point = req.point
        cols = by_point.get(point)
        if cols is None:
            cols = by_point[point] = Columns()
            pieces[point] = []
        cols.start_ns.append(req.start_ns)
        cols.input_tokens.append(req.prompt_tokens)
        if req.failure is not None:
            _add_failed(cols, req)
            continue
        e = ends[req.replica]
        segs = req.segments
        if len(segs) == 1:
            a, b = segs[0]
            times, n = e[a : b + 1], b + 1 - a
        else:
            times = np.concatenate([e[a : b + 1] for a, b in segs])
            n = int(times.size)
        cols.ok.append(True)
        cols.first_ns.append(e.item(segs[0][0]))  # a Python int (``ndarray.item``: no numpy scalar per request)
        cols.end_ns.append(e.item(segs[-1][1]))
        cols.output_tokens.append(n)
        if per_chunk is not None:
            times = verify_chunks(times, per_chunk)
        if padded:
            times = _with_textless(times, textless)
        pieces[point].append(times)  # concatenated once per point, not per request
        cols.chunk_len.append(n if per_chunk is None and not padded else int(times.size))
        cols.sources.add("simulated")
    for point, cols in by_point.items():
        if pieces[point]:
            cols.chunk_flat = np.concatenate(pieces[point])
    return by_point


_by_index = attrgetter("index")


def _add_failed(cols: Columns, req: SimRequest) -> None:
    """A failed measured request's columns (its start and input already added)."""
    stage, category, message, status = req.failure  # type: ignore[misc]
    cols.ok.append(False)
    cols.first_ns.append(math.nan)
    cols.end_ns.append(req.arrival_ns)
    cols.output_tokens.append(0 if category != "cancelled" else math.nan)
    if category == "cancelled":
        cols.input_tokens[-1] = math.nan
    cols.failed.append((stage or "stream", category or "other", message or "", req.request_id, status))


def engine_figures(dep: Deployment, phases: list[PhaseOutcome]) -> EngineFigures | None:
    """Time-weighted over one or more measured windows."""
    if not phases:
        return None
    n = dep.replicas
    span = sum(max(1, p.ended_ns - p.started_ns) for p in phases)
    stats: list[list[ReplicaStats]] = [[p.replicas[i] for p in phases] for i in range(n)]
    blocks = max(1, dep.kv.num_blocks)
    busy = [min(1.0, sum(s.busy_ns for s in st) / span) for st in stats]
    kv = sum(sum(s.kv_area for s in st) for st in stats) / (span * blocks * n)
    prompt = sum(s.prompt_tokens for st in stats for s in st)
    hits = sum(s.hit_tokens for st in stats for s in st)
    per_device = dep.devices_per_replica
    return EngineFigures(
        kv_utilization=min(1.0, max(0.0, kv)),
        prefix_cache_hit_rate=(hits / prompt if prompt else None) if dep.engine.enable_prefix_caching else None,
        preemptions=sum(s.preemptions for st in stats for s in st),
        device_utilization=[round(b, 6) for b in busy for _ in range(per_device)],
        queue_length_mean=[round(sum(s.queue_area for s in st) / span, 6) for st in stats],
        queue_length_max=[max(s.queue_max for s in st) for st in stats],
    )


def peak_in_flight(cols: Columns) -> int:
    """The most requests in flight at once (scheduled send to last byte; a request
    ending as another starts is not counted twice), at least 1."""
    if not cols.start_ns:
        return 1
    t = np.concatenate([np.asarray(cols.start_ns, dtype=np.int64), np.asarray(cols.end_ns, dtype=np.int64)])
    d = np.concatenate([np.ones(len(cols.start_ns), dtype=np.int64), -np.ones(len(cols.end_ns), dtype=np.int64)])
    order = np.lexsort((d, t))  # by time, ends first
    return max(1, int(np.cumsum(d[order]).max()))


def relabel_concurrency(outcome: SimOutcome, point: int, concurrency: int) -> int:
    """Give every request of ``point`` the concurrency its row is labelled by (records carry it)."""
    for req in outcome.requests:
        if req.point == point:
            req.concurrency = concurrency
    return concurrency


@dataclass
class PointView:
    index: int
    concurrency: int
    context_tokens: int | None
    columns: Columns
    aggregate: Aggregate
    figures: EngineFigures | None
    rate: float | None = None

    @cached_property
    def metrics(self) -> Metrics:
        return metrics_of(self.aggregate, self.figures, self.rate, self.achieved_rate)

    @property
    def achieved_rate(self) -> float | None:
        # the simulated arrivals are a sample of the requested process (40 Poisson arrivals at
        # 15/s span more or less than 39/15 s): the rate they make, as the harness reads its sends
        return None if self.rate is None else achieved_rate(self.columns.start_ns)


def build_prediction(
    dep: Deployment,
    views: list[PointView],
    *,
    name: str,
    workload: str | None,
    seed: int,
    date: str | None,
    warnings: list[str] | None = None,
) -> Prediction:
    """The Prediction of a simulation (``analysis.results.build_prediction``)."""
    return results.build_prediction(
        [(v.concurrency, v.metrics) for v in views],
        name=name,
        scenario=dep.scenario.name,
        workload=workload,
        predictor=PREDICTOR,
        engine_version=dep.scenario.engine.version,
        calibration=dep.calibration_name,
        seed=seed,
        date=date,
        warnings=list(dep.warnings if warnings is None else warnings),
    )


def _mean_achieved_rate(views: list[PointView]) -> float | None:
    """The run's achieved rate: the mean of its points' (``bench.result`` does the same)."""
    rates = [r for v in views if (r := v.achieved_rate)]
    return sum(rates) / len(rates) if rates else None


def build_result(
    dep: Deployment,
    views: list[PointView],
    records: Iterable[RequestRecord],
    outcome: SimOutcome,
    *,
    workload_id: str,
    run_id: str,
    seed: int,
    resolved: dict[str, Any],
    rate: float | None,
    slos: list[Slo] | None = None,
) -> Result:
    """The simulated Result (``analysis.results.build_result``): deterministic,
    ``timing_mode: simulated``, with what only a simulation knows."""
    if len(views) == 1:
        agg = views[0].aggregate
    else:
        every = Columns()
        for v in sorted(views, key=lambda v: v.index):  # request order: points run one after another
            every.extend(v.columns)
        agg = aggregate_columns(every)
    fig = engine_figures(dep, [outcome.measured[p] for p in sorted(outcome.measured)])
    points = [result_point(v.concurrency, v.context_tokens, v.aggregate.metrics["total_requests"], v.metrics) for v in views] if len(views) > 1 else None
    s = dep.scenario
    ident = ResultIdentity(
        run_id=run_id,
        workload_id=workload_id,
        config_id=config_id(s.engine.id, s.engine.version, s.engine.args, s.weight_dtype, s.kv_dtype, s.quantization),
        timing_mode="simulated",
        engine_id=s.engine.id,
        engine_version=s.engine.version,
        model={"id": dep.model.id, "dtype": s.weight_dtype, "kv_dtype": s.kv_dtype, "quantization": s.quantization},
        scenario=s.name,
        hardware={"id": dep.hardware.id, "count": s.count},
        args=redact_flags(s.engine.args),  # a scenario's credentials are never copied into a result
    )
    return results.build_result(
        ident,
        aggregate=agg,
        metrics=metrics_of(agg, fig, rate, _mean_achieved_rate(views)),
        points=points,
        slo_records=records,
        slos=slos,
        point_indices=[v.index for v in views] if points is not None else None,
        resolved_params=resolved,
        turnaround_note="simulated timing: E2E from the simulated send to the last simulated token, queueing and device time included",
        metadata={
            "pipeline_mode": "deterministic",
            "non_deterministic": False,
            "llm_backend_id": None,
            "allow_network": False,
            "run_duration_wall_s": 0.0,
            "python_version": platform.python_version(),
            "platform": sys.platform,
            "servescope_version": __version__,
            "harness": PREDICTOR,
            "harness_version": __version__,
            "seed": seed,
        },
    )


def fast_stats(outcome: SimOutcome, point: int) -> FastStats:
    """``FastStats`` of the measured requests of ``point``: the simulation's iteration
    end times and the segments of iterations that produced each request's tokens,
    handed to ``analysis.metrics.timeline_stats`` (the formulas, without records)."""
    reqs = [r for r in outcome.requests if r.point == point and r.phase == "measured"]
    ok = [r for r in reqs if r.failure is None]
    first_start = min((r.start_ns for r in reqs), default=0)
    per_chunk = _tokens_per_chunk(outcome)
    if per_chunk is not None:
        return _chunked_stats(outcome, ok, per_chunk, first_start, len(reqs))
    # one row per segment of consecutive iterations that produced a request's tokens
    seg_req: list[int] = []
    seg_rep: list[int] = []
    seg_a: list[int] = []
    seg_b: list[int] = []
    for i, r in enumerate(ok):
        for a, b in r.segments:
            seg_req.append(i)
            seg_rep.append(r.replica)
            seg_a.append(a)
            seg_b.append(b)
    # iteration end times of every replica laid end to end, so (replica, iteration) is one index
    offsets = np.zeros(len(outcome.replicas) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([rep.n_steps for rep in outcome.replicas])
    ends = np.concatenate([rep.step_ends[: rep.n_steps] for rep in outcome.replicas]) if outcome.replicas else np.zeros(0, np.int64)
    srep = np.asarray(seg_rep, dtype=np.int64)
    return timeline_stats(
        ends,
        offsets[:-1],
        np.asarray(seg_req, dtype=np.int64),
        np.asarray(seg_a, dtype=np.int64) + offsets[srep] if srep.size else np.zeros(0, np.int64),
        np.asarray(seg_b, dtype=np.int64) + offsets[srep] if srep.size else np.zeros(0, np.int64),
        np.asarray([r.start_ns for r in ok], dtype=np.int64),
        first_start,
        len(reqs),
    )


def _chunked_stats(outcome: SimOutcome, ok: list[Any], per_chunk: float, first_start: int, n_requests: int) -> FastStats:
    """``fast_stats`` under speculative decoding, request by request: ITL is the gap between
    a request's chunks (one per verify step, ``verify_chunks``), TPOT counts its tokens."""
    ttft, e2e, tpot, gaps = [], [], [], []
    tokens = 0
    last_end = first_start
    for r in ok:
        e = outcome.replicas[r.replica].step_ends
        times = np.concatenate([e[a : b + 1] for a, b in r.segments])
        n = int(times.size)
        tokens += n
        chunks = verify_chunks(times, per_chunk)
        ttft.append((int(chunks[0]) - r.start_ns) / 1e6)
        e2e.append((int(chunks[-1]) - r.start_ns) / 1e6)
        last_end = max(last_end, int(chunks[-1]))
        if n > 1:
            tpot.append((int(chunks[-1]) - int(chunks[0])) / 1e6 / (n - 1))
        gaps.append(np.diff(chunks) / 1e6)
    itl = np.concatenate(gaps) if gaps else np.zeros(0)
    return FastStats(
        ttft_ms=np.asarray(ttft),
        e2e_ms=np.asarray(e2e),
        tpot_ms=np.asarray(tpot),
        itl_gaps_ms=itl,
        itl_weights=np.ones(itl.size, dtype=np.int64),
        output_tokens=tokens,
        window_s=(last_end - first_start) / 1e9,
        failed=n_requests - len(ok),
    )
