"""NVIDIA aiperf (``aiperf profile``) → EvaluationRun.

Reads ``profile_export_aiperf.json``: one file is one run at one concurrency. Give
either that file, or the ``--artifact-dir`` of a sweep (``--concurrency 1,4``),
whose ``concurrency_N/profile_export_aiperf.json`` files become one point each
(the per-phase copies under ``phases/`` and the ``aggregate/`` and
``sweep_aggregate/`` summaries are not read: they repeat the same runs).

Each metric is ``{"unit": ..., "avg": ..., "p50": ...}``; a point takes the
``avg`` (aiperf's mean over requests of the profiling phase).
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
    to_ms,
    whole,
)
from servescope.documents import EvaluationRun

HARNESS = "aiperf"
EXPORT_NAME = "profile_export_aiperf.json"
WHAT = "aiperf's profile_export_aiperf.json"

NOTES = [
    "aiperf: each point value is aiperf's mean ('avg') over the successful requests of the profiling phase; "
    "aiperf's percentiles (not imported) are numpy.percentile, linear interpolation.",
    "aiperf: itl_ms is aiperf's inter_token_latency, computed per request as (request_latency - TTFT) / "
    "(output tokens - 1), output tokens by aiperf's tokenizer, then averaged over requests; this is "
    "servescope's TPOT, not the pooled distribution of token gaps.",
    "aiperf: ttft_ms is request sent -> first content chunk; e2e_ms is aiperf's request_latency "
    "(request sent -> last response byte).",
    "aiperf: output_tokens_per_sec / input_tokens_per_sec are total tokens (aiperf's client-side tokenizer "
    "count) / the profiling phase's window (first request sent -> last response received); "
    "the warmup phase is excluded, the ramp-up at the start of the phase is included.",
]
NOTE_USAGE = (
    "aiperf: at concurrency {c}, mean_isl/mean_osl are the server's usage report "
    "(usage_prompt_tokens/usage_completion_tokens avg, rounded to integers); aiperf's own tokenizer counts "
    "(input_sequence_length/output_sequence_length), which the throughputs use, were {isl} / {osl}."
)
NOTE_CLIENT_COUNTS = (
    "aiperf: at concurrency {c}, mean_isl/mean_osl are aiperf's client-side tokenizer counts "
    "(input_sequence_length/output_sequence_length avg, rounded to integers); the server's usage report was absent."
)
NOTE_CACHE = (
    "aiperf: prefix_cache_hit_rate is aiperf's overall_usage_prompt_cache_read_pct / 100 "
    "(server-reported cached prompt tokens / prompt tokens)."
)


def _avg(path: Path, data: Mapping[str, Any], tag: str) -> tuple[float | None, Any]:
    """The ``avg`` of a metric block and its unit; (None, None) when aiperf did not report it."""
    block = data.get(tag)
    if block is None:
        return None, None
    if not isinstance(block, Mapping):
        raise fail(path, f"{tag} is {type(block).__name__}, expected an object with 'avg' and 'unit'")
    return number(path, block.get("avg"), f"{tag}.avg"), block.get("unit")


def _ms(path: Path, data: Mapping[str, Any], tag: str) -> float | None:
    value, unit = _avg(path, data, tag)
    return to_ms(path, value, unit, tag)


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
                    f"the profiling phase is of type {kind!r} without a concurrency limit; "
                    "an EvaluationRun point needs the concurrency the harness held",
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


def _point(path: Path, data: Mapping[str, Any]) -> tuple[dict[str, Any], list[str]]:
    if data.get("was_cancelled") is True:
        raise fail(path, "is from a cancelled aiperf run (was_cancelled: true); its numbers cover part of a run")
    notes: list[str] = []
    concurrency = _concurrency(path, data)
    completed, _ = _avg(path, data, "completed_request_count")
    if completed is None:
        completed, _ = _avg(path, data, "request_count")
    isl, _ = _avg(path, data, "input_sequence_length")
    osl, _ = _avg(path, data, "output_sequence_length")
    usage_isl, _ = _avg(path, data, "usage_prompt_tokens")
    usage_osl, _ = _avg(path, data, "usage_completion_tokens")
    if usage_isl is not None or usage_osl is not None:
        mean_isl, mean_osl = usage_isl, usage_osl
        notes.append(NOTE_USAGE.format(c=concurrency, isl=isl, osl=osl))
    else:
        mean_isl, mean_osl = isl, osl
        if isl is not None or osl is not None:
            notes.append(NOTE_CLIENT_COUNTS.format(c=concurrency))
    cache_pct, _ = _avg(path, data, "overall_usage_prompt_cache_read_pct")
    if cache_pct is not None:
        notes.append(NOTE_CACHE)
    errors = data.get("error_summary")
    if isinstance(errors, list) and errors:
        counts = [e.get("count") for e in errors if isinstance(e, Mapping)]
        total = sum(c for c in counts if isinstance(c, int) and not isinstance(c, bool))
        notes.append(
            f"aiperf: at concurrency {concurrency}, {total or len(errors)} failed request(s) "
            "(error_summary) are excluded from every value."
        )
    point = {
        "concurrency": concurrency,
        "completed_requests": whole(path, completed, "completed_request_count.avg"),
        "output_tokens_per_sec": _avg(path, data, "output_token_throughput")[0],
        "input_tokens_per_sec": _avg(path, data, "input_token_throughput")[0],
        "ttft_ms": _ms(path, data, "time_to_first_token"),
        "itl_ms": _ms(path, data, "inter_token_latency"),
        "e2e_ms": _ms(path, data, "request_latency"),
        "mean_isl": rounded_mean(mean_isl),
        "mean_osl": rounded_mean(mean_osl),
        "prefix_cache_hit_rate": None if cache_pct is None else cache_pct / 100.0,
    }
    return point, notes


def _export_files(path: Path) -> list[Path]:
    """The run exports under an artifact directory, one per run (never the phase copies)."""
    top = path / EXPORT_NAME
    if top.is_file():
        return [top]
    found = sorted(p for p in path.rglob(EXPORT_NAME) if p.is_file() and "phases" not in p.relative_to(path).parts[:-1])
    if not found:
        raise fail(path, f"is a folder with no {EXPORT_NAME} in it; give aiperf's --artifact-dir or the file itself")
    return found


def _load(path: Path) -> Mapping[str, Any]:
    data = require_mapping(path, read_json(path, WHAT), WHAT)
    if data.get("aggregation_type") is not None:
        raise fail(
            path,
            "is an aiperf aggregate (sweep/confidence) summary; give the artifact directory or a run's "
            f"{EXPORT_NAME} instead",
        )
    if "aiperf_version" not in data and "input_config" not in data:
        raise fail(path, f"has neither aiperf_version nor input_config; not {WHAT}")
    return data


def import_aiperf(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from an aiperf export file or artifact directory."""
    path = Path(path)
    files = _export_files(path) if path.is_dir() else [path]
    points: list[dict[str, Any]] = []
    notes: list[str] = list(NOTES)
    versions: set[str] = set()
    dates: list[str] = []
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
    if len(versions) > 1:
        raise fail(path, f"mixes runs of aiperf versions {sorted(versions)}; import them separately")
    return build_run(
        path,
        harness=HARNESS,
        harness_version=next(iter(versions), None),
        scenario=scenario,
        engine_version=engine_version,
        date=min(dates) if dates else None,
        points=points,
        notes=notes,
    )
