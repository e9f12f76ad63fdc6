"""The report's pieces without a browser: staleness, coverage, escaping, Wilson
intervals, the CLI's one-line refusals."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from servescope.documents import Workload
from servescope.report.charts import eval_figures, eval_rows
from servescope.report.coverage import parse_version, superseded_by
from servescope.report.evidence import to_run
from servescope.report.inputs import collect_inputs
from tests.report.fixtures import EVIL, V1, V2, workload


def test_supersedes_field_and_ids_say_which_workload_is_stale() -> None:
    known = {V1: workload(V1, None, 32), V2: workload(V2, V1, 64)}
    assert superseded_by(known, {V1, V2})[V1][0] == V2
    # no Workload document of the v3 at hand: the ids alone say v1 and v2 are older
    by_name = superseded_by({}, {"serve-x-c1-v1", "serve-x-c1-v3", "serve-y-c1-v1"})
    assert sorted(by_name) == ["serve-x-c1-v1"] and by_name["serve-x-c1-v1"][0] == "serve-x-c1-v3"
    # a v2 whose own document supersedes nothing does not make the v1 stale by its name
    lone = Workload.model_validate(workload(V2, None, 64).dump())
    assert superseded_by({V2: lone}, {V1, V2}) == {}


def test_engine_versions_parse_to_major_minor_or_nothing() -> None:
    assert parse_version("0.29.0") == (0, 29) and parse_version("v1.2") == (1, 2)
    assert parse_version("b4567") is None and parse_version(None) is None


def test_eval_accuracy_has_the_wilson_interval(fixture_set: Path) -> None:
    found = collect_inputs([fixture_set])
    runs = [to_run(d, s, found.scenarios) for d, s in found.documents]
    [(run, accuracy, items, ci, latency)] = eval_rows(runs)
    assert (run.name, accuracy, items, latency) == ("eval-run", 0.75, 20, 120.0)
    assert ci is not None and round(ci[0], 4) == 0.5313 and round(ci[1], 4) == 0.8881  # 15 of 20, by hand


def test_eval_hover_says_the_calibration_of_a_suite_that_asked_for_confidences(fixture_set: Path) -> None:
    from dataclasses import replace

    from servescope.documents.result import ConfidenceCalibration, Result

    found = collect_inputs([fixture_set])
    [run] = [r for r in (to_run(d, s, found.scenarios) for d, s in found.documents) if r.name == "eval-run"]
    assert isinstance(run.doc, Result) and run.doc.scores is not None
    plain = eval_figures([run])[0][0]["data"][0]["text"][0]
    assert "ECE" not in plain
    asked = run.doc.scores.model_copy(update={"calibration": ConfidenceCalibration(ece=0.125, mce=0.5, answered_with_confidence=12)})
    text = eval_figures([replace(run, doc=run.doc.model_copy(update={"scores": asked}))])[0][0]["data"][0]["text"][0]
    assert "ECE 0.125, MCE 0.500 over 12 stated confidences" in text
    none = run.doc.scores.model_copy(update={"calibration": ConfidenceCalibration(answered_with_confidence=0)})
    text = eval_figures([replace(run, doc=run.doc.model_copy(update={"scores": none}))])[0][0]["data"][0]["text"][0]
    assert "no answer stated a confidence" in text


def test_document_text_is_escaped_in_the_html(site: Path) -> None:
    page = next((site / "runs").glob("tiny-v2-run-*.html")).read_text(encoding="utf-8")
    assert EVIL not in page and "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    index = (site / "index.html").read_text(encoding="utf-8")
    assert "<script>window" not in index and "&lt;img src=x onerror=" in index
    workload_page = next((site / "workloads").glob(f"{V2}-*.html")).read_text(encoding="utf-8")
    assert "<script>window" not in workload_page and "\\u0026lt;script\\u0026gt;" in workload_page  # escaped for Plotly, then for the JSON block


def test_every_field_of_a_result_is_on_its_page(site: Path, fixture_set: Path) -> None:
    data = json.loads((fixture_set / "runs" / "a-v2.json").read_text())
    page = next((site / "runs").glob("tiny-v2-run-*.html")).read_text(encoding="utf-8")
    for key in data:
        assert f"<th>{key}</th>" in page, key
    assert "first-token" in page and "http-error" in page and data["config_id"] in page


def test_summary_files_sit_beside_the_site(site: Path) -> None:
    header = (site / "summary" / "summary_v0.3.csv").read_text().splitlines()[0]
    assert "success_rate_ci_lower" in header


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", "report", *args], check=False, capture_output=True, text=True, timeout=120)


def test_cli_writes_the_site_and_prints_its_path(fixture_set: Path, tmp_path: Path) -> None:
    proc = _cli("--in", str(fixture_set), "--out", str(tmp_path / "site"))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip().splitlines()[-1] == str((tmp_path / "site" / "index.html").resolve())


def test_cli_refuses_inputs_without_documents_in_one_line(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "result.json").write_text('{"kind": "Result", "run_id": "x"}')
    for folder in ("empty", "broken", "missing"):
        proc = _cli("--in", str(tmp_path / folder), "--out", str(tmp_path / "site"))
        assert proc.returncode == 2 and "Traceback" not in proc.stderr
        assert proc.stderr.strip().splitlines()[-1].startswith("error: no Result, Prediction or EvaluationRun found")
        if folder != "empty":  # and says why in the same line
            assert {"broken": f"left out: {broken / 'result.json'}: ", "missing": "no such file or folder"}[folder] in proc.stderr
    assert not (tmp_path / "site").exists()


def test_public_surface_and_nothing_but_the_cli_imports_the_report() -> None:
    import servescope.report

    assert servescope.report.__all__ == sorted(servescope.report.__all__) == ["ReportFiles", "write_report"]
    src = Path(servescope.report.__file__).parents[1]
    importers = [
        p.relative_to(src).as_posix()
        for p in src.rglob("*.py")
        if "servescope.report" in p.read_text(encoding="utf-8") and "report" not in p.relative_to(src).parts[:1]
    ]
    assert importers == ["cli_report.py"]


def test_a_missing_browser_fails_in_one_line_and_never_skips(tmp_path: Path) -> None:
    import os

    env = {**os.environ, "SERVESCOPE_CHROMIUM": str(tmp_path / "no-chromium")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests/report/test_browser.py::test_summary_table_sorts"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=Path(__file__).parents[2],
    )
    assert proc.returncode == 1 and "skipped" not in proc.stdout
    assert f"SERVESCOPE_CHROMIUM={tmp_path / 'no-chromium'}: no such file; install Debian's chromium" in proc.stdout


def test_a_broken_result_file_is_listed_and_plain_json_is_not(fixture_set: Path, tmp_path: Path) -> None:
    inputs = tmp_path / "in"
    inputs.mkdir()
    (inputs / "result.json").write_text('{"kind": "Result", ', encoding="utf-8")  # cut short: it may have been a result
    (inputs / "other-tool.json").write_text('{"latency": [1, 2]}', encoding="utf-8")
    found = collect_inputs([inputs, fixture_set])
    assert len(found.problems) == 1 and found.problems[0].startswith(f"{inputs / 'result.json'}: ")


def test_a_second_report_replaces_the_first_and_a_foreign_folder_is_refused(fixture_set: Path, tmp_path: Path) -> None:
    import pytest

    from servescope.errors import UsageError
    from servescope.report import write_report

    out = tmp_path / "site"
    write_report([fixture_set], out)
    first_pages = {p.name for p in (out / "runs").iterdir()}
    only_v1 = tmp_path / "v1"
    only_v1.mkdir()
    (only_v1 / "a-v1.json").write_text((fixture_set / "runs" / "a-v1.json").read_text())
    write_report([only_v1], out)
    assert len(first_pages) == 9 and [p.name.startswith("tiny-v1-run-") for p in (out / "runs").iterdir()] == [True]
    foreign = tmp_path / "foreign"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    with pytest.raises(UsageError, match="is not empty and holds no earlier report"):
        write_report([fixture_set], foreign)
    assert (foreign / "notes.txt").read_text() == "mine"


def test_a_prediction_and_its_result_form_count_once(tmp_path: Path) -> None:
    """predict writes a Prediction and its simulated Result: the report counts the prediction
    once, however the files are named, as it counts a copy of a document once; a prediction of
    the same name whose figures differ, or with another seed, is another prediction."""
    from servescope.predict.api import predict
    from servescope.predict.workload_input import SyntheticWorkload
    from servescope.report import write_report

    first = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1, 2], date="2026-01-01")
    other_seed = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1, 2], seed=1, date="2026-01-01")
    inputs = tmp_path / "in"
    (inputs / "a").mkdir(parents=True)
    (inputs / "b").mkdir()
    first.prediction.write_json(inputs / "a" / "forecast.json")
    first.result.write_json(inputs / "a" / "simulated.json")
    first.result.write_json(inputs / "b" / "copy-of-the-result.json")
    other_seed.prediction.write_json(inputs / "b" / "prediction.json")
    # an open-loop point: the Result's pooled row has no rate and another concurrency than the Prediction's
    open_loop = predict("tiny-llama-on-cpu", SyntheticWorkload((), 128, 32, rate=4.0, num_requests=20), date="2026-01-01")
    (inputs / "c").mkdir()
    open_loop.prediction.write_json(inputs / "c" / "p.json")
    open_loop.result.write_json(inputs / "c" / "r.json")
    files = write_report([inputs], tmp_path / "site")
    assert files.runs == 3  # the first's Result, the second's Prediction (its Result form is not given), the open loop's Result
    index = (tmp_path / "site" / "index.html").read_text()
    assert "3 run(s): 0 measured, 0 imported, 3 predicted. 3 document(s) are copies or compact tables of runs shown here" in index

    changed = first.prediction.dump()
    changed["points"][0]["output_tokens_per_sec"] *= 2  # same name and seed, other figures: not the Result's table
    (inputs / "b" / "edited.json").write_text(json.dumps(changed), encoding="utf-8")
    assert write_report([inputs], tmp_path / "site").runs == 4


def test_a_run_with_slos_shows_goodput_beside_its_on_time_rate(tmp_path: Path) -> None:
    from servescope.documents.result import Slo
    from servescope.report.site import write_report
    from tests.report.fixtures import result

    base = result(
        "slo-run", V2, model="tiny", hardware="cpu", engine="llama.cpp", version="b1", scenario=None, points=[(1, 50.0, 10.0, 2.0), (2, 80.0, 12.0, 3.0)]
    )
    assert base.points is not None
    points = [
        p.model_copy(update={"metrics": p.metrics.model_copy(update={"goodput_requests_per_sec": g})}) for p, g in zip(base.points, (3.25, 6.5), strict=True)
    ]
    doc = base.model_copy(
        update={
            "points": points,
            "metrics": base.metrics.model_copy(update={"goodput_requests_per_sec": 4.875}),
            "slos": [Slo(id="ttft_ms<=500", metric="ttft_ms", threshold=500.0)],
            "on_time_rate": 0.8125,
            "violations_by_invariant_id": {"ttft_ms<=500": 3},
        }
    )
    (tmp_path / "in").mkdir()
    (tmp_path / "in" / "slo.json").write_text(json.dumps(doc.dump()), encoding="utf-8")
    write_report([tmp_path / "in"], tmp_path / "site")
    page = next((tmp_path / "site" / "runs").glob("slo-run*.html")).read_text(encoding="utf-8")
    assert "<th>goodput req/s</th>" in page and "<td>3.25</td>" in page and "<td>6.5</td>" in page
    assert "<h3>SLOs</h3>" in page and "ttft_ms&lt;=500" in page and "4.875" in page and "0.8125" in page
    index = (tmp_path / "site" / "index.html").read_text(encoding="utf-8")
    assert "goodput req/s" in index and "on-time rate" in index


def test_eval_chart_draws_strict_beside_flexible_accuracy(fixture_set: Path) -> None:
    from dataclasses import replace

    from servescope.documents.result import Result

    found = collect_inputs([fixture_set])
    [run] = [r for r in (to_run(d, s, found.scenarios) for d, s in found.documents) if r.name == "eval-run"]
    assert isinstance(run.doc, Result) and run.doc.scores is not None
    with_strict = run.doc.scores.model_copy(update={"strict_accuracy": 0.4})
    traces = eval_figures([replace(run, doc=run.doc.model_copy(update={"scores": with_strict}))])[0][0]["data"]
    assert [t["name"] for t in traces] == ["accuracy", "strict accuracy"]
    assert traces[0]["y"] == [0.75] and traces[1]["y"] == [0.4] and "strict accuracy 0.400" in traces[1]["text"][0]


def test_an_ad_hoc_workload_page_says_what_its_load_sent(tmp_path: Path) -> None:
    """An ad-hoc label (adhoc-<digest>) has no Workload document: its page shows the load's own record."""
    trace = tmp_path / "trace.jsonl"
    trace.write_text("".join(json.dumps({"timestamp": 250 * i, "input_length": 300, "output_length": 8}) + "\n" for i in range(3)), encoding="utf-8")
    predicted = subprocess.run([sys.executable, "-m", "servescope", "predict", "tiny-llama-on-cpu", "--trace", str(trace), "--speedup", "4",
                                "--out", str(tmp_path / "preds")], check=False, capture_output=True, text=True, timeout=120)  # fmt: skip
    assert predicted.returncode == 0, predicted.stderr
    proc = _cli("--in", str(tmp_path / "preds"), "--out", str(tmp_path / "site"))
    assert proc.returncode == 0, proc.stderr
    [page] = (tmp_path / "site" / "workloads").glob("adhoc-*.html")
    text = page.read_text(encoding="utf-8")
    assert "<h2>Load</h2>" in text and f"trace {trace}: 3 requests at speedup 4" in text
    assert "trace.sha256" in text and "<td>speedup</td><td>4.0</td>" in text
