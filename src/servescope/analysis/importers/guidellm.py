"""guidellm (``guidellm run`` / ``guidellm benchmark``) → Result and EvaluationRun.

Reads the JSON report (``--output kind=json,path=benchmarks.json``; older
releases: ``--output-path benchmarks.json``): ``{"metadata", "config"?,
"benchmarks": [...]}``. Each benchmark with a fixed concurrency (strategy
``synchronous`` = 1, ``concurrent`` = its ``streams``) becomes one point;
rate-driven benchmarks (``constant``, ``poisson``, ``throughput``) have no held
concurrency and are skipped with a note. A metric is
``{"successful": {"mean", "median", "std_dev", "min", "max", "count",
"percentiles": {...}}, "errored": ..., "incomplete": ..., "total": ...}``; a point
takes the ``successful`` block (an EvaluationRun row its mean). Requests are
counted in ``metrics.request_totals`` (successful / errored / incomplete); the
errored ones are listed, with their error, under ``requests.errored``.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from servescope.analysis.importers._build import build_run
from servescope.analysis.importers._common import (
    concurrency_value,
    dig,
    fail,
    iso_date,
    number,
    read_json,
    require_mapping,
    whole,
)
from servescope.analysis.importers._model import (
    FailureCount,
    Imported,
    ImportedPoint,
    categorize,
    complete_failures,
    distribution,
    evaluation_row,
    http_status,
)
from servescope.documents import EvaluationRun

HARNESS = "guidellm"
WHAT = "guidellm's JSON report (--output kind=json)"

NOTES = [
    (
        "guidellm: each EvaluationRun value is guidellm's mean over successful requests; the Result's distributions "
        "carry guidellm's mean, median (as p50), p90/p95/p99, min, max, std_dev and count. Its percentiles are read "
        "off a weighted CDF without interpolation (the first value whose cumulative weight reaches the quantile); "
        "its std_dev is the weighted population std (ddof=0), servescope's the sample std (ddof=1)."
    ),
    (
        "guidellm: itl_ms is guidellm's inter_token_latency_ms: per request (last token - first token) / "
        "(output tokens - 1), weighted by (output tokens - 1), so the mean equals the pooled mean of token gaps; "
        "its percentiles are of those per-request means, each counted once per gap, not of individual gaps; "
        "TTFT is excluded. So the EvaluationRun has no itl_p50_ms (a prediction's is the median gap)."
    ),
    (
        "guidellm: its time_per_output_token_ms (not imported) includes TTFT: (last token - request start) / "
        "output tokens; it is not servescope's TPOT, so tpot_ms is null."
    ),
    "guidellm: e2e_ms is guidellm's request_latency (seconds, converted to ms): request start -> request end.",
    (
        "guidellm: output_tokens_per_sec / input_tokens_per_sec are guidellm's output_tokens_per_second / "
        "prompt_tokens_per_second successful means: tokens of successful requests / the measured window "
        "(first request start -> last request end, warmup and cooldown excluded; the ramp-up, if any, included); "
        "duration_s is that window (the benchmark's duration), requests_per_sec the requests_per_second "
        "successful mean."
    ),
    (
        "guidellm: mean_isl/mean_osl are prompt_token_count/output_token_count means (the server's usage report "
        "when it sent one, else guidellm's tokenizer), rounded to integers in the EvaluationRun; the Result's "
        "token totals are their successful total_sum."
    ),
    (
        "guidellm: failed requests are request_totals errored (categorised from each listed request's error) plus "
        "incomplete (in flight when the benchmark stopped; category 'cancelled')."
    ),
]

_FIXED = {"synchronous", "concurrent"}


def _successful(path: Path, metrics: Mapping[str, Any], name: str, where: str) -> Mapping[str, Any] | None:
    """The ``successful`` summary of a metric; None when absent or empty (guidellm writes 0.0
    for an empty distribution: that is "not measured", not zero)."""
    block = metrics.get(name)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise fail(path, f"{where}.metrics.{name} is {type(block).__name__}, expected an object")
    successful = block.get("successful")
    if successful is None:
        return None
    if not isinstance(successful, Mapping):
        raise fail(path, f"{where}.metrics.{name}.successful is {type(successful).__name__}, expected an object")
    if successful.get("count") == 0:
        return None
    return successful


def _mean(path: Path, metrics: Mapping[str, Any], name: str, where: str) -> float | None:
    successful = _successful(path, metrics, name, where)
    if successful is None:
        return None
    return number(path, successful.get("mean"), f"{where}.metrics.{name}.successful.mean")


def _dist(path: Path, metrics: Mapping[str, Any], name: str, where: str, scale: float = 1.0) -> dict[str, Any] | None:
    s = _successful(path, metrics, name, where)
    if s is None:
        return None
    found = s.get("percentiles")
    pct: Mapping[str, Any] = found if isinstance(found, Mapping) else {}
    stats = {
        "count": s.get("count"),
        "mean": s.get("mean"),
        "p50": pct.get("p50", s.get("median")),
        "p90": pct.get("p90"),
        "p95": pct.get("p95"),
        "p99": pct.get("p99"),
        "min": s.get("min"),
        "max": s.get("max"),
        "std": s.get("std_dev"),
    }
    return distribution(path, stats, f"{where}.metrics.{name}.successful", scale=scale)


def _token_total(path: Path, metrics: Mapping[str, Any], name: str, where: str) -> int | None:
    """A successful total_sum, a token count that guidellm writes as mean x count (float noise allowed)."""
    s = _successful(path, metrics, name, where)
    if s is None:
        return None
    value = number(path, s.get("total_sum"), f"{where}.metrics.{name}.successful.total_sum")
    if value is None:
        return None
    if abs(value - round(value)) > 1e-6 * max(1.0, abs(value)):
        raise fail(path, f"{where}.metrics.{name}.successful.total_sum is {value}, not a whole number of tokens")
    return round(value)


def _strategy(bench: Mapping[str, Any]) -> Mapping[str, Any] | None:
    for keys in (("config", "strategy"), ("args", "strategy")):
        found = dig(bench, *keys)
        if isinstance(found, Mapping):
            return found
    return None


def _concurrency(path: Path, strategy: Mapping[str, Any], where: str) -> int | None:
    kind = strategy.get("type_", strategy.get("type"))
    if kind == "synchronous":
        return 1
    if kind == "concurrent":
        return concurrency_value(path, strategy.get("streams"), f"{where}.strategy.streams")
    return None


def _count(path: Path, totals: Mapping[str, Any], key: str, where: str) -> int | None:
    return whole(path, number(path, totals.get(key), f"{where}.metrics.request_totals.{key}"), f"{where}.metrics.request_totals.{key}")


def _error(request: Any) -> str | None:
    """The error guidellm recorded for one request (``info.error``; ``error`` in older reports)."""
    for error in (dig(request, "info", "error"), dig(request, "error")):
        if isinstance(error, str) and error.strip():
            return error.strip()
    return None


def _failures(path: Path, bench: Mapping[str, Any], errored: int | None, incomplete: int | None) -> list[FailureCount]:
    listed: list[FailureCount] = []
    if errored:
        for req in dig(bench, "requests", "errored") or []:
            error = _error(req)
            if error:
                status = http_status(error)
                listed.append(FailureCount(categorize(error, status), 1, f"guidellm: {error}", status))
    failures = complete_failures(listed, errored, "guidellm") if errored else []
    if incomplete:
        said = next((e for e in (_error(r) for r in dig(bench, "requests", "incomplete") or []) if e), None)
        failures.append(
            FailureCount(
                "cancelled",
                incomplete,
                "guidellm: incomplete, in flight when the benchmark stopped" + (f" ({said})" if said else ""),
            )
        )
    return failures


def _point(path: Path, bench: Mapping[str, Any], concurrency: int, where: str, notes: list[str]) -> ImportedPoint:
    metrics = bench.get("metrics")
    if not isinstance(metrics, Mapping):
        raise fail(path, f"{where} has no metrics object")
    totals = metrics.get("request_totals")
    completed = errored = incomplete = None
    if isinstance(totals, Mapping):
        completed = _count(path, totals, "successful", where)
        errored = _count(path, totals, "errored", where)
        incomplete = _count(path, totals, "incomplete", where)
        lost = {k: v for k, v in (("errored", errored), ("incomplete", incomplete)) if v}
        if lost:
            what = ", ".join(f"{v} {k}" for k, v in lost.items())
            notes.append(f"guidellm: at concurrency {concurrency}, {what} request(s) are excluded from every value.")
    failed = errored + incomplete if errored is not None and incomplete is not None else None
    total = completed + failed if completed is not None and failed is not None else None
    try:
        failures = _failures(path, bench, errored, incomplete)
    except ValueError as exc:
        raise fail(path, f"{where}: {exc}") from exc
    ttft = _dist(path, metrics, "time_to_first_token_ms", where)
    itl = _dist(path, metrics, "inter_token_latency_ms", where)
    e2e = _dist(path, metrics, "request_latency", where, scale=1000.0)
    mean_isl = _mean(path, metrics, "prompt_token_count", where)
    mean_osl = _mean(path, metrics, "output_token_count", where)
    duration = number(path, bench.get("duration"), f"{where}.duration")
    result_metrics = {
        "total_requests": total,
        "completed_requests": completed,
        "failed_requests": failed,
        "success_rate": completed / total if total and completed is not None else None,
        "duration_s": duration,
        "input_tokens_total": _token_total(path, metrics, "prompt_token_count", where),
        "output_tokens_total": _token_total(path, metrics, "output_token_count", where),
        "output_tokens_per_sec": _mean(path, metrics, "output_tokens_per_second", where),
        "input_tokens_per_sec": _mean(path, metrics, "prompt_tokens_per_second", where),
        "requests_per_sec": _mean(path, metrics, "requests_per_second", where),
        "ttft_ms": ttft,
        "itl_ms": itl,
        "e2e_ms": e2e,
        "mean_isl": mean_isl,
        "mean_osl": mean_osl,
    }
    # guidellm's ITL percentiles are of per-request means, not of the gaps: no median to pair with a prediction's
    row = evaluation_row(concurrency, completed, result_metrics, ttft=ttft, itl=itl, e2e=e2e, mean_isl=mean_isl, mean_osl=mean_osl, token_gaps=None)
    return ImportedPoint(concurrency, row, result_metrics, failures)


def _utc(value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        return None
    try:
        return _dt.datetime.fromtimestamp(value, tz=_dt.UTC).isoformat()
    except (OverflowError, OSError, ValueError):
        return None


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def read_guidellm(path: Path) -> Imported:
    """What a guidellm JSON report holds; one point per fixed-concurrency benchmark."""
    path = Path(path)
    if path.suffix.lower() in {".yaml", ".yml", ".csv", ".html"}:
        raise fail(path, f"is a guidellm {path.suffix} report; import the JSON one (--output kind=json)")
    data = require_mapping(path, read_json(path, WHAT), WHAT)
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise fail(path, f"has no 'benchmarks' list; not {WHAT}")
    points: list[ImportedPoint] = []
    skipped: list[str] = []
    extra_notes: list[str] = []
    dates: list[str] = []
    starts: list[float] = []
    ends: list[float] = []
    for i, bench in enumerate(benchmarks):
        where = f"benchmarks[{i}]"
        if not isinstance(bench, Mapping):
            raise fail(path, f"{where} is {type(bench).__name__}, expected an object")
        strategy = _strategy(bench)
        if strategy is None:
            raise fail(path, f"{where} names no strategy (config.strategy); cannot tell its concurrency")
        concurrency = _concurrency(path, strategy, where)
        if concurrency is None:
            skipped.append(str(strategy.get("type_", strategy.get("type", "?"))))
            continue
        points.append(_point(path, bench, concurrency, where, extra_notes))
        start = bench.get("start_time", dig(bench, "run_stats", "start_time"))
        date = iso_date(start)
        if date:
            dates.append(date)
        for value, into in ((start, starts), (bench.get("end_time"), ends)):
            if isinstance(value, int | float) and _utc(value):
                into.append(float(value))
    notes = list(NOTES) + extra_notes
    if skipped:
        if not points:
            raise fail(
                path,
                f"holds only rate-driven benchmarks ({', '.join(sorted(set(skipped)))}); an EvaluationRun needs "
                "benchmarks at a fixed concurrency (--profile kind=concurrent or synchronous)",
            )
        notes.append(f"guidellm: skipped {len(skipped)} rate-driven benchmark(s) ({', '.join(sorted(set(skipped)))}) that held no fixed concurrency.")
    backend = dig(data, "config", "spec", "backend")
    seed = dig(data, "config", "spec", "seed", "value")
    return Imported(
        harness=HARNESS,
        points=points,
        notes=notes,
        harness_version=_text(dig(data, "metadata", "guidellm_version")),
        date=min(dates) if dates else None,
        model_id=_text(dig(backend, "model")),
        endpoint=_text(dig(backend, "target")),
        started_at=_utc(min(starts)) if starts else None,
        finished_at=_utc(max(ends)) if ends else None,
        python_version=_text(dig(data, "metadata", "python_version")),
        platform=_text(dig(data, "metadata", "platform")),
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        sources=[path.name],
    )


def import_guidellm(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from a guidellm JSON report; one point per fixed-concurrency benchmark."""
    return build_run(Path(path), read_guidellm(path), scenario=scenario, engine_version=engine_version)
