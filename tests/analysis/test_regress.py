"""regress: keyed by identifiers, integers and structs only, deterministic runs only."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from servescope.analysis.regress import regress
from servescope.documents import Result, config_id


def sim_result(
    run_id: str,
    completed: int = 10,
    failed: int = 0,
    ttft: float = 50.0,
    seed: int = 0,
    workload: str = "serve-x-v1",
    deterministic: bool = True,
    concurrency: int | None = None,
) -> dict[str, Any]:
    doc: dict[str, Any] = {
        "kind": "Result",
        "run_id": run_id,
        "workload_id": workload,
        "scenario": "s",
        "config_id": config_id("vllm", "0.6", {}),
        "timing_mode": "simulated",
        "engine": {"id": "vllm", "version": "0.6"},
        "model": {"id": "m"},
        "metrics": {
            "total_requests": completed + failed,
            "completed_requests": completed,
            "failed_requests": failed,
            "output_tokens_total": completed * 8,
            "ttft_ms": {"p50": ttft},
        },
        "failures": [{"stage": "admission", "category": "rejected", "count": failed, "message": "queue full"}] if failed else [],
        "blocked_by_reason_code": {"rejected": failed} if failed else {},
        "throughput": completed,
        "metadata": {"pipeline_mode": "deterministic" if deterministic else "llm_live", "non_deterministic": not deterministic, "seed": seed},
    }
    if concurrency is not None:
        doc["resolved_params"] = {"points": [{"concurrency": concurrency}], "concurrency": concurrency}
    Result.model_validate(doc)
    return doc


def write(folder: Path, name: str, doc: dict[str, Any]) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(json.dumps(doc))


def test_identical_passes_and_floats_are_ignored(tmp_path: Path) -> None:
    write(tmp_path / "base", "a.json", sim_result("a", ttft=50.0))
    write(tmp_path / "new", "renamed.json", sim_result("a2", ttft=50.000001))  # other file name, run id, float
    report = regress(tmp_path / "base", tmp_path / "new")
    assert report.ok and report.compared == 1


def test_integer_and_struct_differences_fail(tmp_path: Path) -> None:
    write(tmp_path / "base", "a.json", sim_result("a", completed=10, failed=0))
    write(tmp_path / "new", "a.json", sim_result("a", completed=9, failed=1))
    report = regress(tmp_path / "base", tmp_path / "new")
    assert not report.ok
    text = "\n".join(report.differences)
    assert "throughput: baseline 10 != result 9" in text
    assert 'blocked_by_reason_code: baseline {} != result {"rejected": 1}' in text
    assert "metrics.failed_requests: baseline 0 != result 1" in text


def test_keyed_by_identifiers_not_position(tmp_path: Path) -> None:
    write(tmp_path / "base", "1.json", sim_result("a", seed=0))
    write(tmp_path / "base", "2.json", sim_result("b", seed=1, completed=7))
    write(tmp_path / "new", "2.json", sim_result("a", seed=0))
    write(tmp_path / "new", "1.json", sim_result("b", seed=1, completed=7))
    assert regress(tmp_path / "base", tmp_path / "new").ok


def test_missing_and_new_results_fail(tmp_path: Path) -> None:
    write(tmp_path / "base", "a.json", sim_result("a"))
    write(tmp_path / "new", "b.json", sim_result("b", workload="serve-y-v1"))
    diffs = regress(tmp_path / "base", tmp_path / "new").differences
    assert any("missing from the results" in d for d in diffs) and any("new result" in d for d in diffs)


def test_live_runs_are_skipped(tmp_path: Path) -> None:
    write(tmp_path / "base", "a.json", sim_result("a"))
    write(tmp_path / "new", "a.json", sim_result("a"))
    write(tmp_path / "new", "live.json", sim_result("live", completed=3, deterministic=False))
    report = regress(tmp_path / "base", tmp_path / "new")
    assert report.ok and any("non-deterministic" in s for s in report.skipped)


def test_results_at_two_load_points_are_both_guarded(tmp_path: Path) -> None:
    # `predict --concurrency N` changes neither the workload, the config nor the seed: only the
    # load point tells the two apart, and a change at one of them must not go unguarded
    write(tmp_path / "base", "c1.json", sim_result("a", concurrency=1))
    write(tmp_path / "base", "c8.json", sim_result("b", concurrency=8))
    write(tmp_path / "new", "c1.json", sim_result("a", concurrency=1))
    write(tmp_path / "new", "c8.json", sim_result("b", concurrency=8, completed=9, failed=1))
    report = regress(tmp_path / "base", tmp_path / "new")
    assert report.compared == 2 and not report.skipped
    assert not report.ok and all("c=8" in d for d in report.differences)
