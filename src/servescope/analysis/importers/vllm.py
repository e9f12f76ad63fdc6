"""vLLM's serving benchmark (``vllm bench serve --save-result``, formerly
``benchmarks/benchmark_serving.py --save-result``) → EvaluationRun.

The result file is one flat JSON object per run (``date``, ``backend``,
``max_concurrency``, ``completed``, ``mean_ttft_ms``, ``mean_itl_ms``, ...);
``--append-result`` writes several into one file, one per line. Give such a file,
or a folder of them; each run becomes one point at its ``max_concurrency``.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from servescope.analysis.importers._common import (
    build_run,
    concurrency_value,
    fail,
    iso_date,
    number,
    read_text,
    whole,
)
from servescope.documents import EvaluationRun

HARNESS = "vllm-bench-serve"
WHAT = "a vLLM benchmark result JSON (vllm bench serve --save-result)"

NOTES = [
    "vllm: each point value is vLLM's mean ('mean_*_ms'); vLLM's percentiles (not imported) are "
    "numpy.percentile, linear interpolation.",
    "vllm: itl_ms is vLLM's mean_itl_ms: the mean of all gaps between consecutive streamed chunks, pooled over "
    "requests (a chunk may carry several tokens); not a per-request mean. vLLM's mean_tpot_ms (not imported) is "
    "the per-request (E2E - TTFT) / (output tokens - 1) averaged over requests, servescope's TPOT.",
    "vllm: ttft_ms is request sent -> first streamed chunk; e2e_ms is vLLM's mean_e2el_ms.",
    "vllm: output_tokens_per_sec is vLLM's output_throughput = total output tokens / duration, the window from "
    "the first request sent to the last response (warmup requests excluded, the start-up ramp included).",
    "vllm: the export records no input-throughput and no mean input/output length (only totals), and no vLLM "
    "version; those fields are null.",
]


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


def _point(path: Path, rec: Any, where: str) -> tuple[dict[str, Any], str | None, list[str]]:
    at = f"{where}: " if where else ""
    if not isinstance(rec, Mapping):
        raise fail(path, f"{at}holds a JSON {type(rec).__name__}, not an object; expected {WHAT}")
    if "completed" not in rec or not any(k in rec for k in ("mean_ttft_ms", "output_throughput", "duration")):
        raise fail(path, f"{at}has no 'completed'/'mean_ttft_ms'/'output_throughput'; not {WHAT}")
    concurrency = rec.get("max_concurrency")
    if concurrency is None:
        raise fail(
            path,
            f"{at}the run had no --max-concurrency (request rate {rec.get('request_rate')!r}); "
            "an EvaluationRun point needs the concurrency the harness held",
        )

    def num(key: str) -> float | None:
        return number(path, rec.get(key), f"{at}{key}")

    point = {
        "concurrency": concurrency_value(path, concurrency, f"{at}max_concurrency"),
        "completed_requests": whole(path, num("completed"), f"{at}completed"),
        "output_tokens_per_sec": num("output_throughput"),
        "input_tokens_per_sec": num("input_throughput"),  # absent in vLLM's own exports; read if a fork writes it
        "ttft_ms": num("mean_ttft_ms"),
        "itl_ms": num("mean_itl_ms"),
        "e2e_ms": num("mean_e2el_ms"),
    }
    notes = []
    failed = whole(path, num("failed"), f"{at}failed")
    if failed:
        notes.append(
            f"vllm: at concurrency {point['concurrency']}, {failed} failed request(s) are excluded from every value."
        )
    return point, iso_date(rec.get("date")), notes


def _files(path: Path) -> list[Path]:
    if not path.is_dir():
        return [path]
    found = sorted(p for p in path.glob("*.json") if p.is_file())
    if not found:
        raise fail(path, f"is a folder with no *.json in it; expected {WHAT} or a folder of them")
    return found


def import_vllm(path: Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """One EvaluationRun from vLLM benchmark result file(s)."""
    path = Path(path)
    points: list[dict[str, Any]] = []
    notes = list(NOTES)
    dates: list[str] = []
    for file in _files(path):
        records = _records(file, read_text(file))
        if not records:
            raise fail(file, f"holds no result; expected {WHAT}")
        for where, rec in records:
            point, date, point_notes = _point(file, rec, where)
            points.append(point)
            notes.extend(point_notes)
            if date:
                dates.append(date)
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
