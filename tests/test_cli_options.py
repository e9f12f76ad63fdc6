"""Options are checked before anything starts: one line, exit 2 (issue 13, findings 1, 5 and 7)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from servescope import limits
from servescope.bench.run import RunOptions
from servescope.bench.run_checks import check_run_options
from servescope.errors import UsageError

W = "serve-single-i256-o256-v1"


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120, cwd=cwd)


def one_usage_line(proc: subprocess.CompletedProcess[str]) -> str:
    assert proc.returncode == 2, proc.stdout + proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["--rate", "0"], "--rate 0: give a finite number > 0"),
        (["--rate", "nan"], "--rate nan: give a finite number > 0"),
        (["--rate", "-3"], "--rate -3: give a finite number > 0"),
        (["--timeout", "nan"], "--timeout nan: give a finite number > 0"),
        (["--timeout", "inf"], "--timeout inf: give a finite number > 0"),
        (["--rate", "2", "--arrival", "gamma", "--gamma-shape", "-1"], "--gamma-shape -1: give a finite number > 0"),
        (["--gamma-shape", "0.5"], "--gamma-shape 0.5 only shapes --arrival gamma"),
        (["--arrival", "constant"], "--arrival constant needs --rate"),
        (["--endpoint", "http://127.0.0.1:99999/v1"], "the port must be"),
        (["--endpoint", "http://127.0.0.1:0/v1"], "the port must be in 1..65535"),
        (["--endpoint", "http://127.0.0.1:9/v1", "--engine-args", "--max-num-seqs '64"], "--engine-args: cannot split"),
        (["--out", "a-file"], "--out a-file: is a file, not a folder"),
        (["--out", "a-file/runs"], "a-file is a file, not a folder"),
        (["--slo", "ttft_ms<=1.2.3"], "--slo 'ttft_ms<=1.2.3': threshold '1.2.3' is not a number; write SLOs like"),
        (["--min-success-rate", "nan"], "--min-success-rate nan: give a share in 0..1"),
        (["--min-success-rate", "2"], "--min-success-rate 2.0: give a share in 0..1"),
        (["--api-key-env", "SERVESCOPE_TEST_UNSET_VAR"], "--api-key-env SERVESCOPE_TEST_UNSET_VAR: that environment variable"),
        (["--concurrency", "2000000"], "--concurrency 2000000: give levels in 1.."),
        (["--scrape-interval", "nan"], "--scrape-interval"),
        (["--ctx-per-slot", "4"], "--ctx-per-slot 4: give 16.."),
        # an empty value (an unset shell variable) is refused by name, not read as "not given"
        (["--slo", ""], "--slo '': give a value"),
        (["--model", " "], "--model ' ': give a value"),
        (["--engine", ""], "--engine '': give a value"),
        (["--api-key-env", ""], "--api-key-env '': give a value"),
    ],
)
def test_a_bad_run_option_is_one_line_before_anything_starts(tmp_path: Path, args: list[str], expected: str) -> None:
    (tmp_path / "a-file").write_text("not a folder")
    proc = run("run", W, *args, cwd=tmp_path)
    assert expected in one_usage_line(proc)
    assert "starting the embedded" not in proc.stdout + proc.stderr  # nothing started
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a-file"]  # nothing written


def test_the_library_entry_point_checks_the_same_options(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="--rate nan"):
        check_run_options(RunOptions(workload_id=W, rate=float("nan"), out_dir=tmp_path))
    check_run_options(RunOptions(workload_id=W, rate=2.0, arrival="gamma", gamma_shape=0.5, out_dir=tmp_path / "new"))


@pytest.mark.parametrize(
    ("args", "expected"),
    [
        (["predict", "llama-3.1-8b-on-h100", "--isl", "-5", "--osl", "10", "--concurrency", "1"], "--isl -5: give at least 1 token"),
        (
            ["predict", "llama-3.1-8b-on-h100", "--isl", "100", "--osl", "10", "--concurrency", "1000000000"],
            "give levels in 1..1,000,000 (SERVESCOPE_MAX_CONCURRENCY)",
        ),  # run's rule for levels
        (
            ["predict", "llama-3.1-8b-on-h100", "--isl", "100", "--osl", "10", "--concurrency", "1", "--num-requests", "100000000"],
            "SERVESCOPE_MAX_SIMULATED_REQUESTS",
        ),
        (["predict", "llama-3.1-8b-on-h100", "--isl", "10", "--osl", "10", "--rate", "1e9"], "SERVESCOPE_MAX_SIMULATED_REQUESTS"),
        (["predict", "llama-3.1-8b-on-h100", "--isl", "1000000000", "--osl", "10", "--concurrency", "1"], "SERVESCOPE_MAX_TOKENS"),
        (
            ["search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "100000", "--slo", "ttft_ms<=500", "--isl", "100", "--osl", "10"],
            "SERVESCOPE_MAX_GPUS",
        ),
        (
            [
                "search",
                "--model",
                "llama-3.1-8b",
                "--hardware",
                "h100-sxm",
                "--gpus",
                "8",
                "--slo",
                "ttft_ms<=500",
                "--isl",
                "100",
                "--osl",
                "10",
                "--max-num-seqs",
                "1000000000",
            ],
            "max_num_seqs 1,000,000,000",
        ),
    ],
)
def test_resource_estimates_above_a_limit_are_refused_at_once(tmp_path: Path, args: list[str], expected: str) -> None:
    proc = run(*args, cwd=tmp_path)
    assert expected in one_usage_line(proc)
    assert not any(tmp_path.iterdir())


def test_a_synthetic_budget_is_counted_without_creating_requests() -> None:
    from servescope.predict.workload_input import SyntheticWorkload

    spec = SyntheticWorkload(concurrency=(1, 8), isl=10, osl=10, num_requests=100)
    assert spec.simulated_requests() == sum(spec.warmup_at(c) + 100 + spec.cooldown_at(c) for c in (1, 8))
    with pytest.raises(ValueError, match="SERVESCOPE_MAX_SIMULATED_REQUESTS"):
        SyntheticWorkload(concurrency=(1,), isl=10, osl=10, num_requests=limits.MAX_SIMULATED_REQUESTS + 1)


# --- gates that cannot pass on nothing (finding 7) -------------------------------------------------


def test_validate_of_a_folder_with_no_documents_fails(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "notes.txt").write_text("no documents here")
    proc = run("validate", "empty", cwd=tmp_path)
    assert proc.returncode == 1
    assert "no documents found" in proc.stderr and "empty" in proc.stderr


def test_validate_json_of_nothing_says_invalid(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    proc = run("validate", "empty", "--format", "json", cwd=tmp_path)
    assert proc.returncode == 1
    assert json.loads(proc.stdout)["valid"] is False


def test_regress_of_empty_folders_fails(tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    proc = run("regress", "--baseline", "a", "--results", "b", cwd=tmp_path)
    assert proc.returncode == 1
    assert "no deterministic result to compare" in proc.stderr.lower()


def test_a_concurrency_of_2_64_is_refused_by_validate(tmp_path: Path) -> None:
    doc = {
        "kind": "EvaluationRun", "name": "n", "scenario": "s", "harness": "h", "engine_version": "1",
        "points": [{"concurrency": 2**64, "ttft_ms": 5.0}],
    }  # fmt: skip
    (tmp_path / "run.json").write_text(json.dumps(doc))
    proc = run("validate", "run.json", cwd=tmp_path)
    assert proc.returncode == 1
    assert "points[0].concurrency" in proc.stderr and "less than or equal to" in proc.stderr
