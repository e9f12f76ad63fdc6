"""NVIDIA aiperf (``aiperf profile``) → Result and EvaluationRun.

Reads ``profile_export_aiperf.json``: one file is one run at one concurrency. Give
either that file, or the ``--artifact-dir`` of a sweep (``--concurrency 1,4``),
whose ``concurrency_N/profile_export_aiperf.json`` files become one point each
(the per-phase copies under ``phases/`` and the ``aggregate/`` and
``sweep_aggregate/`` summaries are not read: they repeat the same runs).

Each metric is ``{"unit": ..., "avg": ..., "p50": ..., "std": ..., "count": ...}``;
an EvaluationRun row takes the ``avg`` (aiperf's mean over the successful requests
of the profiling phase), the Result the whole block. Requests: ``request_count``
is the successful ones, ``error_request_count`` the failed ones (described in
``error_summary``), ``completed_request_count`` both.
"""

from __future__ import annotations

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
    to_ms,
    whole,
)
from servescope.analysis.importers._model import (
    DIST_STATS,
    FailureCount,
    Imported,
    ImportedPoint,
    categorize,
    complete_failures,
    distribution,
    evaluation_row,
)
from servescope.documents import EvaluationRun

HARNESS = "aiperf"
EXPORT_NAME = "profile_export_aiperf.json"
WHAT = "aiperf's profile_export_aiperf.json"

NOTES = [
    (
        "aiperf: each EvaluationRun value is aiperf's mean ('avg') over the successful requests of the profiling "
        "phase; the Result's distributions carry aiperf's avg, p50/p90/p95/p99, min, max, std and count. Its "
        "percentiles are numpy.percentile-style linear interpolation (those of inter_chunk_latency may come from "
        "a t-digest sketch); its std is the population std (ddof=0), servescope's the sample std (ddof=1)."
    ),
    (
        "aiperf: the EvaluationRun's itl_ms is aiperf's inter_token_latency, computed per request as "
        "(request_latency - TTFT) / (output tokens - 1), output tokens by aiperf's tokenizer, then averaged over "
        "requests; this is servescope's TPOT, not the pooled distribution of token gaps. In the Result it is "
        "tpot_ms, and itl_ms is aiperf's inter_chunk_latency: the gaps between consecutive streamed responses, "
        "pooled over requests. The EvaluationRun's itl_p50_ms is inter_chunk_latency's p50 (the pooled gaps' "
        "median, as a prediction's), not the median request's TPOT."
    ),
    ("aiperf: ttft_ms is request sent -> first content chunk; e2e_ms is aiperf's request_latency (request sent -> last response byte)."),
    (
        "aiperf: output_tokens_per_sec / input_tokens_per_sec are total tokens (aiperf's client-side tokenizer "
        "count) / the profiling phase's window (first request sent -> last response received); "
        "the warmup phase is excluded, the ramp-up at the start of the phase is included. duration_s is aiperf's "
        "benchmark_duration, requests_per_sec its request_throughput."
    ),
    (
        "aiperf: failed requests are aiperf's error_request_count, categorised from error_summary; "
        "completed_requests is request_count (successful requests only)."
    ),
]
NOTE_USAGE = (
    "aiperf: at concurrency {c}, mean_isl/mean_osl are the server's usage report "
    "(usage_prompt_tokens/usage_completion_tokens avg, rounded to integers in the EvaluationRun), and the "
    "Result's token totals are total_usage_prompt_tokens/total_usage_completion_tokens; aiperf's own tokenizer "
    "counts (input_sequence_length/output_sequence_length), which the throughputs use, were {isl} / {osl}."
)
NOTE_CLIENT_COUNTS = (
    "aiperf: at concurrency {c}, mean_isl/mean_osl and the token totals are aiperf's client-side tokenizer "
    "counts (input_sequence_length/output_sequence_length avg, total_isl/total_osl); the server's usage "
    "report was absent."
)
NOTE_CACHE = "aiperf: prefix_cache_hit_rate is aiperf's overall_usage_prompt_cache_read_pct / 100 (server-reported cached prompt tokens / prompt tokens)."


def _block(path: Path, data: Mapping[str, Any], tag: str) -> Mapping[str, Any] | None:
    block = data.get(tag)
    if block is None:
        return None
    if not isinstance(block, Mapping):
        raise fail(path, f"{tag} is {type(block).__name__}, expected an object with 'avg' and 'unit'")
    return block


def _avg(path: Path, data: Mapping[str, Any], tag: str) -> tuple[float | None, Any]:
    """The ``avg`` of a metric block and its unit; (None, None) when aiperf did not report it."""
    block = _block(path, data, tag)
    if block is None:
        return None, None
    return number(path, block.get("avg"), f"{tag}.avg"), block.get("unit")


def _count(path: Path, data: Mapping[str, Any], tag: str) -> int | None:
    return whole(path, _avg(path, data, tag)[0], f"{tag}.avg")


def _dist(path: Path, data: Mapping[str, Any], tag: str) -> dict[str, Any] | None:
    """A metric block as a Distribution, in ms (aiperf's ``avg`` is the mean)."""
    block = _block(path, data, tag)
    if block is None:
        return None
    factor = to_ms(path, 1.0, block.get("unit"), tag) or 1.0
    stats = {("mean" if k == "avg" else k): v for k, v in block.items() if k in (*DIST_STATS, "avg") and k != "mean"}
    return distribution(path, stats, tag, scale=factor)


def _concurrency(path: Path, data: Mapping[str, Any]) -> int:
    config = data.get("input_config")
    phases = dig(config, "phases")
    if isinstance(phases, list):
        profiling = [p for p in phases if isinstance(p, Mapping) and p.get("kind", p.get("name")) == "profiling"]
        if len(profiling) == 1:
            value = profiling[0].get("concurrency")
            if value is None:
                kind = profiling[0].get("type", "?")
                raise fail(
                    path,
                    f"the profiling phase is of type {kind!r} without a concurrency limit; an EvaluationRun point needs the concurrency the harness held",
                )
            return concurrency_value(path, value, "input_config.phases[profiling].concurrency")
    for keys in (("run_info", "variation_values", "phases.profiling.concurrency"),):
        value = dig(data, *keys)
        if value is not None:
            return concurrency_value(path, value, ".".join(keys))
    value = dig(config, "loadgen", "concurrency")  # aiperf < 0.4 wrote input_config.loadgen
    if value is not None:
        return concurrency_value(path, value, "input_config.loadgen.concurrency")
    raise fail(path, "names no concurrency (input_config.phases[profiling].concurrency); cannot place it in a point")


def _failures(path: Path, data: Mapping[str, Any], failed: int | None) -> list[FailureCount]:
    listed: list[FailureCount] = []
    errors = data.get("error_summary")
    if isinstance(errors, list):
        for i, entry in enumerate(errors):
            if not isinstance(entry, Mapping):
                raise fail(path, f"error_summary[{i}] is {type(entry).__name__}, expected an object")
            count = whole(path, number(path, entry.get("count"), f"error_summary[{i}].count"), f"error_summary[{i}].count")
            details = entry.get("error_details")
            details = details if isinstance(details, Mapping) else {}
            code = details.get("code")
            status = code if isinstance(code, int) and not isinstance(code, bool) and 100 <= code <= 599 else None
            text = " ".join(str(details.get(k)) for k in ("type", "message") if details.get(k))
            listed.append(FailureCount(categorize(text, status), count or 0, f"aiperf: {text}" if text else "aiperf: error", status))
    try:
        return complete_failures(listed, failed, "aiperf")
    except ValueError as exc:
        raise fail(path, f"{exc} (error_summary against error_request_count)") from exc


def _point(path: Path, data: Mapping[str, Any]) -> tuple[ImportedPoint, list[str]]:
    if data.get("was_cancelled") is True:
        raise fail(path, "is from a cancelled aiperf run (was_cancelled: true); its numbers cover part of a run")
    notes: list[str] = []
    concurrency = _concurrency(path, data)
    # request_count: successful requests; error_request_count: failed ones;
    # completed_request_count: both ("Completed Requests (Success + Error)").
    completed = _count(path, data, "request_count")
    failed = _count(path, data, "error_request_count")
    both = _count(path, data, "completed_request_count")
    if completed is None and both is not None:
        if failed is None:
            raise fail(
                path,
                "has completed_request_count but neither request_count nor error_request_count; cannot tell successful requests from failed ones",
            )
        completed = both - failed
    if failed is None and completed is not None and both is not None:
        failed = both - completed
    if completed is not None and failed is None:
        failed = 0 if data.get("error_summary") == [] else None
    total = completed + failed if completed is not None and failed is not None else None
    if both is not None and total is not None and both != total:
        raise fail(path, f"request_count ({completed}) + error_request_count ({failed}) != completed_request_count ({both})")
    isl, _ = _avg(path, data, "input_sequence_length")
    osl, _ = _avg(path, data, "output_sequence_length")
    usage_isl, _ = _avg(path, data, "usage_prompt_tokens")
    usage_osl, _ = _avg(path, data, "usage_completion_tokens")
    usage_in = _count(path, data, "total_usage_prompt_tokens")
    usage_out = _count(path, data, "total_usage_completion_tokens")
    if usage_isl is not None or usage_osl is not None:
        mean_isl, mean_osl = usage_isl, usage_osl
        in_total, out_total, source = usage_in, usage_out, "server-usage"
        notes.append(NOTE_USAGE.format(c=concurrency, isl=isl, osl=osl))
    else:
        mean_isl, mean_osl = isl, osl
        in_total, out_total, source = _count(path, data, "total_isl"), _count(path, data, "total_osl"), None
        if isl is not None or osl is not None:
            notes.append(NOTE_CLIENT_COUNTS.format(c=concurrency))
    cache_pct, _ = _avg(path, data, "overall_usage_prompt_cache_read_pct")
    if cache_pct is not None:
        notes.append(NOTE_CACHE)
    if failed:
        notes.append(f"aiperf: at concurrency {concurrency}, {failed} failed request(s) (error_request_count; error_summary) are excluded from every value.")
    duration_ms = to_ms(path, *_avg(path, data, "benchmark_duration"), "benchmark_duration")
    ttft = _dist(path, data, "time_to_first_token")
    tpot = _dist(path, data, "inter_token_latency")
    e2e = _dist(path, data, "request_latency")
    gaps = _dist(path, data, "inter_chunk_latency")  # every gap between streamed responses, pooled over requests
    metrics = {
        "total_requests": total,
        "completed_requests": completed,
        "failed_requests": failed,
        "success_rate": completed / total if total and completed is not None else None,
        "duration_s": None if duration_ms is None else duration_ms / 1000.0,
        "input_tokens_total": in_total,
        "output_tokens_total": out_total,
        "token_count_source": source if in_total is not None or out_total is not None else None,
        "output_tokens_per_sec": _avg(path, data, "output_token_throughput")[0],
        "input_tokens_per_sec": _avg(path, data, "input_token_throughput")[0],
        "requests_per_sec": _avg(path, data, "request_throughput")[0],
        "ttft_ms": ttft,
        "itl_ms": gaps,
        "tpot_ms": tpot,
        "e2e_ms": e2e,
        "mean_isl": mean_isl,
        "mean_osl": mean_osl,
        "prefix_cache_hit_rate": None if cache_pct is None else cache_pct / 100.0,
    }
    row = evaluation_row(
        concurrency,
        completed,
        metrics,
        ttft=ttft,
        itl=tpot,
        e2e=e2e,
        mean_isl=mean_isl,
        mean_osl=mean_osl,
        token_gaps=gaps,  # the row's itl_ms is per-request TPOT; its median is inter_chunk_latency's
        prefix_cache_hit_rate=metrics["prefix_cache_hit_rate"],
    )
    return ImportedPoint(concurrency, row, metrics, _failures(path, data, failed)), notes


def _export_files(path: Path) -> list[Path]:
    """The run exports under an artifact directory, one per run (never the phase copies)."""
    top = path / EXPORT_NAME
    refuse_odd([top])  # rglob below does not yield a symlink loop or a broken link
    if top.is_file():
        return [top]
    candidates = sorted(p for p in path.rglob(EXPORT_NAME) if "phases" not in p.relative_to(path).parts[:-1])
    refuse_odd(candidates)
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise fail(path, f"is a folder with no {EXPORT_NAME} in it; give aiperf's --artifact-dir or the file itself")
    return found


def _load(path: Path) -> Mapping[str, Any]:
    data = require_mapping(path, read_json(path, WHAT), WHAT)
    if data.get("aggregation_type") is not None:
        raise fail(
            path,
            f"is an aiperf aggregate (sweep/confidence) summary; give the artifact directory or a run's {EXPORT_NAME} instead",
        )
    if "aiperf_version" not in data and "input_config" not in data:
        raise fail(path, f"has neither aiperf_version nor input_config; not {WHAT}")
    return data


def _single(values: Any, key: str | None = None) -> str | None:
    """The one string of a one-item list (of objects with ``key``), else None."""
    if not isinstance(values, list) or len(values) != 1:
        return None
    item = values[0].get(key) if key is not None and isinstance(values[0], Mapping) else values[0]
    return item if isinstance(item, str) and item.strip() else None


def read_aiperf(path: Path) -> Imported:
    """What an aiperf export file or artifact directory holds."""
    path = Path(path)
    files = _export_files(path) if path.is_dir() else [path]
    points: list[ImportedPoint] = []
    notes: list[str] = list(NOTES)
    versions: set[str] = set()
    dates: list[str] = []
    starts: list[str] = []
    ends: list[str] = []
    models: set[str | None] = set()
    endpoints: set[str | None] = set()
    seeds: set[Any] = set()
    commands: list[str] = []
    for file in files:
        data = _load(file)
        point, point_notes = _point(file, data)
        points.append(point)
        for note in point_notes:
            if note not in notes:
                notes.append(note)
        version = data.get("aiperf_version")
        if isinstance(version, str) and version:
            versions.add(version)
        date = iso_date(data.get("start_time"))
        if date:
            dates.append(date)
        for key, into in (("start_time", starts), ("end_time", ends)):
            if isinstance(data.get(key), str):
                into.append(data[key])
        config = data.get("input_config")
        models.add(_single(dig(config, "models", "items"), "name") or _single(dig(config, "models", "model_names")))
        endpoints.add(_single(dig(config, "endpoint", "urls")))
        seeds.add(dig(data, "run_info", "random_seed"))
        command = dig(data, "run_info", "cli_command")
        if isinstance(command, str) and command not in commands:
            commands.append(command)
    if len(versions) > 1:
        raise fail(path, f"mixes runs of aiperf versions {sorted(versions)}; import them separately")
    seed = next(iter(seeds)) if len(seeds) == 1 else None
    return Imported(
        harness=HARNESS,
        points=points,
        notes=notes,
        harness_version=next(iter(versions), None),
        date=min(dates) if dates else None,
        model_id=next(iter(models)) if len(models) == 1 else None,
        endpoint=next(iter(endpoints)) if len(endpoints) == 1 else None,
        started_at=min(starts) if starts else None,
        finished_at=max(ends) if ends else None,
        seed=seed if isinstance(seed, int) and not isinstance(seed, bool) else None,
        command=commands[0] if len(commands) == 1 else None,
        sources=[str(f.relative_to(path)) if path.is_dir() else f.name for f in files],
    )


def import_aiperf(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from an aiperf export file or artifact directory."""
    return build_run(Path(path), read_aiperf(path), scenario=scenario, engine_version=engine_version)
