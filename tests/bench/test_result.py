"""The measured Result: identity fields filled from the engine's args, honest
metadata, and failures located at their sweep point."""

from __future__ import annotations

from typing import Any

import pytest

from servescope.bench.outcome import PointOutcome
from servescope.bench.result import RunIdentity, build_result
from servescope.documents import Result, Workload
from servescope.documents.record import RequestRecord
from servescope.documents.result import Slo
from servescope.workload.plan import PlannedPoint

SWEEP: dict[str, Any] = {
    "id": "sweep-unit-v1",
    "kind": "sweep",
    "name": "unit sweep",
    "dataset_id": "prompts-mixed-v1",
    "params": {"concurrency": 1, "num_requests": 4, "output_tokens": 8, "seed": 0},
    "sweep": {"axis": "concurrency", "values": [1, 2]},
    "immutable": True,
    "created": "2026-12-01",
}
SERVING: dict[str, Any] = {**SWEEP, "id": "serve-unit-v1", "kind": "serving", "sweep": None, "params": {**SWEEP["params"], "concurrency": 2}}


def _ok(i: int, point: int, conc: int) -> RequestRecord:
    start = i * 10_000_000
    return RequestRecord(
        request_id=f"r{point}-{i}",
        concurrency=conc,
        point=point,
        start_ns=start,
        sent_ns=start,
        first_token_ns=start + 1_000_000,
        end_ns=start + 5_000_000,
        chunk_ns=[start + 1_000_000, start + 3_000_000, start + 5_000_000],
        input_tokens=10,
        output_tokens=3,
        token_count_source="server-usage",
    )


def _failed(i: int, point: int, conc: int, category: str = "timeout", stage: str = "stream") -> RequestRecord:
    return RequestRecord(
        request_id=f"f{point}-{i}",
        concurrency=conc,
        point=point,
        start_ns=i,
        sent_ns=i,
        ok=False,
        stage=stage,
        category=category,
        error=f"{category} at c={conc}",
    )


def _outcome(index: int, conc: int, records: list[RequestRecord], context: int | None = None) -> PointOutcome:
    return PointOutcome(PlannedPoint(index=index, concurrency=conc, context_tokens=context), records=records)


def _build(workload: dict[str, Any], outcomes: list[PointOutcome], slos: list[Slo] | None = None, **ident: Any) -> Result:
    wl = Workload.model_validate(workload)
    identity = RunIdentity(run_id="r", engine_id=ident.pop("engine_id", "vllm"), engine_version="0.32", model_id="m", **ident)
    return build_result(wl, outcomes, identity, resolved_params={}, started_at="s", finished_at="f", wall_s=1.0, records_file="records.jsonl", slos=slos)


def _timed(rid: str, point: int, start_ms: int, ttft_ms: int, e2e_ms: int) -> RequestRecord:
    ms = 1_000_000
    return RequestRecord(
        request_id=rid,
        concurrency=1,
        point=point,
        start_ns=start_ms * ms,
        sent_ns=start_ms * ms,
        first_token_ns=(start_ms + ttft_ms) * ms,
        end_ns=(start_ms + e2e_ms) * ms,
        chunk_ns=[(start_ms + ttft_ms) * ms, (start_ms + e2e_ms) * ms],
        output_tokens=2,
    )


def test_goodput_per_point_and_per_run_with_slos() -> None:
    # point 0 (index 3 in the plan): window 0..400 ms, TTFTs 50/150/90 → 2 within ttft_ms<=100 → 2 / 0.4 s = 5 req/s
    # point 1 (index 7): window 1000..1500 ms, TTFTs 20/300 → 1 within → 1 / 0.5 s = 2 req/s
    # the run: 3 within over 0..1500 ms → 2 req/s; on_time_rate 3 of 6 measured (the failed one is never on time)
    p0 = [_timed("a", 3, 0, 50, 200), _timed("b", 3, 100, 150, 300), _timed("c", 3, 200, 90, 200)]
    p1 = [_timed("d", 7, 1000, 20, 400), _timed("e", 7, 1100, 300, 400), _failed(9, 7, 1)]
    p1[-1].start_ns = 1_200_000_000
    slos = [Slo(id="ttft_ms<=100", metric="ttft_ms", threshold=100.0)]
    res = _build(SWEEP, [_outcome(3, 1, p0), _outcome(7, 2, p1)], slos=slos)
    assert res.points is not None
    assert res.points[0].metrics.goodput_requests_per_sec == pytest.approx(2 / 0.4)
    assert res.points[1].metrics.goodput_requests_per_sec == pytest.approx(1 / 0.5)
    assert res.metrics.goodput_requests_per_sec == pytest.approx(3 / 1.5)
    assert res.on_time_rate == pytest.approx(3 / 6)
    assert res.check() == []
    plain = _build(SWEEP, [_outcome(3, 1, p0), _outcome(7, 2, p1)])
    assert plain.metrics.goodput_requests_per_sec is None and all(p.metrics.goodput_requests_per_sec is None for p in plain.points or [])


def test_dtype_kv_dtype_and_quantization_come_from_the_args() -> None:
    res = _build(SERVING, [_outcome(0, 2, [_ok(0, 0, 2)])], args={"--dtype": "float32", "--kv-cache-dtype": "fp8_e4m3", "--quantization": "AWQ"})
    assert (res.model.dtype, res.model.kv_dtype, res.model.quantization) == ("fp32", "fp8", "awq")
    assert res.check() == []  # the recorded fields and args give the recorded config_id


def test_auto_dtype_stays_null() -> None:
    res = _build(SERVING, [_outcome(0, 2, [_ok(0, 0, 2)])], args={"--dtype": "auto"})
    assert res.model.dtype is None and res.check() == []


def test_allow_network_is_what_the_run_says() -> None:
    one = [_outcome(0, 2, [_ok(0, 0, 2)])]
    assert _build(SERVING, one, allow_network=True).metadata.allow_network is True
    assert _build(SERVING, one, allow_network=False).metadata.allow_network is False


def test_sweep_failures_are_one_entry_per_stage_category_and_concurrency() -> None:
    outcomes = [
        _outcome(0, 1, [_ok(0, 0, 1), _failed(1, 0, 1), _failed(2, 0, 1)]),
        _outcome(1, 2, [_ok(0, 1, 2), _failed(1, 1, 2), _failed(2, 1, 2, "http-error", "send")]),
    ]
    res = _build(SWEEP, outcomes)
    got = sorted((f.concurrency, f.stage, f.category, f.count) for f in res.failures)
    assert got == [(1, "stream", "timeout", 2), (2, "send", "http-error", 1), (2, "stream", "timeout", 1)]
    by_conc = {(f.concurrency, f.category): f for f in res.failures}
    assert by_conc[(2, "timeout")].message == "timeout at c=2" and by_conc[(2, "timeout")].sample_request_id == "f1-1"
    assert res.blocked_by_reason_code == {"http-error": 1, "timeout": 3}
    assert res.check() == []


def test_points_at_one_concurrency_share_a_failure_entry() -> None:
    # longctx: the points differ by context length, not by concurrency
    outcomes = [
        _outcome(0, 1, [_failed(0, 0, 1, "context-overflow", "send")], context=512),
        _outcome(1, 1, [_failed(0, 1, 1, "context-overflow", "send")], context=4096),
    ]
    wl = {**SWEEP, "id": "sweep-unit-ctx-v1"}
    res = _build(wl, outcomes)
    assert [(f.concurrency, f.category, f.count) for f in res.failures] == [(1, "context-overflow", 2)]
    assert res.check() == []


def test_a_single_point_run_keeps_concurrency_null() -> None:
    res = _build(SERVING, [_outcome(0, 2, [_ok(0, 0, 2), _failed(1, 0, 2)])])
    assert [(f.concurrency, f.count) for f in res.failures] == [(None, 1)]


def _long_prompt(i: int, point: int, conc: int, input_tokens: int, span_ms: int) -> RequestRecord:
    """``_ok``'s record with ``input_tokens`` and lasting ``span_ms`` (requests back to back)."""
    import dataclasses

    ms = 1_000_000
    start = i * span_ms * ms
    return dataclasses.replace(
        _ok(i, point, conc),
        request_id=f"l{point}-{i}",
        start_ns=start,
        sent_ns=start,
        first_token_ns=start + ms,
        end_ns=start + span_ms * ms,
        chunk_ns=[start + ms, start + span_ms * ms],
        input_tokens=input_tokens,
        output_tokens=2,
    )


def test_the_runs_hit_rate_counts_each_point_by_its_prompt_tokens_and_kv_by_its_seconds() -> None:
    """A sweep's run-level engine figures: hits over queries across the points (a point that
    sent 9x the prompt tokens counts 9x), KV utilisation over the run's time (a point measured
    for 3x the seconds counts 3x); not the plain mean of the points' figures."""
    from servescope.bench.outcome import EngineWindow

    small = _outcome(0, 1, [_long_prompt(i, 0, 1, 100, 10) for i in range(2)])  # 200 prompt tokens, 20 ms
    big = _outcome(1, 2, [_long_prompt(i, 1, 2, 900, 30) for i in range(2)])  # 1,800 prompt tokens, 60 ms
    small.engine = EngineWindow(kv_utilization=0.2, prefix_cache_hit_rate=0.0)
    big.engine = EngineWindow(kv_utilization=0.6, prefix_cache_hit_rate=0.5)
    res = _build(SWEEP, [small, big])
    assert res.metrics.prefix_cache_hit_rate == pytest.approx((0.0 * 200 + 0.5 * 1800) / 2000)  # 0.45, not 0.25
    assert res.metrics.kv_utilization == pytest.approx((0.2 * 20 + 0.6 * 60) / 80)  # 0.5, not 0.4
    points = res.points or []
    assert [p.metrics.prefix_cache_hit_rate for p in points] == [0.0, 0.5]  # each point keeps its own window's


def test_the_runs_hit_rate_is_the_engines_hits_over_its_queries_failed_prompts_included() -> None:
    """Where the engine counts its cache queries (vLLM's prefix_cache_queries, llama.cpp's prompt
    tokens), the run's hit rate is Σhits / Σqueries over the points' windows, prompts of requests
    that later failed included; not weighted by the completed requests' prompt tokens."""
    from servescope.bench.outcome import EngineWindow

    small = _outcome(0, 1, [_long_prompt(i, 0, 1, 100, 10) for i in range(2)])
    big = _outcome(1, 2, [_long_prompt(0, 1, 2, 900, 30)] + [_failed(i, 1, 2) for i in range(9)])  # 900 completed, 9,000 asked
    small.engine = EngineWindow(prefix_cache_hit_rate=0.0, prefix_cache_queries=200)
    big.engine = EngineWindow(prefix_cache_hit_rate=0.9, prefix_cache_queries=9000)
    res = _build(SWEEP, [small, big])
    assert res.metrics.prefix_cache_hit_rate == pytest.approx(0.9 * 9000 / 9200)  # not 0.9 * 900 / 1100


def test_a_point_whose_weight_is_not_known_makes_the_run_the_plain_mean_and_one_point_is_itself() -> None:
    from servescope.bench.outcome import EngineWindow

    small = _outcome(0, 1, [_long_prompt(i, 0, 1, 100, 10) for i in range(2)])
    failed = _outcome(1, 2, [_failed(i, 1, 2) for i in range(3)])  # no completed request, no engine counter
    small.engine = EngineWindow(prefix_cache_hit_rate=0.2)
    failed.engine = EngineWindow(prefix_cache_hit_rate=0.6)
    assert _build(SWEEP, [small, failed]).metrics.prefix_cache_hit_rate == pytest.approx(0.4)
    only = _outcome(0, 1, [_long_prompt(i, 0, 1, 100, 10) for i in range(2)])
    only.engine = EngineWindow(kv_utilization=0.7, prefix_cache_hit_rate=0.3)
    for doc in (SWEEP, SERVING):
        res = _build(doc, [only])
        assert (res.metrics.kv_utilization, res.metrics.prefix_cache_hit_rate) == (0.7, 0.3)  # the window itself, bit for bit
