"""The page of one run: identity, provenance, engine args and config_id,
failures by category and stage, points, links to its successor workload's runs
and to the predictions or measurements it was compared with, then every field
of the document as stored."""

from __future__ import annotations

from collections import defaultdict

from servescope.documents import EvaluationRun, Prediction, Result
from servescope.report.context import Site
from servescope.report.evidence import Run
from servescope.report.html import esc, fields, fmt, link, page, table
from servescope.report.points import chart_points


def _provenance(run: Run) -> list[tuple[str, object]]:
    doc = run.doc
    rows: list[tuple[str, object]] = [("document", run.doc_kind), ("evidence", run.evidence), ("source file", run.source), ("harness", run.harness)]
    if isinstance(doc, Result):
        md = doc.metadata
        imported = doc.resolved_params.get("import")
        rows += [
            ("harness version", md.harness_version),
            ("timing mode", doc.timing_mode),
            ("servescope version", md.servescope_version),
            ("git commit", md.git_commit),
            ("pipeline mode", md.pipeline_mode),
            ("token counts from", doc.metrics.token_count_source),
            ("started", md.started_at),
            ("finished", md.finished_at),
            ("python", md.python_version),
            ("platform", md.platform),
            ("seed", md.seed),
            ("records file", md.records_file),
        ]
        if isinstance(imported, dict):
            rows += [("imported from", imported.get("harness")), ("import sources", imported.get("sources")), ("import command", imported.get("command"))]
    elif isinstance(doc, Prediction):
        rows += [
            ("predictor version", doc.predictor_version),
            ("timing mode", doc.timing_mode),
            ("calibration", doc.calibration),
            ("seed", doc.seed),
            ("date", doc.date),
        ]
    else:
        rows += [("harness version", doc.harness_version), ("timing mode", "explicit"), ("date", doc.date)]
    return rows


def _kv(rows: list[tuple[str, object]]) -> str:
    body = "".join(f"<tr><th>{esc(k)}</th><td>{fields(v) if isinstance(v, list | dict) else fmt(v, 6)}</td></tr>" for k, v in rows)
    return f'<table class="fields">{body}</table>'


def _failures(doc: Result) -> str:
    if not doc.failures:
        failed = doc.metrics.failed_requests
        return f"<p>No failed requests{'' if failed is not None else ' listed (failed_requests not recorded)'}.</p>"
    pivot: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    stages = sorted({f.stage for f in doc.failures})
    for f in doc.failures:
        pivot[f.category][f.stage] += f.count
    rows = [[esc(cat), *(fmt(pivot[cat].get(st)) if pivot[cat].get(st) else "" for st in stages), fmt(sum(pivot[cat].values()))] for cat in sorted(pivot)]
    detail = [
        [esc(f.category), esc(f.stage), fmt(f.count), fmt(f.concurrency), fmt(f.http_status), esc(f.message), esc(f.sample_request_id)] for f in doc.failures
    ]
    return (
        table(["category \\ stage", *stages, "total"], rows)
        + "<h3>Each failure entry</h3>"
        + table(["category", "stage", "count", "concurrency", "HTTP status", "message", "sample request"], detail)
    )


def _points(run: Run) -> str:
    rows = [
        [
            fmt(p.concurrency),
            fmt(p.context_tokens),
            esc(p.status),
            fmt(p.output_tokens_per_sec),
            fmt(p.ttft_p50),
            fmt(p.ttft_p99),
            fmt(p.ttft_mean),
            fmt(p.itl_p50),
            fmt(p.itl_p99),
            fmt(p.itl_mean),
            fmt(p.goodput_requests_per_sec),
        ]
        for p in chart_points(run)
    ]
    headers = ["concurrency", "context tokens", "status", "output tok/s", "TTFT p50", "TTFT p99", "TTFT mean", "ITL p50", "ITL p99", "ITL mean"]
    return table([*headers, "goodput req/s"], rows) + _slos(run)


def _slos(run: Run) -> str:
    """A Result's SLOs and how the run met them (on-time rate, goodput, violations)."""
    doc = run.doc
    if not isinstance(doc, Result) or not doc.slos:
        return ""
    slos = ", ".join(s.id for s in doc.slos)
    rows: list[tuple[str, object]] = [
        ("SLOs (every request held to each)", slos),
        ("on-time rate (share of measured requests within every SLO)", doc.on_time_rate),
        ("goodput (requests within every SLO per second)", doc.metrics.goodput_requests_per_sec),
        ("violations by SLO", doc.violations_by_invariant_id),
    ]
    return "<h3>SLOs</h3>" + _kv(rows)


def _links(run: Run, site: Site) -> str:
    out = []
    newer = site.staleness.superseded.get(run.workload_id or "")
    if newer:
        successors = [r for r in site.runs if r.workload_id == newer[0] and r.cell == run.cell]
        successors.sort(key=lambda r: (r.evidence != run.evidence, r.name))  # a measurement's successor is a measurement first
        target = successors[0].page if successors else site.workload_pages.get(newer[0])
        text = f"superseded by {newer[0]}" + (f" ({len(successors)} run(s) of it on this model, hardware and engine)" if successors else "")
        out.append(
            '<p class="successor">This run\'s workload is '
            + (link(f"../{target}", text, "successor") if target else esc(text + ": no run of it here yet"))
            + f" — {esc(newer[1])}</p>"
        )
        if len(successors) > 1:
            out.append("<ul>" + "".join(f"<li>{link('../' + r.page, r.name)}</li>" for r in successors[1:]) + "</ul>")
    older = [old for old, (new, _) in site.staleness.superseded.items() if new == run.workload_id]
    for old in older:
        predecessors = [r for r in site.runs if r.workload_id == old and r.cell == run.cell]
        if predecessors:
            out.append(f'<p class="predecessor">Supersedes {esc(old)}: ' + ", ".join(link("../" + r.page, r.name) for r in predecessors) + "</p>")
    for reason in site.staleness.reasons(run):
        out.append(f'<p class="stale-note">Stale, not wrong: {esc(reason)}</p>')
    pairs = [p for p in site.pairings if p.predicted is run or p.measured is run]
    if pairs:
        rows = []
        for p in pairs:
            other = p.measured if p.predicted is run else p.predicted
            mape = "; ".join(f"{m.metric} {fmt(m.mape_pct, 3)}%" for m in p.comparison.per_metric)
            rows.append([link("../" + other.page, other.name, "compared"), esc(other.evidence), esc(mape)])
        title = "Measurements this prediction was compared with" if run.evidence == "predicted" else "Predictions of this measurement"
        out.append(f"<h2>{title}</h2>" + table(["run", "evidence", "MAPE per metric (mean values)"], rows))
        for p in pairs:
            prow = [[fmt(x.concurrency), esc(x.metric), fmt(x.a), fmt(x.b), fmt(x.error_pct, 3)] for x in p.comparison.pairs]
            out.append(
                f"<h3>{esc(p.predicted.name)} vs {esc(p.measured.name)}</h3>" + table(["concurrency", "metric", "predicted", "measured", "error %"], prow)
            )
    return "".join(out)


def render_run(run: Run, site: Site) -> str:
    doc = run.doc
    workload = site.workload_pages.get(run.workload_id or "")
    head = [
        ("workload", link("../" + workload, run.workload_id) if workload else esc(run.workload_id)),
        ("scenario", esc(run.scenario)),
        ("model", esc(run.cell.model)),
        ("hardware", esc(run.cell.hardware)),
        ("engine", esc(f"{run.cell.engine} {run.engine_version or ''}")),
        ("config_id", esc(run.config_id)),
    ]
    parts = ['<table class="fields">' + "".join(f"<tr><th>{esc(k)}</th><td>{v}</td></tr>" for k, v in head) + "</table>"]
    parts += [f'<p class="note">{esc(n)}</p>' for n in run.notes]
    parts.append(_links(run, site))
    parts.append("<h2>Provenance</h2>" + _kv(_provenance(run)))
    if isinstance(doc, Result):
        args = [[esc(k), fields(v)] for k, v in sorted(doc.args.items())]
        parts.append(
            "<h2>Engine args and config_id</h2>"
            + f"<p>config_id <code>{esc(doc.config_id)}</code> = fingerprint of engine, version, args and dtypes.</p>"
            + (table(["flag", "value"], args) if args else "<p>No engine args recorded.</p>")
        )
        parts.append("<h2>Failures by category and stage</h2>" + _failures(doc))
    elif isinstance(doc, Prediction) and doc.warnings:
        parts.append("<h2>Simulator warnings</h2><ul>" + "".join(f"<li>{esc(w)}</li>" for w in doc.warnings) + "</ul>")
    elif isinstance(doc, EvaluationRun) and doc.notes:
        parts.append("<h2>Notes</h2><ul>" + "".join(f"<li>{esc(n)}</li>" for n in doc.notes) + "</ul>")
    parts.append("<h2>Points</h2>" + _points(run))
    parts.append("<h2>Every field</h2>" + fields(doc.dump()))
    return page(f"{run.doc_kind} {run.name}", "\n".join(parts), depth=1)
