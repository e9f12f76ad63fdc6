"""Goodput on a real run: the loopback timing-truth server, SLOs that every request
meets and SLOs that some miss, a sweep's points, and the same figures rebuilt from
the records file of a run that never wrote its Result."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.bench.records import read_records
from servescope.bench.recover import result_from_records
from servescope.bench.run import run_workload
from servescope.bench.run_spec import RunOptions
from servescope.catalog.store import Catalog
from servescope.documents.slo import parse_request_slos
from servescope.testing.truth.server import TruthServer


def test_goodput_of_a_sweep_per_point_and_rebuilt_from_records(itest_catalog: Catalog, tmp_path: Path) -> None:
    # TTFT is 30 ms on this server; the sweep points run at concurrency 1, 2 and 4
    with TruthServer(itl_ms=1.0, ttft_ms=30.0) as srv:
        slos = parse_request_slos("ttft_ms<=45")
        art = run_workload(RunOptions("sweep-itest-1-4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, slos=slos), catalog=itest_catalog)
    res = art.result
    records = [r for r in read_records(art.records_path) if r.phase == "measured"]
    assert res.points is not None and len(res.points) == 3
    for index, point in enumerate(res.points):
        mine = [r for r in records if r.point == index]
        within = sum(1 for r in mine if r.ok and r.ttft_ns is not None and r.ttft_ns <= 45_000_000)
        window_s = (max(r.end_ns or 0 for r in mine) - min(r.start_ns for r in mine)) / 1e9
        assert point.metrics.duration_s == pytest.approx(window_s)
        assert point.metrics.goodput_requests_per_sec == pytest.approx(within / window_s)
        assert point.metrics.goodput_requests_per_sec <= (point.metrics.requests_per_sec or 0) * (1 + 1e-9)
    within_all = sum(1 for r in records if r.ok and r.ttft_ns is not None and r.ttft_ns <= 45_000_000)
    assert res.metrics.goodput_requests_per_sec == pytest.approx(within_all / (res.metrics.duration_s or 0))
    assert res.on_time_rate == pytest.approx(within_all / len(records))
    assert res.check() == []
    (art.result_path).unlink()  # as a killed run leaves it
    rebuilt = result_from_records(art.records_path, itest_catalog)
    assert rebuilt.metrics.goodput_requests_per_sec == res.metrics.goodput_requests_per_sec
    assert [p.metrics.goodput_requests_per_sec for p in rebuilt.points or []] == [p.metrics.goodput_requests_per_sec for p in res.points]


def test_goodput_is_zero_when_no_request_meets_the_slo_and_null_without_one(itest_catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(itl_ms=1.0, ttft_ms=30.0) as srv:
        missed = run_workload(
            RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, slos=parse_request_slos("ttft_ms<=5")),
            catalog=itest_catalog,
        )
        plain = run_workload(RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog)
    assert missed.result.metrics.goodput_requests_per_sec == 0.0 and missed.result.on_time_rate == 0.0
    assert (missed.result.metrics.requests_per_sec or 0) > 0
    assert plain.result.metrics.goodput_requests_per_sec is None and plain.result.on_time_rate is None
    from rich.console import Console

    from servescope.cli_run import summary_table

    console = Console(width=250, record=True)
    console.print(summary_table(missed.result))
    console.print(summary_table(plain.result))
    with_slo, without = console.export_text().split("serve-itest-c4-v1", 2)[1:]
    assert "goodput req/s" in with_slo and "0.00" in with_slo and "goodput" not in without
