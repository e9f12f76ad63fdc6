"""inference-perf (kubernetes-sigs, ``inference-perf -c config.yml``) → EvaluationRun.

Reads the request-lifecycle reports it writes into its storage folder:
``stage_N_lifecycle_metrics.json``, one per load stage (``load.type: concurrent``
stages carry ``load_summary.concurrency``). Give that folder or one stage file; each
stage at a fixed concurrency becomes one point. ``summary_lifecycle_metrics.json``
pools all stages, so it is refused. Latencies are in seconds.
"""

from __future__ import annotations

import re
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

HARNESS = "inference-perf"
WHAT = "an inference-perf stage_N_lifecycle_metrics.json"
_STAGE = re.compile(r"stage_(\d+)_lifecycle_metrics\.json$")
# The benchmark-report YAML written beside each stage: its run.time.start line (read without a YAML parser).
_START = re.compile(r"^\s+start:\s*['\"]?(\d{4}-\d{2}-\d{2})T", re.MULTILINE)

NOTES = [
    "inference-perf: each point value is inference-perf's mean over successful requests of the stage; its "
    "percentiles (not imported) are numpy.percentile, linear interpolation.",
    "inference-perf: itl_ms is the mean of inter_token_latency, pooled over all token gaps of all requests; "
    "tokens that arrived in one chunk get a gap of 0 and the chunk gap goes to the first, so it is a pooled "
    "per-token mean, not a per-request mean. Its time_per_output_token (not imported) is per request "
    "(last token - first token) / (output tokens - 1); its normalized_time_per_output_token (not imported) "
    "includes TTFT.",
    "inference-perf: ttft_ms is request start -> first streamed token; e2e_ms is request_latency "
    "(request start -> end); seconds converted to ms.",
    "inference-perf: output_tokens_per_sec / input_tokens_per_sec are tokens of successful requests / the stage "
    "window (first request start -> last request end, failed requests included in the window); output tokens "
    "are inference-perf's client-side tokenizer count unless report.request_lifecycle.use_server_output_tokens "
    "is set. The stage's own start-up ramp is included; there is no warmup.",
    "inference-perf: mean_isl/mean_osl are successes.prompt_tokens.mean / successes.output_tokens.mean "
    "(the server's usage report, falling back to the client tokenizer for requests without one), "
    "rounded to integers.",
    "inference-perf: the export records no inference-perf version.",
]


def _mean_ms(path: Path, latency: Any, name: str, where: str) -> float | None:
    block = dig(latency, name)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise fail(path, f"{where}successes.latency.{name} is {type(block).__name__}, expected an object")
    value = number(path, block.get("mean"), f"{where}successes.latency.{name}.mean")
    return None if value is None else value * 1000.0


def _stage_files(path: Path) -> list[Path]:
    found = [p for p in path.iterdir() if p.is_file() and _STAGE.search(p.name)]
    if not found:
        raise fail(
            path, "is a folder with no stage_N_lifecycle_metrics.json in it; give inference-perf's report folder"
        )
    return sorted(found, key=lambda p: int(_STAGE.search(p.name).group(1)))  # type: ignore[union-attr]


def _stage_date(stage_file: Path) -> str | None:
    m = _STAGE.search(stage_file.name)
    if not m:
        return None
    report = stage_file.with_name(f"inference-perf.partial.stage_{m.group(1)}.yaml")
    try:
        head = report.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return None
    head = head.split("\nresults:", 1)[0]
    found = _START.search(head)
    return iso_date(found.group(1)) if found else None


def _point(path: Path, data: Mapping[str, Any]) -> tuple[dict[str, Any] | None, list[str]]:
    load = data.get("load_summary")
    successes = data.get("successes")
    if not isinstance(load, Mapping) or not isinstance(successes, Mapping):
        raise fail(path, f"has no load_summary/successes objects; not {WHAT}")
    concurrency = load.get("concurrency")
    if concurrency is None:
        if "requested_rate" not in load:
            raise fail(
                path,
                "has no load_summary.concurrency; if this is summary_lifecycle_metrics.json (all stages pooled), "
                "give the report folder or a stage_N_lifecycle_metrics.json instead",
            )
        return None, [f"inference-perf: skipped {path.name}: a rate-driven stage with no fixed concurrency."]
    c = concurrency_value(path, concurrency, "load_summary.concurrency")
    latency = successes.get("latency")
    throughput = successes.get("throughput")

    def tput(key: str) -> float | None:
        return number(path, dig(throughput, key), f"successes.throughput.{key}")

    completed = whole(path, number(path, successes.get("count"), "successes.count"), "successes.count")
    point = {
        "concurrency": c,
        "completed_requests": completed,
        "output_tokens_per_sec": tput("output_tokens_per_sec") if completed else None,
        "input_tokens_per_sec": tput("input_tokens_per_sec") if completed else None,
        "ttft_ms": _mean_ms(path, latency, "time_to_first_token", ""),
        "itl_ms": _mean_ms(path, latency, "inter_token_latency", ""),
        "e2e_ms": _mean_ms(path, latency, "request_latency", ""),
        "mean_isl": rounded_mean(number(path, dig(successes, "prompt_tokens", "mean"), "successes.prompt_tokens.mean"))
        if completed
        else None,
        "mean_osl": rounded_mean(number(path, dig(successes, "output_tokens", "mean"), "successes.output_tokens.mean"))
        if completed
        else None,
    }
    notes: list[str] = []
    failures = data.get("failures")
    failed = whole(path, number(path, dig(failures, "count"), "failures.count"), "failures.count")
    if failed:
        labels = dig(failures, "by_label")
        kinds = ", ".join(f"{k} x{dig(v, 'count')}" for k, v in labels.items()) if isinstance(labels, Mapping) else ""
        notes.append(
            f"inference-perf: at concurrency {c}, {failed} failed request(s)"
            f"{f' ({kinds})' if kinds else ''} are excluded from every value except the throughput window."
        )
    return point, notes


def import_inference_perf(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from inference-perf's report folder or one stage report."""
    path = Path(path)
    files = _stage_files(path) if path.is_dir() else [path]
    points: list[dict[str, Any]] = []
    notes = list(NOTES)
    dates: list[str] = []
    for file in files:
        data = require_mapping(file, read_json(file, WHAT), WHAT)
        point, point_notes = _point(file, data)
        notes.extend(point_notes)
        if point is None:
            continue
        points.append(point)
        date = _stage_date(file)
        if date:
            dates.append(date)
    if not points:
        raise fail(
            path,
            "holds only rate-driven stages; an EvaluationRun needs stages at a fixed concurrency "
            "(load.type: concurrent)",
        )
    return build_run(
        path,
        harness=HARNESS,
        harness_version=None,
        scenario=scenario,
        engine_version=engine_version,
        date=min(dates) if dates else None,
        points=points,
        notes=notes,
    )
