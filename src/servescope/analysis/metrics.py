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
- With SLOs (each request held to every one): ``on_time_rate`` = measured requests
  that completed within every SLO / measured requests; goodput
  (``goodput_requests_per_sec``) = those requests / the measured window's wall time
  (``duration_s``) — DistServe's goodput and ``vllm bench serve --goodput``'s
  ``request_goodput``. A failed request is never on time. Null without SLOs.
- Energy per output token (``gpu_telemetry.energy_per_output_token_j``): the GPUs'
  energy over the window (J) / ``output_tokens_total``.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, TypeAlias

import numpy as np

from servescope.analysis.stats import describe, describe_counts, percentile
from servescope.documents.record import RequestRecord
from servescope.documents.slo import holds

NS_PER_MS = 1_000_000


@dataclass
class FailureGroup:
    stage: str
    category: str
    count: int
    message: str
    sample_request_id: str
    http_status: int | None
    concurrency: int | None = None  # the sweep point's, when failures are listed per point


@dataclass
class Aggregate:
    """Everything the formulas produce for one set of records."""

    metrics: dict[str, Any]
    failures: list[FailureGroup] = field(default_factory=list)
    blocked_by_reason_code: dict[str, int] = field(default_factory=dict)
    e2e_s: list[float] = field(default_factory=list)


# A column of Columns: a list while built row by row (``add``, the records reader, the
# simulator), a numpy array once read from a records index or merged. Which of the two
# a given Columns holds is a run-time fact mypy cannot follow (a union would reject
# every ``append`` of the row-by-row builders), so the type is left open; readers go
# through ``np.asarray``.
Column: TypeAlias = Any


def _dist(values: np.ndarray, *, owned: bool = False) -> dict[str, Any] | None:
    return describe(values, overwrite=owned) if values.size else None


@dataclass
class Columns:
    """The measured requests as columns — what every formula reads. Built from
    ``RequestRecord``s (``add``) or straight from parsed JSON lines (the streaming
    reader of a records file appends to the lists itself)."""

    # Lists when built record by record; numpy arrays when read from a records index.
    ok: Column = field(default_factory=list)  # bool
    start_ns: Column = field(default_factory=list)  # int
    first_ns: Column = field(default_factory=list)  # float; nan = no token
    end_ns: Column = field(default_factory=list)  # float; nan = never ended
    input_tokens: Column = field(default_factory=list)  # float; nan = unknown
    output_tokens: Column = field(default_factory=list)  # float
    chunk_flat: Column = field(default_factory=list)  # int: chunk times of completed requests, concatenated
    chunk_len: Column = field(default_factory=list)  # int
    # chunk gaps already taken per request (a records index stores them so): pooled with those of chunk_flat
    itl_gaps_ns: Column = field(default_factory=list)  # int
    s_per_image: Column = field(default_factory=list)  # float: image renders' seconds per image (raw.payload)
    sources: set[str] = field(default_factory=set)
    # (stage, category, message, request id, http status) of each failed request
    failed: list[tuple[str, str, str, str, int | None]] = field(default_factory=list)
    # Sends again after a send that never reached the server (RequestRecord.attempts - 1),
    # and the requests that needed one; None when no record says (simulated, old records).
    resends: int | None = None
    resent_requests: int | None = None
    # Set by a records reader that made ``itl_gaps_ns`` for these columns alone: the formulas may
    # sort it in place (no copy of tens of millions of gaps) and keep what they found, so a second
    # aggregate of the same columns (a one-point sweep: the run and its point) reads the same figures.
    itl_gaps_owned: bool = False
    itl_described: dict[str, Any] | None = None

    def extend(self, other: Columns) -> None:
        for name, dtype in _COLUMN_DTYPES:
            mine, theirs = getattr(self, name), getattr(other, name)
            if isinstance(mine, list) and isinstance(theirs, list):
                mine += theirs
            elif not len(theirs):
                continue  # nothing to add: no copy of (maybe tens of millions of) ours
            elif not len(mine):
                setattr(self, name, np.asarray(theirs, dtype=dtype))
                if name == "itl_gaps_ns" and self.itl_gaps_ns is theirs:  # now shared: neither may sort it in place
                    other.itl_gaps_owned = False
            else:
                setattr(self, name, np.concatenate((np.asarray(mine, dtype=dtype), np.asarray(theirs, dtype=dtype))))
        self.sources |= other.sources
        self.failed += other.failed
        if other.resends is not None:
            self.resends = (self.resends or 0) + other.resends
            self.resent_requests = (self.resent_requests or 0) + (other.resent_requests or 0)

    def add(self, r: RequestRecord) -> None:
        if r.phase != "measured":
            return
        nan = math.nan
        self.ok.append(r.ok)
        self.start_ns.append(r.start_ns)
        self.first_ns.append(nan if r.first_token_ns is None else r.first_token_ns)
        self.end_ns.append(nan if r.end_ns is None else r.end_ns)
        self.input_tokens.append(nan if r.input_tokens is None else r.input_tokens)
        self.output_tokens.append(nan if r.output_tokens is None else r.output_tokens)
        if r.attempts is not None:
            self.resends = (self.resends or 0) + max(0, r.attempts - 1)
            self.resent_requests = (self.resent_requests or 0) + (r.attempts > 1)
        if r.ok:
            if r.chunk_ns:
                self.chunk_flat.extend(r.chunk_ns)
                self.chunk_len.append(len(r.chunk_ns))
            if r.token_count_source:
                self.sources.add(r.token_count_source)
            spi = seconds_per_image(r.raw)
            if spi is not None:
                self.s_per_image.append(spi)
        else:
            self.failed.append((r.stage or "stream", r.category or "other", r.error or "", r.request_id, r.http_status))


_COLUMN_DTYPES = (
    ("ok", bool),
    ("start_ns", np.int64),
    ("first_ns", np.float64),
    ("end_ns", np.float64),
    ("input_tokens", np.float64),
    ("output_tokens", np.float64),
    ("chunk_flat", np.int64),
    ("chunk_len", np.int64),
    ("itl_gaps_ns", np.int64),
    ("s_per_image", np.float64),
)


def seconds_per_image(raw: Any) -> float | None:
    """An image render's seconds per image, from its record's ``raw.payload`` (None if none)."""
    payload = raw.get("payload") if isinstance(raw, dict) else None
    value = payload.get("s_per_image") if isinstance(payload, dict) else None
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        return None
    return float(value)


def chunk_gaps(chunk_flat: Column, chunk_len: Column) -> np.ndarray:
    """The gaps (int64 ns) between consecutive chunks of each request, from the chunk times
    of requests one after another (``chunk_flat``) and each one's count (``chunk_len``, none 0):
    the gap from one request's last chunk to the next one's first is left out."""
    gaps = np.diff(np.asarray(chunk_flat, dtype=np.int64))
    across = np.cumsum(np.asarray(chunk_len, dtype=np.int64))[:-1] - 1
    return np.delete(gaps, across)


def aggregate(records: Iterable[RequestRecord], *, token_source_hint: str | None = None) -> Aggregate:
    """Apply the formulas to the measured records (warmup records are skipped)."""
    cols = Columns()
    for r in records:
        cols.add(r)
    return aggregate_columns(cols, token_source_hint=token_source_hint)


def aggregate_columns(cols: Columns, *, token_source_hint: str | None = None) -> Aggregate:
    ok = np.asarray(cols.ok, dtype=bool)
    start = np.asarray(cols.start_ns, dtype=np.float64)
    first = np.asarray(cols.first_ns, dtype=np.float64)
    end = np.asarray(cols.end_ns, dtype=np.float64)
    out_tok = np.asarray(cols.output_tokens, dtype=np.float64)
    in_tok = np.asarray(cols.input_tokens, dtype=np.float64)
    ttft_all = (first - start) / NS_PER_MS
    e2e_all = (end - start) / NS_PER_MS
    has_first = ok & ~np.isnan(first)
    has_end = ok & ~np.isnan(end)
    ttft = ttft_all[has_first]
    e2e = e2e_all[has_end]
    tpot_mask = has_first & has_end & (out_tok >= 2)
    tpot = (e2e_all[tpot_mask] - ttft_all[tpot_mask]) / (out_tok[tpot_mask] - 1)
    # (kept whole numbers, as narrow as a records reader left them: int32 halves what a
    # million-record summary moves; describe_counts divides only what it reads)
    itl_ns = cols.itl_gaps_ns if isinstance(cols.itl_gaps_ns, np.ndarray) else np.asarray(cols.itl_gaps_ns, dtype=np.int64)
    if len(cols.chunk_flat):
        gaps = chunk_gaps(cols.chunk_flat, cols.chunk_len)
        itl_ns = np.concatenate((gaps, itl_ns)) if itl_ns.size else gaps
    total = int(ok.size)
    n_ok = int(ok.sum())
    ended = end[~np.isnan(end)]
    duration_s = None
    if total and ended.size and ended.max() > start.min():
        duration_s = float(ended.max() - start.min()) / 1e9
    in_ok = in_tok[ok & ~np.isnan(in_tok)]
    out_ok = out_tok[ok & ~np.isnan(out_tok)]
    in_total = int(in_ok.sum()) if in_ok.size else None
    out_total = int(out_ok.sum()) if out_ok.size else None
    sources = set(cols.sources)
    source = token_source_hint or (sources.pop() if len(sources) == 1 else ("mixed" if sources else None))
    metrics: dict[str, Any] = {
        "total_requests": total,
        "completed_requests": n_ok,
        "failed_requests": total - n_ok,
        "success_rate": (n_ok / total) if total else None,
        "duration_s": duration_s,
        "input_tokens_total": in_total,
        "output_tokens_total": out_total,
        "token_count_source": source,
        "output_tokens_per_sec": (out_total / duration_s) if duration_s and out_total is not None else None,
        "input_tokens_per_sec": (in_total / duration_s) if duration_s and in_total is not None else None,
        "requests_per_sec": (n_ok / duration_s) if duration_s else None,
        "ttft_ms": _dist(ttft),
        "itl_ms": _itl(cols, itl_ns) if itl_ns.size else None,
        "tpot_ms": _dist(tpot),
        "e2e_ms": _dist(e2e),
        "s_per_image": _dist(np.asarray(cols.s_per_image, dtype=np.float64)),
        "mean_isl": float(in_ok.mean()) if in_ok.size else None,
        "mean_osl": float(out_ok.mean()) if out_ok.size else None,
    }
    if cols.resends is not None:
        metrics["resends"] = cols.resends
        metrics["resent_requests"] = cols.resent_requests
    groups: dict[tuple[str, str], list[tuple[str, str, str, str, int | None]]] = {}
    for f in cols.failed:
        groups.setdefault((f[0], f[1]), []).append(f)
    failures = [
        FailureGroup(stage=stage, category=cat, count=len(fs), message=(fs[0][2] or cat)[:500], sample_request_id=fs[0][3], http_status=fs[0][4])
        for (stage, cat), fs in sorted(groups.items())
    ]
    by_reason: dict[str, int] = {}
    for f in cols.failed:
        by_reason[f[1]] = by_reason.get(f[1], 0) + 1
    return Aggregate(metrics=metrics, failures=failures, blocked_by_reason_code=dict(sorted(by_reason.items())), e2e_s=(e2e / 1000).tolist())


def _itl(cols: Columns, itl_ns: np.ndarray) -> dict[str, Any]:
    """The ITL distribution (ms) of the pooled gaps ``itl_ns``, sorting them in place when they
    are ours: joined here from chunk times, or the reader's own (``Columns.itl_gaps_owned``)."""
    if itl_ns is not cols.itl_gaps_ns:
        return describe_counts(itl_ns, NS_PER_MS, overwrite=True)
    if not cols.itl_gaps_owned:
        return describe_counts(itl_ns, NS_PER_MS)
    if cols.itl_described is None:
        cols.itl_described = describe_counts(itl_ns, NS_PER_MS, overwrite=True)
    return dict(cols.itl_described)


def turn_rows(records: Iterable[RequestRecord], number: dict[str, int]) -> list[dict[str, Any]]:
    """Per turn number of a multi-turn load (``number``: request id -> its turn, 1-based):
    completed turns, their median TTFT, and the prompt tokens served from the prefix cache
    (``cached_tokens``; None where none is reported) - what shows whether a session's
    history was carried by the cache. ``run`` (the engine's counts) and ``predict`` (the
    simulated cache's) write the same rows."""
    by_turn: dict[int, list[RequestRecord]] = {}
    for r in records:
        if r.phase == "measured" and r.ok and r.request_id in number:
            by_turn.setdefault(number[r.request_id], []).append(r)
    rows: list[dict[str, Any]] = []
    for turn in sorted(by_turn):
        done = by_turn[turn]
        ttfts = [t / 1e6 for r in done if (t := r.ttft_ns) is not None]
        cached = [r for r in done if r.cached_tokens is not None and r.input_tokens]
        rows.append({
            "turn": turn,
            "completed": len(done),
            "ttft_ms_p50": statistics.median(ttfts) if ttfts else None,
            "input_tokens_mean": statistics.fmean(r.input_tokens or 0 for r in cached) if cached else None,
            "cached_tokens_mean": statistics.fmean(r.cached_tokens or 0 for r in cached) if cached else None,
            "with_cache_counts": len(cached),
        })  # fmt: skip
    return rows


def failures_by_concurrency(per_point: Iterable[tuple[int, list[FailureGroup]]]) -> list[FailureGroup]:
    """A sweep's failures: one group per (stage, category, concurrency), from each
    point's groups (points at one concurrency, such as longctx's context lengths,
    share a group; its message and sample are the first point's)."""
    merged: dict[tuple[str, str, int], FailureGroup] = {}
    for concurrency, groups in per_point:
        for g in groups:
            key = (g.stage, g.category, concurrency)
            if key in merged:
                merged[key].count += g.count
            else:
                merged[key] = FailureGroup(g.stage, g.category, g.count, g.message, g.sample_request_id, g.http_status, concurrency)
    return [merged[k] for k in sorted(merged, key=lambda k: (k[2], k[0], k[1]))]


def contract_fields(agg: Aggregate, records: Iterable[RequestRecord], slos: list[Any], failures: list[FailureGroup] | None = None) -> dict[str, Any]:
    """The metrics-contract fields of a Result, mapped to serving (shared/DESIGN.md):
    ``failures[]`` (``agg``'s groups unless ``failures`` gives them, e.g. per sweep
    point) and ``blocked_by_reason_code`` from failed requests, ``throughput``
    = completed requests, turnaround from E2E, ``on_time_rate`` and
    ``violations_by_invariant_id`` from the SLOs (objects with id/metric/op/threshold)."""
    on_time, violations = slo_outcome(records, [(s.id, s.metric, s.op, s.threshold) for s in slos])
    p50, p95 = turnaround_s(agg.e2e_s)
    return {
        "failures": [
            {
                "stage": f.stage,
                "category": f.category,
                "count": f.count,
                "message": f.message,
                "sample_request_id": f.sample_request_id,
                "http_status": f.http_status,
                "concurrency": f.concurrency,
            }
            for f in (agg.failures if failures is None else failures)
        ],
        "throughput": agg.metrics["completed_requests"],
        "p50_turnaround_s": p50,
        "p95_turnaround_s": p95,
        "slos": [s.model_dump() for s in slos],
        "on_time_rate": on_time,
        "violations_by_invariant_id": violations,
        "blocked_by_reason_code": agg.blocked_by_reason_code,
    }


def achieved_rate(start_ns: Column) -> float | None:
    """Open loop: the rate the measured requests were sent at, (n - 1) / (last start -
    first start) — the harness's (``bench.load``) formula, so a simulated schedule and
    a sent one read alike. None with fewer than two starts or no span."""
    starts = np.asarray(start_ns, dtype=np.float64)
    if starts.size < 2:
        return None
    span_s = float(starts.max() - starts.min()) / 1e9
    return (starts.size - 1) / span_s if span_s > 0 else None


def turnaround_s(e2e_s: list[float]) -> tuple[float | None, float | None]:
    """(p50, p95) of E2E in seconds — the metrics contract's turnaround."""
    return percentile(e2e_s, 50), percentile(e2e_s, 95)


@dataclass
class SloCount:
    """Measured requests held to a run's SLOs: how many, how many within every SLO,
    and the violations per SLO id."""

    measured: int
    on_time: int
    violations: dict[str, int]

    @property
    def on_time_rate(self) -> float | None:
        return self.on_time / self.measured if self.measured else None


def slo_count(records: Iterable[RequestRecord], slos: list[tuple[str, str, str, float]]) -> SloCount | None:
    """The measured requests checked against ``slos`` ((id, metric, op, threshold),
    metric in ttft_ms/e2e_ms/tpot_ms/itl_ms); None without SLOs. A failed request
    violates every SLO; a completed one-token (one-chunk) answer meets tpot/itl ones."""
    if not slos:
        return None
    violations = {sid: 0 for sid, *_ in slos}
    measured = on_time = 0
    for r in records:
        if r.phase != "measured":
            continue
        measured += 1
        good = r.ok
        for sid, metric, op, threshold in slos:
            value = _request_metric(r, metric)
            bad = (not r.ok) or not (holds(value, op, threshold) or _no_gap_to_miss(r, metric))
            if bad:
                violations[sid] += 1
                good = False
        on_time += good
    return SloCount(measured, on_time, violations)


def slo_outcome(records: Iterable[RequestRecord], slos: list[tuple[str, str, str, float]]) -> tuple[float | None, dict[str, int]]:
    """on_time_rate (share of measured requests that completed within every SLO;
    a failed request is not on time) and violations per SLO id (``slo_count``)."""
    count = slo_count(records, slos)
    if count is None or not count.measured:
        return None, {}
    return count.on_time_rate, count.violations


def goodput(count: SloCount | None, duration_s: float | None) -> float | None:
    """Requests within every SLO per second of the measured window (DistServe;
    ``vllm bench serve --goodput``): ``count.on_time / duration_s``. Null without
    SLOs, without measured requests, or when the window has no length."""
    if count is None or not count.measured or not duration_s or duration_s <= 0:
        return None
    return count.on_time / duration_s


def _no_gap_to_miss(r: RequestRecord, metric: str) -> bool:
    """Whether a completed request has no time between tokens to hold to a tpot/itl SLO:
    a one-token answer has no TPOT, a one-chunk stream no gap, so it cannot miss them
    (``vllm bench serve --goodput`` gives such a request TPOT 0). An answer whose token
    count is unknown has a TPOT that was not measured, and that never holds."""
    if not r.ok:
        return False
    if metric == "tpot_ms":
        return r.output_tokens is not None and r.output_tokens < 2
    if metric == "itl_ms":
        return len(r.chunk_ns) == 1 or (r.output_tokens is not None and r.output_tokens < 2)
    return False


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


def energy_per_output_token(energy_j: float | None, output_tokens: int | None) -> float | None:
    """J per output token over a window: the GPUs' energy / the output tokens of the
    requests that completed in it. Null without either, or without a token."""
    if energy_j is None or not output_tokens or output_tokens <= 0:
        return None
    return energy_j / output_tokens


@dataclass
class FastStats:
    """Per-point latency samples computed from iteration end times, without
    building records or columns: the formulas above (TTFT = first token - start,
    E2E = last token - start, TPOT = (E2E - TTFT)/(tokens - 1), ITL = every gap
    between consecutive tokens of a request, pooled — as weighted gaps), for
    configuration search where records would cost more than the simulation. A
    property test holds them equal to ``aggregate_columns`` of the same requests."""

    ttft_ms: np.ndarray
    e2e_ms: np.ndarray
    tpot_ms: np.ndarray
    itl_gaps_ms: np.ndarray
    itl_weights: np.ndarray
    output_tokens: int
    window_s: float
    failed: int

    def itl_samples(self) -> np.ndarray:
        return np.repeat(self.itl_gaps_ms, self.itl_weights)

    @property
    def output_tokens_per_sec(self) -> float | None:
        return self.output_tokens / self.window_s if self.window_s > 0 else None


def timeline_stats(
    ends: np.ndarray,
    timeline_starts: np.ndarray,
    seg_req: np.ndarray,
    seg_first: np.ndarray,
    seg_last: np.ndarray,
    start_ns: np.ndarray,
    first_start_ns: int,
    n_requests: int,
) -> FastStats:
    """``FastStats`` of requests whose tokens came one per iteration of an engine:
    ``ends`` are the iteration end times (ns) of one or more timelines (replicas)
    laid end to end, ``timeline_starts`` the index where each timeline begins (no
    gap before it); each completed request produced tokens in the iterations
    ``seg_first[k]..seg_last[k]`` of its segments ``k`` (``seg_req[k]`` = the
    request, 0..len(start_ns)-1, segments of a request consecutive and in time
    order); ``start_ns`` per completed request, ``first_start_ns`` the earliest
    start of any request of the point, ``n_requests`` all of them (failed ones too)."""
    n_ok = int(start_ns.size)
    if not n_ok:
        empty = np.zeros(0)
        return FastStats(empty, empty, empty, empty, np.zeros(0, dtype=np.int64), 0, 0.0, n_requests)
    sreq, ga, gb = seg_req, seg_first, seg_last
    starts_at = np.flatnonzero(np.r_[True, sreq[1:] != sreq[:-1]])  # first segment of each request
    stops_at = np.r_[starts_at[1:], sreq.size] - 1
    first = ends[ga[starts_at]]
    last = ends[gb[stops_at]]
    n = np.bincount(sreq, weights=gb - ga + 1, minlength=n_ok).astype(np.int64)
    start = start_ns
    ttft = (first - start) / 1e6
    e2e = (last - start) / 1e6
    many = n > 1
    tpot = (last[many] - first[many]) / 1e6 / (n[many] - 1)
    # pooled ITL: the gap before iteration j counts once per request producing tokens in
    # both j - 1 and j (a difference array over each segment's interior), plus the
    # gaps between one request's segments (it waited, preempted)
    diff = np.zeros(ends.size + 1, dtype=np.int64)
    np.add.at(diff, ga + 1, 1)
    np.add.at(diff, gb + 1, -1)
    w = np.cumsum(diff)[: ends.size]
    g = np.zeros(ends.size)
    g[1:] = np.diff(ends) / 1e6
    inner = w > 0
    inner[timeline_starts] = False  # no gap before a timeline's first iteration
    gaps = [g[inner]]
    weights = [w[inner]]
    between = np.flatnonzero(sreq[1:] == sreq[:-1])
    if between.size:
        gaps.append((ends[ga[between + 1]] - ends[gb[between]]) / 1e6)
        weights.append(np.ones(between.size, dtype=np.int64))
    return FastStats(
        ttft_ms=ttft,
        e2e_ms=e2e,
        tpot_ms=tpot,
        itl_gaps_ms=np.concatenate(gaps),
        itl_weights=np.concatenate(weights),
        output_tokens=int(n.sum()),
        window_s=(int(last.max()) - first_start_ns) / 1e9,
        failed=n_requests - n_ok,
    )
