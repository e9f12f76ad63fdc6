"""The metric formulas — the one place they are written (shared/DESIGN.md).

- TTFT: start → first content token (ms); start is the scheduled send time in
  open loop, the send time in closed loop (``RequestRecord.start_ns``).
- ITL: gaps between consecutive content chunks after the first, pooled over all
  requests (a chunk carrying k tokens counts as one gap; that is what a client sees).
- TPOT: per request (E2E − TTFT) / (output tokens − 1), for requests with ≥ 2 tokens.
- E2E: start → last byte (ms).
- Throughput: output (input) tokens / wall time of the measured window, which runs
  from the first measured request's start to the last measured request's end
  (warmup excluded). ``completed_requests`` is the integer ``throughput``.
- Turnaround (metrics contract): p50/p95 of E2E in seconds.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from servescope.analysis.stats import describe, percentile
from servescope.documents.record import RequestRecord

NS_PER_MS = 1_000_000


@dataclass
class FailureGroup:
    stage: str
    category: str
    count: int
    message: str
    sample_request_id: str
    http_status: int | None


@dataclass
class Aggregate:
    """Everything the formulas produce for one set of records."""

    metrics: dict[str, Any]
    failures: list[FailureGroup] = field(default_factory=list)
    blocked_by_reason_code: dict[str, int] = field(default_factory=dict)
    e2e_s: list[float] = field(default_factory=list)


def _dist(values: list[float]) -> dict[str, Any] | None:
    return describe(values) if values else None


def aggregate(records: Iterable[RequestRecord], *, token_source_hint: str | None = None) -> Aggregate:
    """Apply the formulas to the measured records (warmup records are skipped)."""
    measured = [r for r in records if r.phase == "measured"]
    ok = [r for r in measured if r.ok]
    failed = [r for r in measured if not r.ok]
    ttft = [r.ttft_ns / NS_PER_MS for r in ok if r.ttft_ns is not None]
    e2e = [r.e2e_ns / NS_PER_MS for r in ok if r.e2e_ns is not None]
    gaps: list[np.ndarray] = []
    tpot: list[float] = []
    for r in ok:
        if len(r.chunk_ns) >= 2:
            gaps.append(np.diff(np.asarray(r.chunk_ns, dtype=np.int64)))
        if r.output_tokens is not None and r.output_tokens >= 2 and r.ttft_ns is not None and r.e2e_ns is not None:
            tpot.append((r.e2e_ns - r.ttft_ns) / NS_PER_MS / (r.output_tokens - 1))
    itl = (np.concatenate(gaps) / NS_PER_MS).tolist() if gaps else []
    starts = [r.start_ns for r in measured]
    ends = [r.end_ns for r in measured if r.end_ns is not None]
    duration_s = (max(ends) - min(starts)) / 1e9 if starts and ends and max(ends) > min(starts) else None
    in_tokens = [r.input_tokens for r in ok if r.input_tokens is not None]
    out_tokens = [r.output_tokens for r in ok if r.output_tokens is not None]
    in_total = sum(in_tokens) if in_tokens else None
    out_total = sum(out_tokens) if out_tokens else None
    sources = {r.token_count_source for r in ok if r.token_count_source}
    source = token_source_hint or (sources.pop() if len(sources) == 1 else ("mixed" if sources else None))
    total = len(measured)
    metrics: dict[str, Any] = {
        "total_requests": total,
        "completed_requests": len(ok),
        "failed_requests": len(failed),
        "success_rate": (len(ok) / total) if total else None,
        "duration_s": duration_s,
        "input_tokens_total": in_total,
        "output_tokens_total": out_total,
        "token_count_source": source,
        "output_tokens_per_sec": (out_total / duration_s) if duration_s and out_total is not None else None,
        "input_tokens_per_sec": (in_total / duration_s) if duration_s and in_total is not None else None,
        "requests_per_sec": (len(ok) / duration_s) if duration_s else None,
        "ttft_ms": _dist(ttft),
        "itl_ms": _dist(itl),
        "tpot_ms": _dist(tpot),
        "e2e_ms": _dist(e2e),
        "mean_isl": float(np.mean(in_tokens)) if in_tokens else None,
        "mean_osl": float(np.mean(out_tokens)) if out_tokens else None,
    }
    groups: dict[tuple[str, str], list[RequestRecord]] = {}
    for r in failed:
        groups.setdefault((r.stage or "stream", r.category or "other"), []).append(r)
    failures = [
        FailureGroup(
            stage=stage,
            category=cat,
            count=len(rs),
            message=(rs[0].error or cat)[:500],
            sample_request_id=rs[0].request_id,
            http_status=rs[0].http_status,
        )
        for (stage, cat), rs in sorted(groups.items())
    ]
    by_reason = dict(sorted(Counter(r.category or "other" for r in failed).items()))
    return Aggregate(metrics=metrics, failures=failures, blocked_by_reason_code=by_reason, e2e_s=[v / 1000 for v in e2e])


def turnaround_s(e2e_s: list[float]) -> tuple[float | None, float | None]:
    """(p50, p95) of E2E in seconds — the metrics contract's turnaround."""
    return percentile(e2e_s, 50), percentile(e2e_s, 95)


def slo_outcome(
    records: Iterable[RequestRecord], slos: list[tuple[str, str, str, float]]
) -> tuple[float | None, dict[str, int]]:
    """on_time_rate (share of measured requests that completed within every SLO;
    a failed request is not on time) and violations per SLO id.
    ``slos``: (id, metric, op, threshold) with metric in ttft_ms/e2e_ms/tpot_ms/itl_ms."""
    measured = [r for r in records if r.phase == "measured"]
    if not slos or not measured:
        return None, {}
    violations = {sid: 0 for sid, *_ in slos}
    on_time = 0
    for r in measured:
        good = r.ok
        for sid, metric, op, threshold in slos:
            value = _request_metric(r, metric)
            bad = (not r.ok) or value is None or (value > threshold if op == "<=" else value >= threshold)
            if bad:
                violations[sid] += 1
                good = False
        on_time += good
    return on_time / len(measured), violations


def _request_metric(r: RequestRecord, metric: str) -> float | None:
    if metric == "ttft_ms":
        return None if r.ttft_ns is None else r.ttft_ns / NS_PER_MS
    if metric == "e2e_ms":
        return None if r.e2e_ns is None else r.e2e_ns / NS_PER_MS
    if metric == "tpot_ms":
        if r.output_tokens is None or r.output_tokens < 2 or r.ttft_ns is None or r.e2e_ns is None:
            return None
        return (r.e2e_ns - r.ttft_ns) / NS_PER_MS / (r.output_tokens - 1)
    if metric == "itl_ms":
        if len(r.chunk_ns) < 2:
            return None
        return max(b - a for a, b in zip(r.chunk_ns, r.chunk_ns[1:], strict=False)) / NS_PER_MS
    raise ValueError(f"unknown SLO metric {metric!r}")
