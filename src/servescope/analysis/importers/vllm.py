"""vLLM's serving benchmark (``vllm bench serve --save-result``, formerly
``benchmarks/benchmark_serving.py --save-result``) → Result and EvaluationRun.

The result file is one flat JSON object per run (``date``, ``backend``,
``max_concurrency``, ``completed``, ``failed``, ``total_input_tokens``,
``mean_ttft_ms``, ``p99_ttft_ms``, ...); ``--append-result`` writes several into
one file, one per line. Give such a file, or a folder of them; each run becomes
one point at its ``max_concurrency``.

vLLM writes mean/median/std and the ``--metric-percentiles`` (default ``99``) of
each metric in ``--percentile-metrics`` (default ``ttft,tpot,itl``: no E2E
statistics). Without them, the E2E mean is the mean of the per-request
``latencies`` list vLLM always saves, when it can tell which entries are the
completed requests; E2E percentiles then stay null.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from servescope.analysis.importers._build import build_run
from servescope.analysis.importers._common import (
    concurrency_value,
    fail,
    iso_date,
    number,
    read_text,
    refuse_odd,
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

HARNESS = "vllm-bench-serve"
WHAT = "a vLLM benchmark result JSON (vllm bench serve --save-result)"

NOTES = [
    (
        "vllm: each EvaluationRun value is vLLM's mean ('mean_*_ms'). The Result's distributions carry vLLM's mean, "
        "median (as p50), std and whichever of p90/p95/p99 it was asked for (--metric-percentiles, default 99), "
        "for the metrics named in --percentile-metrics (default ttft,tpot,itl); vLLM reports no min/max. "
        "Percentiles are numpy.percentile (linear interpolation, as servescope's); std is numpy's population std "
        "(ddof=0), servescope's is the sample std (ddof=1)."
    ),
    (
        "vllm: itl_ms is vLLM's ITL: all gaps between consecutive streamed chunks, pooled over requests (a chunk may "
        "carry several tokens); not a per-request mean. tpot_ms is vLLM's TPOT: per request "
        "(E2E - TTFT) / (output tokens - 1), over requests with more than one output token: servescope's TPOT."
    ),
    (
        "vllm: ttft_ms is request sent -> first streamed chunk; e2e_ms is vLLM's E2EL (request sent -> last chunk). "
        "When E2EL was not in --percentile-metrics, the e2e mean is the mean of the per-request 'latencies' vLLM "
        "saves, over the completed requests' entries (all when none failed; with --save-detailed those with no "
        "error; else the non-zero ones when exactly 'completed' are non-zero, otherwise it stays null); its "
        "percentiles and std stay null."
    ),
    (
        "vllm: output_tokens_per_sec is vLLM's output_throughput = total output tokens / duration, the window from "
        "the first request sent to the last response (warmup requests excluded, the start-up ramp included); "
        "requests_per_sec is its request_throughput (completed requests / duration)."
    ),
    (
        "vllm: input_tokens_total/output_tokens_total are vLLM's total_input_tokens/total_output_tokens over completed "
        "requests (the server's usage report when it sent one, else vLLM's tokenizer); mean_isl/mean_osl are those "
        "totals / completed requests (vLLM reports no mean lengths), rounded to integers in the EvaluationRun."
    ),
    "vllm: the export records no input throughput and no vLLM version; those fields are null.",
]
NOTE_NO_ERRORS = (
    "vllm: failed requests are counted ('failed') but their errors are kept only with --save-detailed; without it each is listed as category 'other'."
)
_STATS = ("ttft", "tpot", "itl", "e2el")


def _records(path: Path, text: str) -> list[tuple[str, Mapping[str, Any]]]:
    """One JSON object, or several written by --append-result (one per line)."""
    stripped = text.strip()
    try:
        single = json.loads(stripped)
    except json.JSONDecodeError:
        single = None
    except RecursionError as exc:
        raise fail(path, f"is nested too deeply; expected {WHAT}") from exc
    if single is not None:
        if isinstance(single, list):
            return [(f"[{i}]", item) for i, item in enumerate(single)]
        return [("", single)]
    out: list[tuple[str, Mapping[str, Any]]] = []
    for lineno, line in enumerate(stripped.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            out.append((f"line {lineno}", json.loads(line)))
        except json.JSONDecodeError as exc:
            raise fail(path, f"line {lineno} is not valid JSON ({exc.msg}); expected {WHAT}") from exc
        except RecursionError as exc:
            raise fail(path, f"line {lineno} is nested too deeply; expected {WHAT}") from exc
    return out


def _distribution(path: Path, rec: Mapping[str, Any], name: str, at: str) -> dict[str, Any] | None:
    def key(stat: str) -> str:
        return f"{stat}_{name}_ms"

    stats = {
        "mean": rec.get(key("mean")),
        "p50": rec[key("p50")] if key("p50") in rec else rec.get(key("median")),
        "p90": rec.get(key("p90")),
        "p95": rec.get(key("p95")),
        "p99": rec.get(key("p99")),
        "min": rec.get(key("p0")),  # numpy.percentile at 0 and 100 are the extremes, when asked for
        "max": rec.get(key("p100")),
        "std": rec.get(key("std")),
    }
    return distribution(path, stats, f"{at}{name}")


def _latencies_mean(path: Path, rec: Mapping[str, Any], completed: int | None, failed: int | None, at: str) -> dict[str, Any] | None:
    """E2E mean from the per-request ``latencies`` (seconds, one per request sent) when the entries of the
    completed requests are known: all of them when none failed; with --save-detailed, those whose
    ``errors`` entry is empty; else the non-zero ones, when exactly ``completed`` are non-zero (a completed
    request's latency is positive; vLLM leaves 0.0 for a request whose HTTP status was an error, but a
    request that failed mid-stream has one too, so any other count leaves the mean unknown)."""
    latencies = rec.get("latencies")
    if not isinstance(latencies, list) or not latencies or not completed:
        return None
    values = [number(path, v, f"{at}latencies[{i}]") for i, v in enumerate(latencies)]
    if any(v is None for v in values) or failed is None or len(values) != completed + failed:
        return None
    known = [v for v in values if v is not None]
    errors = rec.get("errors")
    if failed == 0:
        chosen = known
    elif isinstance(errors, list) and len(errors) == len(known):
        chosen = [v for v, e in zip(known, errors, strict=True) if e == ""]
    else:
        chosen = [v for v in known if v > 0]
    if len(chosen) != completed:
        return None
    return {"count": len(chosen), "mean": math.fsum(chosen) / len(chosen) * 1000.0}


def _failures(path: Path, rec: Mapping[str, Any], failed: int | None, notes: list[str]) -> list[FailureCount]:
    if not failed:
        return []
    listed: list[FailureCount] = []
    errors = rec.get("errors")
    if isinstance(errors, list):
        for e in errors:
            if isinstance(e, str) and e.strip():
                lines = [ln for ln in e.strip().splitlines() if ln.strip()]
                message = lines[-1].strip() if lines else e.strip()  # a traceback's last line names the exception
                status = http_status(e)
                listed.append(FailureCount(categorize(e, status), 1, f"vllm: {message}", status))
    elif NOTE_NO_ERRORS not in notes:
        notes.append(NOTE_NO_ERRORS)
    try:
        return complete_failures(listed, failed, "vllm")
    except ValueError as exc:
        raise fail(path, str(exc)) from exc


def _point(path: Path, rec: Any, where: str, notes: list[str]) -> tuple[ImportedPoint, Mapping[str, Any]]:
    at = f"{where}: " if where else ""
    if not isinstance(rec, Mapping):
        raise fail(path, f"{at}holds a JSON {type(rec).__name__}, not an object; expected {WHAT}")
    if "completed" not in rec or not any(k in rec for k in ("mean_ttft_ms", "output_throughput", "duration")):
        raise fail(path, f"{at}has no 'completed'/'mean_ttft_ms'/'output_throughput'; not {WHAT}")
    concurrency = rec.get("max_concurrency")
    if concurrency is None:
        raise fail(
            path,
            f"{at}the run had no --max-concurrency (request rate {rec.get('request_rate')!r}); an EvaluationRun point needs the concurrency the harness held",
        )
    c = concurrency_value(path, concurrency, f"{at}max_concurrency")

    def num(key: str) -> float | None:
        return number(path, rec.get(key), f"{at}{key}")

    completed = whole(path, num("completed"), f"{at}completed")
    failed = whole(path, num("failed"), f"{at}failed")
    total = completed + failed if completed is not None and failed is not None else None
    in_total = whole(path, num("total_input_tokens"), f"{at}total_input_tokens")
    out_total = whole(path, num("total_output_tokens"), f"{at}total_output_tokens")
    measured = bool(completed)  # vLLM writes 0.0 for the statistics of an empty sample
    dists = {name: _distribution(path, rec, name, at) if measured else None for name in _STATS}
    if dists["e2el"] is None and measured:
        dists["e2el"] = _latencies_mean(path, rec, completed, failed, at)
    failures = _failures(path, rec, failed, notes)
    mean_isl = in_total / completed if completed and in_total is not None else None
    mean_osl = out_total / completed if completed and out_total is not None else None
    metrics = {
        "total_requests": total,
        "completed_requests": completed,
        "failed_requests": failed,
        "success_rate": completed / total if total and completed is not None else None,
        "duration_s": num("duration"),
        "input_tokens_total": in_total,
        "output_tokens_total": out_total,
        "output_tokens_per_sec": num("output_throughput"),
        "input_tokens_per_sec": num("input_throughput"),  # absent in vLLM's own exports; read if a fork writes it
        "requests_per_sec": num("request_throughput"),
        "goodput_requests_per_sec": num("request_goodput"),
        "ttft_ms": dists["ttft"],
        "itl_ms": dists["itl"],
        "tpot_ms": dists["tpot"],
        "e2e_ms": dists["e2el"],
        "mean_isl": mean_isl,
        "mean_osl": mean_osl,
    }
    # vllm bench serve's itls are every gap between tokens, pooled over requests
    row = evaluation_row(
        c, completed, metrics, ttft=dists["ttft"], itl=dists["itl"], e2e=dists["e2el"], mean_isl=mean_isl, mean_osl=mean_osl, token_gaps=dists["itl"]
    )
    if failed:
        notes.append(f"vllm: at concurrency {c}, {failed} failed request(s) are excluded from every value.")
    return ImportedPoint(c, row, metrics, failures), rec


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    candidates = sorted(path.glob("*.json"))
    refuse_odd(candidates)
    found = [p for p in candidates if p.is_file()]
    if not found:
        raise fail(path, f"is a folder with no *.json in it; expected {WHAT} or a folder of them")
    return found


def _saved_at(value: Any) -> str | None:
    """vLLM's ``date`` (local time when it saved the result, ``%Y%m%d-%H%M%S``) as ISO 8601, no zone."""
    if not isinstance(value, str) or len(value) != 15 or value[8] != "-" or not iso_date(value):
        return None
    d, t = value[:8], value[9:]
    return f"{d[:4]}-{d[4:6]}-{d[6:]}T{t[:2]}:{t[2:4]}:{t[4:]}"


def read_vllm(path: Path) -> Imported:
    """What vLLM benchmark result file(s) hold."""
    path = Path(path)
    points: list[ImportedPoint] = []
    notes = list(NOTES)
    dates: list[str] = []
    saved: list[str] = []
    models: set[str] = set()
    sources: list[str] = []
    for file in _files(path):
        records = _records(file, read_text(file))
        if not records:
            raise fail(file, f"holds no result; expected {WHAT}")
        sources.append(file.name)
        for where, rec in records:
            point, raw = _point(file, rec, where, notes)
            points.append(point)
            date = iso_date(raw.get("date"))
            if date:
                dates.append(date)
            at = _saved_at(raw.get("date"))
            if at:
                saved.append(at)
            model = raw.get("model_id")
            if isinstance(model, str) and model.strip():
                models.add(model)
    if saved:
        notes.append("vllm: metadata.finished_at is vLLM's 'date' (local time of saving the last result, no zone).")
    return Imported(
        harness=HARNESS,
        points=points,
        notes=notes,
        date=min(dates) if dates else None,
        model_id=next(iter(models)) if len(models) == 1 else None,
        finished_at=max(saved) if saved else None,
        sources=sources,
    )


def import_vllm(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from vLLM benchmark result file(s)."""
    return build_run(Path(path), read_vllm(path), scenario=scenario, engine_version=engine_version)
