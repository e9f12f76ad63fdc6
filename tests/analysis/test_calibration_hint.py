"""compare's one-line hint: a prediction far from its measurement names the calibrate command to run."""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.analysis.calibration_hint import CALIBRATED_METRICS, calibrate_hint
from servescope.analysis.compare import compare
from servescope.documents import EvaluationRun, Prediction
from servescope.predict.api import predict

WORKLOAD = "sweep-parallel-1-8-i128-o64-v1"


@pytest.fixture(scope="module")
def prediction() -> Prediction:
    return predict("tiny-llama-on-cpu", WORKLOAD, concurrency=[1, 4], date="2026-01-01").prediction


def measured(prediction: Prediction, scale: float, scenario: str = "tiny-llama-on-cpu") -> EvaluationRun:
    """A measurement of the prediction's points whose throughput is ``scale`` times the predicted."""
    points = [
        {"concurrency": p.concurrency, "ttft_ms": p.ttft_ms, "itl_ms": p.itl_ms, "output_tokens_per_sec": (p.output_tokens_per_sec or 0) * scale,
         "mean_isl": p.mean_isl, "mean_osl": p.mean_osl}
        for p in prediction.points
    ]  # fmt: skip
    return EvaluationRun.model_validate({"kind": "EvaluationRun", "name": "m", "scenario": scenario, "harness": "servescope",
                                         "engine_version": "x", "workload": WORKLOAD, "points": points})  # fmt: skip


def test_a_large_error_names_the_calibrate_command(prediction: Prediction) -> None:
    run = measured(prediction, 1 / 3)  # the prediction says 3 x the throughput: +200 %
    hint = calibrate_hint(compare(prediction, run), ((prediction, Path("p/prediction.json")), (run, Path("my runs/evaluation-run.json"))))
    assert hint is not None and hint.startswith("hint: the prediction misses the measurement by more than 25 % (MAPE: output_tokens_per_sec 200 %)")
    command = hint.split("`")[1]
    assert shlex.split(command) == ["servescope", "calibrate", "tiny-llama-on-cpu", "--from", "my runs/evaluation-run.json",
                                    "--out", "calibration-tiny-llama-on-cpu.json"]  # fmt: skip
    # either side may be the prediction
    assert calibrate_hint(compare(run, prediction), ((run, Path("my runs/evaluation-run.json")), (prediction, Path("p.json")))) == hint


def test_no_hint_when_close_or_not_a_prediction_against_its_measurement(prediction: Prediction) -> None:
    close = measured(prediction, 1 / 1.2)  # +20 %: within the threshold
    assert calibrate_hint(compare(prediction, close), ((prediction, Path("a")), (close, Path("b")))) is None
    far = measured(prediction, 1 / 3)
    assert calibrate_hint(compare(far, far), ((far, Path("a")), (far, Path("b")))) is None  # two measurements
    assert calibrate_hint(compare(prediction, prediction), ((prediction, Path("a")), (prediction, Path("b")))) is None
    other = measured(prediction, 1 / 3, scenario="llama-3.1-8b-on-h100")  # forced across scenarios: no fit to suggest
    assert calibrate_hint(compare(prediction, other, force=True), ((prediction, Path("a")), (other, Path("b")))) is None


def test_the_hinted_metrics_are_those_calibrate_fits() -> None:
    from servescope.predict.calibrate import METRICS

    assert CALIBRATED_METRICS == METRICS


def test_compare_prints_the_hint_on_stderr_in_every_format(prediction: Prediction, tmp_path: Path) -> None:
    pred_path, run_path = tmp_path / "prediction.json", tmp_path / "measured.json"
    prediction.write_json(pred_path)
    run_path.write_text(json.dumps(measured(prediction, 1 / 3).dump()), encoding="utf-8")
    for fmt in ("text", "json"):
        proc = subprocess.run([sys.executable, "-m", "servescope", "compare", str(pred_path), str(run_path), "--format", fmt],
                              capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        [hint] = [line for line in proc.stderr.splitlines() if line.startswith("hint:")]
        assert f"servescope calibrate tiny-llama-on-cpu --from {run_path}" in hint
        assert "hint:" not in proc.stdout
    json.loads(proc.stdout)  # the JSON on stdout stays JSON


def test_compare_plot_into_a_missing_folder_creates_it(prediction: Prediction, tmp_path: Path) -> None:
    """--plot's folders are created as --out's are (checked before comparing), never a failure after the tables."""
    pred_path, run_path = tmp_path / "prediction.json", tmp_path / "measured.json"
    prediction.write_json(pred_path)
    run_path.write_text(json.dumps(measured(prediction, 1.0).dump()), encoding="utf-8")
    target = tmp_path / "plots" / "new" / "curves.html"
    proc = subprocess.run([sys.executable, "-m", "servescope", "compare", str(pred_path), str(run_path), "--plot", str(target)],
                          capture_output=True, text=True, timeout=120, check=False)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert target.is_file() and f"plot: {target}" in proc.stderr
