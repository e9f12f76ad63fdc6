"""One interval per predicted point, whoever reads it: ``compare`` and ``report`` read a prediction's
folder (its simulated result.json) with the same per-point intervals as its prediction.json, the
known-miss widening, the burst span of an unstated client start and E2E included; a hand-edited
interval that cannot be one is refused in one line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.analysis.compare import compare
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.report.evidence import to_run
from servescope.report.points import chart_points


def servescope(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=300, check=False)


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A prediction whose c=32 point is in a known-miss regime (TTFT widened to 5x) and whose client
    start is unstated (the intervals span the burst reading): the factors alone give neither."""
    out = tmp_path_factory.mktemp("predicted")
    proc = servescope("predict", "llama-3.1-8b-on-h100", "--concurrency", "1,32", "--isl", "1024", "--osl", "64", "--num-requests", "64", "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    [where] = [p.parent for p in out.rglob("prediction.json")]
    return where


def documents(folder: Path) -> tuple[Prediction, Result]:
    return (
        Prediction.model_validate_json((folder / "prediction.json").read_text()),
        Result.model_validate_json((folder / "result.json").read_text()),
    )


def measurement(prediction: Prediction, where: float) -> EvaluationRun:
    """A measurement of the predicted load whose every figure lies at ``where`` of the way from its
    point's interval low to its high (0.95: inside, near the widened top the factors do not reach)."""
    points = []
    for p in prediction.points:
        assert p.intervals is not None
        points.append(
            {
                "concurrency": p.concurrency,
                **{name: lo + where * (hi - lo) for name, (lo, hi) in p.intervals.items() if name in ("ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_sec")},
            }
        )
    doc = {"kind": "EvaluationRun", "name": "measured", "scenario": prediction.scenario, "harness": "servescope", "engine_version": "0.11.0"}
    return EvaluationRun.model_validate({**doc, "workload": prediction.workload, "points": points})


def test_the_prediction_carries_intervals_the_factors_alone_do_not_give(folder: Path) -> None:
    prediction, _ = documents(folder)
    assert prediction.interval is not None and prediction.interval.known_misses == ["closed-loop-long-prompt-ttft"]
    high = prediction.points[1]
    assert high.intervals is not None
    ttft_factor_high = prediction.interval.factors["ttft_ms"][1]
    assert high.ttft_ms is not None and high.intervals["ttft_ms"][1] > 2 * high.ttft_ms * ttft_factor_high  # widened well past the factors


def test_compare_gives_the_same_verdicts_from_the_folder_as_from_the_prediction(folder: Path) -> None:
    prediction, result = documents(folder)
    measured = measurement(prediction, 0.95)
    from_prediction = {(p.concurrency, p.metric): p.inside_interval for p in compare(prediction, measured).pairs}
    from_result = {(p.concurrency, p.metric): p.inside_interval for p in compare(result, measured).pairs}
    assert from_prediction[(32, "ttft_ms")] is True and from_prediction[(32, "e2e_ms")] is True
    assert from_result == from_prediction
    # and through the CLI, given the folder as comparing.md documents it
    (folder.parent / "measured.json").write_text(measured.model_dump_json(exclude_none=True))
    by_folder = servescope("compare", str(folder), str(folder.parent / "measured.json"), "--format", "csv")
    by_file = servescope("compare", str(folder / "prediction.json"), str(folder.parent / "measured.json"), "--format", "csv")
    assert by_folder.returncode == 0, by_folder.stderr
    assert by_folder.stdout == by_file.stdout


def test_the_report_draws_each_points_own_interval(folder: Path) -> None:
    prediction, result = documents(folder)
    for doc, source in ((result, folder / "result.json"), (prediction, folder / "prediction.json")):
        [_, high] = chart_points(to_run(doc, source, {}))
        assert high.ttft_mean is not None and prediction.points[1].intervals is not None
        low, top = prediction.points[1].intervals["ttft_ms"]
        assert high.band("ttft_ms", high.ttft_mean) == (pytest.approx(low), pytest.approx(top))


def test_a_result_whose_stored_interval_cannot_be_one_is_refused_in_one_line(folder: Path, tmp_path: Path) -> None:
    data = json.loads((folder / "result.json").read_text())
    data["resolved_params"]["prediction_interval"]["points"][1]["intervals"]["ttft_ms"] = [500.0, 1.0]
    bad = tmp_path / "result.json"
    bad.write_text(json.dumps(data))
    (tmp_path / "measured.json").write_text(measurement(documents(folder)[0], 0.5).model_dump_json(exclude_none=True))
    proc = servescope("compare", str(bad), str(tmp_path / "measured.json"))
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        f"error: A ({data['run_id']}): resolved_params.prediction_interval.points[1].intervals.ttft_ms: low 500 is above high 1: give [low, high]"
    ]
    check = servescope("validate", str(bad))
    assert check.returncode == 1
    assert f"{bad}: resolved_params.prediction_interval.points[1].intervals.ttft_ms: error: low 500 is above high 1: give [low, high]" in check.stderr
    data["resolved_params"]["prediction_interval"]["points"][1]["intervals"]["ttft_ms"] = [1.0, 500.0]
    data["resolved_params"]["prediction_interval"]["points"].reverse()  # read against the other point
    (tmp_path / "swapped.json").write_text(json.dumps(data))
    swapped = servescope("compare", str(tmp_path / "swapped.json"), str(tmp_path / "measured.json"))
    assert swapped.returncode == 2
    assert "resolved_params.prediction_interval.points: concurrencies [32, 1] do not match the points' [1, 32]" in swapped.stderr
    site = servescope("report", "--in", str(bad), "--in", str(tmp_path / "measured.json"), "--out", str(tmp_path / "site"))
    assert site.returncode == 0, site.stderr
    assert "low 500 is above high 1" in (tmp_path / "site" / "index.html").read_text()


def test_a_context_sweep_at_one_concurrency_keeps_its_interval_on_its_row(tmp_path: Path) -> None:
    """A context-length sweep: nine Result points at concurrency 1, one Prediction row (the first): the
    stored interval is that row's; the other points are drawn with the factors, and the file validates."""
    proc = servescope("predict", "llama-3.1-8b-on-h100", "longctx-depth-sweep-v1", "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    [where] = [p.parent for p in tmp_path.rglob("prediction.json")]
    prediction, result = documents(where)
    assert result.points is not None and len(result.points) > 1 and {p.concurrency for p in result.points} == {1}
    check = servescope("validate", str(where))
    assert check.returncode == 0, check.stdout + check.stderr
    first, *rest = chart_points(to_run(result, where / "result.json", {}))
    assert prediction.points[0].intervals is not None and first.ttft_mean is not None
    assert first.band("ttft_ms", first.ttft_mean) == tuple(pytest.approx(v) for v in prediction.points[0].intervals["ttft_ms"])
    assert rest and all(p.band_factors is not None for p in rest)


def test_the_reports_hover_says_whether_each_measurement_lies_in_the_predicted_interval(folder: Path, tmp_path: Path) -> None:
    prediction, _ = documents(folder)
    (tmp_path / "measured.json").write_text(measurement(prediction, 0.95).model_dump_json(exclude_none=True))
    site = servescope("report", "--in", str(folder), "--in", str(tmp_path / "measured.json"), "--out", str(tmp_path / "site"))
    assert site.returncode == 0, site.stderr
    pages = "".join(p.read_text() for p in (tmp_path / "site" / "workloads").glob("*.html"))
    assert "(mean TTFT), inside its 80 % interval" in pages


def test_the_reports_charts_shade_each_predictions_interval_as_a_band(folder: Path) -> None:
    """Each predicted line is followed by its band: the upper bound, then the lower bound filled up to it,
    at the points' own interval bounds; the line stays the chart's first trace (its error bars kept)."""
    from servescope.report.charts import build_series, sweep_figures

    prediction, result = documents(folder)
    figures = sweep_figures(build_series([to_run(result, folder / "result.json", {})]), [])
    throughput = figures[0][0]["data"]
    line, upper, lower = throughput
    assert "error_y" in line and lower["fill"] == "tonexty" and "rgba(" in lower["fillcolor"]
    bounds = [p.intervals["output_tokens_per_sec"] for p in prediction.points if p.intervals is not None]
    assert upper["y"] == pytest.approx([hi for _, hi in bounds]) and lower["y"] == pytest.approx([lo for lo, _ in bounds])
    ttft = figures[1][0]["data"]  # the simulated Result's p50 and p99 lines, each with its band
    assert [t.get("fill") for t in ttft] == [None, None, "tonexty", None, None, "tonexty"]
