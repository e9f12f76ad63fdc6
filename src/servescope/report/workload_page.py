"""The page of one workload: its sweep charts with predictions over
measurements, the Pareto view, eval accuracy, and its runs."""

from __future__ import annotations

from servescope.report.charts import (
    build_series,
    error_figure,
    eval_figures,
    eval_rows,
    pareto_figure,
    sweep_figures,
)
from servescope.report.context import Site
from servescope.report.html import Charts, esc, fmt, link, page, table
from servescope.report.points import image_points


def render_workload(workload_id: str, site: Site) -> str:
    runs = [r for r in site.runs if (r.workload_id or "no workload") == workload_id]
    pairings = [p for p in site.pairings if p.measured in runs]
    parts = []
    w = site.workloads.get(workload_id)
    if w is not None:
        parts.append(f"<p>{esc(w.name)} — {esc(w.kind)}; {esc(w.description)}</p>")
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
