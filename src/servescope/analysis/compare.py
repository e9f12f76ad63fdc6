"""``servescope compare A B``: two tables of the same question, point by point.

Typically A is a Prediction and B the measured EvaluationRun (or two runs).
Points are paired by concurrency (open-loop points that both sides label with a
``request_rate``: by the rate). Signed error is (A − B) / B × 100 %; per
metric, MAPE is the mean of |error| over the paired points and ``max_abs_pct``
its largest value. Different scenarios or workloads are refused unless forced
(then said so); different harnesses draw a warning because they define
metrics differently (chunk-pooled ITL vs per-request ITL, TPOT with or without
TTFT, percentile methods).

Two scored Results (eval workloads; two configurations of one workload) are also
compared item by item (:func:`compare_scores`): the items are paired by id (the k-th
occurrence of an id with the k-th), and Results whose items differ are refused —
a Δaccuracy over different questions means nothing. Δaccuracy = acc_A − acc_B with
Newcombe's paired square-and-add 95 % interval (``analysis.stats``); Δlatency over
the items both completed (items either side left unsupported are in neither): the mean of the per-item differences with its Student-t
interval, and the difference of the medians with a seeded bootstrap over items. A
side is called better only when its interval excludes 0.
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict, dataclass, field
from typing import Any

from servescope.analysis.predicted_intervals import result_point_intervals, stored_intervals
from servescope.analysis.stats import mean_ci, paired_percentile_difference_ci, paired_rate_difference_ci, percentile
from servescope.analysis.tables import table_of
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.documents.prediction import INTERVAL_METRIC_OF_FIELD
from servescope.errors import CompareRefused, ServescopeError, UsageError

COMPARED_METRICS: tuple[str, ...] = (
    "ttft_ms",
    "itl_ms",
    "ttft_p50_ms",  # the medians: a run's and an imported harness's rows, a public source that publishes them
    "itl_p50_ms",
    "e2e_ms",
    "output_tokens_per_sec",
    "input_tokens_per_sec",
    "kv_utilization",
    "prefix_cache_hit_rate",
    "preemptions",
    "s_per_image",  # image workloads: mean seconds per image
)


@dataclass
class PairedValue:
    concurrency: int
    metric: str
    a: float
    b: float
    error_pct: float | None  # None when B is 0
    # where one side is a prediction with an interval: whether the other side's value lies in it
    inside_interval: bool | None = None
    # that interval, [low, high] (the prediction's, whichever side it is on)
    interval: tuple[float, float] | None = None


@dataclass
class MetricError:
    metric: str
    points: int
    mape_pct: float | None
    max_abs_pct: float | None
    inside_interval: int | None = None  # of the points with an interval, how many held the measurement
    with_interval: int = 0


@dataclass
class ScoreComparison:
    """A vs B on the same items. Deltas are A − B; intervals 95 %."""

    items: int
    a_accuracy: float | None  # None when no item was scored on both sides
    b_accuracy: float | None
    delta_accuracy: float | None
    delta_accuracy_ci: tuple[float, float] | None
    both_right: int
    only_a_right: int
    only_b_right: int
    neither_right: int
    accuracy_verdict: str
    latency_items: int  # completed by both, so both have a latency
    delta_latency_mean_ms: float | None
    delta_latency_mean_ci: tuple[float, float] | None
    delta_latency_p50_ms: float | None
    delta_latency_p50_ci: tuple[float, float] | None
    latency_verdict: str
    # strict = answered in the asked-for form (an anchored line, a bare letter, pure JSON), over the
    # items whose scorer has a strict form on both sides; flexible is the accuracy above.
    strict_items: int = 0
    a_strict_accuracy: float | None = None
    b_strict_accuracy: float | None = None
    delta_strict_accuracy: float | None = None
    delta_strict_accuracy_ci: tuple[float, float] | None = None
    strict_verdict: str = "no item has a strict form on both sides"


@dataclass
class Comparison:
    a_name: str
    b_name: str
    pairs: list[PairedValue] = field(default_factory=list)
    per_metric: list[MetricError] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    unpaired_a: list[int] = field(default_factory=list)
    unpaired_b: list[int] = field(default_factory=list)
    scores: ScoreComparison | None = None
    turned: bool = False  # the first document given is B here: a measurement given before its prediction
    # the prediction's own warning that it computed shared prefixes the engine caches (no calibrate hint then)
    cache_not_simulated: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _interval(doc: EvaluationRun | Prediction | Result, row: Any, metric: str) -> tuple[float, float] | None:
    """The predicted interval of ``row``'s ``metric``: a Prediction point's own; a simulated Result's
    stored one (:data:`STORED_POINT_INTERVALS`), for its first point at ``row``'s concurrency as
    ``result_points`` takes it; or, from an older simulated Result, its factors times the value."""
    own = getattr(row, "intervals", None)
    if isinstance(own, dict):
        return (float(own[metric][0]), float(own[metric][1])) if metric in own else None
    if isinstance(doc, Result) and stored_intervals(doc) is not None:
        return (result_point_intervals(doc, row.concurrency) or {}).get(metric)
    if isinstance(doc, Result) and doc.timing_mode == "simulated" and metric in INTERVAL_METRIC_OF_FIELD:
        block = doc.resolved_params.get("prediction_interval")
        factors = block.get("factors", {}).get(INTERVAL_METRIC_OF_FIELD[metric]) if isinstance(block, dict) else None
        value = getattr(row, metric, None)
        if factors and value is not None:
            return float(value) * float(factors[0]), float(value) * float(factors[1])
    return None


SIMULATOR_HARNESS = "servescope-sim"  # (predict.outputs.PREDICTOR: analysis does not import predict)

PREFIX_CACHE_NOT_SIMULATED = "prefix cache is not simulated"
"""The phrase of the prediction's warning (``predict.unsimulated_cache``) that its load shares
prefixes an engine caches and the simulation computes whole; compare finds the warning by it."""


def cache_not_simulated(doc: EvaluationRun | Prediction | Result) -> str | None:
    """A prediction's warning that the engine's prefix cache is not simulated, or None."""
    if isinstance(doc, Prediction):
        lines: Any = doc.warnings
    elif isinstance(doc, Result):
        lines = doc.resolved_params.get("warnings")
    else:
        lines = doc.notes
    return next((w for w in lines or () if isinstance(w, str) and PREFIX_CACHE_NOT_SIMULATED in w), None)


def is_predicted(doc: EvaluationRun | Prediction | Result) -> bool:
    """A prediction: a Prediction, or the simulated Result (or its EvaluationRun) that predict writes beside it."""
    if isinstance(doc, Prediction):
        return True
    if isinstance(doc, Result):
        return doc.timing_mode == "simulated"
    return bool(table_of(doc)[1]["harness"] == SIMULATOR_HARNESS)


def compare(a: EvaluationRun | Prediction | Result, b: EvaluationRun | Prediction | Result, *, force: bool = False) -> Comparison:
    # the error is against the reference, the measurement: given as A against a prediction as B,
    # the sides are turned (and said so), never an error % relative to the prediction
    swapped = is_predicted(b) and not is_predicted(a)
    if swapped:
        a, b = b, a
    rows_a, id_a = table_of(a)
    rows_b, id_b = table_of(b)
    out = Comparison(a_name=str(id_a["name"]), b_name=str(id_b["name"]), turned=swapped)
    for side, doc, name in (("A", a, out.a_name), ("B", b, out.b_name)):
        try:
            stored_intervals(doc)
        except ValueError as exc:
            raise UsageError(f"{side} ({name}): {exc}") from None
    if swapped:
        out.warnings.append(
            "the first file is the measurement and the second the prediction: A is the prediction and B the measurement (errors are against the measurement)"
        )
    if is_predicted(a) and not is_predicted(b) and (line := cache_not_simulated(a)) is not None:
        out.cache_not_simulated = line
        out.warnings.append(f"A, the prediction: {line}; the TTFT and E2E errors below include what the engine's cache saved")
    for key in ("scenario", "workload"):
        va, vb = id_a.get(key), id_b.get(key)
        if va and vb and va != vb:
            msg = f"A is {key} {va!r} but B is {key} {vb!r}"
            if not force:
                raise CompareRefused(f"{msg}: they answer different questions; pass --force to compare anyway")
            out.warnings.append(f"forced: {msg}")
    if id_a["harness"] != id_b["harness"] and {id_a["harness"], id_b["harness"]} != {"servescope", SIMULATOR_HARNESS}:  # (one metric module makes both)
        out.warnings.append(
            f"A comes from {id_a['harness']!r} and B from {id_b['harness']!r}, which may define metrics differently"
            + "".join(f"; A: {n}" for n in id_a["notes"])
            + "".join(f"; B: {n}" for n in id_b["notes"])
        )
    # open-loop points that both sides label with a rate pair by it (a measured one's concurrency is its
    # client's limit or request count, a predicted one's the most requests in flight); the rest by concurrency
    rate_a = {p.request_rate: p for p in rows_a if p.request_rate is not None}
    rate_b = {p.request_rate: p for p in rows_b if p.request_rate is not None}
    by_rate = [(rate_a[r], rate_b[r]) for r in sorted(set(rate_a) & set(rate_b))]
    paired = {id(p) for pair in by_rate for p in pair}
    by_b = {p.concurrency: p for p in rows_b if id(p) not in paired}
    by_a = {p.concurrency: p for p in rows_a if id(p) not in paired}
    out.unpaired_a = sorted(set(by_a) - set(by_b))
    out.unpaired_b = sorted(set(by_b) - set(by_a))
    pairs = by_rate + [(by_a[c], by_b[c]) for c in sorted(set(by_a) & set(by_b))]
    for pa, pb in pairs:
        conc = pa.concurrency
        for metric in COMPARED_METRICS:
            va, vb = getattr(pa, metric, None), getattr(pb, metric, None)
            if va is None or vb is None:
                continue
            err = (float(va) - float(vb)) / float(vb) * 100.0 if vb else None
            band_a, band_b = _interval(a, pa, metric), _interval(b, pb, metric)
            inside, band = None, None
            if band_a is not None and band_b is None:
                inside, band = band_a[0] <= float(vb) <= band_a[1], band_a
            elif band_b is not None and band_a is None:
                inside, band = band_b[0] <= float(va) <= band_b[1], band_b
            out.pairs.append(PairedValue(conc, metric, float(va), float(vb), err, inside, band))
    if is_predicted(a) and is_predicted(b) and out.pairs:
        out.warnings.append("A and B are both predictions: neither is a measurement to hold against the other's interval ('-')")
    one_predicted = is_predicted(a) != is_predicted(b)
    if one_predicted and out.pairs and all(p.inside_interval is None for p in out.pairs):
        out.warnings.append(
            "A, the prediction, carries no interval (written before predictions carried one, or its `interval` and "
            "`points[].intervals` taken out): whether each measurement lies inside it is not known ('-'); predict it again to get one"
        )
    out.pairs += _image_pairs(a, b)
    for metric in COMPARED_METRICS:
        errs = [abs(p.error_pct) for p in out.pairs if p.metric == metric and p.error_pct is not None]
        n = sum(1 for p in out.pairs if p.metric == metric)
        judged = [p.inside_interval for p in out.pairs if p.metric == metric and p.inside_interval is not None]
        if n:
            out.per_metric.append(
                MetricError(metric, n, sum(errs) / len(errs) if errs else None, max(errs) if errs else None, sum(judged) if judged else None, len(judged))
            )
    scored = [isinstance(d, Result) and d.scores is not None and bool(d.scores.items) for d in (a, b)]
    if all(scored):
        assert isinstance(a, Result) and isinstance(b, Result)
        out.scores = compare_scores(a, b)
    elif any(scored):
        which, other = ("A", "B") if scored[0] else ("B", "A")
        out.warnings.append(f"only {which} has scored items ({other} is not a scored Result): no Δaccuracy")
    return out


def _image_pairs(a: EvaluationRun | Prediction | Result, b: EvaluationRun | Prediction | Result) -> list[PairedValue]:
    """Two image Results: their mean seconds per image (a Result's own figure; the
    EvaluationRun table has no image column), at their one concurrency (1)."""
    if not (isinstance(a, Result) and isinstance(b, Result)):
        return []
    sa, sb = a.metrics.s_per_image, b.metrics.s_per_image
    if sa is None or sb is None or sa.mean is None or sb.mean is None:
        return []
    err = (sa.mean - sb.mean) / sb.mean * 100.0 if sb.mean else None
    return [PairedValue(1, "s_per_image", sa.mean, sb.mean, err)]


def _verdict(ci: tuple[float, float] | None, above: str, below: str) -> str:
    """``above`` when the whole interval is above 0, ``below`` when below, else undecided."""
    if ci is None:
        return "no interval (too few items)"
    if ci[0] > 0:
        return above
    if ci[1] < 0:
        return below
    return "no difference shown (the 95 % interval includes 0)"


def _keyed(r: Result) -> dict[tuple[str, int], Any]:
    seen: dict[str, int] = {}
    out = {}
    for item in (r.scores.items if r.scores else None) or []:
        k = seen.get(item.id, 0)
        seen[item.id] = k + 1
        out[(item.id, k)] = item
    return out


def compare_scores(a: Result, b: Result) -> ScoreComparison:
    """Δaccuracy and Δlatency of two scored Results over the same items (module doc)."""
    items_a, items_b = _keyed(a), _keyed(b)
    if set(items_a) != set(items_b):
        in_a = sorted(k[0] for k in set(items_a) - set(items_b))
        in_b = sorted(k[0] for k in set(items_b) - set(items_a))
        raise CompareRefused(
            f"{a.run_id} (A) and {b.run_id} (B) scored different items ({len(in_a)} only in A"
            + (f", e.g. {in_a[0]!r}" if in_a else "")
            + f"; {len(in_b)} only in B"
            + (f", e.g. {in_b[0]!r}" if in_b else "")
            + "): Δaccuracy needs the same items; compare their evaluation-run.json files for timing alone"
        )
    # an item one side could not take (unsupported, correct = null) is in neither accuracy
    keys = [k for k in sorted(items_a) if items_a[k].correct is not None and items_b[k].correct is not None]
    right_a = [bool(items_a[k].correct) for k in keys]
    right_b = [bool(items_b[k].correct) for k in keys]
    both = sum(x and y for x, y in zip(right_a, right_b, strict=True))
    only_a = sum(x and not y for x, y in zip(right_a, right_b, strict=True))
    only_b = sum(y and not x for x, y in zip(right_a, right_b, strict=True))
    neither = len(keys) - both - only_a - only_b
    n = len(keys)
    acc_ci = paired_rate_difference_ci(both, only_a, only_b, neither)
    timed = [k for k in keys if items_a[k].latency_ms is not None and items_b[k].latency_ms is not None]
    lat_a = [float(items_a[k].latency_ms) for k in timed]
    lat_b = [float(items_b[k].latency_ms) for k in timed]
    diffs = [x - y for x, y in zip(lat_a, lat_b, strict=True)]
    mean_d = sum(diffs) / len(diffs) if diffs else None
    mean_ci_d = mean_ci(diffs)
    p50_a, p50_b = percentile(lat_a, 50), percentile(lat_b, 50)
    p50_d = p50_a - p50_b if p50_a is not None and p50_b is not None else None
    p50_ci = paired_percentile_difference_ci(lat_a, lat_b, 50)
    strict_keys = [k for k in keys if items_a[k].strict is not None and items_b[k].strict is not None]
    strict_a = [bool(items_a[k].strict) for k in strict_keys]
    strict_b = [bool(items_b[k].strict) for k in strict_keys]
    s_both = sum(x and y for x, y in zip(strict_a, strict_b, strict=True))
    s_only_a = sum(x and not y for x, y in zip(strict_a, strict_b, strict=True))
    s_only_b = sum(y and not x for x, y in zip(strict_a, strict_b, strict=True))
    s_n = len(strict_keys)
    strict_ci = paired_rate_difference_ci(s_both, s_only_a, s_only_b, s_n - s_both - s_only_a - s_only_b)
    mean_verdict = _verdict(mean_ci_d, "B faster", "A faster")
    p50_verdict = _verdict(p50_ci, "B faster", "A faster")
    return ScoreComparison(
        items=n,
        a_accuracy=(both + only_a) / n if n else None,
        b_accuracy=(both + only_b) / n if n else None,
        delta_accuracy=(only_a - only_b) / n if n else None,
        delta_accuracy_ci=acc_ci,
        both_right=both,
        only_a_right=only_a,
        only_b_right=only_b,
        neither_right=neither,
        accuracy_verdict=_verdict(acc_ci, "A more accurate", "B more accurate"),
        latency_items=len(timed),
        delta_latency_mean_ms=mean_d,
        delta_latency_mean_ci=mean_ci_d,
        delta_latency_p50_ms=p50_d,
        delta_latency_p50_ci=p50_ci,
        latency_verdict=f"mean: {mean_verdict}; p50: {p50_verdict}",
        strict_items=s_n,
        a_strict_accuracy=(s_both + s_only_a) / s_n if s_n else None,
        b_strict_accuracy=(s_both + s_only_b) / s_n if s_n else None,
        delta_strict_accuracy=(s_only_a - s_only_b) / s_n if s_n else None,
        delta_strict_accuracy_ci=strict_ci,
        strict_verdict=_verdict(strict_ci, "A more often in the asked-for form", "B more often in the asked-for form")
        if s_n
        else "no item has a strict form on both sides",
    )


def score_lines(s: ScoreComparison) -> list[str]:
    """The score comparison in words, one finding a line (text and markdown outputs)."""

    def ci(v: tuple[float, float] | None, scale: float = 1.0, unit: str = "") -> str:
        return "no interval" if v is None else f"95 % CI {v[0] * scale:+,.1f}{unit} to {v[1] * scale:+,.1f}{unit}"

    lines = [
        f"items scored on both sides: {s.items} (both right {s.both_right}, only A {s.only_a_right}, only B {s.only_b_right}, neither {s.neither_right})",
    ]
    if s.a_accuracy is None or s.b_accuracy is None or s.delta_accuracy is None:
        lines.append("accuracy: no item was scored on both sides")
    else:
        lines.append(
            f"accuracy: A {100 * s.a_accuracy:.1f} %, B {100 * s.b_accuracy:.1f} %; Δ (A − B) {100 * s.delta_accuracy:+.1f} points "
            f"({ci(s.delta_accuracy_ci, 100, ' pt')}, Newcombe paired) — {s.accuracy_verdict}"
        )
    if s.a_strict_accuracy is not None and s.b_strict_accuracy is not None and s.delta_strict_accuracy is not None:
        lines.append(
            f"strict accuracy (the asked-for form) over {s.strict_items} items: A {100 * s.a_strict_accuracy:.1f} %, B {100 * s.b_strict_accuracy:.1f} %; "
            f"Δ {100 * s.delta_strict_accuracy:+.1f} points ({ci(s.delta_strict_accuracy_ci, 100, ' pt')}) — {s.strict_verdict}"
        )
    else:
        lines.append(f"strict accuracy: {s.strict_verdict}")
    if s.delta_latency_mean_ms is not None:
        lines.append(
            f"latency over {s.latency_items} items both completed: Δ mean {s.delta_latency_mean_ms:+,.1f} ms ({ci(s.delta_latency_mean_ci, 1, ' ms')}), "
            f"Δ p50 {s.delta_latency_p50_ms:+,.1f} ms ({ci(s.delta_latency_p50_ci, 1, ' ms')}, paired bootstrap) — {s.latency_verdict}"
        )
    else:
        lines.append("latency: no item completed in both")
    return lines


def format_csv(c: Comparison) -> str:
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["concurrency", "metric", "a", "b", "error_pct", "inside_interval", "interval_low", "interval_high"])
    for p in c.pairs:
        w.writerow(
            [
                p.concurrency,
                p.metric,
                repr(p.a),
                repr(p.b),
                "" if p.error_pct is None else repr(p.error_pct),
                "" if p.inside_interval is None else p.inside_interval,
                "" if p.interval is None else repr(p.interval[0]),
                "" if p.interval is None else repr(p.interval[1]),
            ]
        )
    return buf.getvalue()


def _f(v: float | None, d: int = 2) -> str:
    return "—" if v is None else f"{v:,.{d}f}"


def inside_text(inside: bool | None) -> str:
    return "-" if inside is None else ("yes" if inside else "no")


def inside_count(m: MetricError) -> str:
    return "-" if m.inside_interval is None else f"{m.inside_interval} of {m.with_interval}"


def format_markdown(c: Comparison) -> str:
    lines = [f"# {c.a_name} (A) vs {c.b_name} (B)", ""]
    lines += [f"> {w}" for w in c.warnings]
    lines += ["", "| concurrency | metric | A | B | error % | in the predicted interval |", "|---|---|---|---|---|---|"]
    lines += [f"| {p.concurrency} | {p.metric} | {_f(p.a)} | {_f(p.b)} | {_f(p.error_pct, 1)} | {inside_text(p.inside_interval)} |" for p in c.pairs]
    lines += ["", "| metric | points | MAPE % | max abs error % | inside the predicted interval |", "|---|---|---|---|---|"]
    lines += [f"| {m.metric} | {m.points} | {_f(m.mape_pct, 1)} | {_f(m.max_abs_pct, 1)} | {inside_count(m)} |" for m in c.per_metric]
    if c.scores is not None:
        lines += ["", "## Scores (same items, A − B)", ""] + [f"- {line}" for line in score_lines(c.scores)]
    return "\n".join(lines) + "\n"


def format_json(c: Comparison) -> str:
    return json.dumps(c.as_dict(), indent=2) + "\n"


def _bars(pairs: list[PairedValue]) -> tuple[list[float], list[float]] | None:
    """The prediction's interval around A, as (below, above) bar lengths, when A is the prediction
    (``compare`` puts it there) and every point of the metric has one."""
    if not pairs or any(p.interval is None for p in pairs):
        return None
    return [max(0.0, p.a - p.interval[0]) for p in pairs if p.interval], [max(0.0, p.interval[1] - p.a) for p in pairs if p.interval]


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
            bars = _bars(series[metric])
            error_y = {"type": "data", "symmetric": False, "array": bars[1], "arrayminus": bars[0]} if bars else None
            fig.add_trace(go.Scatter(x=xs, y=[p.a for p in series[metric]], name=f"A {metric}", mode="lines+markers", error_y=error_y), row=i, col=1)
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
        bars = _bars(series[metric])
        if bars:
            ax.errorbar(xs, [p.a for p in series[metric]], yerr=[bars[0], bars[1]], marker="o", label="A (its interval)", capsize=3)
        else:
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
