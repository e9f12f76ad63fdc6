"""A Result from a records file alone — for a run that was killed, interrupted or
is still going. Every finished request is in the records file (written as each
ends); the header line is the run spec (``bench.run_spec``), so nothing else is
needed. Reading the file is ``bench.records``' (the columnar index where it
covers the file, JSON elsewhere); building the Result is ``analysis.results``'.
No HTTP client is imported here.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servescope.analysis.metrics import Columns
from servescope.bench.load import LoadOutcome
from servescope.bench.outcome import EngineWindow, PointOutcome
from servescope.bench.records import dropped_lines, read_columns, read_file, read_records
from servescope.bench.result import RunIdentity, build_result
from servescope.bench.run_spec import RunSpec
from servescope.catalog.store import Catalog
from servescope.documents import Result, Workload
from servescope.documents.result import GpuTelemetry
from servescope.errors import DocumentError
from servescope.workload.plan import PlannedPoint

__all__ = ["Recovered", "read_columns", "recover", "result_from_records"]


@dataclass
class Recovered:
    result: Result
    # request lines left out of the result, by reason (unknown-phase, bad-timestamp, nan-token-count, ...)
    dropped: dict[str, int] = field(default_factory=dict)
    # reason -> "line N: field = value" of the first line left out for it
    dropped_at: dict[str, str] = field(default_factory=dict)


def _workload(spec: RunSpec, cat: Catalog) -> Workload:
    """The catalog's workload, or the one an ad-hoc load (recorded whole in the header) stands for."""
    if spec.load is not None and spec.load.get("source") not in (None, "catalog"):
        from servescope.workload.adhoc_plan import adhoc_workload
        from servescope.workload.load import Load

        load = Load.model_validate({k: v for k, v in spec.load.items() if k != "label"})
        return adhoc_workload(load, created=(spec.started_at or "1970-01-01")[:10])
    return cat.workload(spec.workload_id)


def result_from_records(records_path: Path, catalog: Catalog | None = None) -> Result:
    return recover(records_path, catalog).result


def recover(records_path: Path, catalog: Catalog | None = None) -> Recovered:
    """The Result of a records file alone, and what of the file it could not use."""
    reader, columns, wall = read_file(records_path)
    if reader.header is None:
        raise DocumentError(str(records_path), "has no run header line; is it a servescope records file?")
    spec = RunSpec.from_header(str(records_path), reader.header)
    cat = catalog or Catalog.load()
    workload = _workload(spec, cat)
    resolved = dict(spec.resolved_params)
    planned = {i: p for i, p in enumerate(resolved.get("points", []))}
    outcomes = []
    for idx in sorted(set(columns) | set(planned)):
        plan_of = planned.get(idx, {})
        point = PlannedPoint(index=idx, concurrency=int(plan_of.get("concurrency") or 1), context_tokens=plan_of.get("context_tokens"))
        done = reader.points_done.get(idx)  # absent for the point a killed run was in: its rate is not known
        load = LoadOutcome(0, 0, 0, done.get("achieved_rate")) if done else None
        engine = EngineWindow()
        if done:  # what write_point_done kept of the point's window
            engine.kv_utilization, engine.prefix_cache_hit_rate = done.get("kv_utilization"), done.get("prefix_cache_hit_rate")
            engine.prefix_cache_queries, engine.preemptions = done.get("prefix_cache_queries"), done.get("preemptions")
        if done and done.get("gpu") is not None:
            engine.gpu = _gpu_block(done["gpu"], reader.dropped)
        outcomes.append(PointOutcome(point, load=load, engine=engine, prebuilt=columns.get(idx, Columns())))
    ident = RunIdentity(
        run_id=spec.run_id,
        engine_id=spec.engine.id or "unknown",
        engine_version=spec.engine.version,
        model_id=spec.model or "unknown",
        scenario=spec.scenario,
        endpoint=spec.endpoint,
        args=dict(spec.args),
        allow_network=spec.allow_network,
    )
    # The SLO check reads each request's own times (its largest chunk gap for itl_ms):
    # only then is every line parsed into a record.
    slo_records = list(read_records(records_path)) if spec.slos else None
    result = build_result(
        workload,
        outcomes,
        ident,
        resolved_params=resolved,
        started_at=spec.started_at,
        finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        wall_s=max(wall, 0.0),
        records_file=records_path.name,
        slos=spec.slos,
        requested_rate=spec.requested_rate,
        slo_records=slo_records,
    )
    return Recovered(result, dict(sorted(reader.dropped.items())), dropped_lines(records_path, reader) if reader.dropped else {})


def _gpu_block(block: Any, dropped: dict[str, int]) -> dict[str, Any] | None:
    """A point's GPU summary as its point_done line gives it, if it is one; a block
    that is not (another writer, an edit) is counted, not used."""
    try:
        GpuTelemetry.model_validate(block)
    except ValueError:
        dropped["bad-gpu-telemetry"] = dropped.get("bad-gpu-telemetry", 0) + 1
        return None
    return dict(block)
