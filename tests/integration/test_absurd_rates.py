"""Rates whose arrival schedule cannot be sent or simulated are refused in one line,
by ``run`` and ``predict`` (and every mode of predict that takes a rate), before
anything is started or written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.catalog.store import Catalog
from servescope.testing.truth.server import TruthServer

pytestmark = pytest.mark.integration


def cli(*args: str, catalog: Catalog | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, **({"SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1])} if catalog else {})}
    return subprocess.run([sys.executable, "-m", "servescope", *args], env=env, capture_output=True, text=True, timeout=120, check=False)


def _one_line_refusal(proc: subprocess.CompletedProcess[str], *phrases: str) -> None:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    for phrase in phrases:
        assert phrase in lines[0], lines[0]


@pytest.mark.parametrize("rate", ["1e-300", "1e-9", "1e-5"])
def test_run_refuses_a_rate_whose_schedule_cannot_be_sent(itest_catalog: Catalog, tmp_path: Path, rate: str) -> None:
    with TruthServer(ttft_ms=1, itl_ms=1) as srv:
        proc = cli(
            "run", "serve-itest-c4-v1", "--endpoint", srv.base_url, "--rate", rate, "--no-scrape", "--out", str(tmp_path / "runs"), catalog=itest_catalog
        )
        assert srv.read_log() == {}  # not one request sent
    _one_line_refusal(proc, f"--rate {float(rate):g}", "12 requests", "past the longest arrival schedule", "give a rate of at least")
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_run_at_a_slow_but_sendable_rate_is_not_refused_up_front(itest_catalog: Catalog, tmp_path: Path) -> None:
    """The control: 12 requests at 1000 req/s run and end in a Result."""
    with TruthServer(ttft_ms=1, itl_ms=1) as srv:
        proc = cli(
            "run", "serve-itest-c4-v1", "--endpoint", srv.base_url, "--rate", "1000", "--no-scrape", "--out", str(tmp_path / "runs"), catalog=itest_catalog
        )
    assert proc.returncode == 0, proc.stderr
    assert len(list((tmp_path / "runs").glob("*/result.json"))) == 1


@pytest.mark.parametrize(
    ("args", "phrases"),
    [
        (["--isl", "128", "--osl", "16", "--rate", "1e-9"], ["rate 1e-09", "past the longest arrival schedule"]),
        (["--isl", "128", "--osl", "16", "--rate", "1e-300"], ["rate 1e-300", "past the longest arrival schedule"]),
        (["serve-chat-c8-i1k-o256-v1", "--rate", "1e-9"], ["rate 1e-09", "200 requests"]),
        (["--isl", "128", "--osl", "16", "--stages", "1:1e300"], ["--stages", "past the longest schedule"]),
        (["--isl", "128", "--osl", "16", "--stages", "1:400000,2:400000"], ["--stages", "800000 s of arrivals"]),
    ],
)
def test_predict_refuses_a_schedule_it_cannot_simulate(tmp_path: Path, args: list[str], phrases: list[str]) -> None:
    proc = cli("predict", "llama-3.1-8b-on-h100", *args, "--out", str(tmp_path))
    _one_line_refusal(proc, *phrases)
    assert not any(tmp_path.iterdir())  # no Prediction written


def test_validate_rejects_a_result_with_an_overflowed_latency(tmp_path: Path) -> None:
    """A Result written before the bound (TTFT 9.2e12 ms) is invalid, whatever its scenario."""
    made = cli("predict", "llama-3.1-8b-on-h100", "--isl", "128", "--osl", "16", "--rate", "4", "--num-requests", "8", "--out", str(tmp_path))
    assert made.returncode == 0, made.stderr
    [result] = tmp_path.glob("*/result.json")
    assert cli("validate", str(result)).returncode == 0
    doc = json.loads(result.read_text())
    doc["metrics"]["ttft_ms"]["max"] = 9.223372036854776e12
    doc["scenario"] = "nobody-knows"
    result.write_text(json.dumps(doc))
    proc = cli("validate", str(result))
    assert proc.returncode == 1
    assert "metrics.ttft_ms.max: error:" in proc.stderr and "longer than any latency" in proc.stderr
