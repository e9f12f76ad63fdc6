"""guidellm (``guidellm run`` / ``guidellm benchmark``) → EvaluationRun.

Reads the JSON report (``--output kind=json,path=benchmarks.json``; older
releases: ``--output-path benchmarks.json``): ``{"metadata", "config"?,
"benchmarks": [...]}``. Each benchmark with a fixed concurrency (strategy
``synchronous`` = 1, ``concurrent`` = its ``streams``) becomes one point;
rate-driven benchmarks (``constant``, ``poisson``, ``throughput``) have no held
concurrency and are skipped with a note. A metric is
``{"successful": {"mean", "median", "percentiles", ...}, "errored": ..., ...}``;
a point takes the ``successful`` mean.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from servescope.analysis.importers._common import (
    build_run,
    concurrency_value,
    dig,
    fail,
    iso_date,
    number,
    read_json,
    require_mapping,
    rounded_mean,
    whole,
)
from servescope.documents import EvaluationRun

HARNESS = "guidellm"
WHAT = "guidellm's JSON report (--output kind=json)"

NOTES = [
    "guidellm: each point value is guidellm's mean over successful requests; guidellm's percentiles "
    "(not imported) are read off a weighted CDF without interpolation (the first value whose cumulative "
    "weight reaches the quantile).",
    "guidellm: itl_ms is guidellm's inter_token_latency_ms: per request (last token - first token) / "
    "(output tokens - 1), weighted by (output tokens - 1), so the mean equals the pooled mean of token gaps; "
    "TTFT is excluded.",
    "guidellm: its time_per_output_token_ms (not imported) includes TTFT: (last token - request start) / "
    "output tokens; it is not servescope's TPOT.",
    "guidellm: e2e_ms is guidellm's request_latency (seconds, converted to ms): request start -> request end.",
    "guidellm: output_tokens_per_sec / input_tokens_per_sec are guidellm's output_tokens_per_second / "
    "prompt_tokens_per_second successful means: tokens of successful requests / the measured window "
    "(first request start -> last request end, warmup and cooldown excluded; the ramp-up, if any, included).",
    "guidellm: mean_isl/mean_osl are prompt_token_count/output_token_count means (the server's usage report "
    "when it sent one, else guidellm's tokenizer), rounded to integers.",
]

_FIXED = {"synchronous", "concurrent"}


def _mean(path: Path, metrics: Mapping[str, Any], name: str, where: str) -> float | None:
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
    count = successful.get("count")
    if count == 0:  # guidellm writes mean 0.0 for an empty distribution: that is "not measured", not zero
        return None
    return number(path, successful.get("mean"), f"{where}.metrics.{name}.successful.mean")


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


def _point(path: Path, bench: Mapping[str, Any], concurrency: int, where: str, notes: list[str]) -> dict[str, Any]:
    metrics = bench.get("metrics")
    if not isinstance(metrics, Mapping):
        raise fail(path, f"{where} has no metrics object")
    totals = metrics.get("request_totals")
    completed = None
    if isinstance(totals, Mapping):
        completed = whole(
            path,
            number(path, totals.get("successful"), f"{where}.metrics.request_totals.successful"),
            f"{where}.metrics.request_totals.successful",
        )
    if isinstance(totals, Mapping):
        lost = {k: totals.get(k) for k in ("errored", "incomplete")}
        lost = {k: v for k, v in lost.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}
        if lost:
            what = ", ".join(f"{v} {k}" for k, v in lost.items())
            notes.append(f"guidellm: at concurrency {concurrency}, {what} request(s) are excluded from every value.")
    latency_s = _mean(path, metrics, "request_latency", where)
    return {
        "concurrency": concurrency,
        "completed_requests": completed,
        "output_tokens_per_sec": _mean(path, metrics, "output_tokens_per_second", where),
        "input_tokens_per_sec": _mean(path, metrics, "prompt_tokens_per_second", where),
        "ttft_ms": _mean(path, metrics, "time_to_first_token_ms", where),
        "itl_ms": _mean(path, metrics, "inter_token_latency_ms", where),
        "e2e_ms": None if latency_s is None else latency_s * 1000.0,
        "mean_isl": rounded_mean(_mean(path, metrics, "prompt_token_count", where)),
        "mean_osl": rounded_mean(_mean(path, metrics, "output_token_count", where)),
    }


def import_guidellm(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from a guidellm JSON report; one point per fixed-concurrency benchmark."""
    path = Path(path)
    if path.suffix.lower() in {".yaml", ".yml", ".csv", ".html"}:
        raise fail(path, f"is a guidellm {path.suffix} report; import the JSON one (--output kind=json)")
    data = require_mapping(path, read_json(path, WHAT), WHAT)
    benchmarks = data.get("benchmarks")
    if not isinstance(benchmarks, list):
        raise fail(path, f"has no 'benchmarks' list; not {WHAT}")
    points: list[dict[str, Any]] = []
    skipped: list[str] = []
    extra_notes: list[str] = []
    dates: list[str] = []
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
        date = iso_date(bench.get("start_time", dig(bench, "run_stats", "start_time")))
        if date:
            dates.append(date)
    notes = list(NOTES) + extra_notes
    if skipped:
        if not points:
            raise fail(
                path,
                f"holds only rate-driven benchmarks ({', '.join(sorted(set(skipped)))}); an EvaluationRun needs "
                "benchmarks at a fixed concurrency (--profile kind=concurrent or synchronous)",
            )
        notes.append(
            f"guidellm: skipped {len(skipped)} rate-driven benchmark(s) ({', '.join(sorted(set(skipped)))}) "
            "that held no fixed concurrency."
        )
    version = dig(data, "metadata", "guidellm_version")
    return build_run(
        path,
        harness=HARNESS,
        harness_version=version if isinstance(version, str) else None,
        scenario=scenario,
        engine_version=engine_version,
        date=min(dates) if dates else None,
        points=points,
        notes=notes,
    )
