"""What an importer reads out of an export, before it becomes documents.

Each harness module turns its export into one ``Imported``: run-level facts (the
harness, its version, the model it named, when it ran) and one ``ImportedPoint``
per concurrency. A point carries two views of the same measurement:

- ``row``: the EvaluationRun row (seeds/evaluation-run.txt), the harness's own
  headline numbers, as before;
- ``metrics``: the Result's ``Metrics`` fields (full distributions, TPOT, token
  totals, counts), each null when the export does not report it,

and its failed requests as ``FailureCount``s, whose counts add up to the point's
``failed_requests``. ``analysis.importers._build`` turns an ``Imported`` into the
documents.

Also here: reading a distribution block out of an export without inventing any
statistic, and putting a failed request's message into a failure category.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from pathlib import Path
from typing import Any

from servescope.analysis.importers._common import number, rounded_mean, whole
from servescope.documents.failures import classify_http_error, is_context_overflow, is_unsupported
from servescope.documents.result import FailureCategory, FailureStage

# The Distribution fields an importer may fill; a harness's other quantiles (p1, p25, ...) have no field.
DIST_STATS = ("count", "mean", "p50", "p90", "p95", "p99", "min", "max", "std")

# How error messages name an HTTP status: a JSON error body, "HTTP 400", httpx's "'400 Bad Request'", "status 400".
_HTTP_STATUS = (
    re.compile(r"\"code\"\s*:\s*([1-5]\d\d)\b"),
    re.compile(r"\bHTTP(?:/\d(?:\.\d)?)?[ :]+([1-5]\d\d)\b", re.IGNORECASE),
    re.compile(r"'([1-5]\d\d) [A-Z][A-Za-z -]*'"),
    re.compile(r"\bstatus(?:[ _]code)?[ :=]+([1-5]\d\d)\b", re.IGNORECASE),
)
# A message that is nothing but a reason phrase ("Bad Request", what vLLM keeps of an HTTP error).
_REASON_PHRASES = {s.phrase.lower(): s.value for s in HTTPStatus}
# The stage a failure of each category most plausibly happened at; exports do not record it.
_STAGE: dict[str, FailureStage] = {
    "http-error": "send",
    "context-overflow": "send",
    "rejected": "send",
    "unsupported": "send",
    "connection": "connect",
}


@dataclass
class FailureCount:
    """Failed requests of one category at one point."""

    category: FailureCategory
    count: int
    message: str
    http_status: int | None = None

    @property
    def stage(self) -> FailureStage:
        return _STAGE.get(self.category, "stream")


@dataclass
class ImportedPoint:
    concurrency: int
    row: dict[str, Any]
    metrics: dict[str, Any]
    failures: list[FailureCount] = field(default_factory=list)


@dataclass
class Imported:
    """One export (or folder of exports) of one harness, read."""

    harness: str
    points: list[ImportedPoint]
    notes: list[str]
    harness_version: str | None = None
    date: str | None = None
    model_id: str | None = None
    endpoint: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    python_version: str | None = None
    platform: str | None = None
    seed: int | None = None
    command: str | None = None
    sources: list[str] = field(default_factory=list)


def distribution(path: Path, stats: Mapping[str, Any], where: str, scale: float = 1.0) -> dict[str, Any] | None:
    """A Distribution from ``{field: value as the export wrote it}``; values scaled by ``scale``
    (a unit change), the count taken as is. None when the export reported none of them."""
    out: dict[str, Any] = {}
    for key in DIST_STATS:
        if key not in stats:
            continue
        value = number(path, stats[key], f"{where}.{key}" if where else key)
        if value is None:
            continue
        out[key] = whole(path, value, f"{where}.count") if key == "count" else value * scale
    if not any(k != "count" for k in out):
        return None
    return out


def http_status(text: str) -> int | None:
    """The HTTP status an error message names, or None."""
    for pattern in _HTTP_STATUS:
        found = pattern.search(text)
        if found:
            return int(found.group(1))
    return _REASON_PHRASES.get(text.strip().lower())


def categorize(message: str, status: int | None = None) -> FailureCategory:
    """The failure category of an error message (and HTTP status, when known)."""
    if status is not None and status >= 400:
        return classify_http_error(status, message)  # as servescope's own client names it
    if is_context_overflow(message):
        return "context-overflow"
    if is_unsupported(message):
        return "unsupported"
    low = message.lower()
    if "timeout" in low or "timed out" in low:
        return "timeout"
    if "connect" in low or "disconnected" in low or "connection" in low:
        return "connection"
    if "cancel" in low:
        return "cancelled"
    return "other"


def group_failures(failures: list[FailureCount]) -> list[FailureCount]:
    """One entry per (category, HTTP status), in order of first appearance; the first message is the sample."""
    merged: dict[tuple[str, int | None], FailureCount] = {}
    for f in failures:
        if f.count <= 0:
            continue
        key = (f.category, f.http_status)
        if key in merged:
            merged[key].count += f.count
        else:
            merged[key] = FailureCount(f.category, f.count, f.message[:500] or f.category, f.http_status)
    return list(merged.values())


def complete_failures(failures: list[FailureCount], failed: int | None, harness: str) -> list[FailureCount]:
    """``failures`` grouped, plus an ``other`` entry for failed requests the export counts but does not describe."""
    grouped = group_failures(failures)
    if failed is None:
        return grouped
    described = sum(f.count for f in grouped)
    if described > failed:
        raise ValueError(f"{harness} describes {described} failed requests but counts {failed}")
    if described < failed:
        grouped.append(FailureCount("other", failed - described, f"{harness}: counted as failed; the export does not say why"))
    return grouped


def evaluation_row(
    concurrency: int,
    completed: int | None,
    metrics: Mapping[str, Any],
    *,
    ttft: Mapping[str, Any] | None,
    itl: Mapping[str, Any] | None,
    e2e: Mapping[str, Any] | None,
    mean_isl: float | None,
    mean_osl: float | None,
    token_gaps: Mapping[str, Any] | None,
    **extra: Any,
) -> dict[str, Any]:
    """The EvaluationRun row of one imported point: the means of its distributions
    (``itl`` is whichever of the harness's series the row reports as ITL), the TTFT median,
    the ITL median from ``token_gaps`` (the harness's distribution of every gap between
    tokens, pooled over requests, which is what a prediction's ``itl_p50_ms`` is; None where
    the export has none: a median of per-request TPOTs or means is another figure), and its
    throughputs, mean lengths rounded to whole tokens. compare pairs the medians with a
    prediction's."""

    def mean(d: Mapping[str, Any] | None) -> float | None:
        return None if d is None else d.get("mean")

    def p50(d: Mapping[str, Any] | None) -> float | None:
        return None if d is None else d.get("p50")

    return {
        "concurrency": concurrency,
        "completed_requests": completed,
        "output_tokens_per_sec": metrics["output_tokens_per_sec"],
        "input_tokens_per_sec": metrics["input_tokens_per_sec"],
        "ttft_ms": mean(ttft),
        "itl_ms": mean(itl),
        "ttft_p50_ms": p50(ttft),
        "itl_p50_ms": p50(token_gaps),
        "e2e_ms": mean(e2e),
        "mean_isl": rounded_mean(mean_isl),
        "mean_osl": rounded_mean(mean_osl),
        **extra,
    }
