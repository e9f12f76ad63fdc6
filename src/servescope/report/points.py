"""The points a run contributes to its workload's charts, one per sweep point.

A Result carries distributions, so its TTFT and ITL are drawn as p50 and p99;
an EvaluationRun or a Prediction carries means (shared/seeds/evaluation-run.txt; a median
beside them at most), so theirs are drawn as means and labelled so. Nothing is converted into what it
is not: a missing statistic stays missing (None) and the chart leaves a gap."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from servescope.analysis.predicted_intervals import result_point_intervals, stored_intervals
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.documents.result import Metrics
from servescope.report.evidence import Run


@dataclass
class ChartPoint:
    concurrency: int
    context_tokens: int | None
    output_tokens_per_sec: float | None
    ttft_p50: float | None = None
    ttft_p99: float | None = None
    itl_p50: float | None = None
    itl_p99: float | None = None
    ttft_mean: float | None = None
    itl_mean: float | None = None
    status: str = "ok"
    # a Result with SLOs: requests within every SLO per second (null without SLOs, and for tables that carry no such figure)
    goodput_requests_per_sec: float | None = None
    # a prediction's interval: per metric (ttft_ms, itl_ms, output_tokens_per_sec) the [low, high]
    # multipliers of any of its statistics (predict.intervals); None for measurements
    band_factors: dict[str, tuple[float, float]] | None = None

    def band(self, metric: str, value: float | None) -> tuple[float, float] | None:
        f = (self.band_factors or {}).get(metric)
        return None if f is None or value is None else (value * f[0], value * f[1])


def _factors(doc: Result | Prediction) -> dict[str, tuple[float, float]] | None:
    """The interval block's factors: what an older simulated Result (no stored point intervals) has."""
    if isinstance(doc, Prediction):
        return {m: (v[0], v[1]) for m, v in doc.interval.factors.items()} if doc.interval is not None else None
    block = doc.resolved_params.get("prediction_interval") if doc.timing_mode == "simulated" else None
    factors = block.get("factors") if isinstance(block, dict) else None
    if not isinstance(factors, dict):
        return None
    return {m: (float(v[0]), float(v[1])) for m, v in factors.items() if isinstance(v, list | tuple) and len(v) == 2}


#: The point figure (a mean) each charted metric's band is read from.
_BAND_FIELDS = ("ttft_ms", "itl_ms", "output_tokens_per_sec")


def _point_factors(bounds: dict[str, Any] | None, values: dict[str, float | None]) -> dict[str, tuple[float, float]] | None:
    """A point's own [low, high] as multipliers of its figure: its interval is the block's factors
    widened where a known-miss regime or an unstated client start widened it, and the band of each
    statistic (mean, p50, p99) is that figure's multipliers (the factors multiply every statistic alike)."""
    if not bounds:
        return None
    out = {}
    for name in _BAND_FIELDS:
        pair, value = bounds.get(name), values.get(name)
        if pair is not None and value:
            out[name] = (float(pair[0]) / value, float(pair[1]) / value)
    return out or None


def _stat(dist: Any, name: str) -> float | None:
    return None if dist is None else getattr(dist, name)


def _from_metrics(concurrency: int, context: int | None, m: Metrics, status: str = "ok") -> ChartPoint:
    return ChartPoint(
        concurrency,
        context,
        m.output_tokens_per_sec,
        ttft_p50=_stat(m.ttft_ms, "p50"),
        ttft_p99=_stat(m.ttft_ms, "p99"),
        itl_p50=_stat(m.itl_ms, "p50"),
        itl_p99=_stat(m.itl_ms, "p99"),
        ttft_mean=_stat(m.ttft_ms, "mean"),
        itl_mean=_stat(m.itl_ms, "mean"),
        status=status,
        goodput_requests_per_sec=m.goodput_requests_per_sec,
    )


def result_concurrency(r: Result) -> int:
    conc = r.resolved_params.get("concurrency")
    conc = conc[0] if isinstance(conc, list) and conc else conc
    return int(conc) if isinstance(conc, int | float) and not isinstance(conc, bool) and conc >= 1 else 1


def chart_points(run: Run) -> list[ChartPoint]:
    doc = run.doc
    if isinstance(doc, Result):
        try:
            stored = stored_intervals(doc)
        except ValueError:
            stored = None  # (a malformed block: report.inputs lists the file as left out)
        factors = _factors(doc)
        blocks = (
            [(p.concurrency, p.context_tokens, p.metrics, p.status) for p in doc.points] if doc.points else [(result_concurrency(doc), None, doc.metrics, "ok")]
        )
        points: list[ChartPoint] = []
        for conc, context, m, status in blocks:
            point = _from_metrics(conc, context, m, status)
            first = all(p.concurrency != conc for p in points)  # the row the prediction has (a context sweep: the rest are the factors')
            if stored is None or not first:
                point.band_factors = factors
            else:
                means = {"ttft_ms": point.ttft_mean, "itl_ms": point.itl_mean, "output_tokens_per_sec": point.output_tokens_per_sec}
                point.band_factors = _point_factors(result_point_intervals(doc, conc), means)
            points.append(point)
        return points
    assert isinstance(doc, EvaluationRun | Prediction)
    if isinstance(doc, EvaluationRun):
        return [ChartPoint(p.concurrency, None, p.output_tokens_per_sec, ttft_mean=p.ttft_ms, itl_mean=p.itl_ms) for p in doc.points]
    return [
        ChartPoint(
            p.concurrency,
            None,
            p.output_tokens_per_sec,
            ttft_mean=p.ttft_ms,
            itl_mean=p.itl_ms,
            band_factors=_point_factors(p.intervals, {name: getattr(p, name) for name in _BAND_FIELDS}) if p.intervals else _factors(doc),
        )
        for p in doc.points
    ]


def x_axis(points: list[ChartPoint]) -> str:
    """context_tokens when a sweep varies the context at one concurrency (longctx), else concurrency."""
    if points and all(p.context_tokens for p in points) and len({p.concurrency for p in points}) == 1:
        return "context_tokens"
    return "concurrency"


def image_points(runs: list[Run]) -> list[tuple[Run, Any, Any]]:
    """(run, its s_per_image distribution, the guidance that applied) of every image Result:
    the seed's image metric, drawn as its own table (a render has no tokens to chart)."""
    out = []
    for run in runs:
        doc = run.doc
        if isinstance(doc, Result) and doc.metrics.s_per_image is not None:
            out.append((run, doc.metrics.s_per_image, doc.args.get("guidance")))
    return out
