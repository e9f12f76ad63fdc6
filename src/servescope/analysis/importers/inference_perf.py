"""inference-perf (kubernetes-sigs, ``inference-perf -c config.yml``) → Result and EvaluationRun.

Reads the request-lifecycle reports it writes into its storage folder:
``stage_N_lifecycle_metrics.json``, one per load stage (``load.type: concurrent``
stages carry ``load_summary.concurrency``). Give that folder or one stage file; each
stage at a fixed concurrency becomes one point. ``summary_lifecycle_metrics.json``
pools all stages, so it is refused. Latencies are in seconds, each with mean, min,
max, median and p0.1 ... p99.9; failed requests are in ``failures`` (count and
``by_label``).
"""

from __future__ import annotations

import re
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
    refuse_odd,
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
from servescope.documents import EvaluationRun, read_data

HARNESS = "inference-perf"
WHAT = "an inference-perf stage_N_lifecycle_metrics.json"
_STAGE = re.compile(r"stage_(\d+)_lifecycle_metrics\.json$")
# The benchmark-report YAML written beside each stage: its run.time start/end lines (read without a YAML parser).
_TIME = re.compile(r"^\s+(start|end):\s*['\"]?(\d{4}-\d{2}-\d{2}T[0-9:.]+Z?)['\"]?\s*$", re.MULTILINE)

NOTES = [
    (
        "inference-perf: each EvaluationRun value is inference-perf's mean over successful requests of the stage; "
        "the Result's distributions carry its mean, median (as p50), p90/p95/p99, min and max (it reports no std). "
        "Its percentiles are numpy.percentile, linear interpolation."
    ),
    (
        "inference-perf: itl_ms is inter_token_latency, pooled over all token gaps of all requests; "
        "tokens that arrived in one chunk get a gap of 0 and the chunk gap goes to the first, so it is a pooled "
        "per-token distribution, not a per-request mean. tpot_ms is its time_per_output_token: per request "
        "(last token - first token) / (output tokens - 1), servescope's TPOT up to the last byte after the last "
        "token. Its normalized_time_per_output_token (not imported) includes TTFT."
    ),
    ("inference-perf: ttft_ms is request start -> first streamed token; e2e_ms is request_latency (request start -> end); seconds converted to ms."),
    (
        "inference-perf: output_tokens_per_sec / input_tokens_per_sec are tokens of successful requests / the stage "
        "window (first request start -> last request end, failed requests included in the window); output tokens "
        "are inference-perf's client-side tokenizer count unless report.request_lifecycle.use_server_output_tokens "
        "is set. The stage's own start-up ramp is included; there is no warmup. requests_per_sec is its "
        "successes.throughput.requests_per_sec; the window's length is not recorded, so duration_s is null."
    ),
    (
        "inference-perf: mean_isl/mean_osl are successes.prompt_tokens.mean / successes.output_tokens.mean "
        "(the server's usage report, falling back to the client tokenizer for requests without one), "
        "rounded to integers in the EvaluationRun; the Result's token totals are their 'total'."
    ),
    "inference-perf: failed requests are failures.count, categorised from failures.by_label (label and messages).",
    "inference-perf: the export records no inference-perf version.",
]


def _dist(path: Path, latency: Any, name: str) -> dict[str, Any] | None:
    block = dig(latency, name)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise fail(path, f"successes.latency.{name} is {type(block).__name__}, expected an object")
    stats = {k: block.get(k) for k in ("mean", "p90", "p95", "p99", "min", "max")}
    stats["p50"] = block.get("median", block.get("p50"))
    return distribution(path, stats, f"successes.latency.{name}", scale=1000.0)


def _stage_files(path: Path) -> list[Path]:
    candidates = sorted(p for p in path.iterdir() if _STAGE.search(p.name))
    refuse_odd(candidates)
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise fail(path, "is a folder with no stage_N_lifecycle_metrics.json in it; give inference-perf's report folder")
    return sorted(found, key=lambda p: int(_STAGE.search(p.name).group(1)))  # type: ignore[union-attr]


def _stage_times(stage_file: Path) -> dict[str, str]:
    """run.time start/end of the benchmark report beside a stage file (``inference-perf.partial.stage_N.yaml``)."""
    m = _STAGE.search(stage_file.name)
    if not m:
        return {}
    report = stage_file.with_name(f"inference-perf.partial.stage_{m.group(1)}.yaml")
    try:
        head = report.read_text(encoding="utf-8", errors="replace")[:4096]
    except OSError:
        return {}
    head = head.split("\nresults:", 1)[0]
    return {key: value for key, value in _TIME.findall(head)}


def _failures(path: Path, failures: Any, failed: int | None) -> list[FailureCount]:
    listed: list[FailureCount] = []
    labels = dig(failures, "by_label")
    if isinstance(labels, Mapping):
        for label, entry in labels.items():
            count = whole(path, number(path, dig(entry, "count"), f"failures.by_label.{label}.count"), f"failures.by_label.{label}.count")
            messages = [dig(m, "message") for m in dig(entry, "messages") or [] if isinstance(dig(m, "message"), str)]
            text = f"{label}: {messages[0]}" if messages else str(label)
            status = http_status(text)
            listed.append(FailureCount(categorize(text, status), count or 0, f"inference-perf: {text}", status))
    try:
        return complete_failures(listed, failed, "inference-perf")
    except ValueError as exc:
        raise fail(path, f"{exc} (failures.by_label against failures.count)") from exc


def _point(path: Path, data: Mapping[str, Any]) -> tuple[ImportedPoint | None, list[str]]:
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

    def tokens(name: str, stat: str) -> float | None:
        return number(path, dig(successes, name, stat), f"successes.{name}.{stat}")

    completed = whole(path, number(path, successes.get("count"), "successes.count"), "successes.count")
    failures = data.get("failures")
    failed = whole(path, number(path, dig(failures, "count"), "failures.count"), "failures.count")
    total = completed + failed if completed is not None and failed is not None else None
    sent = whole(path, number(path, load.get("count"), "load_summary.count"), "load_summary.count")
    if sent is not None and total is not None and sent != total:
        raise fail(path, f"successes.count ({completed}) + failures.count ({failed}) != load_summary.count ({sent})")
    dists = {
        name: _dist(path, latency, name) if completed else None
        for name in ("time_to_first_token", "inter_token_latency", "time_per_output_token", "request_latency")
    }
    mean_isl = tokens("prompt_tokens", "mean") if completed else None
    mean_osl = tokens("output_tokens", "mean") if completed else None
    in_total = tokens("prompt_tokens", "total") if completed else None
    out_total = tokens("output_tokens", "total") if completed else None
    metrics = {
        "total_requests": total,
        "completed_requests": completed,
        "failed_requests": failed,
        "success_rate": completed / total if total and completed is not None else None,
        "input_tokens_total": whole(path, in_total, "successes.prompt_tokens.total"),
        "output_tokens_total": whole(path, out_total, "successes.output_tokens.total"),
        "output_tokens_per_sec": tput("output_tokens_per_sec") if completed else None,
        "input_tokens_per_sec": tput("input_tokens_per_sec") if completed else None,
        "requests_per_sec": tput("requests_per_sec") if completed else None,
        "ttft_ms": dists["time_to_first_token"],
        "itl_ms": dists["inter_token_latency"],
        "tpot_ms": dists["time_per_output_token"],
        "e2e_ms": dists["request_latency"],
        "mean_isl": mean_isl,
        "mean_osl": mean_osl,
    }
    row = evaluation_row(
        c,
        completed,
        metrics,
        ttft=dists["time_to_first_token"],
        itl=dists["inter_token_latency"],
        e2e=dists["request_latency"],
        mean_isl=mean_isl,
        mean_osl=mean_osl,
        token_gaps=dists["inter_token_latency"],  # pooled over all token gaps of all requests
    )
    notes: list[str] = []
    if failed:
        labels = dig(failures, "by_label")
        kinds = ", ".join(f"{k} x{dig(v, 'count')}" for k, v in labels.items()) if isinstance(labels, Mapping) else ""
        notes.append(
            f"inference-perf: at concurrency {c}, {failed} failed request(s)"
            f"{f' ({kinds})' if kinds else ''} are excluded from every value except the throughput window."
        )
    return ImportedPoint(c, row, metrics, _failures(path, failures, failed)), notes


def _model_id(folder: Path) -> str | None:
    """server.model_name of the resolved config inference-perf writes into its report folder, when kept."""
    path = folder / "config.yaml"
    if not path.is_file():
        return None
    config, issues = read_data(path)
    if issues:
        return None
    name = dig(config, "server", "model_name")
    return name if isinstance(name, str) and name.strip() else None


def read_inference_perf(path: Path) -> Imported:
    """What inference-perf's report folder (or one stage report) holds."""
    path = Path(path)
    files = _stage_files(path) if path.is_dir() else [path]
    points: list[ImportedPoint] = []
    notes = list(NOTES)
    dates: list[str] = []
    starts: list[str] = []
    ends: list[str] = []
    for file in files:
        data = require_mapping(file, read_json(file, WHAT), WHAT)
        point, point_notes = _point(file, data)
        notes.extend(point_notes)
        if point is None:
            continue
        points.append(point)
        times = _stage_times(file)
        date = iso_date(times["start"][:10]) if "start" in times else None
        if date:
            dates.append(date)
        if "start" in times:
            starts.append(times["start"])
        if "end" in times:
            ends.append(times["end"])
    if not points:
        raise fail(
            path,
            "holds only rate-driven stages; an EvaluationRun needs stages at a fixed concurrency (load.type: concurrent)",
        )
    return Imported(
        harness=HARNESS,
        points=points,
        notes=notes,
        date=min(dates) if dates else None,
        model_id=_model_id(path if path.is_dir() else path.parent),
        started_at=min(starts) if starts else None,
        finished_at=max(ends) if ends else None,
        sources=[f.name for f in files],
    )


def import_inference_perf(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from inference-perf's report folder or one stage report."""
    return build_run(Path(path), read_inference_perf(path), scenario=scenario, engine_version=engine_version)
