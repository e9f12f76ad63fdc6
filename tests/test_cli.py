"""The CLI as a user runs it: a subprocess, exit codes, one line per problem, no tracebacks."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.documents.conftest import SEED_EVALUATION_RUN_YAML

SEED = SEED_EVALUATION_RUN_YAML


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=120, check=False)


def test_version() -> None:
    from servescope import __version__

    proc = run("--version")
    assert proc.returncode == 0
    assert proc.stdout.strip() == f"servescope {__version__}"


def test_help_lists_commands() -> None:
    proc = run("--help")
    assert proc.returncode == 0
    for command in ("validate", "schema", "config-id", "catalog"):
        assert command in proc.stdout


def test_validate_seed_example_clean(tmp_path: Path) -> None:
    path = tmp_path / "seed.yaml"
    path.write_text(SEED, encoding="utf-8")
    proc = run("validate", str(path))
    assert proc.returncode == 0, proc.stderr
    assert "1 file(s): 0 error(s), 0 warning(s)" in proc.stdout


def test_validate_of_a_finished_runs_records_checks_its_result_not_yaml(tmp_path: Path) -> None:
    """A run's records.jsonl is no document: validate says so and checks the run's result.json
    (it called every records file, a good one too, "invalid YAML")."""
    done = run("predict", "tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", "--concurrency", "1", "--out", str(tmp_path))
    assert done.returncode == 0, done.stderr
    [records] = tmp_path.rglob("records.jsonl")
    proc = run("validate", str(records))
    assert proc.returncode == 0, proc.stderr
    assert "a run's records, not a document: validating its run's result.json instead" in proc.stdout and "YAML" not in proc.stderr


def test_validate_reports_path_inside_document(tmp_path: Path) -> None:
    path = tmp_path / "dup.yaml"
    path.write_text(SEED.replace("concurrency: 8", "concurrency: 1"), encoding="utf-8")
    proc = run("validate", str(path))
    assert proc.returncode == 1
    assert f"{path}: points[1].concurrency: error: concurrency 1 already used by points[0]" in proc.stderr


def test_validate_warning_does_not_fail_unless_strict(tmp_path: Path) -> None:
    path = tmp_path / "warn.yaml"
    path.write_text(SEED.replace("    ttft_ms: 212.4\n    itl_ms: 7.1\n", ""), encoding="utf-8")
    proc = run("validate", str(path))
    assert proc.returncode == 0
    assert f"{path}: points[1]: warning: has output_tokens_per_sec but neither ttft_ms nor itl_ms" in proc.stdout
    assert run("validate", "--strict", str(path)).returncode == 1


def test_validate_json_format(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(SEED.replace("preemptions", "x").replace("kv_utilization: 0.62", "kv_utilization: 1.62"))
    proc = run("validate", "--format", "json", str(path))
    assert proc.returncode == 1
    payload = json.loads(proc.stdout)
    assert payload["errors"] == 1 and payload["valid"] is False
    assert payload["issues"] == [
        {
            "file": str(path),
            "path": "points[1].kv_utilization",
            "level": "error",
            "message": "Input should be less than or equal to 1 (got float 1.62)",
        }
    ]


def test_validate_without_paths_is_usage_error() -> None:
    proc = run("validate")
    assert proc.returncode == 2
    assert "give document files or folders to validate, or --catalog" in proc.stderr


BAD_FILES: dict[str, bytes] = {
    "empty.yaml": b"",
    "spaces.yaml": b"   \n\n",
    "broken.yaml": b"kind: EvaluationRun\npoints: [1, 2\n",
    "broken.json": b'{"kind": "EvaluationRun",}',
    "dupkeys.json": b'{"kind": "EvaluationRun", "kind": "Result"}',
    "unknown.yaml": b"kind: Banana\n",
    "nokind.yaml": b"name: x\n",
    "list.yaml": b"- 1\n- 2\n",
    "binary.yaml": b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
    "latin1.yaml": b"kind: EvaluationRun\nname: caf\xe9\n",
    "types.yaml": b"kind: EvaluationRun\nname: 5\nscenario: [x]\nharness: h\nengine_version: '1'\npoints: {}\n",
}


@pytest.mark.parametrize("name", sorted(BAD_FILES))
def test_bad_input_gets_clear_lines_not_tracebacks(tmp_path: Path, name: str) -> None:
    path = tmp_path / name
    path.write_bytes(BAD_FILES[name])
    proc = run("validate", str(path))
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert lines and all(re.match(rf"^{re.escape(str(path))}: \S+: error: .+", line) for line in lines), lines


def test_missing_file_and_huge_file(tmp_path: Path) -> None:
    huge = tmp_path / "huge.json"
    with huge.open("wb") as fh:
        fh.write(b" " * (50 * 1024 * 1024))
    proc = run("validate", str(tmp_path / "nope.yaml"), str(huge))
    assert proc.returncode == 1
    assert f"{tmp_path / 'nope.yaml'}: (document): error: no such file" in proc.stderr
    assert f"{huge}: (document): error: is 52.4 MB; documents are limited to 20 MiB" in proc.stderr


def test_validate_packaged_catalog_clean() -> None:
    proc = run("validate", "--strict", "--catalog")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert " 0 error(s), 0 warning(s)" in proc.stdout


def test_config_id_command() -> None:
    a = run("config-id", "vllm", "0.6.3", "--", "--max-num-seqs", "64", "-tp", "1")
    b = run("config-id", "vLLM", "v0.6.3", "--", "--max_num_seqs=64")
    assert a.returncode == 0 and re.fullmatch(r"[0-9a-f]{16}\n", a.stdout)
    assert a.stdout == b.stdout


def test_config_id_bad_flags_is_one_line() -> None:
    proc = run("config-id", "vllm", "0.6.3", "--", "oops")
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    assert "'oops' is neither a flag nor an engine launcher" in proc.stderr
    assert len(proc.stderr.strip().splitlines()) == 1


def _one_error_line(proc: subprocess.CompletedProcess[str], code: int = 2) -> str:
    assert proc.returncode == code, proc.stdout + proc.stderr
    text = proc.stdout + proc.stderr
    assert "Traceback" not in text and "internal error" not in text
    lines = [line for line in proc.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith("error: "), lines
    return lines[0]


@pytest.mark.parametrize(
    "pasted",
    [
        ["vllm", "serve", "meta-llama/Llama-3.1-8B", "--max-num-seqs", "64", "--dtype", "float32"],
        ["vllm serve meta-llama/Llama-3.1-8B --max-num-seqs 64 \\\n --dtype float32"],
        ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "x", "--max-num-seqs", "64", "--dtype", "float32"],
    ],
)
def test_config_id_takes_a_pasted_command_line(pasted: list[str]) -> None:
    flags = run("config-id", "vllm", "0.32", "--", "--max-num-seqs", "64", "--dtype", "float32")
    cmd = run("config-id", "vllm", "0.32", "--", *pasted)
    assert flags.returncode == 0 and cmd.returncode == 0, cmd.stderr
    assert cmd.stdout == flags.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["vllm", "0.32", "--", "serve", "m", "--dtype", "float32"], "'serve' is neither a flag nor an engine launcher"),
        (["sglang", "0.4", "--", "vllm", "serve", "m"], "is a vllm command line but the engine given is 'sglang'"),
        (["vllm", "0.32", "--", "--enable-prefix-caching", "--no-enable-prefix-caching"], "'enable-prefix-caching' given twice with different values"),
        (["vllm", "0.32", "--", "--max-num-seqs '64"], "cannot split"),
    ],
)
def test_config_id_bad_command_line_is_one_line(args: list[str], message: str) -> None:
    assert message in _one_error_line(run("config-id", *args))


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--extra-body", "{ignore_eos: true}"], "--extra-body is not valid JSON"),
        (["--extra-body", "[1]"], "--extra-body must be a JSON object"),
        (["--engine-args", "serve m --dtype float32"], "'serve' is neither a flag nor an engine launcher"),
        (["--engine-args", "vllm serve m", "--engine", "sglang"], "is a vllm command line but the engine given is 'sglang'"),
        (
            ["--engine-args", "--enable-prefix-caching --no-enable-prefix-caching", "--engine", "vllm"],
            "'enable-prefix-caching' given twice with different values",
        ),
    ],
)
def test_run_bad_request_or_engine_options_are_one_line_before_anything_is_sent(args: list[str], message: str) -> None:
    # port 9 (discard) is closed: a line about reaching it would mean the options were not checked first
    line = _one_error_line(run("run", "serve-chat-c8-i1k-o256-v1", "--endpoint", "http://127.0.0.1:9/v1", *args))
    assert message in line


def test_run_refuses_engine_args_for_the_embedded_engine() -> None:
    line = _one_error_line(run("run", "serve-chat-c8-i1k-o256-v1", "--engine-args", "--max-num-seqs 64"))
    assert "--engine-args describes a server you started" in line


def test_import_writes_a_valid_evaluation_run(tmp_path: Path) -> None:
    fixtures = Path(__file__).parent / "analysis" / "importers" / "fixtures"
    out = tmp_path / "imported.yaml"
    proc = run("import", "vllm", str(fixtures / "vllm"), "--scenario", "tiny-llama-on-cpu", "--engine-version", "b1", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert "EvaluationRun with 2 point(s) from vllm" in proc.stderr
    check = run("validate", "--strict", str(out))
    assert check.returncode == 0, check.stdout + check.stderr
    bad = run("import", "aiperf", str(tmp_path / "missing.json"), "--scenario", "tiny-llama-on-cpu")
    assert bad.returncode == 1 and "Traceback" not in bad.stderr and bad.stderr.count("\n") == 1
