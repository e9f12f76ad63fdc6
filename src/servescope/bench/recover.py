"""A Result from a records file alone — for a run that was killed, interrupted or
is still going. Every finished request is in the records file (written as each
ends); the header line says what was run, so nothing else is needed.

The file is streamed straight into metric columns (no object per request), so a
million records summarise in seconds.
"""

from __future__ import annotations

import datetime as dt
import math
from pathlib import Path
from typing import Any

from servescope.analysis.metrics import Columns
from servescope.bench.execute import PointOutcome
from servescope.bench.result import RunIdentity, build_result
from servescope.catalog.plan import PlannedPoint
from servescope.catalog.store import Catalog
from servescope.documents import Result
from servescope.errors import DocumentError

try:
    from orjson import JSONDecodeError as _DecodeError
    from orjson import loads as _loads
except ImportError:  # pragma: no cover - orjson is a dependency; stdlib keeps working without it
    from json import JSONDecodeError as _DecodeError  # type: ignore[assignment]
    from json import loads as _loads  # type: ignore[assignment]


def read_columns(records_path: Path) -> tuple[dict[str, Any] | None, dict[int, Columns], float]:
    """(header, measured columns per point, wall seconds) of a records file."""
    header: dict[str, Any] | None = None
    tokenized: dict[str, int] = {}
    points: dict[int, Columns] = {}
    missing_input: list[tuple[int, int, str]] = []  # (point, row, prompt id) of completed rows without a count
    nan = math.nan
    first_start: int | None = None
    last_end = 0
    with records_path.open("rb") as fh:
        for line in fh:
            try:
                d = _loads(line)
            except _DecodeError:
                continue  # the line being written when the process died
            if not isinstance(d, dict):
                continue
            if "request_id" not in d:
                if "header" in d and header is None:
                    header = d["header"]
                elif "tokenized" in d:
                    tokenized = dict((d["tokenized"] or {}).get("input_tokens") or {})
                continue
            start = d.get("start_ns") or 0
            end = d.get("end_ns")
            first_start = start if first_start is None else min(first_start, start)
            if end is not None and end > last_end:
                last_end = end
            if d.get("phase") != "measured":
                continue
            idx = d.get("point") or 0
            c = points.get(idx)
            if c is None:
                c = points[idx] = Columns()
            ok = bool(d.get("ok"))
            c.ok.append(ok)
            c.start_ns.append(start)
            ft = d.get("first_token_ns")
            c.first_ns.append(nan if ft is None else ft)
            c.end_ns.append(nan if end is None else end)
            it = d.get("input_tokens")
            ot = d.get("output_tokens")
            c.input_tokens.append(nan if it is None else it)
            c.output_tokens.append(nan if ot is None else ot)
            if ok:
                chunks = d.get("chunk_ns")
                if chunks:
                    c.chunk_flat.extend(chunks)
                    c.chunk_len.append(len(chunks))
                src = d.get("token_count_source")
                if src:
                    c.sources.add(src)
                if it is None and d.get("prompt_id"):
                    missing_input.append((idx, len(c.ok) - 1, d["prompt_id"]))
            else:
                c.failed.append((d.get("stage") or "stream", d.get("category") or "other", d.get("error") or "",
                                 d["request_id"], d.get("http_status")))
    for idx, row, prompt_id in missing_input:
        if prompt_id in tokenized:
            points[idx].input_tokens[row] = float(tokenized[prompt_id])
            points[idx].sources.add("tokenize-endpoint")
    wall = (last_end - first_start) / 1e9 if first_start is not None and last_end > first_start else 0.0
    return header, points, wall


def result_from_records(records_path: Path, catalog: Catalog | None = None) -> Result:
    header, columns, wall = read_columns(records_path)
    if header is None:
        raise DocumentError(str(records_path), "has no run header line; is it a servescope records file?")
    cat = catalog or Catalog.load()
    workload = cat.workload(str(header["workload_id"]))
    resolved = dict(header.get("resolved_params") or {})
    planned = {i: p for i, p in enumerate(resolved.get("points", []))}
    outcomes = []
    for idx in sorted(set(columns) | set(planned)):
        spec = planned.get(idx, {})
        point = PlannedPoint(index=idx, concurrency=int(spec.get("concurrency") or 1), context_tokens=spec.get("context_tokens"))
        outcomes.append(PointOutcome(point, prebuilt=columns.get(idx, Columns())))
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
    return build_result(
        workload,
        outcomes,
        ident,
        resolved_params=resolved,
        started_at=str(header.get("started_at") or ""),
        finished_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
        wall_s=max(wall, 0.0),
        records_file=records_path.name,
    )
