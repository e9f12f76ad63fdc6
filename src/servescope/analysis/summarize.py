"""Summaries of many Results, in the file set of shared/seeds/metrics-contract.txt
adapted to serving (shared/DESIGN.md).

Results are grouped by (workload_id, config_id, harness, load, model, slos) — the seed's
(task, agent_baseline_id, partner_id), plus the load point, the model and the SLOs:
``run --concurrency`` and ``run --rate`` change neither the workload id nor the
config_id, and runs at two load points are two questions, never repeats of one;
config_id fingerprints the engine's flags, and the embedded engine serves the tiny
model and SmolLM2 (``--engine-model``) with the same flags, so the model id is what
keeps two models from being pooled as repeats; and ``on_time_rate`` and goodput are
the share of requests within the run's SLOs, so runs held to different SLOs (``run
--slo``) answer different questions too (``slos``: the set, as ``slo_set`` writes it,
empty without). Repeats of one group are its episodes. Files:

- ``summary_v0.2.csv``: group keys, ``n_episodes``, then ``<metric>_mean`` and
  ``<metric>_std`` for every metric — the stable tier the regression guard reads;
- ``summary_v0.3.csv``: the same rows and columns, then ``_p50``, ``_p90``,
  ``_mean_ci_lower``, ``_mean_ci_upper`` per metric (empty when n < 2), then
  binomial CIs for ``success_rate`` and ``on_time_rate`` (pooled over requests;
  ``goodput_requests_per_sec``, the requests within every SLO per second, sits
  beside ``on_time_rate`` in every tier and is empty without SLOs),
  then ``n_partial``: how many of the group's episodes are partial runs (rebuilt
  from the records of a run that wrote no result.json), then the scores of eval
  Results (``SCORE_COLUMNS``, empty for the others): accuracy pooled over the
  group's items with its Wilson 95 % interval (whose n is the number of distinct
  items: repeats of an item are not new items), strict accuracy, items, correct
  items, the mean item latency, accuracy by category (``cat k/n; ...``), and ECE/MCE
  over the items that stated a confidence (suites that ask for one), then the
  image columns (``IMAGE_COLUMNS``, empty for text Results): seconds per image
  (p50, p90, mean; each the mean over the group's episodes) and the renders;
- ``summary.csv``: identical to ``summary_v0.2.csv``;
- ``summary.md``: a table of the v0.2 aggregates, a Scores section when any
  Result is scored (the same pooled figures beside TTFT and E2E p50), an Images
  section when any Result has seconds per image, a Run info
  section when durations exist, a Partial runs section (with the records each left out, by
  reason) when any episode is partial, and an LLM economics table when any
  result has an ``llm`` block.

Column order is fixed here and never depends on the inputs' order; rows are
sorted by their keys. An empty cell means "not computable", never zero.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from servescope.analysis.stats import calibration_error, mean_ci, percentile, rate_ci
from servescope.documents import Result
from servescope.redaction import redact

GROUP_KEYS: tuple[str, ...] = ("workload_id", "config_id", "harness", "load", "model", "slos")

# (column stem, integer?) — the order of the columns, fixed.
METRICS: tuple[tuple[str, bool], ...] = (
    ("throughput", True),
    ("completed_requests", True),
    ("failed_requests", True),
    ("input_tokens_total", True),
    ("output_tokens_total", True),
    ("success_rate", False),
    ("on_time_rate", False),
    ("goodput_requests_per_sec", False),
    ("p50_turnaround_s", False),
    ("p95_turnaround_s", False),
    ("output_tokens_per_sec", False),
    ("input_tokens_per_sec", False),
    ("requests_per_sec", False),
    ("ttft_ms_p50", False),
    ("ttft_ms_p90", False),
    ("ttft_ms_p99", False),
    ("itl_ms_p50", False),
    ("itl_ms_p90", False),
    ("tpot_ms_p50", False),
    ("e2e_ms_p50", False),
    ("e2e_ms_p90", False),
    ("kv_utilization", False),
    ("prefix_cache_hit_rate", False),
    ("preemptions", True),
    ("device_utilization_mean", False),
)
V03_STATS: tuple[str, ...] = ("p50", "p90", "mean_ci_lower", "mean_ci_upper")
RATE_CI_COLUMNS: tuple[str, ...] = (
    "success_rate_ci_lower",
    "success_rate_ci_upper",
    "on_time_rate_ci_lower",
    "on_time_rate_ci_upper",
)


SCORE_COLUMNS: tuple[str, ...] = (
    "accuracy",
    "accuracy_ci_lower",
    "accuracy_ci_upper",
    "strict_accuracy",
    "scored_items",
    "correct_items",
    "item_latency_ms_mean",
    "accuracy_by_category",
    "ece",
    "mce",
    "answered_with_confidence",
)


# Image Results (kind: image and scored image suites; empty for the others): seconds per
# image, each the mean over the group's episodes of that episode's figure, and the renders.
IMAGE_COLUMNS: tuple[str, ...] = ("s_per_image_p50_mean", "s_per_image_p90_mean", "s_per_image_mean_mean", "image_renders")


def image_figures(results: list[Result]) -> dict[str, Any]:
    """The image columns of a group; all None when no Result of it has s_per_image."""
    dists = [r.metrics.s_per_image for r in results if r.metrics.s_per_image is not None]
    if not dists:
        return dict.fromkeys(IMAGE_COLUMNS)
    return {
        "s_per_image_p50_mean": _mean_std([d.p50 for d in dists if d.p50 is not None])[0],
        "s_per_image_p90_mean": _mean_std([d.p90 for d in dists if d.p90 is not None])[0],
        "s_per_image_mean_mean": _mean_std([d.mean for d in dists if d.mean is not None])[0],
        "image_renders": sum(d.count or 0 for d in dists),
    }


def image_lines(groups: list[Group]) -> list[str]:
    rows = [(g, image_figures(g.results)) for g in groups]
    shown = [(g, f) for g, f in rows if f["image_renders"] is not None]
    if not shown:
        return []
    lines = [
        "",
        "## Images",
        "",
        "Image Results: seconds per image over every measured render (the lane's own timing.total_ms where it reports one, "
        "else the wall clock), mean over the group's episodes; guidance = the value that applied (the Result's args).",
        "",
        "| workload_id | config_id | model | load | episodes | renders | s/image p50 | s/image p90 | s/image mean | guidance |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g, f in shown:
        guidance = sorted({str(r.args.get("guidance")) for r in g.results if r.args.get("guidance") is not None}) or ["—"]
        lines.append(
            f"| {g.key[0]} | {g.key[1]} | {g.key[4]} | {g.key[3]} | {len(g.results)} | {f['image_renders']} | "
            f"{_md_num(f['s_per_image_p50_mean'])} | {_md_num(f['s_per_image_p90_mean'])} | {_md_num(f['s_per_image_mean_mean'])} | {', '.join(guidance)} |"
        )
    return lines


def v02_columns() -> list[str]:
    return [*GROUP_KEYS, "n_episodes", *(f"{m}_{s}" for m, _ in METRICS for s in ("mean", "std"))]


def v03_columns() -> list[str]:
    return [*v02_columns(), *(f"{m}_{s}" for m, _ in METRICS for s in V03_STATS), *RATE_CI_COLUMNS, "n_partial", *SCORE_COLUMNS, *IMAGE_COLUMNS]


def _dist(d: Any, stat: str) -> float | None:
    return None if d is None else getattr(d, stat)


def episode_metrics(r: Result) -> dict[str, float | int | None]:
    """The per-episode values of every summarised metric (None = not measured)."""
    m = r.metrics
    util = m.device_utilization
    return {
        "throughput": r.throughput,
        "completed_requests": m.completed_requests,
        "failed_requests": m.failed_requests,
        "input_tokens_total": m.input_tokens_total,
        "output_tokens_total": m.output_tokens_total,
        "success_rate": m.success_rate,
        "on_time_rate": r.on_time_rate,
        "goodput_requests_per_sec": m.goodput_requests_per_sec,
        "p50_turnaround_s": r.p50_turnaround_s,
        "p95_turnaround_s": r.p95_turnaround_s,
        "output_tokens_per_sec": m.output_tokens_per_sec,
        "input_tokens_per_sec": m.input_tokens_per_sec,
        "requests_per_sec": m.requests_per_sec,
        "ttft_ms_p50": _dist(m.ttft_ms, "p50"),
        "ttft_ms_p90": _dist(m.ttft_ms, "p90"),
        "ttft_ms_p99": _dist(m.ttft_ms, "p99"),
        "itl_ms_p50": _dist(m.itl_ms, "p50"),
        "itl_ms_p90": _dist(m.itl_ms, "p90"),
        "tpot_ms_p50": _dist(m.tpot_ms, "p50"),
        "e2e_ms_p50": _dist(m.e2e_ms, "p50"),
        "e2e_ms_p90": _dist(m.e2e_ms, "p90"),
        "kv_utilization": m.kv_utilization,
        "prefix_cache_hit_rate": m.prefix_cache_hit_rate,
        "preemptions": m.preemptions,
        "device_utilization_mean": (sum(util) / len(util)) if util else None,
    }


def open_loop_load(params: Mapping[str, Any]) -> str | None:
    """An ad-hoc open loop's own name (``resolved_params.load_description``): ``trace x2``
    (a trace replayed on its timestamps at speedup 2) or ``rate=4/s`` (``--rate`` without
    a closed loop). Its one point's concurrency (1) is a placeholder, never its load. None
    for a closed loop and for a workload's points, which their concurrency names."""
    desc = params.get("load_description")
    if not isinstance(desc, Mapping) or desc.get("source") in (None, "catalog", "workload-file") or desc.get("sessions"):
        return None
    if desc.get("source") == "trace":
        speedup = desc.get("speedup", 1.0)
        return f"trace x{speedup:g}" if isinstance(speedup, int | float) else "trace"
    rate = desc.get("rate")
    if isinstance(rate, int | float) and not desc.get("concurrency"):
        return f"rate={rate:g}/s"
    return None


def load_point(r: Result) -> str:
    """The load a Result was measured (or simulated) at: its concurrencies in plan
    order, and the requested arrival rate of an open-loop run — ``c=8``,
    ``c=1,2,4,8``, ``c=8 rate=5/s``; an ad-hoc open loop by its own name
    (``open_loop_load``: ``rate=4/s``, ``trace x2``); empty when the Result does not say."""
    own = open_loop_load(r.resolved_params)
    if own is not None:
        return own
    concs: list[int] = [p.concurrency for p in r.points] if r.points else []
    if not concs:
        planned = r.resolved_params.get("points")
        if isinstance(planned, list):
            concs = [int(p["concurrency"]) for p in planned if isinstance(p, dict) and isinstance(p.get("concurrency"), int | float)]
    if not concs:
        single = r.resolved_params.get("concurrency")
        concs = [int(single)] if isinstance(single, int | float) else []
    parts = ["c=" + ",".join(str(c) for c in dict.fromkeys(concs))] if concs else []
    if r.metrics.requested_rate is not None:
        parts.append(f"rate={r.metrics.requested_rate:g}/s")
    return " ".join(parts)


def slo_set(r: Result) -> str:
    """The SLOs a Result's on-time rate and goodput were counted against, in one order
    whatever the run's (``ttft_ms<=500,tpot_ms<=50``); empty when it had none."""
    return ",".join(sorted({f"{s.metric}{s.op}{s.threshold:g}" for s in r.slos}))


GroupKey = tuple[str, str, str, str, str, str]


def group_key(r: Result) -> GroupKey:
    return (r.workload_id, r.config_id, r.metadata.harness, load_point(r), r.model.id, slo_set(r))


@dataclass
class Group:
    key: GroupKey
    results: list[Result] = field(default_factory=list)


def group_results(results: Iterable[Result]) -> list[Group]:
    groups: dict[GroupKey, Group] = {}
    for r in results:
        groups.setdefault(group_key(r), Group(group_key(r))).results.append(r)
    for g in groups.values():  # order inside a group never depends on input order
        g.results.sort(key=lambda r: (r.metadata.started_at or "", r.run_id))
    return [groups[k] for k in sorted(groups)]


def _mean_std(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    mean = math.fsum(values) / len(values)
    if len(values) < 2:
        return mean, None
    var = math.fsum((v - mean) ** 2 for v in values) / (len(values) - 1)
    return mean, math.sqrt(var)


def pooled_scores(results: list[Result]) -> dict[str, Any] | None:
    """The scores of a group's eval Results pooled over their items (repeats add
    items); None when none is scored. From the listed items when every Result lists
    them, else accuracy from the counts alone (the rest stays empty)."""
    scored = [r.scores for r in results if r.scores is not None and r.scores.item_count]
    if not scored:
        return None
    n = sum(s.item_count or 0 for s in scored)
    k = sum(s.correct_count or 0 for s in scored)
    # Repeats answer the same items again: at temperature 0 the same answers, which are not
    # new evidence about the suite. The interval's n is the number of distinct items.
    if all(s.items for s in scored):
        # items with correct = null were not sent or refused as unsupported: not in accuracy
        distinct = len({i.id for s in scored for i in s.items or [] if i.correct is not None})
    else:
        distinct = max(s.item_count or 0 for s in scored)
    ci = rate_ci(k / n * distinct, distinct)
    out: dict[str, Any] = dict.fromkeys(SCORE_COLUMNS)
    out |= {"accuracy": k / n, "accuracy_ci_lower": ci[0] if ci else None, "accuracy_ci_upper": ci[1] if ci else None, "scored_items": n, "correct_items": k}
    if all(s.items for s in scored):
        items = [i for s in scored for i in s.items or [] if i.correct is not None]
        strict = [i.strict for i in items if i.strict is not None]
        out["strict_accuracy"] = sum(strict) / len(strict) if strict else None
        lat = [i.latency_ms for i in items if i.latency_ms is not None]
        out["item_latency_ms_mean"] = math.fsum(lat) / len(lat) if lat else None
        cats: dict[str, list[bool]] = {}
        for i in items:
            cats.setdefault(i.category or "(none)", []).append(bool(i.correct))
        out["accuracy_by_category"] = "; ".join(f"{c} {sum(v)}/{len(v)}" for c, v in sorted(cats.items()))
        stated = [i for i in items if i.confidence is not None]
        cal = calibration_error([i.confidence for i in stated if i.confidence is not None], [bool(i.correct) for i in stated])
        if cal is not None:
            out["ece"], out["mce"], out["answered_with_confidence"] = cal["ece"], cal["mce"], cal["answered_with_confidence"]
        elif any(s.calibration is not None for s in scored):  # asked, and nobody stated one
            out["answered_with_confidence"] = 0
    return out


def summary_rows(groups: list[Group], tier: Literal["v0.2", "v0.3"], partial_runs: Mapping[str, object] | None = None) -> list[dict[str, Any]]:
    rows = []
    for g in groups:
        row: dict[str, Any] = dict(zip(GROUP_KEYS, g.key, strict=True))
        row["n_episodes"] = len(g.results)
        per_metric = {name: [] for name, _ in METRICS}  # type: dict[str, list[float]]
        for r in g.results:
            for name, value in episode_metrics(r).items():
                if value is not None:
                    per_metric[name].append(float(value))
        for name, _ in METRICS:
            row[f"{name}_mean"], row[f"{name}_std"] = _mean_std(per_metric[name])
        if tier == "v0.3":
            for name, _ in METRICS:
                vals = per_metric[name]
                enough = len(vals) >= 2  # quantiles and CIs need more than one episode
                row[f"{name}_p50"] = percentile(vals, 50) if enough else None
                row[f"{name}_p90"] = percentile(vals, 90) if enough else None
                ci = mean_ci(vals) if enough else None
                if ci and min(vals) >= 0:  # a rate or a latency: the t interval of a few episodes cut at 0, never a negative bound
                    ci = (max(0.0, ci[0]), ci[1])
                row[f"{name}_mean_ci_lower"], row[f"{name}_mean_ci_upper"] = ci if ci else (None, None)
            total = sum(r.metrics.total_requests or 0 for r in g.results)
            ok = sum(r.metrics.completed_requests or 0 for r in g.results)
            ci = rate_ci(ok, total) if total else None
            row["success_rate_ci_lower"], row["success_rate_ci_upper"] = ci if ci else (None, None)
            timed = [r for r in g.results if r.on_time_rate is not None and r.metrics.total_requests]
            n_t = sum(r.metrics.total_requests or 0 for r in timed)
            k_t = sum(round((r.on_time_rate or 0.0) * (r.metrics.total_requests or 0)) for r in timed)
            ci = rate_ci(k_t, n_t) if n_t else None
            row["on_time_rate_ci_lower"], row["on_time_rate_ci_upper"] = ci if ci else (None, None)
            row["n_partial"] = sum(r.run_id in (partial_runs or {}) for r in g.results)
            row.update(pooled_scores(g.results) or dict.fromkeys(SCORE_COLUMNS))
            row.update(image_figures(g.results))
        rows.append(row)
    return rows


def _cell(value: Any) -> str:
    if value is None:
        return ""
    return repr(value) if isinstance(value, float) else str(value)


def render_csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(columns)
    for row in rows:
        writer.writerow([_cell(row.get(c)) for c in columns])
    return buf.getvalue()


def _md_num(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def render_markdown(groups: list[Group], rows_v02: list[dict[str, Any]], partial_runs: Mapping[str, Mapping[str, int]] | None = None) -> str:
    cols = v02_columns()
    lines = [
        "# servescope summary",
        "",
        "Aggregates over episodes (repeats) of each (workload_id, config_id, harness, load, model, slos); "
        "mean and sample std (ddof = 1). Empty (—) = not measured or not computable.",
        "",
    ]
    lines.append("| " + " | ".join(cols) + " |")
    lines.append("|" + "---|" * len(cols))
    for row in rows_v02:
        lines.append("| " + " | ".join(_md_num(row.get(c)) for c in cols) + " |")
    lines += score_lines(groups)
    lines += image_lines(groups)
    results = [r for g in groups for r in g.results]
    timed = [r for r in results if r.metadata.run_duration_wall_s]
    if timed:
        lines += ["", "## Run info", "", "| run_id | workload_id | run_duration_wall_s | requests_per_second |", "|---|---|---|---|"]
        for r in sorted(timed, key=lambda r: r.run_id):
            wall = r.metadata.run_duration_wall_s or 0.0
            total = r.metrics.total_requests
            rps = (total / wall) if (total is not None and wall > 0) else None
            lines.append(f"| {r.run_id} | {r.workload_id} | {_md_num(wall)} | {_md_num(rps)} |")
        lines += [
            "",
            f"_{len(timed)} result(s) with wall-clock durations; requests_per_second = measured requests / "
            "run_duration_wall_s (the wall time includes warmup)._",
        ]
    partial = sorted((r for r in results if r.run_id in (partial_runs or {})), key=lambda r: r.run_id)
    if partial:
        lines += ["", "## Partial runs", "", "| run_id | workload_id | measured requests | records left out |", "|---|---|---|---|"]
        for r in partial:
            dropped = (partial_runs or {})[r.run_id]
            left_out = ", ".join(f"{why}: {n}" for why, n in sorted(dropped.items())) or "none"
            lines.append(f"| {r.run_id} | {r.workload_id} | {_md_num(r.metrics.total_requests)} | {left_out} |")
        lines += [
            "",
            f"_{len(partial)} result(s) rebuilt from the records of runs that wrote no result.json (killed, "
            "interrupted or still going): their requests in flight at the end are not in them._",
        ]
    econ = [r for r in results if r.llm is not None]
    if econ:
        lines += [
            "",
            "## LLM economics",
            "",
            "| run_id | calls | tokens | mean latency ms | p95 latency ms | error rate | invalid-output rate | estimated cost USD |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in sorted(econ, key=lambda r: r.run_id):
            e = r.llm
            assert e is not None
            lines.append(
                f"| {r.run_id} | {e.call_count} | {e.total_tokens} | {_md_num(e.mean_latency_ms)} | {_md_num(e.p95_latency_ms)} | "
                f"{_md_num(e.error_rate)} | {_md_num(e.invalid_output_rate)} | {_md_num(e.estimated_cost_usd)} |"
            )
    return "\n".join(lines) + "\n"


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f} %"


def score_line(pooled: Mapping[str, Any]) -> str:
    """accuracy 42.5 % (95 % CI 28.5–57.8 %, 17/40), strict 2.5 %, ECE 0.31 (12 stated)."""
    text = (
        f"accuracy {_pct(pooled['accuracy'])} (95 % CI {_pct(pooled['accuracy_ci_lower'])}–{_pct(pooled['accuracy_ci_upper'])}, "
        f"{pooled['correct_items']}/{pooled['scored_items']}), strict {_pct(pooled['strict_accuracy'])}"
    )
    if pooled.get("answered_with_confidence") is not None:
        text += f", ECE {_md_num(pooled['ece'])}, MCE {_md_num(pooled['mce'])} ({pooled['answered_with_confidence']} stated a confidence)"
    return text


def score_lines(groups: list[Group]) -> list[str]:
    rows = [(g, pooled_scores(g.results)) for g in groups]
    scored = [(g, p) for g, p in rows if p is not None]
    if not scored:
        return []
    lines = [
        "",
        "## Scores",
        "",
        "Eval Results, pooled over the items of each group's episodes: accuracy with its Wilson 95 % interval "
        "(n = distinct items; a failed request is a wrong item), strict = answered in the asked-for form, success rate = completed at all; "
        "ECE/MCE: 10 equal-width confidence bins, over the items that stated a confidence.",
        "",
        "| workload_id | config_id | model | load | episodes | items | accuracy (95 % CI) | strict | success rate | item latency ms "
        "| TTFT p50 ms | E2E p50 ms | by category | ECE | MCE |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for g, p in scored:
        ok = sum(r.metrics.completed_requests or 0 for r in g.results)
        total = sum(r.metrics.total_requests or 0 for r in g.results)
        ttft = [v for r in g.results if (v := _dist(r.metrics.ttft_ms, "p50")) is not None]
        e2e = [v for r in g.results if (v := _dist(r.metrics.e2e_ms, "p50")) is not None]
        lines.append(
            f"| {g.key[0]} | {g.key[1]} | {g.key[4]} | {g.key[3]} | {len(g.results)} | {p['scored_items']} | {_pct(p['accuracy'])} "
            f"({_pct(p['accuracy_ci_lower'])}–{_pct(p['accuracy_ci_upper'])}) | {_pct(p['strict_accuracy'])} | "
            f"{_pct(ok / total if total else None)} | {_md_num(p['item_latency_ms_mean'])} | "
            f"{_md_num(_mean_std(ttft)[0])} | {_md_num(_mean_std(e2e)[0])} | {p['accuracy_by_category'] or '—'} | "
            f"{_md_num(p['ece'])} | {_md_num(p['mce'])} |"
        )
    return lines


@dataclass
class SummaryFiles:
    v02: Path
    v03: Path
    csv: Path
    markdown: Path
    groups: int
    results: int


def write_summary(
    results: Iterable[Result], out_dir: Path, basename: str = "summary", partial_runs: Mapping[str, Mapping[str, int]] | None = None
) -> SummaryFiles:
    """``partial_runs``: run_id -> records left out by reason, for each Result rebuilt
    from the records of a run that wrote no result.json."""
    results = list(results)
    groups = group_results(results)
    rows2 = summary_rows(groups, "v0.2")
    rows3 = summary_rows(groups, "v0.3", partial_runs)
    out_dir.mkdir(parents=True, exist_ok=True)
    v02 = render_csv(rows2, v02_columns())
    paths = SummaryFiles(
        v02=out_dir / f"{basename}_v0.2.csv",
        v03=out_dir / f"{basename}_v0.3.csv",
        csv=out_dir / f"{basename}.csv",
        markdown=out_dir / f"{basename}.md",
        groups=len(groups),
        results=len(results),
    )
    # under the one redaction rule: a summary copies scenario names, args and failure messages
    v02 = redact(v02)
    paths.v02.write_text(v02, encoding="utf-8")
    paths.csv.write_text(v02, encoding="utf-8")
    paths.v03.write_text(redact(render_csv(rows3, v03_columns())), encoding="utf-8")
    paths.markdown.write_text(redact(render_markdown(groups, rows2, partial_runs)), encoding="utf-8")
    return paths
