"""The one builder that turns an outcome into documents — used by the harness
(``bench``), the simulator (``predict``) and recovery alike.

An outcome is what every producer has once its requests are done: per point, the
requests as ``Columns`` (what the formulas of ``analysis.metrics`` read), the
point's spec (concurrency, context length, requests asked for), the engine's own
figures over the point (``EngineFigures``: measured from ``/metrics`` or
simulated), and the requested and achieved arrival rates. From it:

- ``metrics_of``: the typed ``Metrics`` block of a run or of one point;
- ``result_point`` / ``point_status``: a Result's per-point block;
- ``build_result``: the ``Result`` (the producer gives its identity and metadata);
  ``result_document``: the same shape from a harness's summaries (importers);
- ``evaluation_row`` / ``prediction_row``: the compact table's rows of a ``Metrics``
  block, for ``EvaluationRun`` (``build_evaluation_run``) and ``Prediction``
  (``build_prediction``) — one mapping, so a measured and a predicted row of the
  same run agree field by field.

Nothing here knows HTTP, a simulator or a records file.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from servescope import __version__
from servescope.analysis.metrics import Aggregate, FailureGroup, contract_fields, energy_per_output_token, goodput, slo_count
from servescope.documents import EvaluationRun, Prediction, PredictionPoint, Result
from servescope.documents.evaluation_run import EvaluationPoint
from servescope.documents.record import RequestRecord
from servescope.documents.result import Metrics, Slo


@dataclass
class EngineFigures:
    """What the engine said (or the simulated replicas did) over a measured window.
    The device and queue lists exist only in simulated timing."""

    kv_utilization: float | None = None
    prefix_cache_hit_rate: float | None = None
    preemptions: int | None = None
    device_utilization: list[float] | None = None
    queue_length_mean: list[float] | None = None
    queue_length_max: list[int] | None = None
    # the GPUs over the window (a measured run with --gpu-metrics-url): the gpu_telemetry block less energy per token
    gpu: dict[str, Any] | None = None


# How much of the measured window the GPU scrapes may miss and still give energy per token:
# the first and last scrape fall up to one interval (1 s) inside each end of the window.
_GPU_WINDOW_SLACK_S = 2.5


def _covers(window_s: Any, duration_s: Any) -> bool:
    """Whether the scrapes span the measured window (else the energy is of a part of it and the
    tokens of all of it: an exporter that stopped answering mid-run), to within the slack."""
    if not isinstance(window_s, int | float) or not isinstance(duration_s, int | float):
        return duration_s is None  # no window to hold it against (nothing completed): as before
    return window_s + _GPU_WINDOW_SLACK_S >= duration_s or window_s >= 0.9 * duration_s


def metrics_of(agg: Aggregate, figures: EngineFigures | None = None, requested_rate: float | None = None, achieved_rate: float | None = None) -> Metrics:
    """The ``Metrics`` block of what the formulas produced, the engine's figures and the rates."""
    m = dict(agg.metrics)
    if figures is not None:
        m["kv_utilization"] = figures.kv_utilization
        m["prefix_cache_hit_rate"] = figures.prefix_cache_hit_rate
        m["preemptions"] = figures.preemptions
        m["device_utilization"] = figures.device_utilization
        m["device_queue_length_mean"] = figures.queue_length_mean
        m["device_queue_length_max"] = figures.queue_length_max
        if figures.gpu is not None:
            energy = figures.gpu.get("energy_j") if _covers(figures.gpu.get("window_s"), m.get("duration_s")) else None
            m["gpu_telemetry"] = {**figures.gpu, "energy_per_output_token_j": energy_per_output_token(energy, m.get("output_tokens_total"))}
    m["requested_rate"] = requested_rate
    m["achieved_rate"] = achieved_rate
    return Metrics.model_validate(m)


def point_status(metrics: Metrics) -> str:
    """ok (every request completed), failed (none did) or partial."""
    completed, total = metrics.completed_requests, metrics.total_requests
    return "ok" if completed == total and total else ("failed" if not completed else "partial")


def result_point(concurrency: int, context_tokens: int | None, requested_requests: int | None, metrics: Metrics) -> dict[str, Any]:
    """One entry of a Result's ``points``."""
    return {
        "concurrency": concurrency,
        "context_tokens": context_tokens,
        "requested_requests": requested_requests,
        "metrics": metrics,
        "status": point_status(metrics),
    }


@dataclass
class ResultIdentity:
    """What a Result is of: who ran what, where. ``config_id`` and the model's dtypes
    are the producer's (the harness reads them from the engine's args, the
    simulator from its scenario)."""

    run_id: str
    workload_id: str
    config_id: str
    timing_mode: str
    engine_id: str
    engine_version: str | None
    model: dict[str, Any]
    scenario: str | None = None
    endpoint: str | None = None
    hardware: dict[str, Any] | None = None
    args: dict[str, Any] = field(default_factory=dict)


def build_result(
    ident: ResultIdentity,
    *,
    aggregate: Aggregate,
    metrics: Metrics,
    points: list[dict[str, Any]] | None,
    slo_records: Iterable[RequestRecord],
    slos: list[Slo] | None,
    resolved_params: dict[str, Any],
    metadata: dict[str, Any],
    turnaround_note: str,
    failures: list[FailureGroup] | None = None,
    scores: Any = None,
    point_indices: Sequence[int] | None = None,
) -> Result:
    """The Result of an outcome. ``failures``: grouped per point (a sweep), or None for
    ``aggregate``'s own groups; ``slo_records``: the requests the SLOs are checked on;
    ``scores``: an eval run's scores block; ``point_indices``: the ``RequestRecord.point``
    of each entry of ``points`` (default: its position), which goodput per point reads."""
    slo_list = slos or []
    checked = list(slo_records) if slo_list else []
    if slo_list:
        metrics, points = _with_goodput(metrics, points, checked, slo_list, point_indices)
    return result_document(
        ident,
        metrics=metrics,
        points=points,
        contract=contract_fields(aggregate, checked, slo_list, failures),
        resolved_params=resolved_params,
        metadata=metadata,
        turnaround_note=turnaround_note,
        scores=scores,
    )


def _with_goodput(
    metrics: Metrics, points: list[dict[str, Any]] | None, records: list[RequestRecord], slos: list[Slo], point_indices: Sequence[int] | None
) -> tuple[Metrics, list[dict[str, Any]] | None]:
    """``goodput_requests_per_sec`` of the run and of each point: requests within
    every SLO over the window's wall time (``analysis.metrics.goodput``)."""
    specs: list[tuple[str, str, str, float]] = [(s.id, s.metric, s.op, s.threshold) for s in slos]
    metrics = metrics.model_copy(update={"goodput_requests_per_sec": goodput(slo_count(records, specs), metrics.duration_s)})
    if not points:
        return metrics, points
    by_point: dict[int | None, list[RequestRecord]] = {}
    for r in records:
        by_point.setdefault(r.point, []).append(r)
    indices = list(point_indices) if point_indices is not None else list(range(len(points)))
    if len(indices) != len(points):
        raise ValueError(f"{len(points)} point(s) but {len(indices)} point index(es)")
    with_goodput = []
    for index, point in zip(indices, points, strict=True):
        m = point["metrics"]
        m = m if isinstance(m, Metrics) else Metrics.model_validate(m)
        g = goodput(slo_count(by_point.get(index, []), specs), m.duration_s)
        with_goodput.append({**point, "metrics": m.model_copy(update={"goodput_requests_per_sec": g})})
    return metrics, with_goodput


def result_document(
    ident: ResultIdentity,
    *,
    metrics: Metrics | dict[str, Any],
    points: list[dict[str, Any]] | None,
    contract: dict[str, Any],
    resolved_params: dict[str, Any],
    metadata: dict[str, Any],
    turnaround_note: str,
    scores: Any = None,
) -> Result:
    """The Result's shape, for every producer: ``build_result`` for an outcome with
    its requests, an importer for a harness's summaries (``contract``: failures,
    throughput, turnaround and, with SLOs, on_time_rate and violations)."""
    doc = {
        "kind": "Result",
        "run_id": ident.run_id,
        "workload_id": ident.workload_id,
        "scenario": ident.scenario,
        "config_id": ident.config_id,
        "timing_mode": ident.timing_mode,
        "endpoint": ident.endpoint,
        "engine": {"id": ident.engine_id, "version": ident.engine_version},
        "model": ident.model,
        "hardware": ident.hardware,
        "args": ident.args,
        "resolved_params": resolved_params,
        "metrics": metrics,
        "points": points,
        "scores": scores,
        **contract,
        "p95_turnaround_s_note": turnaround_note,
        "metadata": metadata,
    }
    return Result.model_validate(doc)


def _mean(dist: Any) -> float | None:
    return None if dist is None else dist.mean


def _p50(dist: Any) -> float | None:
    return None if dist is None else dist.p50


def _row_fields(concurrency: int, m: Metrics) -> dict[str, Any]:
    return {
        "concurrency": concurrency,
        "completed_requests": m.completed_requests,
        "output_tokens_per_sec": m.output_tokens_per_sec,
        "input_tokens_per_sec": m.input_tokens_per_sec,
        "ttft_ms": _mean(m.ttft_ms),
        "itl_ms": _mean(m.itl_ms),
        "e2e_ms": _mean(m.e2e_ms),
        "mean_isl": round(m.mean_isl) if m.mean_isl is not None else None,
        "mean_osl": round(m.mean_osl) if m.mean_osl is not None else None,
        "kv_utilization": m.kv_utilization,
        "prefix_cache_hit_rate": m.prefix_cache_hit_rate,
        "preemptions": m.preemptions,
    }


def evaluation_row(concurrency: int, m: Metrics) -> EvaluationPoint:
    """The EvaluationRun row of one point's Metrics (an open-loop point with its requested rate,
    by which compare pairs it with a prediction of the same rate; its TTFT and ITL medians,
    which compare pairs with a prediction's as it pairs the means)."""
    return EvaluationPoint(**_row_fields(concurrency, m), request_rate=m.requested_rate, ttft_p50_ms=_p50(m.ttft_ms), itl_p50_ms=_p50(m.itl_ms))


def prediction_row(concurrency: int, m: Metrics) -> PredictionPoint:
    """The Prediction row of one point's Metrics: the measured shape plus what only a
    simulation knows."""
    return PredictionPoint(
        **_row_fields(concurrency, m),
        request_rate=m.requested_rate,
        ttft_p50_ms=_p50(m.ttft_ms),
        itl_p50_ms=_p50(m.itl_ms),
        tpot_ms=_mean(m.tpot_ms),
        device_utilization=m.device_utilization,
        queue_length_mean=m.device_queue_length_mean,
        queue_length_max=m.device_queue_length_max,
    )


DEFINITION_NOTES = [
    "servescope: ttft_ms, itl_ms and e2e_ms are means over measured requests; itl_ms pools the gaps between "
    "consecutive content chunks of every request (per-request TPOT is in the Result's tpot_ms); percentiles use "
    "linear interpolation between closest ranks.",
]


# Said in the scores' note and the EvaluationRun's notes of a run whose generated code ran
# without a sandbox (resolved_params.code_exec_sandbox: "none", servescope run --unsafe-code-exec).
UNSANDBOXED_NOTE = "code-exec: generated code ran WITHOUT a sandbox (--unsafe-code-exec), as the user who ran servescope, on that machine."


def result_points(result: Result) -> tuple[list[EvaluationPoint], list[str]]:
    """One EvaluationPoint per concurrency (the first point of a concurrency is
    kept when several share it, e.g. a context-length sweep), and notes."""
    if result.points:
        blocks = [(p.concurrency, p.metrics) for p in result.points]
    else:
        conc = result.resolved_params.get("concurrency")
        conc = conc[0] if isinstance(conc, list) and conc else conc
        blocks = [(int(conc) if isinstance(conc, int | float) else 1, result.metrics)]
    imported = result.resolved_params.get("import")  # a Result made by servescope import: its harness's definitions
    imported_notes = imported.get("notes") if isinstance(imported, dict) else None
    notes = [str(n) for n in imported_notes] if isinstance(imported_notes, list) else list(DEFINITION_NOTES)
    if result.resolved_params.get("code_exec_sandbox") == "none":
        notes.append(UNSANDBOXED_NOTE)
    concs = [c for c, _ in blocks]
    if len(set(concs)) != len(concs):
        notes.append("several points shared a concurrency (e.g. a context-length sweep); the row shows the first point")
    rows: dict[int, EvaluationPoint] = {}
    for conc, m in blocks:
        if conc not in rows:
            rows[conc] = evaluation_row(conc, m)
    return list(rows.values()), notes


def build_evaluation_run(result: Result, name: str, scenario: str, date: str) -> EvaluationRun:
    """One row per concurrency (``result_points``)."""
    points, notes = result_points(result)
    return EvaluationRun(
        name=name,
        scenario=scenario,
        harness="servescope",
        harness_version=__version__,
        engine_version=result.engine.version or "unknown",
        date=date,
        workload=result.workload_id,
        notes=notes,
        points=points,
    )


def build_prediction(
    rows: Sequence[tuple[int, Metrics]],
    *,
    name: str,
    scenario: str,
    workload: str | None,
    predictor: str,
    engine_version: str,
    calibration: str | None,
    seed: int,
    date: str | None,
    warnings: list[str],
) -> Prediction:
    """One row per concurrency, in the order given; a concurrency seen again (a
    context-length sweep) keeps its first row, as an EvaluationRun does."""
    points: list[PredictionPoint] = []
    seen: set[int] = set()
    for concurrency, metrics in rows:
        if concurrency in seen:
            continue
        seen.add(concurrency)
        points.append(prediction_row(concurrency, metrics))
    return Prediction(
        name=name,
        scenario=scenario,
        workload=workload,
        predictor=predictor,
        predictor_version=__version__,
        engine_version=engine_version,
        calibration=calibration,
        seed=seed,
        date=date,
        warnings=warnings,
        points=points,
    )
