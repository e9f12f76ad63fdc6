"""A run's outcome, as the harness knows it, handed to the one builder
(``analysis.results``): a ``Result`` (full distributions, failures, provenance);
its ``EvaluationRun`` (one row per concurrency) is ``build_evaluation_run``.

``model.dtype`` / ``kv_dtype`` / ``quantization`` are the ones ``config_id`` reads:
given, or taken from the engine's args (``--dtype float32`` → ``fp32``).
``metadata.allow_network`` (metrics contract: whether the run could reach a live
LLM backend over the network) is true for a run against an ``--endpoint``, which
may be anywhere (a loopback URL can proxy a hosted API), and false for the
embedded engine, which servescope starts on 127.0.0.1 and which downloads
nothing. In a sweep, ``failures[]`` has one entry per (stage, category,
concurrency)."""

from __future__ import annotations

import dataclasses
import math
import platform
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servescope import __version__
from servescope.analysis import results
from servescope.analysis.metrics import Columns, aggregate_columns, failures_by_concurrency
from servescope.analysis.results import EngineFigures, ResultIdentity, build_evaluation_run, metrics_of, result_point
from servescope.bench.gpu_telemetry import merge_gpu_windows
from servescope.bench.outcome import EngineWindow, PointOutcome
from servescope.documents import Result, Workload, canonical_config, config_id
from servescope.documents.record import RequestRecord
from servescope.documents.result import Slo


@dataclass
class RunIdentity:
    run_id: str
    engine_id: str
    engine_version: str | None
    model_id: str
    scenario: str | None = None
    endpoint: str | None = None
    args: dict[str, Any] = field(default_factory=dict)
    dtype: str | None = None
    kv_dtype: str | None = None
    quantization: str | None = None
    hardware_id: str | None = None
    allow_network: bool | None = None


def git_commit() -> str | None:
    try:
        out = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False, cwd=Path(__file__).parent)
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _weighted_mean(values: list[tuple[float | None, float | None]]) -> float | None:
    """The mean of the known values weighted by their weights; the plain mean where a known
    value's weight is unknown or none is positive (no weight is made up)."""
    known = [(v, w) for v, w in values if v is not None]
    if not known:
        return None
    if len({v for v, _ in known}) == 1:  # one value (or the same in every point): itself, bit for bit
        return known[0][0]
    if all(w is not None and math.isfinite(w) and w >= 0 for _, w in known) and (total := sum(w for _, w in known if w is not None)) > 0:
        return sum(v * w for v, w in known if w is not None) / total
    return sum(v for v, _ in known) / len(known)


def _merge_engine(windows: list[EngineWindow], prompt_tokens: list[float | None], seconds: list[float | None]) -> EngineWindow:
    """The run's engine figures from its points' windows (one window: itself). The cache hit rate
    is hits over queries: each point's rate counts by the prompt tokens the cache was asked for in
    its window (the engine's counter, ``prefix_cache_queries``; where the engine gives only a rate,
    the prompt tokens of the point's completed requests); the KV utilisation is a mean over time, so
    each point's counts by its measured seconds. Where a point's weight is not known at all, the
    plain mean of the points (said in docs/measuring.md)."""
    if len(windows) == 1:
        return windows[0]
    pre = [w.preemptions for w in windows if w.preemptions is not None]
    queries = [w.prefix_cache_queries if w.prefix_cache_queries is not None else t for w, t in zip(windows, prompt_tokens, strict=True)]
    return EngineWindow(
        kv_utilization=_weighted_mean([(w.kv_utilization, s) for w, s in zip(windows, seconds, strict=True)]),
        prefix_cache_hit_rate=_weighted_mean([(w.prefix_cache_hit_rate, q) for w, q in zip(windows, queries, strict=True)]),
        preemptions=sum(pre) if pre else None,
        gpu=merge_gpu_windows([w.gpu for w in windows]),
        prefix_cache_queries=sum(q for q in (w.prefix_cache_queries for w in windows) if q is not None) or None,
    )


def build_result(
    workload: Workload,
    outcomes: list[PointOutcome],
    ident: RunIdentity,
    *,
    resolved_params: dict[str, Any],
    started_at: str,
    finished_at: str,
    wall_s: float,
    records_file: str,
    slos: list[Slo] | None = None,
    requested_rate: float | None = None,
    engine_scrape: dict[str, Any] | None = None,
    slo_records: list[RequestRecord] | None = None,
    gpu_scrape: dict[str, Any] | None = None,
) -> Result:
    """``slo_records``: the records the SLOs are checked on when ``outcomes`` carry
    columns instead of records (a run rebuilt from its records file)."""
    learned = {k: v for o in outcomes for k, v in (o.args or {}).items()}
    if learned:  # what the run found out about its configuration (image: the guidance that applied)
        ident = dataclasses.replace(ident, args={**ident.args, **learned})
    records: list[RequestRecord] = [r for o in outcomes for r in o.records]
    point_columns = [o.columns() for o in outcomes]
    if len(point_columns) == 1:
        everything = point_columns[0]
    else:
        everything = Columns()
        for cols in point_columns:
            everything.extend(cols)
    agg = aggregate_columns(everything)
    point_aggs = [agg] if len(point_columns) == 1 else [aggregate_columns(cols) for cols in point_columns]
    engine = _merge_engine(
        [o.engine for o in outcomes],
        [a.metrics.get("input_tokens_total") for a in point_aggs],
        [a.metrics.get("duration_s") for a in point_aggs],
    )
    achieved = None
    if requested_rate is not None:
        rates = [o.load.achieved_rate for o in outcomes if o.load and o.load.achieved_rate]
        achieved = sum(rates) / len(rates) if rates else None
    points = None
    failures = None
    if len(outcomes) > 1 or workload.kind == "sweep" or workload.sweep is not None:
        points = []
        per_point = []
        for o, pagg in zip(outcomes, point_aggs, strict=True):
            per_point.append((o.point.concurrency, pagg.failures))
            points.append(result_point(o.point.concurrency, o.point.context_tokens, o.point.measured, metrics_of(pagg, _figures(o.engine))))
        failures = failures_by_concurrency(per_point)
    canon = canonical_config(ident.engine_id, ident.engine_version or "", ident.args, ident.dtype, ident.kv_dtype, ident.quantization)
    rid = ResultIdentity(
        run_id=ident.run_id,
        workload_id=workload.id,
        config_id=config_id(ident.engine_id, ident.engine_version or "", ident.args, ident.dtype, ident.kv_dtype, ident.quantization),
        timing_mode="explicit",
        engine_id=ident.engine_id,
        engine_version=ident.engine_version,
        model={"id": ident.model_id, "dtype": canon["dtype"], "kv_dtype": canon["kv_dtype"], "quantization": canon["quantization"]},
        scenario=ident.scenario,
        endpoint=ident.endpoint,
        hardware={"id": ident.hardware_id, "count": 1} if ident.hardware_id else None,
        args=ident.args,
    )
    return results.build_result(
        rid,
        aggregate=agg,
        metrics=metrics_of(agg, _figures(engine), requested_rate, achieved),
        points=points,
        failures=failures,
        slo_records=records if slo_records is None else slo_records,
        slos=slos,
        resolved_params=resolved_params,
        turnaround_note="explicit timing: E2E of completed requests, measured at the client",
        scores=_with_sandbox_note(next((o.scores for o in outcomes if o.scores is not None), None), resolved_params),
        point_indices=[o.point.index for o in outcomes] if points is not None else None,
        metadata={
            "pipeline_mode": "llm_live",
            "non_deterministic": True,
            "llm_backend_id": ident.endpoint,
            "allow_network": ident.allow_network,
            "run_duration_wall_s": wall_s,
            "run_duration_episodes_per_s": ((len(records) or agg.metrics["total_requests"]) / wall_s) if wall_s > 0 else None,
            "python_version": platform.python_version(),
            "platform": sys.platform,
            "servescope_version": __version__,
            "git_commit": git_commit(),
            "harness": "servescope",
            "harness_version": __version__,
            "started_at": started_at,
            "finished_at": finished_at,
            "records_file": records_file,
            "seed": workload.params.seed,
            "engine_scrape": engine_scrape,
            "gpu_scrape": gpu_scrape,
        },
    )


def _with_sandbox_note(scores: dict[str, Any] | None, resolved_params: dict[str, Any]) -> dict[str, Any] | None:
    """The scores block, saying so in its note when generated code ran unsandboxed
    (``resolved_params.code_exec_sandbox: none``, ``--unsafe-code-exec``): a reader
    of the scores sees it beside the accuracy."""
    if scores is None or resolved_params.get("code_exec_sandbox") != "none":
        return scores
    note = results.UNSANDBOXED_NOTE
    return {**scores, "note": f"{scores['note']} {note}" if scores.get("note") else note}


def _figures(window: EngineWindow) -> EngineFigures:
    return EngineFigures(window.kv_utilization, window.prefix_cache_hit_rate, window.preemptions, gpu=window.gpu)


__all__ = ["RunIdentity", "build_evaluation_run", "build_result", "git_commit"]
