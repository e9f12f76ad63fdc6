"""One multi-turn load, measured on the embedded llama.cpp engine (``run --sessions``) and
predicted (``predict --sessions`` on the tiny-llama-on-cpu scenario): both labelled by the
same ``adhoc-<digest>``, both with per-turn figures, and ``compare`` pairs them."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer

pytestmark = pytest.mark.integration

LOAD = ("--sessions", "2", "--turns", "3", "--isl", "32", "--osl", "16", "--think-time-ms", "50", "--system-prompt-tokens", "256")


def _cli(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SERVESCOPE_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=300, env=env, check=False)


def test_a_sessions_prediction_compares_with_its_measurement(llama: LlamaServer, tmp_path: Path) -> None:
    measured = _cli("run", *LOAD, "--endpoint", llama.openai_base_url, "--out", str(tmp_path / "runs"), cache=tmp_path / "cache")
    assert measured.returncode == 0, measured.stderr
    predicted = _cli("predict", "tiny-llama-on-cpu", *LOAD, "--out", str(tmp_path / "predictions"), cache=tmp_path / "cache")
    assert predicted.returncode == 0, predicted.stderr
    [result_path] = (tmp_path / "runs").rglob("result.json")
    [prediction_path] = (tmp_path / "predictions").rglob("prediction.json")
    result = json.loads(result_path.read_text())
    prediction = json.loads(prediction_path.read_text())
    simulated = json.loads((prediction_path.parent / "result.json").read_text())
    assert result["workload_id"].startswith("adhoc-") and prediction["workload"] == result["workload_id"] == simulated["workload_id"]
    # the same per-turn shape on both sides, and the same lines printed after each table
    run_rows, sim_rows = result["resolved_params"]["turns"], simulated["resolved_params"]["turns"]
    assert [r["turn"] for r in run_rows] == [r["turn"] for r in sim_rows] == [1, 2, 3]
    assert set(run_rows[0]) == set(sim_rows[0]) and [r["completed"] for r in sim_rows] == [2, 2, 2]
    for k in (1, 2, 3):
        assert f"turn {k}: 2 completed, TTFT p50 " in measured.stdout and f"turn {k}: 2 completed, TTFT p50 " in predicted.stdout
    # the engine's prompt counts and the simulated ones: the same history in the template's wraps by role
    # (an answer sent back is tokenised anew by the engine: within a token or so of its --osl)
    assert run_rows[0]["input_tokens_mean"] == sim_rows[0]["input_tokens_mean"], (run_rows, sim_rows)
    for run_row, sim_row in zip(run_rows, sim_rows, strict=True):
        assert abs(run_row["input_tokens_mean"] - sim_row["input_tokens_mean"]) <= 2, (run_rows, sim_rows)
    compared = _cli("compare", str(prediction_path), str(result_path), cache=tmp_path / "cache")
    assert compared.returncode == 0, compared.stdout + compared.stderr
    assert result["workload_id"] in compared.stdout, compared.stdout
