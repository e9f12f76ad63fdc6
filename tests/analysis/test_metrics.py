"""The metric formulas (shared/DESIGN.md) on hand-built records, hand-computed results."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from servescope.analysis.metrics import (
    Columns,
    FailureGroup,
    aggregate,
    aggregate_columns,
    goodput,
    slo_count,
    slo_outcome,
    timeline_stats,
    turnaround_s,
)
from servescope.documents.record import RequestRecord

MS = 1_000_000  # ns


def ok(rid: str, start: int, chunks: list[int], out: int, inp: int, source: str = "server-usage", **kw: object) -> RequestRecord:
    """A completed request; times in ms. First token = first chunk, end = last chunk."""
    return RequestRecord(
        request_id=rid,
        start_ns=start * MS,
        sent_ns=start * MS,
        first_token_ns=chunks[0] * MS,
        end_ns=chunks[-1] * MS,
        chunk_ns=[c * MS for c in chunks],
        output_tokens=out,
        input_tokens=inp,
        token_count_source=source,
        **kw,  # type: ignore[arg-type]
    )


def failed(rid: str, start: int, end: int, stage: str | None, category: str | None, **kw: object) -> RequestRecord:
    return RequestRecord(request_id=rid, start_ns=start * MS, end_ns=end * MS, ok=False, stage=stage, category=category, **kw)  # type: ignore[arg-type]


# Measured window: first start 10 000 ms, last end 11 000 ms → 1.000 s.
R1 = ok("r1", 10_000, [10_100, 10_150, 10_250, 10_400], out=4, inp=10)  # TTFT 100, E2E 400, gaps 50/100/150, TPOT 300/3
R2 = ok("r2", 10_050, [10_250, 10_450, 10_650], out=5, inp=20)  # TTFT 200, E2E 600, gaps 200/200, TPOT 400/4
R3 = failed("r3", 10_100, 10_300, "send", "http-error", http_status=500, error="HTTP 500: boom")
R4 = failed("r4", 10_120, 11_000, "stream", "timeout", first_token_ns=10_200 * MS, error="no completion within 0.88 s")
R5 = failed("r5", 10_130, 10_200, "send", "http-error", http_status=502, error="HTTP 502: bad gateway")
R6 = failed("r6", 10_140, 10_900, "first-token", "timeout", error="no first token")
# Warmup: would change every number if it were counted.
W1 = ok("w1", 0, [50, 9_000], out=999, inp=999, phase="warmup")
W2 = failed("w2", 10, 20, "connect", "connection", phase="warmup")

RECORDS = [W1, W2, R1, R2, R3, R4, R5, R6]


def test_counts_and_success_rate() -> None:
    m = aggregate(RECORDS).metrics
    assert (m["total_requests"], m["completed_requests"], m["failed_requests"]) == (6, 2, 4)
    assert m["success_rate"] == pytest.approx(2 / 6)


def test_ttft_is_first_token_minus_start() -> None:
    ttft = aggregate(RECORDS).metrics["ttft_ms"]
    assert ttft["count"] == 2
    assert (ttft["min"], ttft["max"], ttft["mean"]) == (100.0, 200.0, 150.0)
    assert ttft["p50"] == pytest.approx(150.0)
    assert ttft["p90"] == pytest.approx(190.0)  # rank 0.9 between 100 and 200
    assert ttft["std"] == pytest.approx(math.sqrt(2 * 50**2))


def test_e2e_is_end_minus_start() -> None:
    e2e = aggregate(RECORDS).metrics["e2e_ms"]
    assert (e2e["count"], e2e["min"], e2e["max"], e2e["mean"]) == (2, 400.0, 600.0, 500.0)


def test_itl_pools_the_gaps_of_all_requests() -> None:
    itl = aggregate(RECORDS).metrics["itl_ms"]
    # r1: 50, 100, 150; r2: 200, 200 (the failed r4's token is not a completed request's)
    assert itl["count"] == 5
    assert itl["mean"] == pytest.approx((50 + 100 + 150 + 200 + 200) / 5)
    assert (itl["min"], itl["p50"], itl["max"]) == (50.0, 150.0, 200.0)


def test_tpot_is_per_request_decode_time_over_tokens_minus_one() -> None:
    tpot = aggregate(RECORDS).metrics["tpot_ms"]
    # r1: (400 - 100) / (4 - 1) = 100; r2: (600 - 200) / (5 - 1) = 100 (a chunk carried 2 tokens)
    assert tpot["count"] == 2
    assert tpot["mean"] == pytest.approx(100.0)
    assert tpot["std"] == pytest.approx(0.0)


def test_tpot_and_itl_differ_when_chunks_carry_several_tokens() -> None:
    r = ok("x", 0, [100, 400], out=4, inp=1)
    m = aggregate([r]).metrics
    assert m["itl_ms"]["mean"] == pytest.approx(300.0)  # one gap the client saw
    assert m["tpot_ms"]["mean"] == pytest.approx(100.0)  # 300 ms over 3 later tokens


def test_single_token_request_has_ttft_but_no_tpot_or_itl() -> None:
    r = ok("one", 0, [120], out=1, inp=5)
    m = aggregate([r]).metrics
    assert m["ttft_ms"]["mean"] == 120.0
    assert m["e2e_ms"]["mean"] == 120.0
    assert m["tpot_ms"] is None and m["itl_ms"] is None


def test_throughput_is_tokens_over_the_measured_window() -> None:
    m = aggregate(RECORDS).metrics
    assert m["duration_s"] == pytest.approx(1.0)  # 10 000 → 11 000 ms, warmup excluded
    assert (m["input_tokens_total"], m["output_tokens_total"]) == (30, 9)
    assert m["output_tokens_per_sec"] == pytest.approx(9.0)
    assert m["input_tokens_per_sec"] == pytest.approx(30.0)
    assert m["requests_per_sec"] == pytest.approx(2.0)
    assert (m["mean_isl"], m["mean_osl"]) == (15.0, 4.5)


def test_warmup_is_excluded_entirely() -> None:
    assert aggregate(RECORDS).metrics == aggregate([R1, R2, R3, R4, R5, R6]).metrics
    assert aggregate([W1, W2]).metrics["total_requests"] == 0


def test_failures_grouped_by_stage_and_category() -> None:
    agg = aggregate(RECORDS)
    assert agg.failures == [
        FailureGroup("first-token", "timeout", 1, "no first token", "r6", None),
        FailureGroup("send", "http-error", 2, "HTTP 500: boom", "r3", 500),
        FailureGroup("stream", "timeout", 1, "no completion within 0.88 s", "r4", None),
    ]
    assert agg.blocked_by_reason_code == {"http-error": 2, "timeout": 2}
    assert sum(g.count for g in agg.failures) == agg.metrics["failed_requests"]


def test_failure_without_stage_or_category_is_still_counted() -> None:
    agg = aggregate([R1, failed("z", 10_000, 10_010, None, None)])
    assert agg.failures == [FailureGroup("stream", "other", 1, "other", "z", None)]
    assert agg.blocked_by_reason_code == {"other": 1}


def test_long_failure_message_is_cut() -> None:
    agg = aggregate([failed("z", 0, 1, "send", "http-error", error="x" * 2000)])
    assert len(agg.failures[0].message) == 500


def test_e2e_seconds_for_turnaround() -> None:
    agg = aggregate(RECORDS)
    assert agg.e2e_s == pytest.approx([0.4, 0.6])
    p50, p95 = turnaround_s(agg.e2e_s)
    assert p50 == pytest.approx(0.5)
    assert p95 == pytest.approx(0.59)


def test_turnaround_of_nothing() -> None:
    assert turnaround_s([]) == (None, None)


# ---- token counts -----------------------------------------------------------------------


def test_token_count_source_single() -> None:
    assert aggregate([R1, R2]).metrics["token_count_source"] == "server-usage"


def test_token_count_source_mixed() -> None:
    r = ok("s", 10_000, [10_010, 10_020], out=2, inp=3, source="stream-count")
    assert aggregate([R1, r]).metrics["token_count_source"] == "mixed"


def test_token_count_source_hint_wins() -> None:
    assert aggregate([R1], token_source_hint="simulated").metrics["token_count_source"] == "simulated"


def test_token_count_source_unknown_is_none() -> None:
    r = RequestRecord("n", start_ns=0, first_token_ns=MS, end_ns=2 * MS, chunk_ns=[MS, 2 * MS])
    m = aggregate([r]).metrics
    assert m["token_count_source"] is None
    assert m["output_tokens_total"] is None and m["output_tokens_per_sec"] is None


# ---- degenerate sets ---------------------------------------------------------------------


def test_all_failed() -> None:
    agg = aggregate([R3, R4, R5, R6])
    m = agg.metrics
    assert (m["total_requests"], m["completed_requests"], m["failed_requests"]) == (4, 0, 4)
    assert m["success_rate"] == 0.0
    for key in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"):
        assert m[key] is None
    assert m["output_tokens_total"] is None and m["output_tokens_per_sec"] is None
    assert m["mean_isl"] is None and m["mean_osl"] is None
    assert m["duration_s"] == pytest.approx(0.9)  # 10 100 → 11 000 ms: failures still took time
    assert agg.blocked_by_reason_code == {"http-error": 2, "timeout": 2}
    assert agg.e2e_s == []


def test_no_records() -> None:
    agg = aggregate([])
    m = agg.metrics
    assert m["total_requests"] == 0
    assert m["success_rate"] is None
    assert m["duration_s"] is None and m["requests_per_sec"] is None
    assert agg.failures == [] and agg.blocked_by_reason_code == {}


# ---- SLOs -------------------------------------------------------------------------------


def test_slo_outcome_on_time_rate_and_violations() -> None:
    slos = [("ttft-150", "ttft_ms", "<=", 150.0), ("e2e-600", "e2e_ms", "<", 600.0)]
    rate, violations = slo_outcome([W1, R1, R2, R3], slos)
    # r1: 100 <= 150, 400 < 600 → on time; r2: 200 > 150 and 600 is not < 600; r3 failed
    assert rate == pytest.approx(1 / 3)
    assert violations == {"ttft-150": 2, "e2e-600": 2}


def test_slo_threshold_boundary_depends_on_the_operator() -> None:
    assert slo_outcome([R2], [("a", "e2e_ms", "<=", 600.0)]) == (1.0, {"a": 0})
    assert slo_outcome([R2], [("a", "e2e_ms", "<", 600.0)]) == (0.0, {"a": 1})


def test_slo_on_itl_uses_the_worst_gap_of_each_request() -> None:
    # worst gaps: r1 150 ms, r2 200 ms
    assert slo_outcome([R1, R2], [("itl", "itl_ms", "<=", 180.0)]) == (0.5, {"itl": 1})


def test_slo_on_tpot() -> None:
    assert slo_outcome([R1, R2], [("tpot", "tpot_ms", "<=", 100.0)]) == (1.0, {"tpot": 0})
    assert slo_outcome([R1, R2], [("tpot", "tpot_ms", "<", 100.0)]) == (0.0, {"tpot": 2})


def test_a_one_token_answer_has_no_gap_to_miss_a_tpot_or_itl_slo() -> None:
    one_token = ok("o1", 10_000, [10_020], out=1, inp=10)  # TTFT 20 ms, nothing after the first token
    one_chunk = ok("o2", 10_000, [10_030], out=3, inp=10)  # three tokens in one chunk: no gap between chunks
    slos = [("tpot", "tpot_ms", "<=", 1.0), ("itl", "itl_ms", "<=", 1.0)]
    assert slo_outcome([one_token], slos) == (1.0, {"tpot": 0, "itl": 0})  # vllm --goodput: TPOT 0
    # three tokens in one chunk have a TPOT ((30-30)/2 = 0) and no gap
    assert slo_outcome([one_chunk], slos) == (1.0, {"tpot": 0, "itl": 0})
    # the same one-token answer still misses what it did exceed, and a failure still misses all
    assert slo_outcome([one_token], [("ttft", "ttft_ms", "<", 20.0), *slos]) == (0.0, {"ttft": 1, "tpot": 0, "itl": 0})
    assert slo_outcome([R3], slos) == (0.0, {"tpot": 1, "itl": 1})
    # an answer whose token count is unknown has no TPOT measured: it does not hold
    unknown = ok("o3", 10_000, [10_020, 10_040], out=None, inp=10)  # type: ignore[arg-type]
    assert slo_outcome([unknown], [("tpot", "tpot_ms", "<=", 1e9)]) == (0.0, {"tpot": 1})


def test_failed_request_violates_every_slo() -> None:
    rate, violations = slo_outcome([R4], [("a", "ttft_ms", "<=", 1e9), ("b", "e2e_ms", "<=", 1e9)])
    assert rate == 0.0
    assert violations == {"a": 1, "b": 1}


def test_slo_without_slos_or_measured_records() -> None:
    assert slo_outcome([R1], []) == (None, {})
    assert slo_outcome([W1], [("a", "ttft_ms", "<=", 1.0)]) == (None, {})


def test_goodput_is_requests_within_every_slo_per_second_of_the_window() -> None:
    # window: r1 starts at 10 000 ms, r2 ends last at 10 650 ms → 0.65 s; only r1 meets both SLOs
    slos = [("ttft-150", "ttft_ms", "<=", 150.0), ("e2e-600", "e2e_ms", "<", 600.0)]
    records = [W1, R1, R2, R3]
    duration = aggregate(records).metrics["duration_s"]
    assert duration == pytest.approx(0.65)
    count = slo_count(records, slos)
    assert count is not None and (count.measured, count.on_time) == (3, 1)
    assert goodput(count, duration) == pytest.approx(1 / 0.65)
    # loosen the SLOs: r1 and r2 (not the failed r3) → 2 / 0.65 s, beside requests_per_sec's 2 / 0.65 s
    loose = slo_count(records, [("e2e", "e2e_ms", "<=", 600.0)])
    assert goodput(loose, duration) == pytest.approx(2 / 0.65) == pytest.approx(aggregate(records).metrics["requests_per_sec"])


def test_goodput_is_null_without_slos_requests_or_window() -> None:
    assert goodput(slo_count([R1], []), 1.0) is None
    assert goodput(slo_count([W1], [("a", "ttft_ms", "<=", 1.0)]), 1.0) is None  # no measured request
    assert goodput(slo_count([R1], [("a", "ttft_ms", "<=", 1.0)]), None) is None
    assert goodput(slo_count([R1], [("a", "ttft_ms", "<=", 1.0)]), 2.0) == 0.0  # measured, none on time: zero, not null


def test_unknown_slo_metric_raises() -> None:
    with pytest.raises(ValueError, match="unknown SLO metric"):
        slo_outcome([R1], [("a", "gpu_util", "<=", 1.0)])


# ---- timeline_stats: the fast statistics agree with the formulas -----------------------


@st.composite
def token_timelines(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray, list[list[tuple[int, int]]], list[int], int]:
    """Iteration end times of 1-3 timelines, and requests that each produced tokens in
    one or more runs of iterations of one timeline (a preempted request has several)."""
    lengths = draw(st.lists(st.integers(1, 12), min_size=1, max_size=3))
    ends: list[int] = []
    timeline_starts = []
    for n in lengths:
        timeline_starts.append(len(ends))
        t = draw(st.integers(0, 10**6))
        for _ in range(n):
            t += draw(st.integers(1, 10**7))
            ends.append(t)
    requests: list[list[tuple[int, int]]] = []
    starts: list[int] = []
    for _ in range(draw(st.integers(0, 6))):
        tl = draw(st.integers(0, len(lengths) - 1))
        base, n = timeline_starts[tl], lengths[tl]
        cuts = sorted(draw(st.lists(st.integers(0, n - 1), min_size=1, max_size=4, unique=True)))
        segs = [(base + a, base + b) for a, b in zip(cuts[::2], cuts[1::2] + [cuts[-1]] * (len(cuts) % 2), strict=False)]
        segs = [s for i, s in enumerate(segs) if i == 0 or s[0] > segs[i - 1][1]]
        requests.append(segs)
        starts.append(max(0, ends[segs[0][0]] - draw(st.integers(1, 10**7))))  # sent before its first token
    failed = draw(st.integers(0, 2))
    return np.asarray(ends, dtype=np.int64), np.asarray(timeline_starts, dtype=np.int64), requests, starts, failed


@settings(max_examples=200, deadline=None)
@given(token_timelines())
def test_timeline_stats_agree_with_aggregate_columns(tl: tuple[np.ndarray, np.ndarray, list[list[tuple[int, int]]], list[int], int]) -> None:
    ends, timeline_starts, requests, starts, failed = tl
    cols = Columns()
    seg_req, seg_first, seg_last = [], [], []
    for i, (segs, start) in enumerate(zip(requests, starts, strict=True)):
        chunks = [int(ends[j]) for a, b in segs for j in range(a, b + 1)]
        cols.add(RequestRecord(request_id=f"r{i}", start_ns=start, first_token_ns=chunks[0], end_ns=chunks[-1], chunk_ns=chunks, output_tokens=len(chunks)))
        for a, b in segs:
            seg_req.append(i)
            seg_first.append(a)
            seg_last.append(b)
    fail_start = min(starts, default=0)
    for k in range(failed):
        cols.add(RequestRecord(request_id=f"f{k}", start_ns=fail_start, ok=False, stage="send", category="http-error"))
    fs = timeline_stats(
        ends,
        timeline_starts,
        np.asarray(seg_req, dtype=np.int64),
        np.asarray(seg_first, dtype=np.int64),
        np.asarray(seg_last, dtype=np.int64),
        np.asarray(starts, dtype=np.int64),
        fail_start,
        len(requests) + failed,
    )
    agg = aggregate_columns(cols).metrics
    assert fs.failed == agg["failed_requests"]
    assert fs.output_tokens == (agg["output_tokens_total"] or 0)
    for name, values in (("ttft_ms", fs.ttft_ms), ("e2e_ms", fs.e2e_ms), ("tpot_ms", fs.tpot_ms), ("itl_ms", fs.itl_samples())):
        dist = agg[name]
        if dist is None:
            assert values.size == 0, name
            continue
        assert values.size == dist["count"], name
        assert math.isclose(float(np.mean(values)), dist["mean"], rel_tol=1e-9, abs_tol=1e-9), name
        assert math.isclose(float(np.max(values)), dist["max"], rel_tol=1e-9, abs_tol=1e-9), name
        assert math.isclose(float(np.min(values)), dist["min"], rel_tol=1e-9, abs_tol=1e-9), name
    if requests:
        assert agg["duration_s"] is not None and math.isclose(fs.window_s, agg["duration_s"], rel_tol=1e-12)
