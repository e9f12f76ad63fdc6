"""predict(): catalog workloads and synthetic ones, documents in the harness's
shapes, byte-identical output for the same seed."""

from __future__ import annotations

import json

import numpy as np
import pytest

from servescope.analysis.metrics import aggregate
from servescope.catalog.store import Catalog
from servescope.documents import Prediction, Result
from servescope.documents.record import RequestRecord
from servescope.predict.api import format_table, predict, prepare, run_simulation
from servescope.predict.deployment import deploy
from servescope.predict.outputs import fast_stats
from servescope.predict.workload_input import SyntheticWorkload
from servescope.workload.arrivals import arrival_offsets_ns
from tests.predict.conftest import scenario


@pytest.fixture(scope="module")
def tiny_run(catalog: Catalog):  # type: ignore[no-untyped-def]
    return predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog)


def test_sweep_gives_one_row_per_concurrency(tiny_run) -> None:  # type: ignore[no-untyped-def]
    p = tiny_run.prediction
    assert [pt.concurrency for pt in p.points] == [1, 2, 4, 8]
    assert [pt.completed_requests for pt in p.points] == [8, 8, 8, 16]
    assert all(pt.mean_osl == 64 for pt in p.points)
    assert p.timing_mode == "simulated" and p.predictor == "servescope-sim"
    # ITL grows with batch while output throughput grows too: continuous batching
    itl = [pt.itl_ms for pt in p.points]
    tput = [pt.output_tokens_per_sec for pt in p.points]
    assert itl == sorted(itl) and tput == sorted(tput)
    Prediction.model_validate(p.dump())
    assert "conc" in format_table(p)


def test_records_have_the_harness_shape(tiny_run) -> None:  # type: ignore[no-untyped-def]
    recs: list[RequestRecord] = tiny_run.records
    assert len(recs) == sum(len(pt.requests) for pt in prepare("sweep-parallel-1-8-i128-o64-v1").points)  # type: ignore[union-attr]
    for r in recs:
        assert r.ok and r.token_count_source == "simulated" and r.finish_reason == "length"
        assert len(r.chunk_ns) == r.output_tokens == 64
        assert r.first_token_ns == r.chunk_ns[0] and r.end_ns == r.chunk_ns[-1]
        assert r.start_ns == r.sent_ns < r.first_token_ns
    # real token counts from the shipped tokenizer + 11 chat-template tokens, not nominal counts
    assert all(r.input_tokens and r.input_tokens > 11 for r in recs)


def test_result_is_a_valid_simulated_result(tiny_run) -> None:  # type: ignore[no-untyped-def]
    res: Result = tiny_run.result
    data = res.dump()
    again = Result.model_validate(data)
    assert again.timing_mode == "simulated"
    assert again.metadata.pipeline_mode == "deterministic" and again.metadata.non_deterministic is False
    assert again.metrics.device_utilization is not None and len(again.metrics.device_utilization) == 1
    assert len(again.points or []) == 4
    assert again.throughput == again.metrics.completed_requests == 40
    assert again.expected_config_id() == again.config_id


def test_a_predicted_sweep_carries_goodput_per_point(catalog: Catalog) -> None:
    from servescope.documents.slo import parse_request_slos

    run = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, slos=parse_request_slos("e2e_ms<=1000000000"))
    res = run.result
    assert res.on_time_rate == 1.0 and res.points is not None
    for p in res.points:  # every simulated request meets a loose SLO: goodput is the completion rate
        assert p.metrics.goodput_requests_per_sec == pytest.approx(p.metrics.requests_per_sec)
    # an E2E SLO just above the fastest point's median: the busiest point (c=8, slower requests) has requests that miss it
    p50_e2e = [p.metrics.e2e_ms.p50 for p in res.points if p.metrics.e2e_ms is not None]
    threshold = f"{min(p50_e2e) * 1.01:.3f}"
    tight = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog, slos=parse_request_slos(f"e2e_ms<={threshold}")).result
    assert tight.points is not None
    first, last = tight.points[0].metrics, tight.points[-1].metrics
    assert first.goodput_requests_per_sec is not None and last.goodput_requests_per_sec is not None
    assert last.goodput_requests_per_sec < (last.requests_per_sec or 0)
    assert tight.metrics.goodput_requests_per_sec is not None and tight.metrics.goodput_requests_per_sec < (tight.metrics.requests_per_sec or 0)
    records = [r for r in run.records if r.phase == "measured" and r.point == 3]
    within = sum(1 for r in records if r.e2e_ns is not None and r.e2e_ns / 1e6 <= float(threshold))
    window_s = (max(r.end_ns or 0 for r in records) - min(r.start_ns for r in records)) / 1e9
    assert last.goodput_requests_per_sec == pytest.approx(within / window_s)
    assert predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", catalog=catalog).result.metrics.goodput_requests_per_sec is None


def test_same_seed_same_bytes(catalog: Catalog) -> None:
    a = predict("llama-3.1-8b-on-h100", "serve-prefix-c16-v1", catalog=catalog)
    b = predict("llama-3.1-8b-on-h100", "serve-prefix-c16-v1", catalog=catalog)
    assert json.dumps(a.prediction.dump(), sort_keys=True) == json.dumps(b.prediction.dump(), sort_keys=True)
    assert json.dumps(a.result.dump(), sort_keys=True) == json.dumps(b.result.dump(), sort_keys=True)
    hit = a.prediction.points[0].prefix_cache_hit_rate
    assert hit is not None and 0.5 < hit < 1.0  # groups of 20 prompts share a ~1k-token prefix


def test_prefix_caching_lowers_ttft(catalog: Catalog) -> None:
    on = predict(scenario(), "serve-prefix-c16-v1", catalog=catalog).prediction.points[0]
    off_s = scenario(engine={"id": "vllm", "version": "0.11.0", "enable_prefix_caching": False})
    off = predict(off_s, "serve-prefix-c16-v1", catalog=catalog).prediction.points[0]
    assert off.prefix_cache_hit_rate is None
    assert on.ttft_ms is not None and off.ttft_ms is not None and on.ttft_ms < off.ttft_ms


def test_open_loop_uses_the_harness_arrivals(catalog: Catalog) -> None:
    run = predict(scenario(), SyntheticWorkload((1,), 256, 32, num_requests=40), catalog=catalog, rate=20.0, seed=1)
    starts = sorted(r.start_ns for r in run.records if r.phase == "measured")
    first = starts[0]
    assert [s - first for s in starts] == arrival_offsets_ns(40, 20.0, "poisson", seed=1)
    assert run.result.metrics.requested_rate == 20.0
    # the achieved rate is the one those 40 arrivals make, as the harness reads its sends
    # ((n - 1) / (last start - first start)), not the requested 20/s copied
    made = 39 / ((starts[-1] - first) / 1e9)
    assert abs(made - 20.0) > 0.5  # this seed's sample is off the requested rate: the check can fail
    assert run.result.metrics.achieved_rate == pytest.approx(made)


def test_predicted_stages_have_each_points_achieved_rate_and_their_mean_for_the_run(catalog: Catalog) -> None:
    run = predict(scenario(), SyntheticWorkload((), 256, 32, stages=((5.0, 4.0), (20.0, 1.5))), catalog=catalog, seed=2)
    assert run.result.points is not None and len(run.result.points) == 2
    made = []
    for i, point in enumerate(run.result.points):
        starts = sorted(r.start_ns for r in run.records if r.phase == "measured" and r.point == i)
        made.append((len(starts) - 1) / ((starts[-1] - starts[0]) / 1e9))
        assert point.metrics.achieved_rate == pytest.approx(made[-1])
    assert run.result.metrics.achieved_rate == pytest.approx(sum(made) / 2)


@pytest.mark.parametrize("dp, blocks", [(1, None), (2, 120)])
def test_fast_stats_agree_with_aggregate(catalog: Catalog, dp: int, blocks: int | None) -> None:
    from dataclasses import replace

    from servescope.predict.outputs import build_records

    dep = deploy(scenario(dp=dp, count=dp), catalog=catalog)
    if blocks is not None:  # a small pool: preempted requests produce their tokens in several segments
        dep.kv = replace(dep.kv, num_blocks=blocks)
    prepared = prepare(SyntheticWorkload((16,), 512, 64, num_requests=48, warmup_requests=4, range_ratio=0.4))
    out = run_simulation(prepared, dep)
    if blocks is not None:
        assert any(r.preemptions for r in out.requests)
    agg = aggregate(build_records(out))
    fs = fast_stats(out, 0)
    assert float(fs.ttft_ms.mean()) == pytest.approx(agg.metrics["ttft_ms"]["mean"])
    assert float(np.percentile(fs.ttft_ms, 90)) == pytest.approx(agg.metrics["ttft_ms"]["p90"])
    samples = fs.itl_samples()
    assert samples.size == agg.metrics["itl_ms"]["count"]
    assert float(samples.mean()) == pytest.approx(agg.metrics["itl_ms"]["mean"])
    assert float(np.percentile(samples, 90)) == pytest.approx(agg.metrics["itl_ms"]["p90"])
    assert float(fs.tpot_ms.mean()) == pytest.approx(agg.metrics["tpot_ms"]["mean"])
    assert float(fs.e2e_ms.max()) == pytest.approx(agg.metrics["e2e_ms"]["max"])
    assert fs.output_tokens_per_sec == pytest.approx(agg.metrics["output_tokens_per_sec"])


def test_synthetic_dp_reports_every_device(catalog: Catalog) -> None:
    run = predict("llama-3.1-8b-on-h100", SyntheticWorkload((8, 32), 1024, 128), catalog=catalog)
    pts = run.prediction.points
    assert [p.concurrency for p in pts] == [8, 32]
    assert all(p.device_utilization is not None and len(p.device_utilization) == 8 for p in pts)
    assert all(p.queue_length_mean is not None and len(p.queue_length_mean) == 4 for p in pts)
    # the steady-state replay varies lengths by +-10 % around the nominal ones
    assert all(abs(p.mean_isl - 1024) < 20 and abs(p.mean_osl - 128) < 4 for p in pts)  # type: ignore[operator]


@pytest.mark.parametrize(("rate", "textless"), [(None, (0, 0)), (30.0, (0, 0)), (None, (1, 1))])
def test_columns_from_the_simulation_equal_the_records(catalog: Catalog, rate: float | None, textless: tuple[int, int]) -> None:
    """The documents are computed from columns built straight from the simulation;
    they must be exactly what the records (as written to records.jsonl) give, also
    with the chunks without text a client times (``predict.stream_chunks``)."""
    from servescope.analysis.metrics import Columns, aggregate_columns
    from servescope.predict.outputs import build_columns, build_records

    dep = deploy(scenario(), catalog=catalog)
    prepared = prepare(SyntheticWorkload((1, 12), 700, 40, num_requests=30, warmup_requests=3, range_ratio=0.3), rate=rate)
    out = run_simulation(prepared, dep)
    direct = build_columns(out, textless)
    by_records: dict[int, Columns] = {}
    for rec in build_records(out, textless):
        by_records.setdefault(rec.point or 0, Columns()).add(rec)
    assert sorted(direct) == sorted(p for p, c in by_records.items() if c.ok)
    for p, cols in direct.items():
        want = by_records[p]
        for name in ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens", "chunk_len"):
            assert list(getattr(cols, name)) == list(getattr(want, name)), name
        assert np.array_equal(np.asarray(cols.chunk_flat), np.asarray(want.chunk_flat))
        assert cols.sources == want.sources and cols.failed == want.failed
        assert aggregate_columns(cols).metrics == aggregate_columns(want).metrics


def test_plain_columns_equal_the_records_with_preemptions_failures_and_replicas(catalog: Catalog) -> None:
    """``build_columns``' gathered path (every token its own chunk, no textless chunk): two replicas
    laid end to end, preempted requests' several segments and requests refused for their context
    give the columns the records give."""
    from dataclasses import replace

    from servescope.analysis.metrics import Columns
    from servescope.predict.outputs import build_columns, build_records

    dep = deploy(scenario(dp=2, count=2), catalog=catalog)
    dep.kv = replace(dep.kv, num_blocks=120)  # a small pool: preempted requests produce their tokens in several segments
    dep.engine = replace(dep.engine, max_model_len=600)  # the longest prompts are refused
    prepared = prepare(SyntheticWorkload((16,), 512, 64, num_requests=48, warmup_requests=4, range_ratio=0.4))
    out = run_simulation(prepared, dep)
    measured = [r for r in out.requests if r.phase == "measured"]
    assert any(len(r.segments) > 1 for r in measured) and any(r.failure for r in measured)
    assert {r.replica for r in measured if not r.failure} == {0, 1}
    direct = build_columns(out)
    by_records: dict[int, Columns] = {}
    for rec in build_records(out):
        by_records.setdefault(rec.point or 0, Columns()).add(rec)
    assert sorted(direct) == sorted(by_records)
    for p, cols in direct.items():
        want = by_records[p]
        for name in ("ok", "start_ns", "first_ns", "end_ns", "input_tokens", "output_tokens", "chunk_len"):
            assert list(getattr(cols, name)) == list(getattr(want, name)), name
        assert np.asarray(cols.chunk_flat).dtype == np.int64
        assert np.array_equal(np.asarray(cols.chunk_flat), np.asarray(want.chunk_flat))
        assert cols.sources == want.sources and cols.failed == want.failed


def test_records_are_built_only_when_asked(catalog: Catalog) -> None:
    run = predict("llama-3.1-8b-on-h100", SyntheticWorkload((4,), 256, 16, num_requests=8), catalog=catalog)
    assert run._lazy is not None and run._lazy._built is None
    assert sum(r.phase == "measured" for r in run.records) == 8 and run.records is run.records


def test_rate_alone_labels_the_point_by_its_rate(catalog: Catalog) -> None:
    spec = SyntheticWorkload((), isl=512, osl=64, rate=8.0)
    run = predict("llama-3.1-8b-on-h100", spec, catalog=catalog)
    [point] = run.prediction.points
    assert run.prediction.workload == spec.id == "synthetic-r8-i512-o64"
    assert point.request_rate == 8.0 and point.completed_requests == 480
    # concurrency: the most requests in flight at once, counted from the simulated send and end times
    recs = [r for r in run.records if r.phase == "measured"]
    events = sorted([(r.start_ns, 1) for r in recs] + [(r.end_ns, -1) for r in recs], key=lambda e: (e[0], e[1]))
    in_flight = np.cumsum([d for _, d in events])
    assert point.concurrency == int(in_flight.max()) >= 1
    assert all(r.concurrency == point.concurrency for r in run.records)
    assert run.result.resolved_params["load"] == "open" and run.result.metrics.requested_rate == 8.0
    assert "open loop at 8 req/s" in format_table(run.prediction)


def test_open_loop_points_carry_their_rate(catalog: Catalog) -> None:
    run = predict("llama-3.1-8b-on-h100", SyntheticWorkload((4,), isl=256, osl=16, num_requests=40), rate=5.0, catalog=catalog)
    assert [(p.concurrency, p.request_rate) for p in run.prediction.points] == [(4, 5.0)]
    closed = predict("llama-3.1-8b-on-h100", SyntheticWorkload((4,), isl=256, osl=16, num_requests=40), catalog=catalog)
    assert closed.prediction.points[0].request_rate is None


def test_synthetic_needs_a_concurrency_or_a_rate() -> None:
    with pytest.raises(ValueError, match="concurrency or a rate"):
        SyntheticWorkload((), isl=8, osl=8)


def test_a_closed_loop_measured_over_fewer_requests_than_its_streams_says_its_throughput_reads_low() -> None:
    """N measured requests at concurrency c read throughput about c/(N+c) low: said once N < 2c,
    never for a loop measured long enough."""
    from servescope.predict.workload_input import SyntheticWorkload

    short = predict("llama-3.1-8b-on-h100", SyntheticWorkload(concurrency=(400,), isl=16, osl=4, num_requests=100))
    [line] = [w for w in short.warnings if "reads about" in w]
    assert line.startswith("point c=400: 100 measured requests at concurrency 400") and "80% low" in line
    long = predict("llama-3.1-8b-on-h100", SyntheticWorkload(concurrency=(8,), isl=16, osl=4, num_requests=160))
    assert not [w for w in long.warnings if "reads about" in w]


def test_a_workload_whose_own_plan_is_past_the_simulators_limit_is_refused_before_planning() -> None:
    """A Workload document's warm-up count (which the command line's checks never see) counts
    towards the limit: refused at once, not planned for minutes."""
    import time

    from servescope.catalog.store import Catalog

    wl = Catalog.load().workload("serve-chat-c8-i1k-o256-v1")
    huge = wl.model_copy(update={"params": wl.params.model_copy(update={"warmup_requests": 50_000_000})})
    started = time.monotonic()
    with pytest.raises(ValueError, match=r"params.num_requests \+ params.warmup_requests .*SERVESCOPE_MAX_SIMULATED_REQUESTS"):
        predict("llama-3.1-8b-on-h100", huge)
    assert time.monotonic() - started < 5
