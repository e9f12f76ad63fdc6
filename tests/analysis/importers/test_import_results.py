"""Results from real exports (fixtures/README.md says which tool, version and command
wrote each file): full distributions, TPOT, failed requests apart from completed ones,
token totals, one point per concurrency; and that `validate`, `compare` and `summarize`
take such a Result. Expected values are copied by hand from the fixture files (values
the harness reports in seconds are checked as that number x 1000)."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from servescope.analysis.compare import CompareRefused, compare
from servescope.analysis.importers import import_documents, import_export, import_result
from servescope.analysis.importers._model import categorize, http_status
from servescope.analysis.summarize import write_summary
from servescope.catalog.validate import validate_paths
from servescope.documents import Result, load
from servescope.errors import DocumentError

FIXTURES = Path(__file__).parent / "fixtures"
AIPERF = FIXTURES / "aiperf"
AIPERF_ERRORS = FIXTURES / "aiperf-errors" / "profile_export_aiperf.json"
GUIDELLM = FIXTURES / "guidellm" / "benchmarks.json"
GUIDELLM_ERRORS = FIXTURES / "guidellm-errors" / "benchmarks.json"
GUIDELLM_INCOMPLETE = FIXTURES / "guidellm-incomplete" / "benchmarks.json"
VLLM_C1 = FIXTURES / "vllm" / "runs" / "vllm-bench-serve-c1.json"
VLLM_SWEEP = FIXTURES / "vllm" / "vllm-bench-serve-sweep.json"
VLLM_DEFAULTS = FIXTURES / "vllm" / "vllm-server" / "a-default-percentiles-detailed-c4-n32.json"
VLLM_FAILED_DETAILED = FIXTURES / "vllm" / "vllm-server" / "b-some-failed-over-max-model-len-c4-n32.json"
VLLM_FAILED_DEFAULT = FIXTURES / "vllm" / "failed-default" / "vllm-bench-serve-default-failed-c4.json"
IPERF = FIXTURES / "inference-perf" / "reports"
BASELINE = Path(__file__).parents[3] / "baselines" / "official" / "results"
SCENARIO = "tiny-llama-on-cpu"


def ms(seconds: float) -> Any:
    return pytest.approx(seconds * 1000.0, rel=1e-12)


def dist(result: Result, name: str, concurrency: int | None = None) -> dict[str, Any] | None:
    points = result.points or []
    metrics = result.metrics if concurrency is None else next(p.metrics for p in points if p.concurrency == concurrency)
    d = getattr(metrics, name)
    return None if d is None else d.model_dump()


def assert_valid(result: Result, tmp_path: Path, name: str = "result.json") -> Path:
    """The Result passes `servescope validate` with no error and no warning."""
    out = tmp_path / name
    out.write_text(json.dumps(result.dump(), indent=1), encoding="utf-8")
    report = validate_paths([out])
    assert [(i.level, i.path, i.message) for _, i in report.issues()] == []
    assert isinstance(report.files[0].document, Result)
    return out


def failures(result: Result) -> list[tuple[str, str, int, int | None, int | None]]:
    return [(f.category, f.stage, f.count, f.http_status, f.concurrency) for f in result.failures]


@pytest.mark.parametrize(
    ("message", "status", "category"),
    [
        # The error texts the fixtures hold, as each harness recorded them.
        ("Bad Request", 400, "http-error"),  # vLLM keeps only the reason phrase
        (
            "HTTPStatusError(\"Client error '400 Bad Request' for url 'http://127.0.0.1:53715/v1/chat/completions'\")",
            400,
            "http-error",
        ),
        (
            (
                'Bad Request {"error":{"code":400,"message":"request (2436 tokens) exceeds the available context '
                'size (2048 tokens), try increasing it","type":"exceed_context_size_error"}}'
            ),
            400,
            "context-overflow",
        ),
        ("Connection Error: Server disconnected", None, "connection"),
        ("Request was cancelled", None, "cancelled"),
        ("Too Many Requests", 429, "rejected"),
        ("something odd", None, "other"),
    ],
)
def test_error_messages_are_categorised(message: str, status: int | None, category: str) -> None:
    assert http_status(message) == status
    assert categorize(message, http_status(message)) == category


# --- vLLM ---------------------------------------------------------------------------


def test_vllm_result_keeps_percentiles_tpot_and_token_totals(tmp_path: Path) -> None:
    """vllm-bench-serve-c1.json: --percentile-metrics ttft,tpot,itl,e2el --metric-percentiles 50,90,99."""
    result = import_result("vllm", VLLM_C1, SCENARIO)
    assert result.metadata.harness == "vllm-bench-serve"
    assert result.timing_mode == "explicit"
    assert result.model.id == "servescope-tiny-llama"
    assert result.engine.id == "unknown" and result.engine.version is None
    assert [p.concurrency for p in result.points or []] == [1]
    assert dist(result, "ttft_ms") == {
        "count": None,
        "mean": 22.98680306248002,
        "p50": 19.410031500228797,
        "p90": 34.028529500119475,
        "p95": None,  # not asked for: vLLM did not compute it
        "p99": 37.96795910009223,
        "min": None,
        "max": None,
        "std": 8.779464048828352,
    }
    assert dist(result, "tpot_ms") == {
        "count": None,
        "mean": 0.8892836370969527,
        "p50": 0.9392779838743727,
        "p90": 1.802542629027284,
        "p95": None,
        "p99": 2.274845840319387,
        "min": None,
        "max": None,
        "std": 0.709763225853374,
    }
    itl = dist(result, "itl_ms")
    assert itl is not None and (itl["mean"], itl["p99"]) == (0.8892836370969528, 8.475123799917165)
    e2e = dist(result, "e2e_ms")
    assert e2e is not None and (e2e["mean"], e2e["p50"], e2e["p90"]) == (50.55459581248556, 43.7110569998822, 80.71383199990123)
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests, m.success_rate) == (16, 16, 0, 1.0)
    assert (m.input_tokens_total, m.output_tokens_total) == (1204, 512)
    assert (m.mean_isl, m.mean_osl) == (75.25, 32.0)  # the totals / completed
    assert (m.duration_s, m.requests_per_sec, m.output_tokens_per_sec) == (
        0.8183538869998301,
        19.551443763110424,
        625.6462004195336,
    )
    assert result.throughput == 16
    assert result.p50_turnaround_s == pytest.approx(0.0437110569998822, rel=1e-12)
    assert result.p95_turnaround_s is None
    assert result.failures == [] and result.blocked_by_reason_code == {}
    assert result.metadata.finished_at == "2026-11-30T09:24:41"  # "date": "20261130-092441"
    assert_valid(result, tmp_path)


def test_vllm_default_percentile_metrics_give_an_e2e_mean_without_percentiles(tmp_path: Path) -> None:
    """a-default-...json: no --percentile-metrics (vLLM's default ttft,tpot,itl) nor --metric-percentiles (99)."""
    data = json.loads(VLLM_DEFAULTS.read_text(encoding="utf-8"))
    result, run = import_documents("vllm", VLLM_DEFAULTS, SCENARIO)
    assert dist(result, "ttft_ms") == {
        "count": None,
        "mean": 147.33764781249903,
        "p50": 36.23230300001978,  # median_ttft_ms
        "p90": None,
        "p95": None,
        "p99": 311.87555049001503,
        "min": None,
        "max": None,
        "std": 133.09067917149505,
    }
    tpot = dist(result, "tpot_ms")
    assert tpot is not None and (tpot["mean"], tpot["p50"], tpot["p99"]) == (
        1.6550968663877443,
        2.1333377204722472,
        3.444915532913373,
    )
    # No mean_e2el_ms in the file: the mean of the 32 per-request 'latencies' (seconds), all completed.
    assert "mean_e2el_ms" not in data and len(data["latencies"]) == 32
    assert dist(result, "e2e_ms") == {
        "count": 32,
        "mean": pytest.approx(math.fsum(data["latencies"]) / 32 * 1000.0, rel=1e-12),
        "p50": None,
        "p90": None,
        "p95": None,
        "p99": None,
        "min": None,
        "max": None,
        "std": None,
    }
    assert result.p50_turnaround_s is None and result.p95_turnaround_s is None
    assert run.points[0].e2e_ms == pytest.approx(math.fsum(data["latencies"]) / 32 * 1000.0, rel=1e-12)
    assert (run.points[0].mean_isl, run.points[0].mean_osl) == (139, 128)  # 4456 / 32 = 139.25, 4096 / 32
    assert result.model.id == "tiny-random-llama"
    assert_valid(result, tmp_path)


def test_vllm_failed_requests_are_counted_and_categorised(tmp_path: Path) -> None:
    """b-some-failed-...json (--save-detailed): 23 completed, 9 failed with HTTP 400 ("Bad Request")."""
    data = json.loads(VLLM_FAILED_DETAILED.read_text(encoding="utf-8"))
    result, run = import_documents("vllm", VLLM_FAILED_DETAILED, SCENARIO)
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (32, 23, 9)
    assert m.success_rate == pytest.approx(23 / 32)
    assert failures(result) == [("http-error", "send", 9, 400, 4)]
    assert result.failures[0].message == "vllm: Bad Request"
    assert result.blocked_by_reason_code == {"http-error": 9}
    assert result.points and result.points[0].status == "partial"
    assert (m.input_tokens_total, m.output_tokens_total) == (19875, 689)
    assert m.mean_isl == pytest.approx(19875 / 23) and m.mean_osl == pytest.approx(689 / 23)
    # E2E mean over the 23 entries whose 'errors' entry is empty.
    ok = [lat for lat, e in zip(data["latencies"], data["errors"], strict=True) if e == ""]
    e2e = dist(result, "e2e_ms")
    assert len(ok) == 23 and e2e is not None
    assert (e2e["count"], e2e["mean"]) == (23, pytest.approx(math.fsum(ok) / 23 * 1000.0, rel=1e-12))
    assert run.points[0].completed_requests == 23
    assert (run.points[0].mean_isl, run.points[0].mean_osl) == (864, 30)
    assert any("9 failed request(s) are excluded" in n for n in run.notes or [])
    assert_valid(result, tmp_path)


def test_vllm_failed_without_save_detailed(tmp_path: Path) -> None:
    """vllm-bench-serve-default-failed-c4.json: default flags, no --save-detailed: 13 completed, 11 failed."""
    data = json.loads(VLLM_FAILED_DEFAULT.read_text(encoding="utf-8"))
    result = import_result("vllm", VLLM_FAILED_DEFAULT, SCENARIO)
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (24, 13, 11)
    assert failures(result) == [("other", "stream", 11, None, 4)]  # the export keeps no error text
    assert result.blocked_by_reason_code == {"other": 11}
    assert any("--save-detailed" in n for n in result.resolved_params["import"]["notes"])
    # 'latencies' has 24 entries, 13 of them non-zero: exactly the completed requests.
    nonzero = [lat for lat in data["latencies"] if lat > 0]
    e2e = dist(result, "e2e_ms")
    assert len(data["latencies"]) == 24 and len(nonzero) == 13 and e2e is not None
    assert (e2e["count"], e2e["mean"], e2e["p99"]) == (13, pytest.approx(math.fsum(nonzero) / 13 * 1000.0, rel=1e-12), None)
    assert (m.input_tokens_total, m.output_tokens_total) == (21867, 356)
    assert import_export("vllm", VLLM_FAILED_DEFAULT, SCENARIO).points[0].completed_requests == 13
    assert_valid(result, tmp_path)


def test_vllm_e2e_mean_stays_null_when_completed_entries_are_unknown(tmp_path: Path) -> None:
    """A failed request may carry a latency (a stream that broke): then the non-zero count does not match."""
    data = json.loads(VLLM_FAILED_DEFAULT.read_text(encoding="utf-8"))
    data["latencies"][0] = 0.25  # as if the first failed request had broken mid-stream
    edited = tmp_path / "r.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    result = import_result("vllm", edited, SCENARIO)
    assert result.metrics.e2e_ms is None
    assert result.metrics.ttft_ms is not None and result.metrics.ttft_ms.mean == 316.8831674615481


def test_vllm_sweep_is_one_point_per_concurrency(tmp_path: Path) -> None:
    result = import_result("vllm", VLLM_SWEEP, SCENARIO, engine="llama.cpp", engine_version="b0-unknown")
    assert [p.concurrency for p in result.points or []] == [1, 4]
    assert dist(result, "ttft_ms", 4) is not None and dist(result, "ttft_ms", 4)["mean"] == 48.0049795625348  # type: ignore[index]
    m = result.metrics  # the top level adds up what adds up, and no more
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (32, 32, 0)
    assert (m.input_tokens_total, m.output_tokens_total, m.mean_isl, m.mean_osl) == (2408, 1024, 75.25, 32.0)
    assert m.ttft_ms is None and m.output_tokens_per_sec is None and result.p50_turnaround_s is None
    assert result.engine.id == "llama.cpp" and result.engine.version == "b0-unknown"
    assert result.config_id == Result.model_validate(result.dump()).expected_config_id()
    assert_valid(result, tmp_path)


# --- aiperf -------------------------------------------------------------------------


def test_aiperf_failed_requests_are_not_completed(tmp_path: Path) -> None:
    """aiperf-errors: request_count 15 (successful), error_request_count 9, completed_request_count 24 (both)."""
    result, run = import_documents("aiperf", AIPERF_ERRORS, SCENARIO)
    assert run.points[0].completed_requests == 15
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests, m.success_rate) == (24, 15, 9, 0.625)
    assert result.throughput == 15
    assert failures(result) == [("context-overflow", "send", 9, 400, 4)]
    assert "exceeds the available context size (2048 tokens)" in result.failures[0].message
    assert result.blocked_by_reason_code == {"context-overflow": 9}
    assert (m.input_tokens_total, m.output_tokens_total, m.token_count_source) == (25018, 476, "server-usage")
    assert (m.mean_isl, m.mean_osl) == (1667.8666666666666, 31.733333333333334)  # usage_* avg
    assert dist(result, "ttft_ms") == {
        "count": 15,
        "mean": 372.0321744666666,
        "p50": 322.39468899999997,
        "p90": 597.2929447999999,
        "p95": 675.5586915999997,
        "p99": 808.2438999199998,
        "min": 97.547322,
        "max": 841.4152019999999,
        "std": 194.87897254944443,
    }
    tpot = dist(result, "tpot_ms")  # aiperf's inter_token_latency: per request
    assert tpot is not None and (tpot["count"], tpot["mean"]) == (15, 17.644439126632868)
    itl = dist(result, "itl_ms")  # aiperf's inter_chunk_latency: pooled gaps
    assert itl is not None and (itl["count"], itl["mean"], itl["max"]) == (461, 18.152547609544467, 300.499558)
    e2e = dist(result, "e2e_ms")
    assert e2e is not None and (e2e["p50"], e2e["p95"]) == (1021.056512, 1288.6662446999997)
    assert (result.p50_turnaround_s, result.p95_turnaround_s) == (
        pytest.approx(1.021056512, rel=1e-12),
        pytest.approx(1.2886662446999997, rel=1e-12),
    )
    assert m.duration_s == pytest.approx(3.8673292800000003, rel=1e-12)
    assert result.model.id == "servescope-tiny-llama"
    assert result.endpoint == "http://127.0.0.1:53715"
    assert (result.metadata.harness, result.metadata.harness_version, result.metadata.seed) == ("aiperf", "0.13.0", 7)
    assert result.metadata.started_at == "2026-12-01T07:20:07.287913"
    assert "--isl-stddev 400" in (result.resolved_params["import"]["command"] or "")
    assert_valid(result, tmp_path)


def test_aiperf_sweep_result(tmp_path: Path) -> None:
    result = import_result("aiperf", AIPERF, SCENARIO)
    assert [p.concurrency for p in result.points or []] == [1, 4]
    assert [p.status for p in result.points or []] == ["ok", "ok"]
    c4 = dist(result, "e2e_ms", 4)
    assert c4 is not None and (c4["mean"], c4["p99"], c4["std"]) == (139.474251125, 169.71662809999998, 15.857485648985827)
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (32, 32, 0)
    assert (m.input_tokens_total, m.output_tokens_total) == (2400, 1024)  # total_usage_* 1200 + 1200, 512 + 512
    assert result.failures == []
    assert_valid(result, tmp_path)


# --- guidellm -----------------------------------------------------------------------


def test_guidellm_errored_requests_are_not_completed(tmp_path: Path) -> None:
    """guidellm-errors: request_totals successful 19, errored 5 (HTTP 400), incomplete 0."""
    result, run = import_documents("guidellm", GUIDELLM_ERRORS, SCENARIO)
    assert run.points[0].completed_requests == 19
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (24, 19, 5)
    assert failures(result) == [("http-error", "send", 5, 400, 4)]
    assert "400 Bad Request" in result.failures[0].message
    assert result.blocked_by_reason_code == {"http-error": 5}
    assert dist(result, "ttft_ms") == {
        "count": 19,
        "mean": 762.154039583708,
        "p50": 693.8788890838623,
        "p90": 1324.1755962371826,
        "p95": 1767.0762538909912,
        "p99": 1767.0762538909912,
        "min": 256.2406063079834,
        "max": 1767.0762538909912,
        "std": 391.39376946033195,
    }
    e2e = dist(result, "e2e_ms")
    assert e2e is not None
    assert (e2e["mean"], e2e["p90"], e2e["max"]) == (ms(1.6013759688327185), ms(2.6203720569610596), ms(2.8968944549560547))
    itl = dist(result, "itl_ms")
    assert itl is not None and (itl["count"], itl["mean"]) == (587, 27.148809303010747)
    assert m.tpot_ms is None  # guidellm's time_per_output_token_ms includes TTFT
    assert (m.input_tokens_total, m.output_tokens_total) == (31091, 606)  # total_sum 31090.999999999993, 606.0
    assert (m.output_tokens_per_sec, m.duration_s) == (75.12523538444064, 8.066530466079712)
    assert result.endpoint == "http://127.0.0.1:53715" and result.model.id == "servescope-tiny-llama"
    assert result.metadata.harness_version == "0.8.1" and result.metadata.python_version == "3.11.7"
    assert_valid(result, tmp_path)


def test_guidellm_incomplete_requests_are_failed_as_cancelled(tmp_path: Path) -> None:
    """guidellm-incomplete: a 3 s limit left 4 requests in flight (request_totals incomplete 4)."""
    result, run = import_documents("guidellm", GUIDELLM_INCOMPLETE, SCENARIO)
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (8, 4, 4)
    assert failures(result) == [("cancelled", "stream", 4, None, 4)]
    assert "Request was cancelled" in result.failures[0].message
    assert result.blocked_by_reason_code == {"cancelled": 4}
    assert (m.input_tokens_total, m.output_tokens_total, m.duration_s) == (6044, 256, 3.0)
    e2e = dist(result, "e2e_ms")
    assert e2e is not None and (e2e["count"], e2e["mean"], e2e["max"]) == (4, ms(1.8062794208526611), ms(1.8106915950775146))
    assert run.points[0].completed_requests == 4
    assert_valid(result, tmp_path)


# --- inference-perf -------------------------------------------------------------------


def test_inference_perf_result_with_its_failure(tmp_path: Path) -> None:
    """stage_1: 15 successes, 1 failure ("Connection Error": "Server disconnected")."""
    result = import_result("inference-perf", IPERF, SCENARIO)
    c4 = next(p for p in result.points or [] if p.concurrency == 4)
    assert (c4.metrics.total_requests, c4.metrics.completed_requests, c4.metrics.failed_requests) == (16, 15, 1)
    assert c4.status == "partial"
    assert failures(result) == [("connection", "connect", 1, None, 4)]
    assert result.failures[0].message == "inference-perf: Connection Error: Server disconnected"
    assert result.blocked_by_reason_code == {"connection": 1}
    tpot = dist(result, "tpot_ms", 4)  # time_per_output_token, seconds
    assert tpot is not None
    assert (tpot["mean"], tpot["p50"], tpot["p99"]) == (
        ms(0.0007136959955886511),
        ms(0.0007093870909061066),
        ms(0.0019058522535333798),
    )
    assert tpot["std"] is None  # inference-perf reports none
    assert (c4.metrics.input_tokens_total, c4.metrics.output_tokens_total) == (960, 480)
    assert c4.metrics.requests_per_sec == 16.026704524194976
    m = result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (32, 31, 1)
    assert result.metadata.started_at == "2026-11-30T09:22:58.406879Z"  # stage_0's run.time.start
    assert_valid(result, tmp_path)


# --- the documents downstream -------------------------------------------------------------


def test_compare_takes_imported_results(tmp_path: Path) -> None:
    """Two harnesses, same engine and load (16 requests at 1 and 4, 64 in / 32 out): paired by concurrency."""
    a = import_result("aiperf", AIPERF, SCENARIO, workload="tiny-c1-c4")
    b = import_result("guidellm", GUIDELLM, SCENARIO, workload="tiny-c1-c4")
    c = compare(a, b)
    assert c.unpaired_a == [] and c.unpaired_b == []
    ttft4 = next(p for p in c.pairs if p.metric == "ttft_ms" and p.concurrency == 4)
    assert (ttft4.a, ttft4.b) == (48.352866937499996, 45.515865087509155)
    assert any("'aiperf'" in w and "'guidellm'" in w and "inter_chunk_latency" in w for w in c.warnings)
    # Against a servescope Result (the shipped simulated baseline of the same scenario, points 1, 2, 4, 8).
    baseline = load(BASELINE / "tiny-llama-on-cpu--sweep-parallel-1-8-i128-o64-v1.json").document
    assert isinstance(baseline, Result)
    with pytest.raises(CompareRefused, match="different questions"):
        compare(a, baseline)
    forced = compare(a, baseline, force=True)  # the simulated baseline is the prediction: it becomes A, the measurement B
    assert sorted({p.concurrency for p in forced.pairs}) == [1, 4] and forced.unpaired_a == [2, 8]
    assert any("A is the prediction and B the measurement" in w for w in forced.warnings)


def test_summarize_takes_imported_results(tmp_path: Path) -> None:
    results = [import_result("aiperf", AIPERF_ERRORS, SCENARIO), import_result("guidellm", GUIDELLM_ERRORS, SCENARIO)]
    files = write_summary(results, tmp_path / "summary")
    assert (files.results, files.groups) == (2, 2)
    text = files.v02.read_text(encoding="utf-8")
    header, *rows = text.splitlines()
    cols = header.split(",")
    by_harness = {r.split(",")[cols.index("harness")]: dict(zip(cols, r.split(","), strict=True)) for r in rows}
    assert by_harness["aiperf"]["completed_requests_mean"] == "15.0"
    assert by_harness["aiperf"]["failed_requests_mean"] == "9.0"
    assert by_harness["guidellm"]["failed_requests_mean"] == "5.0"


def test_a_recorded_command_keeps_no_credentials(tmp_path: Path) -> None:
    data = json.loads(AIPERF_ERRORS.read_text(encoding="utf-8"))
    recorded = data["run_info"]["cli_command"]
    assert import_result("aiperf", AIPERF_ERRORS, SCENARIO).resolved_params["import"]["command"] == recorded
    data["run_info"]["cli_command"] = recorded + " --api-key 'sk-abc123' -H 'Authorization: Bearer xyz'"
    edited = tmp_path / "profile_export_aiperf.json"
    edited.write_text(json.dumps(data), encoding="utf-8")
    command = import_result("aiperf", edited, SCENARIO).resolved_params["import"]["command"]
    assert "sk-abc123" not in command and "xyz" not in command
    assert command.endswith("--api-key '<redacted>' -H '<redacted>'")


def test_empty_option_values_are_refused() -> None:
    for key in ("engine", "engine_version", "workload"):
        with pytest.raises(DocumentError, match="empty"):
            import_documents("aiperf", AIPERF_ERRORS, SCENARIO, **{key: " "})


# --- the command --------------------------------------------------------------------------


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120, check=False)


@pytest.mark.integration
def test_import_command_writes_both_documents(tmp_path: Path) -> None:
    out = tmp_path / "imported"
    proc = run_cli("import", "aiperf", str(AIPERF_ERRORS), "--scenario", SCENARIO, "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["evaluation-run.json", "result.json"]
    assert "Result (15 completed, 9 failed request(s))" in proc.stderr
    check = run_cli("validate", "--strict", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    run = json.loads((out / "evaluation-run.json").read_text(encoding="utf-8"))
    assert run["kind"] == "EvaluationRun" and run["points"][0]["completed_requests"] == 15
    # A file name keeps the older form: the EvaluationRun there, the Result beside it.
    yaml_out = tmp_path / "run.yaml"
    proc = run_cli("import", "vllm", str(VLLM_FAILED_DEFAULT), "--scenario", SCENARIO, "-o", str(yaml_out))
    assert proc.returncode == 0, proc.stderr
    assert (tmp_path / "run.result.yaml").is_file()
    assert load(tmp_path / "run.result.yaml").ok and load(yaml_out).ok
    # compare reads the written Result.
    cmp = run_cli("compare", str(out / "result.json"), str(out / "evaluation-run.json"), "--format", "csv")
    assert cmp.returncode == 0, cmp.stderr
    assert cmp.stdout.splitlines()[0] == "concurrency,metric,a,b,error_pct,inside_interval,interval_low,interval_high"


@pytest.mark.integration
def test_import_command_bad_input_is_one_line(tmp_path: Path) -> None:
    bad = tmp_path / "broken.json"
    bad.write_text('{"completed": 3', encoding="utf-8")
    for args in (
        ("import", "vllm", str(bad), "--scenario", SCENARIO, "--out", str(tmp_path / "o")),
        ("import", "aiperf", str(AIPERF_ERRORS), "--scenario", SCENARIO, "--engine-version", ""),
        ("import", "guidellm", str(tmp_path / "missing.json"), "--scenario", SCENARIO),
    ):
        proc = run_cli(*args)
        assert proc.returncode != 0
        assert "Traceback" not in proc.stderr and proc.stderr.count("\n") == 1, proc.stderr
    assert not (tmp_path / "o").exists()
