"""Plotly figures (plain dicts) of one workload: throughput, TTFT and ITL against
concurrency with predictions drawn as dashed curves over measured markers, the
throughput-vs-latency (Pareto) view, and eval accuracy with Wilson intervals.

Hover text carries document strings, so each is HTML-escaped before Plotly sees
it (Plotly renders a small tag subset in hover labels)."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from servescope.analysis.stats import rate_ci
from servescope.documents import Result
from servescope.report.evidence import Run
from servescope.report.html import esc
from servescope.report.pairing import Pairing
from servescope.report.points import ChartPoint, chart_points, x_axis

COLORS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22")
METRIC_NAMES = {"output_tokens_per_sec": "tok/s", "ttft_ms": "TTFT", "itl_ms": "ITL", "e2e_ms": "E2E"}


def _layout(title: str, x_title: str, y_title: str, *, log_x: bool, log_y: bool) -> dict[str, Any]:
    return {
        "title": {"text": esc(title)},
        "xaxis": {"title": {"text": x_title}, "type": "log" if log_x else "linear"},
        "yaxis": {"title": {"text": y_title}, "type": "log" if log_y else "linear"},
        "hovermode": "closest",
        "margin": {"l": 60, "r": 20, "t": 40, "b": 50},
        "legend": {"orientation": "h", "y": -0.25},
        "font": {"family": "system-ui, sans-serif"},
    }


def _wide(values: list[float]) -> bool:
    """Log axes where useful: positive values spanning more than a factor of 8."""
    pos = [v for v in values if v is not None and v > 0]
    return len(pos) >= 2 and min(pos) > 0 and max(pos) / min(pos) > 8


class Series:
    """Runs of one configuration (repeats) and the points they contribute."""

    def __init__(self, runs: list[Run], color: str) -> None:
        self.runs = runs
        self.color = color
        self.points: list[tuple[Run, ChartPoint]] = [(r, p) for r in runs for p in chart_points(r)]
        self.points.sort(key=lambda rp: (rp[1].context_tokens or 0, rp[1].concurrency))

    @property
    def first(self) -> Run:
        return self.runs[0]

    @property
    def predicted(self) -> bool:
        return self.first.evidence == "predicted"

    @property
    def distributions(self) -> bool:
        return isinstance(self.first.doc, Result)

    @property
    def name(self) -> str:
        n = len(self.runs)
        return esc(self.first.label + (f" ×{n}" if n > 1 else ""))


def build_series(runs: list[Run]) -> list[Series]:
    groups: dict[tuple[str, ...], list[Run]] = defaultdict(list)
    for r in runs:
        groups[r.series_key].append(r)
    keys = sorted(groups)
    return [Series(sorted(groups[k], key=lambda r: r.name), COLORS[i % len(COLORS)]) for i, k in enumerate(keys)]


def _hover(run: Run, point: ChartPoint, line: str, errors: dict[int, list[Pairing]], metric: str) -> str:
    parts = [f"<b>{esc(run.name)}</b>", esc(run.label), f"concurrency {point.concurrency}"]
    if point.context_tokens:
        parts.append(f"context {point.context_tokens} tokens")
    parts.append(line)
    if point.status != "ok":
        parts.append(f"point status: {esc(point.status)}")
    for pairing in errors.get(id(run), []):
        err = pairing.point_errors(point.concurrency).get(metric)
        inside = pairing.point_inside(point.concurrency).get(metric)
        if err is not None:
            verdict = "" if inside is None else (", inside its 80 % interval" if inside else ", outside its 80 % interval")
            parts.append(f"predicted by {esc(pairing.predicted.name)}: error {err:+.1f}% (mean {METRIC_NAMES.get(metric, metric)}){verdict}")
    return "<br>".join(parts)


def _error_band(bands: list[tuple[float, float] | None], ys: list[Any]) -> dict[str, Any] | None:
    """Plotly error bars from a prediction's interval, when every point has one."""
    if not bands or any(b is None for b in bands):
        return None
    return {
        "type": "data",
        "symmetric": False,
        "array": [b[1] - y for b, y in zip(bands, ys, strict=True) if b is not None],
        "arrayminus": [y - b[0] for b, y in zip(bands, ys, strict=True) if b is not None],
        "thickness": 1,
        "width": 4,
    }


def _band(series: Series, xs: list[Any], bands: list[tuple[float, float] | None] | None, name: str) -> list[dict[str, Any]]:
    """A prediction's 80 % interval as a shaded band between its bounds (two traces: the upper bound,
    then the lower filled up to it), drawn after the prediction's line so the chart's first trace stays
    the line; none unless every point has an interval."""
    if not series.predicted or not bands or any(b is None for b in bands):
        return []
    rgb = ", ".join(str(int(series.color[i : i + 2], 16)) for i in (1, 3, 5))
    edge = {"type": "scatter", "mode": "lines", "x": xs, "line": {"width": 0, "color": series.color}, "hoverinfo": "skip", "showlegend": False}
    return [
        {**edge, "name": f"{name} — 80 % interval, high", "y": [b[1] for b in bands if b is not None]},
        {**edge, "name": f"{name} — 80 % interval", "y": [b[0] for b in bands if b is not None], "fill": "tonexty", "fillcolor": f"rgba({rgb}, 0.15)"},
    ]


def _trace(
    series: Series,
    xs: list[Any],
    ys: list[Any],
    texts: list[str],
    *,
    name: str,
    dash: str = "solid",
    symbol: str = "circle",
    bands: list[tuple[float, float] | None] | None = None,
) -> dict[str, Any]:
    predicted = series.predicted
    trace = {
        "type": "scatter",
        "mode": "lines+markers" if predicted or len(series.runs) == 1 else "markers",
        "name": name,
        "x": xs,
        "y": ys,
        "text": texts,
        "hovertemplate": "%{text}<extra></extra>",
        "line": {"color": series.color, "dash": "dash" if predicted else dash},
        "marker": {"color": series.color, "symbol": f"{symbol}-open" if predicted else symbol, "size": 8},
    }
    error_y = _error_band(bands or [], ys) if predicted else None
    if error_y is not None:
        trace["error_y"] = error_y
    return trace


def _line_and_band(
    series: Series, xs: list[Any], ys: list[Any], texts: list[str], name: str, bands: list[tuple[float, float] | None], **style: str
) -> list[dict[str, Any]]:
    """A series' line (a prediction's with its error bars) and, for a prediction, its shaded band."""
    return [_trace(series, xs, ys, texts, name=name, bands=bands, **style), *_band(series, xs, bands, name)]


def _x(point: ChartPoint, axis: str) -> int:
    return point.context_tokens or point.concurrency if axis == "context_tokens" else point.concurrency


def sweep_figures(series: list[Series], pairings: list[Pairing]) -> list[tuple[dict[str, Any], str]]:
    """(figure, caption) for throughput, TTFT and ITL against the sweep axis."""
    errors: dict[int, list[Pairing]] = defaultdict(list)
    for p in pairings:
        errors[id(p.measured)].append(p)
    all_points = [p for s in series for _, p in s.points]
    axis = x_axis(all_points)
    x_title = "context tokens" if axis == "context_tokens" else "concurrency"
    log_x = _wide([float(_x(p, axis)) for p in all_points])
    figures = []

    traces = []
    for s in series:
        pts = [(r, p) for r, p in s.points if p.output_tokens_per_sec is not None]
        texts = [_hover(r, p, f"output {p.output_tokens_per_sec:,.1f} tok/s", errors, "output_tokens_per_sec") for r, p in pts]
        bands = [p.band("output_tokens_per_sec", p.output_tokens_per_sec) for _, p in pts]
        traces += _line_and_band(s, [_x(p, axis) for _, p in pts], [p.output_tokens_per_sec for _, p in pts], texts, s.name, bands)
    figures.append(
        (
            {"data": traces, "layout": _layout("Output throughput", x_title, "output tok/s", log_x=log_x, log_y=False)},
            "Markers: measured or imported runs; dashed lines with open markers: predictions, their bars and shaded band the 80 % "
            "interval the predictor's held-out error gives (where measurements are expected).",
        )
    )

    for metric, label in (("ttft", "TTFT"), ("itl", "ITL")):
        traces, values = [], []
        for s in series:
            stats = (("p50", "solid", "circle"), ("p99", "dot", "diamond")) if s.distributions else (("mean", "solid", "square"),)
            for stat, dash, symbol in stats:
                pts = [(r, p) for r, p in s.points if getattr(p, f"{metric}_{stat}") is not None]
                if not pts:
                    continue
                ys = [getattr(p, f"{metric}_{stat}") for _, p in pts]
                values.extend(ys)
                texts = [_hover(r, p, f"{label} {stat} {y:,.2f} ms", errors, f"{metric}_ms") for (r, p), y in zip(pts, ys, strict=True)]
                bands = [p.band(f"{metric}_ms", y) for (_, p), y in zip(pts, ys, strict=True)]
                traces += _line_and_band(s, [_x(p, axis) for _, p in pts], ys, texts, f"{s.name} — {stat}", bands, dash=dash, symbol=symbol)
        figures.append(
            (
                {"data": traces, "layout": _layout(f"{label} by {x_title}", x_title, f"{label} ms", log_x=log_x, log_y=_wide(values))},
                (
                    f"Results: p50 (solid) and p99 (dotted); EvaluationRuns and Predictions carry only the mean. "
                    f"Errors in the hover are on means ({label} mean)."
                ),
            )
        )
    return figures


def error_figure(pairings: list[Pairing]) -> tuple[dict[str, Any], str] | None:
    """Signed error % of every prediction against every measurement it was paired
    with, one trace per metric (so a hundred pairings stay four legend entries);
    each point's hover names its pair."""
    traces: list[dict[str, Any]] = []
    xs_all: list[float] = []
    for j, metric in enumerate(("output_tokens_per_sec", "ttft_ms", "itl_ms", "e2e_ms")):
        xs: list[int] = []
        ys: list[float] = []
        texts: list[str] = []
        for pairing in pairings:
            for p in pairing.comparison.pairs:
                if p.metric != metric or p.error_pct is None:
                    continue
                xs.append(p.concurrency)
                ys.append(p.error_pct)
                texts.append(
                    f"<b>{esc(pairing.predicted.name)}</b> vs <b>{esc(pairing.measured.name)}</b><br>concurrency "
                    f"{p.concurrency}<br>{METRIC_NAMES[metric]} mean: predicted {p.a:,.2f}, measured {p.b:,.2f}"
                    f"<br>error {p.error_pct:+.1f}%"
                )
        xs_all.extend(float(x) for x in xs)
        if xs:
            traces.append(
                {
                    "type": "scatter",
                    "mode": "markers",
                    "name": METRIC_NAMES[metric],
                    "x": xs,
                    "y": ys,
                    "text": texts,
                    "hovertemplate": "%{text}<extra></extra>",
                    "marker": {"color": COLORS[j], "symbol": ("circle", "diamond", "square", "triangle-up")[j], "size": 8},
                }
            )
    if not traces:
        return None
    layout = _layout("Prediction error by concurrency", "concurrency", "error % (predicted − measured) / measured", log_x=_wide(xs_all), log_y=False)
    return {"data": traces, "layout": layout}, "Every paired point, per metric, on means; 0 is an exact prediction."


def pareto_figure(series: list[Series]) -> tuple[dict[str, Any], str] | None:
    """Output tok/s against mean ITL, every point of every configuration; the line
    joins the measured (and imported) points no other measured point beats on both."""
    traces: list[dict[str, Any]] = []
    measured: list[tuple[float, float]] = []
    for s in series:
        pts = [(r, p) for r, p in s.points if p.itl_mean is not None and p.output_tokens_per_sec is not None]
        if not pts:
            continue
        texts = [
            f"<b>{esc(r.name)}</b><br>{esc(r.label)}<br>concurrency {p.concurrency}<br>ITL mean {p.itl_mean:,.2f} ms"
            f"<br>output {p.output_tokens_per_sec:,.1f} tok/s"
            for r, p in pts
        ]
        trace = _trace(s, [p.itl_mean for _, p in pts], [p.output_tokens_per_sec for _, p in pts], texts, name=s.name)
        trace["mode"] = "markers"
        traces.append(trace)
        if not s.predicted:
            measured.extend((p.itl_mean, p.output_tokens_per_sec) for _, p in pts if p.itl_mean is not None and p.output_tokens_per_sec is not None)
    if not traces:
        return None
    frontier: list[tuple[float, float]] = []
    for x, y in sorted(measured, key=lambda xy: (xy[0], -xy[1])):
        if not frontier or y > frontier[-1][1]:
            frontier.append((x, y))
    if frontier:
        traces.append(
            {
                "type": "scatter",
                "mode": "lines",
                "name": "Pareto frontier (measured)",
                "x": [f[0] for f in frontier],
                "y": [f[1] for f in frontier],
                "hoverinfo": "skip",
                "line": {"color": "#444", "width": 1},
            }
        )
    layout = _layout("Throughput vs latency", "ITL mean ms (lower is better)", "output tok/s", log_x=_wide([x for x, _ in measured]), log_y=False)
    return {"data": traces, "layout": layout}, "Each marker is one sweep point of one configuration; open markers are predictions."


def eval_rows(runs: list[Run]) -> list[tuple[Run, float, int, tuple[float, float] | None, float | None]]:
    """(run, accuracy, items, Wilson 95 % interval, avg latency ms) of each scored Result.
    Items are the scored items when listed, else the completed requests."""
    out = []
    for r in runs:
        if not isinstance(r.doc, Result) or r.doc.scores is None:
            continue
        sc = r.doc.scores
        accuracy = sc.accuracy
        if accuracy is None:
            continue
        n = len(sc.items) if sc.items else (r.doc.metrics.completed_requests or 0)
        ci = rate_ci(round(accuracy * n), n) if n else None
        out.append((r, accuracy, n, ci, sc.avg_latency_ms))
    return out


def _calibration_text(r: Run) -> str:
    """ECE/MCE of a suite that asked for a confidence, for the hover text; empty otherwise."""
    cal = r.doc.scores.calibration if isinstance(r.doc, Result) and r.doc.scores is not None else None
    if cal is None:
        return ""
    if cal.ece is None or cal.mce is None:
        return "<br>no answer stated a confidence: no ECE"
    return f"<br>ECE {cal.ece:.3f}, MCE {cal.mce:.3f} over {cal.answered_with_confidence} stated confidences"


def eval_figures(runs: list[Run]) -> list[tuple[dict[str, Any], str]]:
    rows = eval_rows(runs)
    if not rows:
        return []
    names = [esc(r.name) for r, *_ in rows]
    acc = {
        "type": "scatter",
        "mode": "markers",
        "name": "accuracy",
        "x": names,
        "y": [a for _, a, *_ in rows],
        "error_y": {
            "type": "data",
            "symmetric": False,
            "array": [(ci[1] - a) if ci else 0 for _, a, _, ci, _ in rows],
            "arrayminus": [(a - ci[0]) if ci else 0 for _, a, _, ci, _ in rows],
        },
        "text": [
            f"<b>{esc(r.name)}</b><br>accuracy {a:.3f} of {n} items<br>"
            + (f"Wilson 95%: {ci[0]:.3f}–{ci[1]:.3f}" if ci else "no items: no interval")
            + _calibration_text(r)
            for r, a, n, ci, _ in rows
        ],
        "hovertemplate": "%{text}<extra></extra>",
    }
    # strict (the asked-for form) beside flexible (the right answer in any reasonable form)
    strict = {
        "type": "scatter",
        "mode": "markers",
        "name": "strict accuracy",
        "marker": {"symbol": "diamond-open", "size": 10},
        "x": names,
        "y": [r.doc.scores.strict_accuracy if isinstance(r.doc, Result) and r.doc.scores else None for r, *_ in rows],
        "text": [
            f"<b>{esc(r.name)}</b><br>strict accuracy "
            + (
                f"{r.doc.scores.strict_accuracy:.3f}"
                if isinstance(r.doc, Result) and r.doc.scores and r.doc.scores.strict_accuracy is not None
                else "— (no strict form)"
            )
            + "<br>answered in the asked-for form"
            for r, *_ in rows
        ],
        "hovertemplate": "%{text}<extra></extra>",
    }
    lat = {
        "type": "bar",
        "name": "avg latency ms",
        "x": names,
        "y": [lat for *_, lat in rows],
        "text": [f"<b>{esc(r.name)}</b><br>avg latency {'—' if lat is None else f'{lat:,.1f} ms'}" for r, *_, lat in rows],
        "hovertemplate": "%{text}<extra></extra>",
    }
    acc_layout = _layout("Eval accuracy (Wilson 95% interval)", "run", "accuracy", log_x=False, log_y=False)
    acc_layout["xaxis"]["type"] = "category"
    acc_layout["yaxis"]["range"] = [0, 1.02]
    lat_layout = _layout("Eval latency", "run", "avg latency ms", log_x=False, log_y=False)
    lat_layout["xaxis"]["type"] = "category"
    return [
        (
            {"data": [acc, strict], "layout": acc_layout},
            "Accuracy (flexible: the right answer in any reasonable form) over the scored items; bars are 95% Wilson score intervals. "
            "Open diamonds: strict accuracy, the answer also given in the asked-for form.",
        ),
        ({"data": [lat], "layout": lat_layout}, "scores.avg_latency_ms of each run."),
    ]
