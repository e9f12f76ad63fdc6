"""compare: pairing by concurrency, signed errors, MAPE, refusals and warnings (hand-computed)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from servescope.analysis.compare import CompareRefused, compare, format_csv, format_json, format_markdown, plot
from servescope.documents import EvaluationRun, Prediction, Result


def measured(**over: object) -> EvaluationRun:
    doc = {
        "kind": "EvaluationRun",
        "name": "measured",
        "scenario": "s",
        "harness": "servescope",
        "engine_version": "1",
        "workload": "serve-x-v1",
        "points": [
            {"concurrency": 1, "ttft_ms": 100.0, "itl_ms": 10.0, "output_tokens_per_sec": 100.0},
            {"concurrency": 8, "ttft_ms": 200.0, "itl_ms": 20.0, "output_tokens_per_sec": 400.0},
            {"concurrency": 16, "ttft_ms": 400.0},
        ],
    } | over
    return EvaluationRun.model_validate(doc)


def predicted(**over: object) -> Prediction:
    doc = {
        "kind": "Prediction",
        "name": "predicted",
        "scenario": "s",
        "workload": "serve-x-v1",
        "predictor": "servescope-sim",
        "predictor_version": "0.1.0",
        "points": [
            {"concurrency": 1, "ttft_ms": 110.0, "itl_ms": 9.0, "output_tokens_per_sec": 100.0},
            {"concurrency": 8, "ttft_ms": 150.0, "itl_ms": 25.0, "output_tokens_per_sec": 500.0},
            {"concurrency": 64, "ttft_ms": 999.0},
        ],
    } | over
    return Prediction.model_validate(doc)


def test_pairs_errors_and_mape() -> None:
    c = compare(predicted(), measured())
    got = {(p.concurrency, p.metric): p.error_pct for p in c.pairs}
    assert got == {
        (1, "ttft_ms"): pytest.approx(10.0),
        (1, "itl_ms"): pytest.approx(-10.0),
        (1, "output_tokens_per_sec"): 0.0,
        (8, "ttft_ms"): pytest.approx(-25.0),
        (8, "itl_ms"): pytest.approx(25.0),
        (8, "output_tokens_per_sec"): pytest.approx(25.0),
    }
    per = {m.metric: (m.points, m.mape_pct, m.max_abs_pct) for m in c.per_metric}
    assert per["ttft_ms"] == (2, pytest.approx(17.5), pytest.approx(25.0))
    assert per["output_tokens_per_sec"] == (2, pytest.approx(12.5), pytest.approx(25.0))
    assert c.unpaired_a == [64] and c.unpaired_b == [16]
    assert not any("may define metrics differently" in w for w in c.warnings)  # servescope-sim vs servescope: one metric module
    assert any("may define metrics differently" in w for w in compare(predicted(), measured(harness="aiperf")).warnings)


def test_a_measurement_given_first_is_still_the_reference() -> None:
    """compare MEASURED PREDICTION: the errors are the same as the other way round (against the
    measurement, never against the prediction), and a line says the sides were turned."""
    right, swapped = compare(predicted(), measured()), compare(measured(), predicted())
    assert [(p.concurrency, p.metric, p.a, p.b, p.error_pct) for p in swapped.pairs] == [(p.concurrency, p.metric, p.a, p.b, p.error_pct) for p in right.pairs]
    assert (swapped.a_name, swapped.b_name) == ("predicted", "measured")
    assert any("A is the prediction and B the measurement" in w for w in swapped.warnings)
    assert not any("A is the prediction" in w for w in right.warnings)


def test_an_interval_whose_low_is_above_its_high_is_refused() -> None:
    from pydantic import ValidationError

    bad = {"concurrency": 1, "ttft_ms": 110.0, "intervals": {"ttft_ms": [500.0, 1.0]}}
    with pytest.raises(ValidationError, match="low 500 is above high 1"):
        predicted(points=[bad])


def test_an_interval_that_names_no_predicted_figure_is_refused_and_one_off_its_figure_is_warned(tmp_path: Path) -> None:
    """A field compare never reads (a typo), an interval for a null figure, a burst reading of no field:
    errors; a figure (or the burst reading it spans) outside its own interval: a warning that validate
    and compare print, since no shipped interval leaves its own figure out."""
    import subprocess
    import sys

    def issues(point: dict[str, object]) -> list[tuple[str, str, str]]:
        return [(i.level, i.path, i.message) for i in predicted(points=[point]).check()]

    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"points\[0\]\.intervals\.ttft_msec: not a predicted field"):
        predicted(points=[{"concurrency": 1, "ttft_ms": 5.0, "intervals": {"ttft_msec": [4.0, 6.0]}}])
    with pytest.raises(ValidationError, match=r"points\[0\]\.intervals\.e2e_ms: an interval for a figure the point does not give"):
        predicted(points=[{"concurrency": 1, "ttft_ms": 5.0, "intervals": {"e2e_ms": [4.0, 6.0]}}])
    with pytest.raises(ValidationError, match=r"points\[0\]\.burst\.ttft: not a predicted field"):
        predicted(points=[{"concurrency": 1, "ttft_ms": 5.0, "burst": {"ttft": 9.0}}])
    assert issues({"concurrency": 1, "ttft_ms": 5.0, "intervals": {"ttft_ms": [100.0, 200.0]}}) == [
        ("warning", "points[0].intervals.ttft_ms", "[100, 200] does not hold the point's own ttft_ms 5")
    ]
    assert issues({"concurrency": 1, "ttft_ms": 5.0, "intervals": {"ttft_ms": [4.0, 6.0]}, "burst": {"ttft_ms": 9.0}})[0][0] == "warning"
    assert (
        issues({"concurrency": 1, "ttft_ms": 5.0, "e2e_ms": 9.0, "intervals": {"ttft_ms": [4.0, 6.0], "e2e_ms": [8.0, 9.0]}, "burst": {"ttft_ms": 6.0}}) == []
    )
    pred = predicted(points=[{"concurrency": 1, "ttft_ms": 5.0, "intervals": {"ttft_ms": [100.0, 200.0]}}])
    (tmp_path / "p.json").write_text(pred.model_dump_json(exclude_none=True))
    (tmp_path / "m.json").write_text(measured().model_dump_json(exclude_none=True))
    proc = subprocess.run(
        [sys.executable, "-m", "servescope", "compare", str(tmp_path / "p.json"), str(tmp_path / "m.json")], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{tmp_path / 'p.json'}: points[0].intervals.ttft_ms: warning: [100, 200] does not hold the point's own ttft_ms 5" in proc.stderr


def test_a_prediction_without_an_interval_is_said_to_have_none() -> None:
    """An older prediction (no interval): '-' in every row, and one line saying why."""
    lines = [w for w in compare(predicted(), measured()).warnings if "carries no interval" in w]
    assert len(lines) == 1 and "predict it again" in lines[0]
    points = [{"concurrency": 1, "ttft_ms": 110.0, "intervals": {"ttft_ms": [90.0, 130.0]}}]
    assert not any("carries no interval" in w for w in compare(predicted(points=points), measured()).warnings)
    assert not any("carries no interval" in w for w in compare(measured(), measured(name="other")).warnings)  # two measurements: no interval to have
    both = compare(predicted(points=points), predicted(name="other", points=points))
    assert all(p.inside_interval is None for p in both.pairs)
    assert [w for w in both.warnings if "both predictions" in w] == [
        "A and B are both predictions: neither is a measurement to hold against the other's interval ('-')"
    ]


def test_open_loop_points_pair_by_their_rate() -> None:
    """A measured open-loop point is labelled by its client's request count (no concurrency limit), a
    predicted one by the most requests it had in flight: they pair by the rate both state."""
    m = measured(points=[{"concurrency": 300, "request_rate": 1.0, "ttft_p50_ms": 80.0}, {"concurrency": 600, "request_rate": 2.0, "ttft_ms": 90.0},
                         {"concurrency": 8, "ttft_ms": 200.0}])  # fmt: skip
    p = predicted(points=[{"concurrency": 18, "request_rate": 1.0, "ttft_p50_ms": 60.0}, {"concurrency": 28, "request_rate": 2.0, "ttft_ms": 99.0},
                          {"concurrency": 8, "ttft_ms": 150.0}])  # fmt: skip
    c = compare(p, m)
    got = sorted((pv.concurrency, pv.metric, pv.error_pct) for pv in c.pairs)
    assert got == [(8, "ttft_ms", pytest.approx(-25.0)), (18, "ttft_p50_ms", pytest.approx(-25.0)), (28, "ttft_ms", pytest.approx(10.0))]
    assert c.unpaired_a == [] and c.unpaired_b == []


def test_different_scenarios_refused_unless_forced() -> None:
    with pytest.raises(CompareRefused, match="pass --force"):
        compare(predicted(scenario="other"), measured())
    c = compare(predicted(scenario="other"), measured(), force=True)
    assert c.warnings[0].startswith("forced: A is scenario 'other'")


def test_different_workloads_refused() -> None:
    with pytest.raises(CompareRefused, match="workload"):
        compare(predicted(workload="serve-y-v1"), measured())


def test_harness_notes_reach_the_warning() -> None:
    aiperf = measured(harness="aiperf", notes=["aiperf: ITL is the per-request mean"])
    c = compare(measured(), aiperf)
    assert any("aiperf: ITL is the per-request mean" in w for w in c.warnings)


def test_zero_reference_gives_no_percentage() -> None:
    m = measured(points=[{"concurrency": 1, "ttft_ms": 0.0}])
    p = predicted(points=[{"concurrency": 1, "ttft_ms": 5.0}])
    c = compare(p, m)
    assert c.pairs[0].error_pct is None and c.per_metric[0].mape_pct is None


def test_formats(tmp_path: Path) -> None:
    c = compare(predicted(), measured())
    assert format_csv(c).splitlines()[1] == "1,ttft_ms,110.0,100.0,10.0,,,"  # no interval: no verdict
    data = json.loads(format_json(c))
    assert math.isclose(data["per_metric"][0]["mape_pct"], 17.5)
    assert "| 8 | ttft_ms | 150.00 | 200.00 | -25.0 |" in format_markdown(c)
    out = tmp_path / "plot.html"
    plot(c, str(out))
    assert out.stat().st_size > 10_000 and b"plotly" in out.read_bytes()[:200000]


def test_static_png_plot(tmp_path: Path) -> None:
    out = tmp_path / "plot.png"
    plot(compare(predicted(), measured()), str(out))
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and out.stat().st_size > 10_000


def test_unknown_plot_suffix_is_refused(tmp_path: Path) -> None:
    from servescope.errors import ServescopeError

    with pytest.raises(ServescopeError, match=r"use \.html"):
        plot(compare(predicted(), measured()), str(tmp_path / "plot.gif"))


def _scored(run_id: str, correct: list[bool | None]) -> Result:
    from tests.analysis.test_summarize import scored

    r = scored(run_id, [bool(c) for c in correct], ["x"] * len(correct))
    items = [i.model_copy(update={"correct": c}) for i, c in zip(r.scores.items or [], correct, strict=True)]  # type: ignore[union-attr]
    return r.model_copy(update={"scores": r.scores.model_copy(update={"items": items})})  # type: ignore[union-attr]


def test_scored_results_pair_items_and_leave_unsupported_ones_out() -> None:
    a = _scored("a", [True, True, None, False])
    b = _scored("b", [False, True, True, False])
    s = compare(a, b).scores
    assert s is not None and s.items == 3 and (s.both_right, s.only_a_right, s.only_b_right, s.neither_right) == (1, 1, 0, 1)
    assert s.delta_accuracy == pytest.approx(1 / 3) and s.accuracy_verdict.startswith("no difference shown")


def test_scored_results_over_different_items_are_refused_even_when_forced() -> None:
    a, b = _scored("a", [True, False]), _scored("b", [True, False, True])
    with pytest.raises(CompareRefused, match=r"different items \(0 only in A; 1 only in B, e.g. 'q2'\)"):
        compare(a, b, force=True)


def test_only_one_scored_result_is_a_warning() -> None:
    from tests.analysis.test_summarize import make_result

    c = compare(_scored("a", [True]), make_result("plain", workload="eval-x-v1"))
    assert c.scores is None and any("only A has scored items" in w for w in c.warnings)


def test_strict_and_flexible_accuracy_are_compared_side_by_side() -> None:
    """Both right on every item (flexible), but only A in the asked-for form: compare says so."""
    from servescope.analysis.compare import score_lines

    a, b = _scored("a", [True, True, True, True]), _scored("b", [True, True, True, True])

    def with_strict(r: Result, strict: list[bool | None]) -> Result:
        items = [i.model_copy(update={"strict": s}) for i, s in zip(r.scores.items or [], strict, strict=True)]  # type: ignore[union-attr]
        return r.model_copy(update={"scores": r.scores.model_copy(update={"items": items})})  # type: ignore[union-attr]

    s = compare(with_strict(a, [True, True, True, None]), with_strict(b, [False, False, True, True])).scores
    assert s is not None and s.delta_accuracy == 0
    assert s.strict_items == 3 and s.a_strict_accuracy == pytest.approx(1.0) and s.b_strict_accuracy == pytest.approx(1 / 3)
    assert s.delta_strict_accuracy == pytest.approx(2 / 3)
    lines = score_lines(s)
    assert any(line.startswith("accuracy: A 100.0 %, B 100.0 %") for line in lines)
    assert any(line.startswith("strict accuracy (the asked-for form) over 3 items: A 100.0 %, B 33.3 %") for line in lines)


def test_compare_says_per_point_whether_the_measurement_lies_in_the_predicted_interval(tmp_path: Path) -> None:
    points = [
        {"concurrency": 1, "ttft_ms": 110.0, "output_tokens_per_sec": 100.0, "intervals": {"ttft_ms": [90.0, 130.0], "output_tokens_per_sec": [80.0, 95.0]}},
        {"concurrency": 8, "ttft_ms": 150.0, "intervals": {"ttft_ms": [120.0, 180.0]}},
    ]
    c = compare(predicted(points=points), measured())
    inside = {(p.concurrency, p.metric): p.inside_interval for p in c.pairs}
    # measured TTFT 100 in [90, 130]; 200 not in [120, 180]; tok/s 100 not in [80, 95]
    assert inside == {(1, "ttft_ms"): True, (1, "output_tokens_per_sec"): False, (8, "ttft_ms"): False}
    per = {m.metric: (m.inside_interval, m.with_interval) for m in c.per_metric}
    assert per["ttft_ms"] == (1, 2) and per["output_tokens_per_sec"] == (0, 1)
    assert "| 1 | ttft_ms | 110.00 | 100.00 | 10.0 | yes |" in format_markdown(c)
    # the interval itself, beside the verdict: in the CSV and the JSON, and drawn as error bars on A
    assert format_csv(c).splitlines()[1] == "1,ttft_ms,110.0,100.0,10.0,True,90.0,130.0"
    assert json.loads(format_json(c))["pairs"][0]["interval"] == [90.0, 130.0]
    plot(c, str(tmp_path / "curves.html"))
    assert '"array":[20.0,30.0],"arrayminus":[20.0,30.0]' in (tmp_path / "curves.html").read_text().replace(" ", "")
    swapped = compare(measured(), predicted(points=points))  # the prediction as B: same verdicts
    assert {(p.concurrency, p.metric): p.inside_interval for p in swapped.pairs} == inside
    assert all(p.inside_interval is None for p in compare(predicted(), measured()).pairs)  # no interval: no verdict


def test_cli_takes_folders_and_records_and_says_which_side_is_the_reference(tmp_path: Path) -> None:
    """A prediction's folder, a run's records.jsonl (a run that wrote no result.json) and the
    document itself are all inputs; the measurement given first is still the reference; a
    missing file or a folder without a document is one line and exit 2."""
    import subprocess
    import sys

    def cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120)

    done = cli("predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--concurrency", "1,2", "--out", str(tmp_path / "p"))
    assert done.returncode == 0, done.stderr
    [folder] = (tmp_path / "p").iterdir()
    from servescope.bench.records import RecordWriter
    from tests.bench.test_recover import HEADER, _ok

    run = tmp_path / "run"
    header = {
        **HEADER,
        "scenario": "tiny-llama-on-cpu",
        "resolved_params": {"concurrency": 2, "points": [{"concurrency": 2, "context_tokens": None, "measured": 8}]},
    }
    with RecordWriter(run / "records.jsonl") as w:  # a run that wrote no result.json
        w.write_header(header)
        for i in range(8):
            w.write(_ok(i))
    both = cli("compare", str(folder), str(run / "records.jsonl"), "--format", "json", "--force")
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)["pairs"] and "compared as the Result rebuilt from them" in both.stderr
    for bad, said in ((tmp_path / "nope.json", "no such file or folder"), (tmp_path, "a folder with no result.json")):
        refused = cli("compare", str(bad), str(folder))
        assert refused.returncode == 2 and said in refused.stderr and refused.stderr.count("\n") == 1, refused.stderr


def test_a_measured_open_loop_row_carries_its_rate_so_it_pairs_with_its_prediction() -> None:
    """A measured open-loop point is labelled by its client's request count, a predicted one by
    the most requests in flight: the measured row must carry the requested rate, or the two
    rows of one `--rate` load never pair (an empty comparison)."""
    from servescope.analysis.metrics import aggregate
    from servescope.analysis.results import evaluation_row, metrics_of
    from tests.analysis.test_metrics import R1, R2

    row = evaluation_row(1, metrics_of(aggregate([R1, R2]), requested_rate=20.0))
    assert row.request_rate == 20.0
    m = measured(points=[{**row.model_dump(exclude_none=True), "ttft_ms": 100.0}])
    p = predicted(points=[{"concurrency": 3, "request_rate": 20.0, "ttft_ms": 110.0}])
    c = compare(p, m)
    assert [(x.metric, x.error_pct) for x in c.pairs if x.metric == "ttft_ms"] == [("ttft_ms", pytest.approx(10.0))]
    assert c.unpaired_a == [] and c.unpaired_b == []


def test_a_measured_row_carries_its_medians_so_compare_pairs_them_with_the_predictions() -> None:
    """A run's row and an imported harness's row carry the TTFT and ITL medians as a prediction's
    row does: compare pairs median with median, beside the means."""
    from servescope.analysis.importers._model import evaluation_row as imported_row
    from servescope.analysis.metrics import aggregate
    from servescope.analysis.results import evaluation_row, metrics_of
    from tests.analysis.test_metrics import R1, R2

    m = metrics_of(aggregate([R1, R2]))
    row = evaluation_row(2, m)
    assert m.ttft_ms is not None and m.itl_ms is not None
    assert (row.ttft_p50_ms, row.itl_p50_ms) == (m.ttft_ms.p50, m.itl_ms.p50)
    got = imported_row(4, 8, {"output_tokens_per_sec": 1.0, "input_tokens_per_sec": 1.0}, ttft={"mean": 90.0, "p50": 80.0},
                       itl={"mean": 9.0, "p50": 8.5}, e2e=None, mean_isl=None, mean_osl=None, token_gaps={"mean": 9.0, "p50": 7.5})  # fmt: skip
    assert (got["ttft_p50_ms"], got["itl_p50_ms"]) == (80.0, 7.5)  # the ITL median is the pooled gaps', not the row series'
    assert imported_row(4, 8, {"output_tokens_per_sec": 1.0, "input_tokens_per_sec": 1.0}, ttft=None, itl={"mean": 9.0, "p50": 8.5},
                        e2e=None, mean_isl=None, mean_osl=None, token_gaps=None)["itl_p50_ms"] is None  # fmt: skip
    measured_doc = measured(points=[{**row.model_dump(exclude_none=True)}])
    p = predicted(points=[{"concurrency": 2, "ttft_ms": 1.0, "ttft_p50_ms": row.ttft_p50_ms * 1.1, "itl_p50_ms": row.itl_p50_ms * 0.9}])
    pairs = {x.metric: x.error_pct for x in compare(p, measured_doc).pairs}
    assert pairs["ttft_p50_ms"] == pytest.approx(10.0) and pairs["itl_p50_ms"] == pytest.approx(-10.0)
