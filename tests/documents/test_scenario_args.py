"""A scenario's ``engine.args`` that the simulator reads, checked by kind (``documents.scenario_args``): a
value outside its kind is refused in one line naming the file and ``engine.args.<flag>`` - never read as
"unset" (0), simulated as something (a negative size) or dropped (a word where a number goes); and
``engine.version`` is a version."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml
from pydantic import ValidationError

from servescope.documents import Scenario, load_document
from servescope.documents.scenario_args import ARG_KINDS, arg_problem, version_problem
from servescope.errors import DocumentError


def _doc(args: dict[str, Any], engine: str = "vllm", version: str = "0.11.0", **over: Any) -> dict[str, Any]:
    doc = {"kind": "Scenario", "name": "t", "model": "llama-3.1-8b", "hardware": "h100-sxm",
           "engine": {"id": engine, "version": version, "args": args}}  # fmt: skip
    return {**doc, **over}


def _refusal(tmp_path: Path, args: dict[str, Any], engine: str = "vllm", **over: Any) -> str:
    path = tmp_path / "my-scenario.yaml"
    path.write_text(yaml.safe_dump(_doc(args, engine, **over), sort_keys=False), encoding="utf-8")
    with pytest.raises(DocumentError) as info:
        load_document(path, Scenario)
    text = str(info.value)
    assert "\n" not in text and text.startswith(f"{path}: "), text
    return text


@pytest.mark.parametrize(
    ("flag", "value", "needle"),
    [
        ("--gpu-memory-utilization", 7.5, "7.5 is not a fraction in (0, 1]"),  # D5: a KV pool 10x the GPU
        ("--gpu-memory-utilization", 0, "0 is not a fraction in (0, 1]"),  # D6: 0 was the default
        ("--gpu-memory-utilization", "lots", "'lots' is not a number; give a fraction in (0, 1]"),
        ("--max-num-seqs", "lots", "'lots' is not an integer; give a positive integer"),  # D7: ignored
        ("--max-num-seqs", -5, "-5 is not a positive integer"),  # D8: numpy's "negative dimensions"
        ("--max-num-seqs", 2.5, "2.5 is not a whole number"),
        ("--max-num-seqs", True, "True is not an integer"),
        ("--max-num-batched-tokens", -100, "-100 is not a positive integer"),  # D11: simulated as something
        ("--max-num-batched-tokens", 0, "0 is not a positive integer"),  # D11: read as unset
        ("--block-size", 0, "0 is not a positive integer"),
        ("--max-model-len", "32k", "'32k' is not an integer"),
        ("--max_model_len", -1, "-1 is not a positive integer"),
        ("--enforce-eager", "maybe", "'maybe' is not a switch; give true or false"),  # D11: graphs kept
        ("--no-enable-prefix-caching", 3, "3 is not a switch"),
        ("--api-server-count", 0, "0 is not a positive integer"),
    ],
)
def test_a_value_outside_its_kind_is_one_line_naming_the_file_and_flag(tmp_path: Path, flag: str, value: object, needle: str) -> None:
    text = _refusal(tmp_path, {flag: value})
    assert f"engine.args.{flag}: {needle}" in text, text


def test_a_non_finite_value_is_one_line_not_four_type_mismatches(tmp_path: Path) -> None:
    text = _refusal(tmp_path, {"--max-num-seqs": float("nan")})
    assert "engine.args.--max-num-seqs: 'nan' is not an integer; give a positive integer" in text, text
    text = _refusal(tmp_path, {"--gpu-memory-utilization": float("inf")})
    assert "engine.args.--gpu-memory-utilization: 'inf' is not a number; give a fraction in (0, 1]" in text, text


def test_each_engine_reads_its_own_flags_by_kind(tmp_path: Path) -> None:
    assert "engine.args.--mem-fraction-static: 1.5 is not a fraction" in _refusal(tmp_path, {"--mem-fraction-static": 1.5}, "sglang")
    assert "engine.args.--max-running-requests: 0 is not" in _refusal(tmp_path, {"--max-running-requests": 0}, "sglang")
    trt = _refusal(tmp_path, {"kv_cache_config": {"free_gpu_memory_fraction": 0}}, "trt-llm")
    assert "engine.args.kv_cache_config.free_gpu_memory_fraction: 0 is not a fraction" in trt, trt
    policy = _refusal(tmp_path, {"scheduler_config.capacity_scheduler_policy": "SOMETIMES"}, "trt-llm")
    assert "is not a policy it knows; give one of GUARANTEED_NO_EVICT, MAX_UTILIZATION" in policy, policy
    assert "engine.args.--parallel: 'eight' is not an integer" in _refusal(tmp_path, {"--parallel": "eight"}, "llama.cpp")
    assert "engine.args.-c: -4 is not a positive integer, or 0 (the model's own context)" in _refusal(tmp_path, {"-c": -4}, "llama.cpp")


def test_the_values_engines_give_a_meaning_of_their_own_and_command_line_spellings_are_taken() -> None:
    assert arg_problem("llama.cpp", "--ctx-size", 0) is None
    assert arg_problem("llama.cpp", "--threads", -1) is None
    assert arg_problem("sglang", "--chunked-prefill-size", -1) is None
    assert arg_problem("vllm", "--max-num-batched-tokens", -1) is not None  # (SGLang's -1 is SGLang's only)
    for value in ("8", 8, 8.0, " 8 "):
        assert arg_problem("vllm", "--max-num-seqs", value) is None
    for value in (None, True, "false", "yes", "off"):  # a bare flag is on
        assert arg_problem("vllm", "--enforce-eager", value) is None
    assert arg_problem("vllm", "--gpu-memory-utilization", "0.85") is None and arg_problem("vllm", "--gpu-memory-utilization", 1) is None
    assert arg_problem("vllm", "--some-flag-the-simulator-does-not-read", "anything") is None


def test_the_table_covers_what_the_simulator_reads_as_a_number_or_switch() -> None:
    """Every flag ``deployment.engine_config`` reads as a size, fraction or switch has a kind."""
    for name in ("max-num-seqs", "max-num-batched-tokens", "block-size", "page-size", "gpu-memory-utilization", "max-model-len",
                 "enable-prefix-caching", "enable-chunked-prefill", "enforce-eager", "tensor-parallel-size",
                 "pipeline-parallel-size", "data-parallel-size", "parallel", "ctx-size", "batch-size", "threads",
                 "kv-cache-free-gpu-memory-fraction", "max-tokens", "schedule-conservativeness"):  # fmt: skip
        assert name in ARG_KINDS, name


def test_a_dtype_flag_contradicting_its_field_names_the_file_and_flag(tmp_path: Path) -> None:
    """D13: it was "dtype 'bf16' contradicts the 'dtype' flag ('float8')", after the prediction was made."""
    text = _refusal(tmp_path, {"--dtype": "float8"})
    assert "engine.args.--dtype: 'float8' contradicts weight_dtype bf16; make them agree" in text, text
    assert Scenario.model_validate(_doc({"--dtype": "bfloat16"})).engine.args == {"--dtype": "bfloat16"}


@pytest.mark.parametrize("version", ["banana", "x", "latest-ish", "1."])
def test_an_engine_version_that_is_not_a_version_is_refused(tmp_path: Path, version: str) -> None:
    text = _refusal(tmp_path, {}, version=version)
    assert f"engine.version: {version!r} is not a version; give the engine's release" in text, text


@pytest.mark.parametrize("version", ["0.11.0", "v0.8.5", "0.5.5.post1", "1.2.0rc1", "0.6.0-dev (build 0, commit unknown)", "b4567", "unstated", "0.29"])
def test_release_spellings_are_versions(version: str) -> None:
    assert version_problem(version) is None


def test_predict_refuses_a_bad_flag_in_one_line_before_simulating(tmp_path: Path) -> None:
    path = tmp_path / "h_seqs_neg.yaml"
    path.write_text(yaml.safe_dump(_doc({"--max-num-seqs": -5}), sort_keys=False), encoding="utf-8")
    proc = subprocess.run([sys.executable, "-m", "servescope", "predict", str(path), "--isl", "64", "--osl", "8", "--concurrency", "1",
                           "--out", str(tmp_path / "o")], capture_output=True, text=True, timeout=300, check=False)  # fmt: skip
    assert proc.returncode == 1, proc.stderr  # an invalid scenario file, as every other invalid field
    assert proc.stderr.strip() == f"error: {path}: engine.args.--max-num-seqs: -5 is not a positive integer", proc.stderr
    assert not (tmp_path / "o").exists()


def test_a_bad_flag_is_refused_however_the_scenario_is_built() -> None:
    with pytest.raises(ValidationError, match=r"engine\.args\.--block-size: 0 is not a positive integer"):
        Scenario.model_validate(_doc({"--block-size": 0}))


def test_one_flag_written_twice_with_different_values_is_refused_with_the_scenario(tmp_path: Path) -> None:
    """``config_id`` refused it only once the prediction was made, naming neither file nor flag."""
    text = _refusal(tmp_path, {"--max-num-seqs": 8, "--max_num_seqs": 16})
    assert "engine.args.--max_num_seqs: 16: the same flag as --max-num-seqs with another value; keep one" in text, text
    same = Scenario.model_validate(_doc({"--dtype": "bfloat16", "--enable-prefix-caching": True, "--no-enable-prefix-caching": False}))
    assert same.engine.args["--dtype"] == "bfloat16"
