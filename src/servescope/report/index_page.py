"""The front page: the coverage map, the workloads, the sortable summary table
(the v0.3 summary's means with their confidence intervals) and what was left out."""

from __future__ import annotations

from servescope.analysis.summarize import group_results, summary_rows
from servescope.documents import Result
from servescope.report.context import Site
from servescope.report.coverage import ALL_WORKLOADS, CoverageMap, Facet
from servescope.report.evidence import Cell
from servescope.report.html import esc, fmt, link, page, sort_cell, table

SUMMARY_METRICS: tuple[tuple[str, str], ...] = (
    ("output_tokens_per_sec", "output tok/s"),
    ("ttft_ms_p50", "TTFT p50 ms"),
    ("ttft_ms_p99", "TTFT p99 ms"),
    ("itl_ms_p50", "ITL p50 ms"),
    ("tpot_ms_p50", "TPOT p50 ms"),
    ("e2e_ms_p50", "E2E p50 ms"),
    ("on_time_rate", "on-time rate"),
    ("goodput_requests_per_sec", "goodput req/s"),
)
LEGEND = (("measured", "measured"), ("imported", "imported"), ("predicted", "predicted only"), ("none", "none"))


def _facet(facet: Facet, cov: CoverageMap, site: Site) -> str:
    head = "".join(f"<th>{esc(hw)}<br><small>{esc(engine)}</small></th>" for hw, engine in cov.columns)
    rows = []
    for model in cov.models:
        cells = []
        for hw, engine in cov.columns:
            cc = facet.cells[Cell(model, hw, engine)]
            counts = cc.counts
            shown = " · ".join(f"{n} {k}" for k, n in counts.items() if n) or "—"
            why = "".join(f"<li>{esc(line)}</li>" for line in cc.why())
            runs = "".join(f"<li>{link(r.page, r.name)}</li>" for r in cc.runs[:20])
            more = f"<li>… {len(cc.runs) - 20} more</li>" if len(cc.runs) > 20 else ""
            stale = " stale" if cc.stale else ""
            mark = '<span class="stale-mark">stale</span>' if cc.stale else ""
            cells.append(
                f'<td class="cell {cc.status}{stale}" tabindex="0" data-status="{cc.status}" data-stale="{str(cc.stale).lower()}" '
                f'data-model="{esc(model)}" data-hardware="{esc(hw)}" data-engine="{esc(engine)}" data-runs="{len(cc.runs)}">'
                f'<span class="count">{esc(shown)}</span>{mark}<div class="why"><ul>{why}</ul>'
                + (f'<ul class="cell-runs">{runs}{more}</ul>' if runs else "")
                + "</div></td>"
            )
        rows.append(f"<tr><th>{esc(model)}</th>{''.join(cells)}</tr>")
    title = facet.workload
    target = site.workload_pages.get(facet.workload)
    caption = link(target, title) if target else esc(title)
    if facet.superseded_by:
        caption += f' <small class="stale-note">superseded by {esc(facet.superseded_by)}</small>'
    if facet.supersedes:
        caption += f" <small>supersedes {esc(facet.supersedes)}</small>"
    return (
        f'<div class="facet" data-workload="{esc(facet.workload)}"><table class="coverage"><caption>{caption}</caption>'
        f"<thead><tr><th>model \\ hardware, engine</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _summary(results: list[Result]) -> str:
    if not results:
        return "<p>No Results: nothing to summarize.</p>"
    rows = []
    for row in summary_rows(group_results(results), "v0.3"):
        cells = [
            esc(row["workload_id"]),
            f"<code>{esc(row['config_id'])}</code>",
            esc(row["model"]),
            esc(row["harness"]),
            esc(row["slos"] or "none"),
            fmt(row["n_episodes"]),
        ]
        for key, _ in SUMMARY_METRICS:
            mean, lo, hi = row.get(f"{key}_mean"), row.get(f"{key}_mean_ci_lower"), row.get(f"{key}_mean_ci_upper")
            ci = f" <small>[{fmt(lo)}, {fmt(hi)}]</small>" if lo is not None and hi is not None else ""
            cells.append(sort_cell(fmt(mean) + ci, mean))
        sr, lo, hi = row.get("success_rate_mean"), row.get("success_rate_ci_lower"), row.get("success_rate_ci_upper")
        ci = f" <small>[{fmt(lo)}, {fmt(hi)}]</small>" if lo is not None and hi is not None else ""
        cells.append(sort_cell(fmt(sr) + ci, sr))
        rows.append(cells)
    headers = ["workload", "config_id", "model", "harness", "SLOs", "episodes", *(label for _, label in SUMMARY_METRICS), "success rate"]
    return (
        "<p>Means over episodes (repeats) of each (workload, config_id, model, harness, load, SLOs: on-time rate and goodput "
        "count the requests within them); brackets: 95% Student-t interval of "
        "the mean (two or more episodes), Wilson interval for the success rate (pooled over requests). Click a header to sort. "
        'All columns: <a href="summary/summary_v0.3.csv">summary_v0.3.csv</a>.</p>' + table(headers, rows, sortable=True, cls="data summary")
    )


def render_index(cov: CoverageMap, site: Site) -> str:
    results = [r.doc for r in site.runs if isinstance(r.doc, Result)]
    kinds = {k: sum(1 for r in site.runs if r.evidence == k) for k in ("measured", "imported", "predicted")}
    parts = [
        f"<p>{len(site.runs)} run(s): "
        + ", ".join(f"{n} {k}" for k, n in kinds.items())
        + "."
        + (f" {site.twins} document(s) are copies or compact tables of runs shown here, not counted again." if site.twins else "")
        + "</p>"
    ]
    if site.problems:
        parts.append('<h2>Left out</h2><ul class="problems">' + "".join(f"<li>{esc(p)}</li>" for p in site.problems) + "</ul>")
    legend = "".join(f'<span class="cell {k}">{esc(label)}</span>' for k, label in LEGEND)
    parts.append(f'<h2>Coverage</h2><p class="legend">{legend}<span class="cell stale">stale</span> Hover or focus a cell for why.</p>')
    overview = next(f for f in cov.facets if f.workload == ALL_WORKLOADS)
    parts.append('<div class="facets">' + _facet(overview, cov, site) + "</div>")
    parts.append('<h3>By workload</h3><div class="facets">' + "".join(_facet(f, cov, site) for f in cov.facets if f is not overview) + "</div>")
    wl = [
        [link(path, wid), fmt(sum(1 for r in site.runs if (r.workload_id or "no workload") == wid)), "superseded" if wid in site.staleness.superseded else ""]
        for wid, path in site.workload_pages.items()
    ]
    parts.append("<h2>Workloads</h2>" + table(["workload", "runs", "status"], wl, sortable=True))
    parts.append("<h2>Summary</h2>" + _summary(results))
    return page("servescope report", "\n".join(parts), depth=0).replace("<h1>servescope report</h1>", "<h1>Results and predictions</h1>")
