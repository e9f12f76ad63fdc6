"""Turn a run's records into its documents: a ``Result`` (full distributions,
failures, provenance) and an ``EvaluationRun`` (one row per concurrency).

``model.dtype`` / ``kv_dtype`` / ``quantization`` are the ones ``config_id`` reads:
given, or taken from the engine's args (``--dtype float32`` → ``fp32``).
``metadata.allow_network`` (metrics contract: whether the run could reach a live
LLM backend over the network) is true for a run against an ``--endpoint``, which
may be anywhere (a loopback URL can proxy a hosted API), and false for the
embedded engine, which servescope starts on 127.0.0.1 and which downloads
nothing. In a sweep, ``failures[]`` has one entry per (stage, category,
concurrency)."""

from __future__ import annotations

import platform
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servescope import __version__
from servescope.analysis.metrics import Aggregate, Columns, aggregate_columns, contract_fields, failures_by_concurrency
from servescope.analysis.tables import result_points
from servescope.bench.outcome import EngineWindow, PointOutcome
from servescope.documents import EvaluationRun, Result, Workload, canonical_config, config_id
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
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], capture_output=True, text=True, timeout=5, check=False, cwd=Path(__file__).parent
        )
    except (OSError, subprocess.SubprocessError):
        return None
    return out.stdout.strip() or None if out.returncode == 0 else None


def _metrics_block(agg: Aggregate, engine: EngineWindow | None, requested_rate: float | None = None, achieved_rate: float | None = None) -> dict[str, Any]:
    m = dict(agg.metrics)
    if engine is not None:
        m["kv_utilization"] = engine.kv_utilization
        m["prefix_cache_hit_rate"] = engine.prefix_cache_hit_rate
        m["preemptions"] = engine.preemptions
    m["requested_rate"] = requested_rate
    m["achieved_rate"] = achieved_rate
    return m


def _merge_engine(windows: list[EngineWindow]) -> EngineWindow:
    kv = [w.kv_utilization for w in windows if w.kv_utilization is not None]
    hr = [w.prefix_cache_hit_rate for w in windows if w.prefix_cache_hit_rate is not None]
    pre = [w.preemptions for w in windows if w.preemptions is not None]
    return EngineWindow(
        kv_utilization=sum(kv) / len(kv) if kv else None,
        prefix_cache_hit_rate=sum(hr) / len(hr) if hr else None,
        preemptions=sum(pre) if pre else None,
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
) -> Result:
    """``slo_records``: the records the SLOs are checked on when ``outcomes`` carry
    columns instead of records (a run rebuilt from its records file)."""
    records: list[RequestRecord] = [r for o in outcomes for r in o.records]
    point_columns = [o.columns() for o in outcomes]
    if len(point_columns) == 1:
        everything = point_columns[0]
    else:
        everything = Columns()
        for cols in point_columns:
            everything.extend(cols)
    agg = aggregate_columns(everything)
    engine = _merge_engine([o.engine for o in outcomes])
    achieved = None
    if requested_rate is not None:
        rates = [o.load.achieved_rate for o in outcomes if o.load and o.load.achieved_rate]
        achieved = sum(rates) / len(rates) if rates else None
    metrics = _metrics_block(agg, engine, requested_rate, achieved)
    points = None
    failures = None
    if len(outcomes) > 1 or workload.kind == "sweep" or workload.sweep is not None:
        points = []
        per_point = []
        for o, cols in zip(outcomes, point_columns, strict=True):
            pagg = aggregate_columns(cols)
            per_point.append((o.point.concurrency, pagg.failures))
            completed = pagg.metrics["completed_requests"]
            total = pagg.metrics["total_requests"]
            status = "ok" if completed == total and total else ("failed" if not completed else "partial")
            points.append(
                {
                    "concurrency": o.point.concurrency,
                    "context_tokens": o.point.context_tokens,
                    "requested_requests": o.point.measured,
                    "metrics": _metrics_block(pagg, o.engine),
                    "status": status,
                }
            )
        failures = failures_by_concurrency(per_point)
    canon = canonical_config(ident.engine_id, ident.engine_version or "", ident.args, ident.dtype, ident.kv_dtype, ident.quantization)
    cid = config_id(ident.engine_id, ident.engine_version or "", ident.args, ident.dtype, ident.kv_dtype, ident.quantization)
    doc = {
        "kind": "Result",
        "run_id": ident.run_id,
        "workload_id": workload.id,
        "scenario": ident.scenario,
        "config_id": cid,
        "timing_mode": "explicit",
        "endpoint": ident.endpoint,
        "engine": {"id": ident.engine_id, "version": ident.engine_version},
        "model": {"id": ident.model_id, "dtype": canon["dtype"], "kv_dtype": canon["kv_dtype"], "quantization": canon["quantization"]},
        "hardware": {"id": ident.hardware_id, "count": 1} if ident.hardware_id else None,
        "args": ident.args,
        "resolved_params": resolved_params,
        "metrics": metrics,
        "points": points,
        **contract_fields(agg, records if slo_records is None else slo_records, slos or [], failures),
        "p95_turnaround_s_note": "explicit timing: E2E of completed requests, measured at the client",
        "metadata": {
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
        },
    }
    return Result.model_validate(doc)


def build_evaluation_run(result: Result, name: str, scenario: str, date: str) -> EvaluationRun:
    """One row per concurrency (see ``analysis.tables.result_points``)."""
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
