"""``servescope compare A B``: two tables of the same question, point by point.

Typically A is a Prediction and B the measured EvaluationRun (or two runs).
Points are paired by concurrency. Signed error is (A − B) / B × 100 %; per
metric, MAPE is the mean of |error| over the paired points and ``max_abs_pct``
its largest value. Different scenarios or workloads are refused unless forced
(then said so); different harnesses draw a warning because they define
metrics differently (chunk-pooled ITL vs per-request ITL, TPOT with or without
TTFT, percentile methods).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from servescope.analysis.tables import table_of
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.errors import CompareRefused, ServescopeError

COMPARED_METRICS: tuple[str, ...] = (
    "ttft_ms",
    "itl_ms",
    "e2e_ms",
    "output_tokens_per_sec",
    "input_tokens_per_sec",
    "kv_utilization",
    "prefix_cache_hit_rate",
    "preemptions",
)


@dataclass
class PairedValue:
    concurrency: int
    metric: str
    a: float
    b: float
    error_pct: float | None  # None when B is 0


@dataclass
class MetricError:
    metric: str
    points: int
    mape_pct: float | None
    max_abs_pct: float | None


@dataclass
class Comparison:
    a_name: str
    b_name: str
    pairs: list[PairedValue] = field(default_factory=list)
    per_metric: list[MetricError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unpaired_a: list[int] = field(default_factory=list)
    unpaired_b: list[int] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def compare(a: EvaluationRun | Prediction | Result, b: EvaluationRun | Prediction | Result, *, force: bool = False) -> Comparison:
    rows_a, id_a = table_of(a)
    rows_b, id_b = table_of(b)
    out = Comparison(a_name=str(id_a["name"]), b_name=str(id_b["name"]))
    for key in ("scenario", "workload"):
        va, vb = id_a.get(key), id_b.get(key)
        if va and vb and va != vb:
            msg = f"A is {key} {va!r} but B is {key} {vb!r}"
            if not force:
                raise CompareRefused(f"{msg}: they answer different questions; pass --force to compare anyway")
            out.warnings.append(f"forced: {msg}")
    if id_a["harness"] != id_b["harness"]:
        out.warnings.append(
            f"A comes from {id_a['harness']!r} and B from {id_b['harness']!r}, which may define metrics differently"
            + "".join(f"; A: {n}" for n in id_a["notes"])
            + "".join(f"; B: {n}" for n in id_b["notes"])
        )
    by_b = {p.concurrency: p for p in rows_b}
    by_a = {p.concurrency: p for p in rows_a}
    out.unpaired_a = sorted(set(by_a) - set(by_b))
    out.unpaired_b = sorted(set(by_b) - set(by_a))
    for conc in sorted(set(by_a) & set(by_b)):
        pa, pb = by_a[conc], by_b[conc]
        for metric in COMPARED_METRICS:
            va, vb = getattr(pa, metric, None), getattr(pb, metric, None)
            if va is None or vb is None:
                continue
            err = (float(va) - float(vb)) / float(vb) * 100.0 if vb else None
            out.pairs.append(PairedValue(conc, metric, float(va), float(vb), err))
    for metric in COMPARED_METRICS:
        errs = [abs(p.error_pct) for p in out.pairs if p.metric == metric and p.error_pct is not None]
        n = sum(1 for p in out.pairs if p.metric == metric)
        if n:
            out.per_metric.append(MetricError(metric, n, sum(errs) / len(errs) if errs else None, max(errs) if errs else None))
    return out


def format_csv(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["concurrency", "metric", "a", "b", "error_pct"])
    for p in c.pairs:
        w.writerow([p.concurrency, p.metric, repr(p.a), repr(p.b), "" if p.error_pct is None else repr(p.error_pct)])
    return buf.getvalue()


def _f(v: float | None, d: int = 2) -> str:
    return "—" if v is None else f"{v:,.{d}f}"


def format_markdown(c: Comparison) -> str:
    lines = [f"# {c.a_name} (A) vs {c.b_name} (B)", ""]
    lines += [f"> {w}" for w in c.warnings]
    lines += ["", "| concurrency | metric | A | B | error % |", "|---|---|---|---|---|"]
    lines += [f"| {p.concurrency} | {p.metric} | {_f(p.a)} | {_f(p.b)} | {_f(p.error_pct, 1)} |" for p in c.pairs]
    lines += ["", "| metric | points | MAPE % | max abs error % |", "|---|---|---|---|"]
    lines += [f"| {m.metric} | {m.points} | {_f(m.mape_pct, 1)} | {_f(m.max_abs_pct, 1)} |" for m in c.per_metric]
    return "\n".join(lines) + "\n"


def format_json(c: Comparison) -> str:
    return json.dumps(c.as_dict(), indent=2) + "\n"


def plot(c: Comparison, path: str) -> None:
    """A (solid) over B (dashed) across concurrency, one panel per metric: an
    offline HTML page (plotly) for ``.html``, a static image (matplotlib) for
    ``.png``/``.svg``/``.pdf``."""
    metrics = [m.metric for m in c.per_metric]
    if not metrics:
        raise ServescopeError("nothing to plot: no metric is present in both A and B")
    series = {m: [p for p in c.pairs if p.metric == m] for m in metrics}
    title = f"{c.a_name} (A) vs {c.b_name} (B)"
    if path.endswith(".html"):
        import plotly.graph_objects as go
        from plotly.subplots import make_subplots

        fig = make_subplots(rows=len(metrics), cols=1, subplot_titles=metrics, shared_xaxes=True)
        for i, metric in enumerate(metrics, start=1):
            xs = [p.concurrency for p in series[metric]]
            fig.add_trace(go.Scatter(x=xs, y=[p.a for p in series[metric]], name=f"A {metric}", mode="lines+markers"), row=i, col=1)
            fig.add_trace(go.Scatter(x=xs, y=[p.b for p in series[metric]], name=f"B {metric}", mode="lines+markers", line={"dash": "dash"}), row=i, col=1)
            fig.update_xaxes(type="log", row=i, col=1)
        fig.update_layout(height=260 * len(metrics), title=title)
        fig.write_html(path, include_plotlyjs=True, full_html=True)
        return
    if not path.endswith((".png", ".svg", ".pdf")):
        raise ServescopeError(f"--plot {path}: use .html (interactive, offline) or .png/.svg/.pdf (static)")
    try:
        import matplotlib

        matplotlib.use("Agg")  # no display: files only
        import matplotlib.pyplot as plt
        import matplotlib.ticker
    except ImportError as exc:
        raise ServescopeError(f"--plot {path}: static images need matplotlib (pip install 'servescope[plot]'); or write an .html plot") from exc
    fig, axes = plt.subplots(len(metrics), 1, figsize=(7, 2.6 * len(metrics)), sharex=True, squeeze=False)
    for ax, metric in zip(axes[:, 0], metrics, strict=True):
        xs = [p.concurrency for p in series[metric]]
        ax.plot(xs, [p.a for p in series[metric]], marker="o", label="A")
        ax.plot(xs, [p.b for p in series[metric]], marker="s", linestyle="--", label="B")
        ax.set_xscale("log", base=2)
        ax.set_ylabel(metric)
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best", fontsize="small")
        ax.xaxis.set_major_formatter(matplotlib.ticker.ScalarFormatter())
    axes[-1, 0].set_xlabel("concurrency")
    fig.suptitle(f"A: {c.a_name}\nB: {c.b_name}", fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
