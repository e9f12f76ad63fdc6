"""DCGM exporter pages: parsing, per-GPU summaries over a window, merging points,
energy per output token, and the check of --gpu-metrics-url before a run.

The page is tests/bench/fixtures/dcgm_exporter.txt (see the README there): four
H100s on one host, the fourth in MIG mode (two GPU instances repeating its
device-level series), beside families servescope does not read."""

from __future__ import annotations

import socket

import pytest

from servescope.analysis.metrics import aggregate, energy_per_output_token
from servescope.analysis.results import EngineFigures, metrics_of
from servescope.bench.gpu_telemetry import GpuIdentity, check_gpu_metrics_url, merge_gpu_windows, parse_dcgm, summarize_gpus
from servescope.bench.scrape import EngineSnapshot
from servescope.documents.result import GpuTelemetry
from servescope.errors import UsageError
from tests.bench.dcgm_server import FIXTURE, TEXT, DcgmServer, set_value

ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
POWER = "DCGM_FI_DEV_POWER_USAGE"
UTIL = "DCGM_FI_DEV_GPU_UTIL"


def _value(values: dict[str, float], gpus: dict[str, GpuIdentity], gpu: str, field: str) -> float:
    [key] = [k for k, g in gpus.items() if g.gpu == gpu]
    return values[f"{key}\x1f{field}"]


def test_parse_reads_each_gpu_once() -> None:
    values, gpus = parse_dcgm(TEXT)
    assert sorted(g.gpu for g in gpus.values()) == ["0", "1", "2", "3"]  # the MIG GPU's two instances are one GPU
    g0 = next(g for g in gpus.values() if g.gpu == "0")
    assert (g0.uuid, g0.model_name, g0.hostname) == ("GPU-3f2a9c1e-8b7d-4e21-a6f0-5c9d2e7b1a04", "NVIDIA H100 80GB HBM3", "gpu-node-7")
    assert _value(values, gpus, "0", POWER) == 312.457  # not DCGM_FI_DEV_POWER_USAGE_INSTANT's 318.926
    assert _value(values, gpus, "0", ENERGY) == 9876543210  # a counter: prometheus_client calls its sample ..._total
    assert _value(values, gpus, "3", "DCGM_FI_DEV_FB_USED") == 11136
    assert _value(values, gpus, "2", "DCGM_FI_DEV_SM_CLOCK") == 1755
    assert len(values) == 4 * 6


def snap(t_s: float, text: str) -> EngineSnapshot:
    return EngineSnapshot(int(t_s * 1e9), parse_dcgm(text)[0])


def test_window_per_gpu_hand_computed() -> None:
    _, gpus = parse_dcgm(TEXT)
    pages = []
    for t, p0, util0, e1 in ((0.0, 300.0, 80, 5_000_000_000), (5.0, 320.0, 90, 4_000_000), (10.0, 340.0, 100, 4_500_000)):
        page = set_value(TEXT, POWER, "0", p0)
        page = set_value(page, "DCGM_FI_DEV_GPU_UTIL", "0", util0)
        page = set_value(page, ENERGY, "0", 9_876_543_210 + int(t * 300_000))  # +300 J per second
        page = set_value(page, ENERGY, "1", e1)  # GPU 1's counter went backwards (a reset): its power is integrated instead
        page = set_value(page, POWER, "1", 100.0)
        pages.append(snap(t, page))
    block = summarize_gpus("http://user:secret@gpu-node-7:9400/metrics", pages, gpus)
    assert block is not None
    assert block["source"] == "http://<redacted>@gpu-node-7:9400/metrics"
    assert block["window_s"] == 10.0 and block["scrapes"] == 3
    g0, g1, g2, g3 = block["gpus"]
    assert [g["gpu"] for g in block["gpus"]] == ["0", "1", "2", "3"]
    assert g0["power_w_mean"] == pytest.approx(320.0) and g0["power_w_max"] == 340.0
    assert g0["utilization_pct_mean"] == pytest.approx(90.0)
    assert g0["energy_j"] == pytest.approx(3000.0) and g0["energy_source"] == "energy-counter"
    assert g1["energy_j"] == pytest.approx(1000.0) and g1["energy_source"] == "power-integral"  # 100 W x 10 s
    # GPU 2's counter never moved while it drew 187.902 W: not refreshed in the window, so its power is integrated
    assert g2["energy_j"] == pytest.approx(1879.02) and g2["energy_source"] == "power-integral"
    assert g3["memory_used_mib_max"] == 11136 and g3["temperature_c_max"] == 44 and g3["sm_clock_mhz_mean"] == 1410
    assert g3["samples"] == 3
    assert g3["energy_j"] == pytest.approx(1213.38)  # 121.338 W x 10 s, its counter stale too
    assert block["energy_j"] == pytest.approx(3000.0 + 1000.0 + 1879.02 + 1213.38)
    GpuTelemetry.model_validate(block)


def test_power_alone_is_integrated_and_no_power_no_energy() -> None:
    only_power = "\n".join(line for line in TEXT.splitlines() if ENERGY not in line) + "\n"
    _, gpus = parse_dcgm(only_power)
    block = summarize_gpus("u", [snap(0, set_value(only_power, POWER, "2", 100.0)), snap(4, set_value(only_power, POWER, "2", 300.0))], gpus)
    assert block is not None
    g2 = block["gpus"][2]
    assert g2["energy_j"] == pytest.approx(800.0) and g2["energy_source"] == "power-integral"  # (100 + 300) / 2 W x 4 s
    util_only = "\n".join(line for line in TEXT.splitlines() if line.startswith(("# ", "DCGM_FI_DEV_GPU_UTIL"))) + "\n"
    _, gpus = parse_dcgm(util_only)
    block = summarize_gpus("u", [snap(0, util_only), snap(1, util_only)], gpus)
    assert block is not None and block["energy_j"] is None
    assert all(g["energy_j"] is None and g["power_w_mean"] is None and g["utilization_pct_mean"] is not None for g in block["gpus"])
    assert summarize_gpus("u", [], gpus) is None


def test_absurd_values_become_null_not_infinity() -> None:
    # 1e308 W on a page is finite; its mean and its integral over a second are not: a Result holds finite numbers only
    page = "\n".join(line for line in TEXT.splitlines() if ENERGY not in line) + "\n"
    page = set_value(page, POWER, "1", "1e308")
    _, gpus = parse_dcgm(page)
    block = summarize_gpus("u", [snap(0, page), snap(1, page)], gpus)
    assert block is not None
    g1 = block["gpus"][1]
    assert g1["power_w_mean"] is None and g1["power_w_max"] == 1e308 and g1["energy_j"] is None and g1["energy_source"] is None
    assert block["energy_j"] is None
    GpuTelemetry.model_validate(block)


def test_merging_points_weights_means_by_samples_and_adds_energy() -> None:
    def block(samples: int, power: float, energy: float | None) -> dict[str, object]:
        gpu = {"gpu": "0", "uuid": "U", "model_name": "m", "hostname": "h", "samples": samples, "power_w_mean": power, "power_w_max": power + 10}
        gpu |= {"utilization_pct_mean": 50.0, "memory_used_mib_max": 100.0 * samples, "sm_clock_mhz_mean": 1000.0, "temperature_c_max": 40.0 + samples}
        gpu |= {"energy_j": energy, "energy_source": None if energy is None else "energy-counter"}
        return {"source": "u", "window_s": 2.0 * samples, "scrapes": samples, "gpus": [gpu], "energy_j": energy}

    merged = merge_gpu_windows([block(1, 100.0, 50.0), block(3, 200.0, 900.0)])
    assert merged is not None
    [g] = merged["gpus"]
    assert g["samples"] == 4 and g["power_w_mean"] == pytest.approx(175.0) and g["power_w_max"] == 210.0
    assert g["memory_used_mib_max"] == 300.0 and g["temperature_c_max"] == 43.0
    assert g["energy_j"] == 950.0 and merged["energy_j"] == 950.0 and merged["window_s"] == 8.0
    # a point without telemetry: the run's energy is unknown (its tokens would be divided by a part of the energy)
    partial = merge_gpu_windows([block(1, 100.0, 50.0), None])
    assert partial is not None and partial["energy_j"] is None and partial["gpus"][0]["energy_j"] is None
    assert merge_gpu_windows([None, None]) is None


def test_energy_per_output_token_in_the_metrics_block() -> None:
    assert energy_per_output_token(1000.0, 400) == 2.5
    assert energy_per_output_token(None, 400) is None and energy_per_output_token(10.0, 0) is None and energy_per_output_token(10.0, None) is None
    from tests.analysis.test_metrics import R1, R2  # 4 + 5 output tokens

    idle = TEXT
    for g in "123":  # GPUs 1-3 draw nothing: 0 J whatever their counters say
        idle = set_value(idle, POWER, g, 0.0)
    _, gpus = parse_dcgm(idle)
    window = summarize_gpus("u", [snap(0, idle), snap(1, set_value(idle, ENERGY, "0", 9_876_543_210 + 90_000))], gpus)
    m = metrics_of(aggregate([R1, R2]), EngineFigures(gpu=window))
    assert m.gpu_telemetry is not None and m.output_tokens_total == 9
    assert m.gpu_telemetry.energy_j == pytest.approx(90.0)
    assert m.gpu_telemetry.energy_per_output_token_j == pytest.approx(10.0)
    assert metrics_of(aggregate([R1, R2]), EngineFigures()).gpu_telemetry is None


def test_energy_per_token_is_null_when_the_scrapes_cover_only_part_of_the_run() -> None:
    """An exporter that stops answering mid-run: its energy is of the seconds it was read, the
    tokens of the whole run, so J/token would be too low by their ratio: null instead (the
    block keeps its energy and window, which say what was read)."""
    import dataclasses

    from tests.analysis.test_metrics import R1, R2

    _, gpus = parse_dcgm(TEXT)
    window = summarize_gpus("u", [snap(0, TEXT), snap(1, set_value(TEXT, ENERGY, "0", 9_876_543_210 + 90_000))], gpus)
    assert window is not None
    agg = aggregate([R1, R2])
    for duration_s, has_figure in ((window["window_s"] + 2.0, True), (window["window_s"] * 4 + 10.0, False)):
        long_run = dataclasses.replace(agg, metrics={**agg.metrics, "duration_s": duration_s})
        block = metrics_of(long_run, EngineFigures(gpu=window)).gpu_telemetry
        assert block is not None and block.energy_j is not None
        assert (block.energy_per_output_token_j is not None) is has_figure, duration_s


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_url_is_checked_before_a_run() -> None:
    with DcgmServer({g: 100.0 for g in "0123"}) as srv:
        assert check_gpu_metrics_url(srv.url) == 4
    for url, says in (
        ("gpu-node:9400/metrics", "give the exporter's http(s) URL"),
        ("ftp://gpu-node/metrics", "give the exporter's http(s) URL"),
        (f"http://127.0.0.1:{_free_port()}/metrics", "cannot read it (ConnectionRefusedError"),
    ):
        with pytest.raises(UsageError, match=r"^--gpu-metrics-url ") as info:
            check_gpu_metrics_url(url)
        assert says in str(info.value) and "\n" not in str(info.value)
    with DcgmServer({}, status=404, body="not found") as srv, pytest.raises(UsageError, match="answered HTTP 404"):
        check_gpu_metrics_url(srv.url)
    vllm_page = (FIXTURE.parent / "vllm_metrics.txt").read_text(encoding="utf-8")
    with DcgmServer({}, body=vllm_page) as srv, pytest.raises(UsageError, match="no DCGM GPU series on the page"):
        check_gpu_metrics_url(srv.url)
    with DcgmServer({}, body="DCGM_FI_DEV_POWER_USAGE{gpu=0 oops\n") as srv, pytest.raises(UsageError, match="not Prometheus text"):
        check_gpu_metrics_url(srv.url)
    with pytest.raises(UsageError) as info:
        check_gpu_metrics_url(f"http://admin:hunter22@127.0.0.1:{_free_port()}/metrics")
    assert "hunter22" not in str(info.value)


def test_credentials_in_the_url_are_sent_as_basic_auth_and_never_shown() -> None:
    import asyncio

    from servescope.bench.gpu_telemetry import GpuSampler

    with DcgmServer({g: 100.0 for g in "0123"}, authorization="Basic dXNlcjpzM2NyM3QhIQ==") as srv:  # user:s3cr3t!!
        url = srv.url.replace("http://", "http://user:s3cr3t%21%21@")
        assert check_gpu_metrics_url(url) == 4
        with pytest.raises(UsageError, match="answered HTTP 401") as info:
            check_gpu_metrics_url(url.replace("s3cr3t", "wrong"))
        assert "wrong" not in str(info.value)
        sampler = GpuSampler(url, interval_s=0.05)

        async def window() -> object:
            await sampler.start()
            await asyncio.sleep(0.2)
            return await sampler.stop()

        block = asyncio.run(window())
    assert isinstance(block, dict) and len(block["gpus"]) == 4 and block["scrapes"] >= 2
    assert "s3cr3t" not in repr(block) and block["source"].startswith("http://<redacted>@127.0.0.1:")


def test_readings_a_gpu_cannot_report_are_left_out_not_clamped() -> None:
    """A utilisation of -5 % or 250 %, a NaN or negative power: left out of the means, so a GPU
    whose only readings are impossible shows null, never a plausible 0 % or 0 W."""
    bad = set_value(set_value(TEXT, UTIL, "0", -5.0), POWER, "0", float("nan"))
    worse = set_value(set_value(TEXT, UTIL, "0", 250.0), POWER, "0", -3.0)
    _, gpus = parse_dcgm(TEXT)
    window = summarize_gpus("u", [snap(0, bad), snap(1, worse)], gpus)
    assert window is not None
    gpu0 = next(g for g in window["gpus"] if g["gpu"] == "0")
    assert gpu0["utilization_pct_mean"] is None and gpu0["power_w_mean"] is None and gpu0["power_w_max"] is None
    other = next(g for g in window["gpus"] if g["gpu"] == "1")
    assert other["utilization_pct_mean"] is not None and other["power_w_mean"] is not None
