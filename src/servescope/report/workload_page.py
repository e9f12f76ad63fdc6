"""The page of one workload: its sweep charts with predictions over
measurements, the Pareto view, eval accuracy, and its runs."""

from __future__ import annotations

import json
from typing import Any

from pydantic import ValidationError

from servescope.documents import Result
from servescope.report.charts import (
    build_series,
    error_figure,
    eval_figures,
    eval_rows,
    pareto_figure,
    sweep_figures,
)
from servescope.report.context import Site
from servescope.report.evidence import Run
from servescope.report.html import Charts, esc, fmt, link, page, table
from servescope.report.points import image_points
from servescope.workload.load import Load


def _load_description(runs: list[Run]) -> dict[str, Any] | None:
    """An ad-hoc load's own record (``resolved_params.load_description``) from the first run that has one:
    a label alone (``adhoc-<digest>``) says nothing of what was sent."""
    for r in runs:
        desc = r.doc.resolved_params.get("load_description") if isinstance(r.doc, Result) else None
        if isinstance(desc, dict) and desc.get("source") not in (None, "catalog"):
            return desc
    return None


def _flat(record: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    rows: list[tuple[str, Any]] = []
    for key, value in record.items():
        if isinstance(value, dict):
            rows += _flat(value, f"{prefix}{key}.")
        elif key != "label":
            rows.append((f"{prefix}{key}", value))
    return rows


def load_section(runs: list[Run]) -> str:
    """What an ad-hoc workload's runs sent: one line (``Load.describe``) and every field of its record."""
    desc = _load_description(runs)
    if desc is None:
        return ""
    try:
        line = Load.model_validate({k: v for k, v in desc.items() if k != "label"}).describe()
    except ValidationError:  # a record of another version: its fields still say it
        line = f"{desc.get('source')} load"
    rows = [[esc(k), esc(v if isinstance(v, str) else json.dumps(v))] for k, v in _flat(desc)]
    return f"<h2>Load</h2><p>{esc(line)}</p>" + table(["field", "value"], rows)


def render_workload(workload_id: str, site: Site) -> str:
    runs = [r for r in site.runs if (r.workload_id or "no workload") == workload_id]
    pairings = [p for p in site.pairings if p.measured in runs]
    parts = []
    w = site.workloads.get(workload_id)
    if w is not None:
        parts.append(f"<p>{esc(w.name)} — {esc(w.kind)}; {esc(w.description)}</p>")
    else:
        parts.append(load_section(runs))
    newer = site.staleness.superseded.get(workload_id)
    if newer:
        target = site.workload_pages.get(newer[0])
        parts.append(
            '<p class="stale-note">Superseded by '
            + (link("../" + target, newer[0], "successor") if target else esc(newer[0]))
            + f": its runs are stale, not wrong ({esc(newer[1])}).</p>"
        )
    for old, (new, _) in site.staleness.superseded.items():
        if new == workload_id:
            target = site.workload_pages.get(old)
            parts.append("<p>Supersedes " + (link("../" + target, old, "predecessor") if target else esc(old)) + ".</p>")
    charts = Charts()
    series = build_series(runs)
    serving = [s for s in series if any(p.output_tokens_per_sec is not None or p.ttft_mean is not None for _, p in s.points)]
    if serving:
        parts.append('<h2>Sweep</h2><div class="charts">')
        parts += [charts.div(fig, cap) for fig, cap in sweep_figures(serving, pairings)]
        for extra in (error_figure(pairings), pareto_figure(serving)):
            if extra:
                parts.append(charts.div(*extra))
        parts.append("</div>")
    evals = eval_figures(runs)
    if evals:
        parts.append('<h2>Eval</h2><div class="charts">' + "".join(charts.div(f, c) for f, c in evals) + "</div>")
        rows = [
            [link("../" + r.page, r.name), fmt(a), fmt(n), fmt(ci[0]) if ci else "—", fmt(ci[1]) if ci else "—", fmt(lat)]
            for r, a, n, ci, lat in eval_rows(runs)
        ]
        parts.append(table(["run", "accuracy", "items", "Wilson 95% lower", "upper", "avg latency ms"], rows, sortable=True))
    images = image_points(runs)
    if images:
        rows = [
            [link("../" + r.page, r.name), fmt(d.count), fmt(d.p50, 4), fmt(d.p90, 4), fmt(d.mean, 4), esc(str(g) if g is not None else "—")]
            for r, d, g in images
        ]
        parts.append(
            "<h2>Images</h2><p>Seconds per image over every measured render (the lane's own timing.total_ms where it "
            "reports one, else the wall clock); guidance = the value that applied.</p>"
            + table(["run", "renders", "s/image p50", "s/image p90", "s/image mean", "guidance"], rows, sortable=True)
        )
    if pairings:
        rows = [
            [
                link("../" + p.predicted.page, p.predicted.name),
                link("../" + p.measured.page, p.measured.name),
                *(
                    fmt(next((m.mape_pct for m in p.comparison.per_metric if m.metric == k), None), 3)
                    for k in ("output_tokens_per_sec", "ttft_ms", "itl_ms", "e2e_ms")
                ),
            ]
            for p in pairings
        ]
        parts.append(
            "<h2>Predictions vs measurements</h2><p>MAPE % over paired concurrencies, on means; "
            "per-point errors are in the chart hovers and on the run pages.</p>"
            + table(["prediction", "measurement", "tok/s", "TTFT", "ITL", "E2E"], rows, sortable=True)
        )
    rows = [
        [
            link("../" + r.page, r.name, "run"),
            esc(r.doc_kind),
            esc(r.evidence),
            esc(r.cell.model),
            esc(r.cell.hardware),
            esc(f"{r.cell.engine} {r.engine_version or ''}"),
            esc(r.config_id),
            esc(r.harness),
            "stale" if site.staleness.reasons(r) else "",
        ]
        for r in sorted(runs, key=lambda r: r.name)
    ]
    parts.append("<h2>Runs</h2>" + table(["run", "document", "evidence", "model", "hardware", "engine", "config_id", "harness", "stale"], rows, sortable=True))
    return page(f"Workload {workload_id}", "\n".join(parts), depth=1)
