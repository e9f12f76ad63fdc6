"""A Result from a records file alone — for a run that was killed, interrupted or
is still going. Every finished request is in the records file (written as each
ends); the header line says what was run, so nothing else is needed."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from pathlib import Path

from servescope.bench.execute import PointOutcome
from servescope.bench.recorder import read_extra, read_header, read_records
from servescope.bench.result import RunIdentity, build_result
from servescope.catalog.plan import PlannedPoint
from servescope.catalog.store import Catalog
from servescope.documents import Result
from servescope.errors import DocumentError


def result_from_records(records_path: Path, catalog: Catalog | None = None) -> Result:
    header = read_header(records_path)
    if header is None:
        raise DocumentError(str(records_path), "has no run header line; is it a servescope records file?")
    cat = catalog or Catalog.load()
    workload = cat.workload(str(header["workload_id"]))
    by_point: dict[int, PointOutcome] = {}
    planned = {int(p.get("index", i)): p for i, p in enumerate(header.get("resolved_params", {}).get("points", []))}
    grouped = defaultdict(list)
    records = list(read_records(records_path))
    tokenized = (read_extra(records_path, "tokenized") or {}).get("input_tokens") or {}
    for r in records:
        if r.ok and r.input_tokens is None and r.prompt_id in tokenized:
            r.input_tokens = int(tokenized[r.prompt_id])
            r.token_count_source = "tokenize-endpoint"
    for r in records:
        grouped[r.point or 0].append(r)
    for idx in sorted(set(grouped) | set(planned)):
        spec = planned.get(idx, {})
        conc = int(spec.get("concurrency") or (grouped[idx][0].concurrency if grouped[idx] else 1))
        point = PlannedPoint(index=idx, concurrency=conc, context_tokens=spec.get("context_tokens"))
        by_point[idx] = PointOutcome(point, records=grouped[idx])
    engine = header.get("engine") or {}
    ident = RunIdentity(
        run_id=str(header["run_id"]),
        engine_id=str(engine.get("id") or "unknown"),
        engine_version=engine.get("version"),
        model_id=str(header.get("model") or "unknown"),
        scenario=header.get("scenario"),
        endpoint=header.get("endpoint"),
        args=dict(header.get("args") or {}),
    )
    ends = [r.end_ns for r in records if r.end_ns is not None]
    starts = [r.start_ns for r in records]
    wall = (max(ends) - min(starts)) / 1e9 if ends and starts else 0.0
    outcomes = [by_point[i] for i in sorted(by_point)]
    for o in outcomes:
        # A point cut short measured fewer requests than planned; say how many were planned.
        o.point.requests = []
    result = build_result(
        workload,
        outcomes,
        ident,
        resolved_params=dict(header.get("resolved_params") or {}),
        started_at=str(header.get("started_at") or ""),
        finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        wall_s=max(wall, 0.0),
        records_file=records_path.name,
    )
    return result
