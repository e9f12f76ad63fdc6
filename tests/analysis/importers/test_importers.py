"""Importers against real exports (fixtures/README.md says which tool, version and
command wrote each file). Expected values are copied by hand from the fixture files;
values the harness reports in seconds are checked as that number x 1000."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from servescope.analysis.importers import IMPORTERS, import_export
from servescope.catalog.validate import validate_paths
from servescope.documents import EvaluationRun
from servescope.errors import DocumentError

FIXTURES = Path(__file__).parent / "fixtures"
AIPERF = FIXTURES / "aiperf"
GUIDELLM = FIXTURES / "guidellm" / "benchmarks.json"
VLLM_SWEEP = FIXTURES / "vllm" / "vllm-bench-serve-sweep.json"
VLLM_RUNS = FIXTURES / "vllm" / "runs"
IPERF = FIXTURES / "inference-perf" / "reports"

SCENARIO = "tiny-llama-on-cpu"


def ms(seconds: float) -> Any:
    return pytest.approx(seconds * 1000.0, rel=1e-12)


def assert_valid(run: EvaluationRun, tmp_path: Path) -> None:
    """The produced run passes `servescope validate` with no error and no warning."""
    out = tmp_path / "run.json"
    out.write_text(json.dumps(run.dump(), indent=1), encoding="utf-8")
    report = validate_paths([out])
    assert [(i.level, i.path, i.message) for _, i in report.issues()] == []
    assert report.files[0].document is not None


def point(run: EvaluationRun, concurrency: int) -> dict[str, Any]:
    (found,) = [p for p in run.points if p.concurrency == concurrency]
    # the medians (the distributions' p50, which compare pairs with a prediction's) are checked
    # in tests/analysis/test_compare.py; the rows here are the means and throughputs
    return {k: v for k, v in found.model_dump().items() if k not in ("ttft_p50_ms", "itl_p50_ms")}


@pytest.mark.parametrize(
    ("harness", "path", "gaps_median"),
    [("aiperf", AIPERF, True), ("vllm", VLLM_SWEEP, True), ("inference-perf", IPERF, True), ("guidellm", GUIDELLM, False)],
)
def test_the_imported_medians_are_the_ones_a_prediction_reports(harness: str, path: Path, gaps_median: bool) -> None:
    """The EvaluationRun's medians, which compare pairs with a prediction's: TTFT's p50, and the
    p50 of every token gap pooled over requests (the Result's itl_ms). aiperf's row ITL is per-request
    TPOT and guidellm's ITL percentiles are of per-request means: neither is the median gap, so
    aiperf's comes from its inter_chunk_latency and guidellm gives none."""
    from servescope.analysis.importers import import_documents

    result, run = import_documents(harness, path, SCENARIO)
    by_conc = {p.concurrency: p.metrics for p in result.points} if result.points else {run.points[0].concurrency: result.metrics}
    assert run.points
    for row in run.points:
        m = by_conc[row.concurrency]
        assert m.ttft_ms is not None and row.ttft_p50_ms == m.ttft_ms.p50 is not None
        if gaps_median:
            assert m.itl_ms is not None and row.itl_p50_ms == m.itl_ms.p50 is not None
        else:
            assert row.itl_p50_ms is None


def test_registry_names_every_harness() -> None:
    assert sorted(IMPORTERS) == ["aiperf", "guidellm", "inference-perf", "vllm"]


# --- aiperf 0.13.0 -------------------------------------------------------------------


def test_aiperf_artifact_dir(tmp_path: Path) -> None:
    run = import_export("aiperf", AIPERF, SCENARIO)
    assert run.harness == "aiperf"
    assert run.harness_version == "0.13.0"
    assert run.engine_version == "unknown"
    assert run.scenario == SCENARIO
    assert run.date == "2026-11-30"
    assert [p.concurrency for p in run.points] == [1, 4]
    assert point(run, 1) == {
        "concurrency": 1,
        "completed_requests": 16,
        "output_tokens_per_sec": 628.6527222807478,
        "input_tokens_per_sec": 1226.1721668866396,
        "ttft_ms": 19.921077625,
        "itl_ms": 0.6477495036548191,
        "e2e_ms": 40.511247562499996,
        "mean_isl": 75,  # usage_prompt_tokens.avg (aiperf's own count: 64.0)
        "mean_osl": 32,  # usage_completion_tokens.avg (aiperf's own count: 32.8125)
        "kv_utilization": None,
        "prefix_cache_hit_rate": pytest.approx(0.16333333333333333, rel=1e-12),
        "preemptions": None,
        "request_rate": None,
    }
    assert point(run, 4) == {
        "concurrency": 4,
        "completed_requests": 16,
        "output_tokens_per_sec": 774.5398483985142,
        "input_tokens_per_sec": 1519.4038405365488,
        "ttft_ms": 48.352866937499996,
        "itl_ms": 2.8813883338358157,
        "e2e_ms": 139.474251125,
        "mean_isl": 75,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": pytest.approx(0.17, rel=1e-12),
        "preemptions": None,
        "request_rate": None,
    }
    notes = " ".join(run.notes or [])
    assert "per request" in notes and "TPOT" in notes
    assert "32.8125" in notes  # aiperf's client-side OSL, kept visible
    assert "warmup phase is excluded" in notes
    assert "linear interpolation" in notes
    assert_valid(run, tmp_path)


def test_aiperf_single_file_is_one_point(tmp_path: Path) -> None:
    run = import_export("aiperf", AIPERF / "concurrency_4" / "profile_export_aiperf.json", SCENARIO, "b0-unknown")
    assert [p.concurrency for p in run.points] == [4]
    assert run.engine_version == "b0-unknown"
    assert run.points[0].ttft_ms == 48.352866937499996
    assert_valid(run, tmp_path)


def test_aiperf_refuses_a_sweep_aggregate(tmp_path: Path) -> None:
    bad = tmp_path / "profile_export_aiperf_sweep.json"
    bad.write_text(json.dumps({"aggregation_type": "sweep", "per_combination_metrics": []}), encoding="utf-8")
    with pytest.raises(DocumentError, match="aggregate"):
        import_export("aiperf", bad, SCENARIO)


def test_aiperf_refuses_a_cancelled_run(tmp_path: Path) -> None:
    data = json.loads((AIPERF / "concurrency_1" / "profile_export_aiperf.json").read_text(encoding="utf-8"))
    data["was_cancelled"] = True
    bad = tmp_path / "profile_export_aiperf.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DocumentError, match="cancelled"):
        import_export("aiperf", bad, SCENARIO)


# --- guidellm 0.8.1 ------------------------------------------------------------------


def test_guidellm_report(tmp_path: Path) -> None:
    run = import_export("guidellm", GUIDELLM, SCENARIO)
    assert run.harness == "guidellm"
    assert run.harness_version == "0.8.1"
    assert run.date == "2026-11-30"  # start_time 1796030499.7254117 (Unix seconds, UTC)
    assert [p.concurrency for p in run.points] == [1, 4]
    assert point(run, 1) == {
        "concurrency": 1,
        "completed_requests": 16,
        "output_tokens_per_sec": 401.2231744533515,
        "input_tokens_per_sec": 940.3668151250424,
        "ttft_ms": 43.62700879573822,
        "itl_ms": 0.7391389339200913,
        "e2e_ms": ms(0.06948629021644592),
        "mean_isl": 75,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    assert point(run, 4) == {
        "concurrency": 4,
        "completed_requests": 16,
        "output_tokens_per_sec": 696.3249805043735,
        "input_tokens_per_sec": 1632.0116730571249,
        "ttft_ms": 45.515865087509155,
        "itl_ms": 3.784321488872651,
        "e2e_ms": ms(0.1669662445783615),
        "mean_isl": 75,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    notes = " ".join(run.notes or [])
    assert "includes TTFT" in notes
    assert "pooled mean of token gaps" in notes
    assert "without interpolation" in notes
    assert_valid(run, tmp_path)


def test_guidellm_skips_rate_driven_benchmarks(tmp_path: Path) -> None:
    data = json.loads(GUIDELLM.read_text(encoding="utf-8"))
    data["benchmarks"][1]["config"]["strategy"] = {"type_": "constant", "rate": 10.0}
    mixed = tmp_path / "benchmarks.json"
    mixed.write_text(json.dumps(data), encoding="utf-8")
    run = import_export("guidellm", mixed, SCENARIO)
    assert [p.concurrency for p in run.points] == [1]
    assert any("skipped 1 rate-driven" in n for n in run.notes or [])

    data["benchmarks"][0]["config"]["strategy"] = {"type_": "poisson", "rate": 5.0}
    mixed.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DocumentError, match="only rate-driven"):
        import_export("guidellm", mixed, SCENARIO)


# --- vLLM 0.33.0 `vllm bench serve` --------------------------------------------------------


def test_vllm_appended_results(tmp_path: Path) -> None:
    run = import_export("vllm", VLLM_SWEEP, SCENARIO, engine_version="b0-unknown")
    assert run.harness == "vllm-bench-serve"
    assert run.harness_version is None  # the result JSON does not record vLLM's version
    assert run.engine_version == "b0-unknown"
    assert run.date == "2026-11-30"  # "20261130-092539"
    assert point(run, 1) == {
        "concurrency": 1,
        "completed_requests": 16,
        "output_tokens_per_sec": 731.2529808736679,
        "input_tokens_per_sec": None,
        "ttft_ms": 23.41856081250171,
        "itl_ms": 0.6410827620978551,
        "e2e_ms": 43.29212643753522,
        "mean_isl": 75,  # total_input_tokens 1204 / completed 16 = 75.25
        "mean_osl": 32,  # total_output_tokens 512 / 16
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    assert point(run, 4) == {
        "concurrency": 4,
        "completed_requests": 16,
        "output_tokens_per_sec": 1335.556436582728,
        "input_tokens_per_sec": None,
        "ttft_ms": 48.0049795625348,
        "itl_ms": 1.329443719758076,
        "e2e_ms": 89.21773487503515,
        "mean_isl": 75,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    notes = " ".join(run.notes or [])
    assert "pooled over requests" in notes
    assert "warmup requests excluded" in notes
    assert "totals / completed requests" in notes
    assert_valid(run, tmp_path)


def test_vllm_folder_and_single_file(tmp_path: Path) -> None:
    run = import_export("vllm", VLLM_RUNS, SCENARIO)
    assert [(p.concurrency, p.itl_ms) for p in run.points] == [(1, 0.8892836370969528), (4, 3.1489410907238016)]
    assert point(run, 4)["output_tokens_per_sec"] == 1041.5397247747376
    assert point(run, 4)["ttft_ms"] == 22.073380750043725
    assert run.date == "2026-11-30"
    assert_valid(run, tmp_path)
    single = import_export("vllm", VLLM_RUNS / "vllm-bench-serve-c1.json", SCENARIO)
    assert [(p.concurrency, p.e2e_ms) for p in single.points] == [(1, 50.55459581248556)]


def test_vllm_refuses_a_run_without_max_concurrency(tmp_path: Path) -> None:
    data = json.loads((VLLM_RUNS / "vllm-bench-serve-c1.json").read_text(encoding="utf-8"))
    data["max_concurrency"] = None
    bad = tmp_path / "r.json"
    bad.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(DocumentError, match="max-concurrency"):
        import_export("vllm", bad, SCENARIO)


def test_two_runs_at_one_concurrency_are_refused(tmp_path: Path) -> None:
    shutil.copy(VLLM_RUNS / "vllm-bench-serve-c1.json", tmp_path / "a.json")
    shutil.copy(VLLM_RUNS / "vllm-bench-serve-c1.json", tmp_path / "b.json")
    with pytest.raises(DocumentError, match="two results at concurrency 1"):
        import_export("vllm", tmp_path, SCENARIO)


# --- inference-perf 0.7.0 --------------------------------------------------------------


def test_inference_perf_reports_folder(tmp_path: Path) -> None:
    run = import_export("inference-perf", IPERF, SCENARIO)
    assert run.harness == "inference-perf"
    assert run.harness_version is None  # not recorded in its reports
    assert run.date == "2026-11-30"  # run.time.start in inference-perf.partial.stage_0.yaml
    assert point(run, 1) == {
        "concurrency": 1,
        "completed_requests": 16,
        "output_tokens_per_sec": 592.4398380197417,
        "input_tokens_per_sec": 1133.9409236116178,
        "ttft_ms": ms(0.022045531937550322),
        "itl_ms": ms(0.00038208005846828905),
        "e2e_ms": ms(0.03503378274996294),
        "mean_isl": 64,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    assert point(run, 4) == {
        "concurrency": 4,
        "completed_requests": 15,  # one request failed: "Server disconnected"
        "output_tokens_per_sec": 531.0181432349935,
        "input_tokens_per_sec": 1025.7090895484785,
        "ttft_ms": ms(0.025046284800009744),
        "itl_ms": ms(0.0007409509655943072),
        "e2e_ms": ms(0.05309093200000158),
        "mean_isl": 64,
        "mean_osl": 32,
        "kv_utilization": None,
        "prefix_cache_hit_rate": None,
        "preemptions": None,
        "request_rate": None,
    }
    notes = run.notes or []
    assert any("at concurrency 4, 1 failed request(s) (Connection Error x1)" in n for n in notes)
    assert any("pooled" in n and "includes TTFT" in n for n in notes)
    assert_valid(run, tmp_path)


def test_inference_perf_single_stage_and_refused_summary(tmp_path: Path) -> None:
    run = import_export("inference-perf", IPERF / "stage_1_lifecycle_metrics.json", SCENARIO)
    assert [(p.concurrency, p.completed_requests) for p in run.points] == [(4, 15)]
    with pytest.raises(DocumentError, match=r"summary_lifecycle_metrics\.json"):
        import_export("inference-perf", IPERF / "summary_lifecycle_metrics.json", SCENARIO)


# --- bad input: one line, never a traceback ------------------------------------------


@pytest.mark.parametrize("harness", sorted(IMPORTERS))
def test_bad_files_raise_one_line(harness: str, tmp_path: Path) -> None:
    cases = {
        "missing.json": None,
        "empty.json": "",
        "broken.json": '{"benchmarks": [',
        "list.json": "[1, 2, 3]",
        "nan.json": '{"completed": NaN}',
        "other.json": json.dumps({"kind": "Workload", "id": "x"}),
    }
    for name, text in cases.items():
        path = tmp_path / name
        if text is not None:
            path.write_text(text, encoding="utf-8")
        with pytest.raises(DocumentError) as info:
            import_export(harness, path, SCENARIO)
        assert info.value.source == str(path)
        assert "\n" not in str(info.value) and info.value.message


@pytest.mark.parametrize(
    ("harness", "path"),
    [("aiperf", GUIDELLM), ("guidellm", VLLM_SWEEP), ("vllm", GUIDELLM), ("inference-perf", GUIDELLM)],
)
def test_another_tools_export_is_refused(harness: str, path: Path) -> None:
    with pytest.raises(DocumentError):
        import_export(harness, path, SCENARIO)


def test_empty_folder_unknown_harness_and_empty_scenario(tmp_path: Path) -> None:
    for harness in IMPORTERS:
        with pytest.raises(DocumentError, match="folder"):
            import_export(harness, tmp_path, SCENARIO)
    with pytest.raises(DocumentError, match="unknown harness 'locust'"):
        import_export("locust", GUIDELLM, SCENARIO)
    with pytest.raises(DocumentError, match="scenario"):
        import_export("guidellm", GUIDELLM, " ")
    with pytest.raises(DocumentError, match="engine version"):
        import_export("guidellm", GUIDELLM, SCENARIO, engine_version="")
