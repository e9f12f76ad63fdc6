"""An ``Imported`` export → its documents: the ``EvaluationRun`` (one row per
concurrency, the harness's headline numbers) and the ``Result`` (full
distributions, TPOT, token totals, failures, one ``points[]`` entry per
concurrency, provenance).

A Result with one point repeats that point's metrics at the top. With several,
the top holds only what adds up across points (request counts, token totals and
the mean lengths they give); distributions and rates of separate runs cannot be
pooled from summaries, so they stay null there and live in ``points[]``.

Every problem is a ``DocumentError(str(path), "one line")``.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from pydantic import ValidationError

from servescope import __version__
from servescope.analysis.importers._common import UNKNOWN_ENGINE, fail
from servescope.analysis.importers._model import Imported, ImportedPoint
from servescope.analysis.results import ResultIdentity, result_document
from servescope.documents import EvaluationPoint, EvaluationRun, Result
from servescope.documents.config_id import config_id, is_secret_flag
from servescope.documents.engine_command import REDACTED

_ADDITIVE = ("total_requests", "completed_requests", "failed_requests", "input_tokens_total", "output_tokens_total")
NOTE_STAGE = (
    "servescope import: exports do not record where a request failed, so failures[].stage follows the category "
    "(send for HTTP errors, context overflow and rejections; connect for connection errors; stream otherwise)."
)
NOTE_TOP_LEVEL = (
    "servescope import: with several points, the Result's top-level metrics hold only what adds up across them "
    "(request counts, token totals, and mean_isl/mean_osl = token totals / completed requests); distributions, "
    "rates and turnaround are per point (points[])."
)


def _first_error(exc: ValidationError) -> str:
    first = exc.errors(include_url=False)[0]
    loc = ".".join(str(x) for x in first.get("loc", ()))
    return f"{loc + ': ' if loc else ''}{first.get('msg')}"


def _checked_points(path: Path, imported: Imported) -> list[ImportedPoint]:
    if not imported.points:
        raise fail(path, f"holds no {imported.harness} benchmark result to import")
    seen: dict[int, int] = {}
    for i, point in enumerate(imported.points):
        c = point.concurrency
        if c in seen:
            raise fail(
                path,
                f"two results at concurrency {c} (#{seen[c] + 1} and #{i + 1}); an EvaluationRun has one point per concurrency, import them separately",
            )
        seen[c] = i
    return sorted(imported.points, key=lambda p: p.concurrency)


def _scenario(path: Path, scenario: str) -> str:
    if not scenario or not scenario.strip():
        raise fail(path, "the scenario name is empty; pass --scenario NAME")
    return scenario


def run_name(imported: Imported, scenario: str) -> str:
    return f"{scenario}-{imported.harness}-{imported.date}" if imported.date else f"{scenario}-{imported.harness}"


def build_run(
    path: Path,
    imported: Imported,
    *,
    scenario: str,
    engine_version: str | None = None,
    workload: str | None = None,
) -> EvaluationRun:
    """The EvaluationRun: one row per concurrency, as the harness reported it."""
    scenario = _scenario(path, scenario)
    points = _checked_points(path, imported)
    try:
        rows = [EvaluationPoint(**{k: v for k, v in p.row.items() if v is not None}) for p in points]
        return EvaluationRun(
            name=run_name(imported, scenario),
            scenario=scenario,
            harness=imported.harness,
            harness_version=imported.harness_version or None,
            engine_version=engine_version or UNKNOWN_ENGINE,
            date=imported.date,
            workload=workload,
            notes=list(imported.notes),
            points=rows,
        )
    except ValidationError as exc:
        raise fail(path, f"does not make a valid EvaluationRun: {_first_error(exc)}") from exc
    except ValueError as exc:
        raise fail(path, f"does not make a valid EvaluationRun: {exc}") from exc


def _status(metrics: dict[str, Any]) -> str:
    total, completed = metrics.get("total_requests"), metrics.get("completed_requests")
    if total is None or completed is None:
        return "ok"
    if completed == 0:
        return "failed"
    return "ok" if completed == total else "partial"


def _top_level(points: Sequence[ImportedPoint]) -> dict[str, Any]:
    if len(points) == 1:
        return dict(points[0].metrics)
    top: dict[str, Any] = {}
    for key in _ADDITIVE:
        values = [p.metrics.get(key) for p in points]
        top[key] = sum(values) if all(v is not None for v in values) else None
    total, completed = top["total_requests"], top["completed_requests"]
    if total and completed is not None:
        top["success_rate"] = completed / total
    if completed:
        for total_key, mean_key in (("input_tokens_total", "mean_isl"), ("output_tokens_total", "mean_osl")):
            if top[total_key] is not None:
                top[mean_key] = top[total_key] / completed
    sources = {p.metrics.get("token_count_source") for p in points}
    if len(sources) == 1:
        top["token_count_source"] = sources.pop()
    return top


def public_url(url: str | None) -> str | None:
    """The base URL an export names, without credentials, query or fragment (a Result keeps no secrets)."""
    if not url:
        return None
    try:
        parts = urlsplit(url.strip())
        port = parts.port
    except ValueError:
        return None
    if not parts.scheme or not parts.hostname:
        return None
    host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
    return urlunsplit((parts.scheme, host + (f":{port}" if port else ""), parts.path, "", ""))


_HEADER_FLAGS = frozenset({"-H", "--header", "--headers", "--extra-headers", "--extra-header"})


def redacted_command(command: str | None) -> str | None:
    """The harness's recorded command line with credentials (``--api-key X``, ``--hf-token=X``, auth
    headers) replaced by ``<redacted>`` (re-quoted then; as recorded when it holds none); None when it
    cannot be split."""
    if not command:
        return None
    try:
        words = shlex.split(command)
    except ValueError:
        return None
    out: list[str] = []
    hide_next = False
    for word in words:
        if hide_next and not word.startswith("-"):
            out.append(REDACTED)
            hide_next = False
            continue
        hide_next = False
        name, eq, value = word.partition("=")
        if word.startswith("-") and (is_secret_flag(name) or name in _HEADER_FLAGS):
            if eq:
                out.append(f"{name}={REDACTED}" if value else word)
            else:
                out.append(word)
                hide_next = True
            continue
        out.append(word)
    return command if out == words else shlex.join(out)


def _turnaround(points: Sequence[ImportedPoint]) -> tuple[float | None, float | None]:
    """(p50, p95) of E2E in seconds, as the harness computed them; only for a single point."""
    if len(points) != 1:
        return None, None
    e2e = points[0].metrics.get("e2e_ms") or {}
    p50, p95 = e2e.get("p50"), e2e.get("p95")
    return (None if p50 is None else p50 / 1000.0), (None if p95 is None else p95 / 1000.0)


def build_result(
    path: Path,
    imported: Imported,
    *,
    scenario: str,
    workload: str | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
) -> Result:
    """The Result of an import (module docstring). ``workload`` defaults to ``<harness>-export``:
    an export does not say which servescope workload, if any, it ran."""
    scenario = _scenario(path, scenario)
    points = _checked_points(path, imported)
    engine_id = engine or UNKNOWN_ENGINE
    failures: list[dict[str, Any]] = []
    reasons: dict[str, int] = {}
    result_points = []
    for p in points:
        for f in p.failures:
            failures.append(
                {
                    "stage": f.stage,
                    "category": f.category,
                    "count": f.count,
                    "message": f.message,
                    "http_status": f.http_status,
                    "concurrency": p.concurrency,
                }
            )
            reasons[f.category] = reasons.get(f.category, 0) + f.count
        result_points.append({"concurrency": p.concurrency, "metrics": p.metrics, "status": _status(p.metrics)})
    top = _top_level(points)
    p50, p95 = _turnaround(points)
    notes = list(imported.notes)
    if len(points) > 1:
        notes.append(NOTE_TOP_LEVEL)
    if failures:
        notes.append(NOTE_STAGE)
    resolved: dict[str, Any] = {"points": [{"concurrency": p.concurrency} for p in points]}
    if len(points) == 1:
        resolved["concurrency"] = points[0].concurrency
    resolved["import"] = {
        "harness": imported.harness,
        "harness_version": imported.harness_version,
        "sources": imported.sources,
        "command": redacted_command(imported.command),
        "notes": notes,
    }
    try:
        ident = ResultIdentity(
            run_id=run_name(imported, scenario),
            workload_id=workload or f"{imported.harness}-export",
            config_id=config_id(engine_id, engine_version or "", {}),
            timing_mode="explicit",
            engine_id=engine_id,
            engine_version=engine_version,
            model={"id": imported.model_id or "unknown"},
            scenario=scenario,
            endpoint=public_url(imported.endpoint),
        )
        return result_document(
            ident,
            metrics=top,
            points=result_points,
            contract={
                "failures": failures,
                "throughput": top.get("completed_requests"),
                "p50_turnaround_s": p50,
                "p95_turnaround_s": p95,
                "blocked_by_reason_code": dict(sorted(reasons.items())),
            },
            resolved_params=resolved,
            turnaround_note=(
                f"explicit timing, imported: E2E percentiles of completed requests as {imported.harness} computed them "
                "(null where it did not report them, or across several points)"
            ),
            metadata={
                "pipeline_mode": "llm_live",
                "non_deterministic": True,
                "llm_backend_id": public_url(imported.endpoint),
                "python_version": imported.python_version,
                "platform": imported.platform,
                "servescope_version": __version__,
                "harness": imported.harness,
                "harness_version": imported.harness_version,
                "started_at": imported.started_at,
                "finished_at": imported.finished_at,
                "seed": imported.seed,
            },
        )
    except ValidationError as exc:
        raise fail(path, f"does not make a valid Result: {_first_error(exc)}") from exc
    except ValueError as exc:
        raise fail(path, f"does not make a valid Result: {exc}") from exc
