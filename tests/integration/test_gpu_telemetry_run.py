"""GPU telemetry on a real run: the loopback timing-truth server answers, a tiny
DCGM exporter (tests/bench/dcgm_server.py) serves the recorded-style page with values
that move while the run goes, and the Result's gpu_telemetry block is held against
what the exporter served."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.recover import result_from_records
from servescope.bench.run import run_workload
from servescope.bench.run_spec import RunOptions
from servescope.catalog.store import Catalog
from servescope.cli_run import summary_table
from servescope.testing.truth.server import TruthServer
from tests.bench.dcgm_server import DcgmServer

POWER = {"0": 300.0, "1": 250.0, "2": 120.0, "3": 60.0}


def test_a_sweep_carries_gpu_telemetry_per_point_and_per_run(itest_catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(itl_ms=5.0, ttft_ms=20.0) as srv, DcgmServer(POWER, util_pct=lambda t: min(100.0, 10.0 + 40.0 * t)) as dcgm:
        opts = RunOptions("sweep-itest-1-4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, gpu_metrics_url=dcgm.url, scrape_interval_s=0.05)
        art = run_workload(opts, catalog=itest_catalog)
        served = [t for t, _ in dcgm.served]
    res = art.result
    assert res.points is not None and len(res.points) == 3
    # the pages served, in order: the check before the run, then each point's scrapes (a snapshot before its load, after it, between)
    assert len(served) == 1 + sum(p.metrics.gpu_telemetry.scrapes for p in res.points)  # type: ignore[union-attr]
    first = 1
    for p in res.points:
        t = p.metrics.gpu_telemetry
        assert t is not None and t.source == dcgm.url and t.scrapes >= 2
        server_window_s = served[first + t.scrapes - 1] - served[first]
        first += t.scrapes
        assert [g.gpu for g in t.gpus] == ["0", "1", "2", "3"]
        for g in t.gpus:
            assert g.power_w_mean == pytest.approx(POWER[g.gpu]) and g.power_w_max == pytest.approx(POWER[g.gpu])
            assert g.energy_source == "energy-counter" and g.model_name == "NVIDIA H100 80GB HBM3"
            # the counter advanced by power x the exporter's clock between the window's first and last scrape (to 1 mJ)
            assert g.energy_j == pytest.approx(POWER[g.gpu] * server_window_s, abs=0.002)
            assert t.window_s == pytest.approx(server_window_s, abs=0.25)  # the client's clock says about the same
            assert g.utilization_pct_mean is not None and 10.0 <= g.utilization_pct_mean <= 100.0
        assert t.energy_j == pytest.approx(sum(g.energy_j or 0 for g in t.gpus))
        assert p.metrics.output_tokens_total and t.energy_per_output_token_j == pytest.approx(t.energy_j / p.metrics.output_tokens_total)
    run = res.metrics.gpu_telemetry
    assert run is not None and run.energy_j == pytest.approx(sum(p.metrics.gpu_telemetry.energy_j for p in res.points))  # type: ignore[union-attr,misc]
    assert run.energy_per_output_token_j == pytest.approx(run.energy_j / res.metrics.output_tokens_total)  # type: ignore[operator]
    assert res.check() == []
    table = _render(summary_table(res))
    assert "GPU W" in table and "J/out tok" in table and "goodput" not in table
    assert f"{sum(POWER.values()):,.1f}" in table  # 730.0 W over the four GPUs, every point
    scrape = res.metadata.gpu_scrape
    assert scrape is not None and scrape.scrapes == len(served) - 1 and scrape.failed == 0 and scrape.note is None
    # a run that never wrote its Result: the point_done lines carry each point's block
    art.result_path.unlink()
    rebuilt = result_from_records(art.records_path, itest_catalog)
    assert [p.metrics.gpu_telemetry for p in rebuilt.points or []] == [p.metrics.gpu_telemetry for p in res.points]
    assert rebuilt.metrics.gpu_telemetry == res.metrics.gpu_telemetry


def test_without_the_flag_there_is_no_block(itest_catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(itl_ms=1.0, ttft_ms=2.0) as srv:
        art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog)
    assert art.result.metrics.gpu_telemetry is None
    table = _render(summary_table(art.result))
    assert "GPU W" not in table and "goodput" not in table


def _render(table: object) -> str:
    from rich.console import Console

    console = Console(width=250, record=True)
    console.print(table)
    return console.export_text()


def test_a_bad_url_is_one_line_before_anything_runs(tmp_path: Path) -> None:
    with TruthServer(itl_ms=1.0, ttft_ms=2.0) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "servescope", "run", "serve-short-c16-i128-o128-v1", "--endpoint", srv.base_url, "--out", str(tmp_path / "runs")]
            + ["--gpu-metrics-url", srv.base_url + "/v1/models"],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
        log = srv.read_log()
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.strip().splitlines()[-1].startswith(f"error: --gpu-metrics-url {srv.base_url}/v1/models: ")
    assert "Traceback" not in proc.stderr
    assert not (tmp_path / "runs").exists() and not log  # nothing written, nothing sent
