"""An engine's command line as a user pastes it: launcher, model and flags; credentials redacted."""

from __future__ import annotations

from typing import Any

import pytest

from servescope.documents import config_id
from servescope.documents.config_id import is_secret_flag
from servescope.documents.engine_command import (
    REDACTED,
    parse_engine_command,
    redact_flags,
    split_command_line,
)

FLAGS = ["--max-num-seqs", "64", "--dtype", "float32"]


@pytest.mark.parametrize(
    ("argv", "engine", "launcher", "model"),
    [
        (["vllm", "serve", "meta-llama/Llama-3.1-8B", *FLAGS], "vllm", "vllm serve", "meta-llama/Llama-3.1-8B"),
        (["/opt/venv/bin/vllm", "serve", "m", *FLAGS], "vllm", "vllm serve", "m"),
        (["vllm", "serve", *FLAGS, "--model", "m"], "vllm", "vllm serve", "m"),
        (["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "m", *FLAGS], "vllm", "python -m vllm.entrypoints.openai.api_server", "m"),
        (["python3.11", "-u", "-m", "vllm.entrypoints.openai.api_server", "--model=m", *FLAGS], "vllm", "python -m vllm.entrypoints.openai.api_server", "m"),
        (["python3", "-m", "sglang.launch_server", "--model-path", "m", *FLAGS], "sglang", "python -m sglang.launch_server", "m"),
        (["./build/bin/llama-server", "-m", "m", *FLAGS], "llama.cpp", "llama-server", "m"),
        (["text-generation-launcher", "--model-id", "m", *FLAGS], "tgi", "text-generation-launcher", "m"),
        ([*FLAGS], None, None, None),
        ([*FLAGS, "--model", "m"], None, None, "m"),
    ],
)
def test_pasted_command_lines_give_engine_model_and_the_same_flags(argv: list[str], engine: str | None, launcher: str | None, model: str | None) -> None:
    cmd = parse_engine_command(argv)
    assert (cmd.engine, cmd.launcher, cmd.model) == (engine, launcher, model)
    assert cmd.flags == {"--max-num-seqs": "64", "--dtype": "float32"}


def test_the_model_is_not_part_of_config_id_however_it_is_given() -> None:
    ids = {
        config_id("vllm", "0.32", parse_engine_command(argv).flags)
        for argv in (
            ["vllm", "serve", "/models/llama-8b", *FLAGS],
            ["vllm", "serve", "meta-llama/Llama-3.1-8B", *FLAGS],
            ["python", "-m", "vllm.entrypoints.openai.api_server", "--model", "x", *FLAGS],
            FLAGS,
        )
    }
    assert len(ids) == 1


def test_multi_line_paste_with_backslashes_splits_like_a_shell() -> None:
    text = "vllm serve m \\\n  --max-num-seqs 64 \\\n  --dtype float32\n"
    assert split_command_line(text) == ["vllm", "serve", "m", "--max-num-seqs", "64", "--dtype", "float32"]


def test_unbalanced_quotes_are_a_clear_value_error() -> None:
    with pytest.raises(ValueError, match="cannot split"):
        split_command_line("--chat-template 'x")


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["serve", "m"], "'serve' is neither a flag nor an engine launcher"),
        (["vllm", "bench", "--x"], "vllm serve MODEL"),
        (["python", "-m", "mypkg.server", "--x"], "python -m mypkg.server"),
        (["python", "script.py"], "-m MODULE"),
        (["docker", "run", "vllm/vllm-openai"], "'docker' is neither a flag nor an engine launcher"),
        (["--max-num-seqs", "64", "stray"], "expected a flag, got 'stray'"),
        (["vllm", "serve", "a", "--model", "b"], "model is given twice"),
        (["llama-server", "-m"], "needs a value"),
    ],
)
def test_anything_else_is_one_value_error_saying_what_is_expected(argv: list[str], message: str) -> None:
    with pytest.raises(ValueError, match=message) as info:
        parse_engine_command(argv)
    assert "\n" not in str(info.value)


def test_an_environment_assignment_is_refused_without_echoing_its_value() -> None:
    with pytest.raises(ValueError, match="environment assignment") as info:
        parse_engine_command(["HF_TOKEN=hf_secret123", "vllm", "serve", "m"])
    assert "hf_secret123" not in str(info.value)


@pytest.mark.parametrize(
    "name",
    [
        "--api-key",
        "--api_key",
        "--hf-token",
        "-hft",
        "--token",
        "--admin-api-key",
        "--ssl-keyfile-password",
        "--client-secret",
        "--password",
        "--secret-file",
        "request.api_key",
        "--HF_TOKEN",
    ],
)
def test_credential_flags_are_secret(name: str) -> None:
    assert is_secret_flag(name)


@pytest.mark.parametrize(
    "name",
    [
        "--max-num-batched-tokens",
        "--long-prefill-token-threshold",
        "--tokenizer",
        "--max-total-tokens",
        "--ssl-keyfile",
        "--kv-cache-dtype",
        "--cache-type-k",
        "request.max_tokens",
        "--skip-tokenizer-init",
        "--max-batch-prefill-tokens",
    ],
)
def test_runnable_flags_with_token_or_key_in_their_name_are_not_secret(name: str) -> None:
    assert not is_secret_flag(name)


def test_redact_replaces_secret_values_and_keeps_everything_else() -> None:
    flags: dict[str, Any] = {"--api-key": "sk-1", "--hf-token": None, "--max-num-seqs": "64", "-hft": "hf_x"}
    assert redact_flags(flags) == {"--api-key": REDACTED, "--hf-token": None, "--max-num-seqs": "64", "-hft": REDACTED}


@pytest.mark.parametrize("flag", ["--api-key", "--hf-token", "--admin-api-key", "--ssl-keyfile-password", "--token", "-hft"])
def test_a_credential_flag_does_not_change_config_id(flag: str) -> None:
    base = {"--max-num-seqs": "64"}
    for engine in ("vllm", "sglang", "llama.cpp", "tgi"):
        plain = config_id(engine, "1", base)
        assert config_id(engine, "1", {**base, flag: "sk-live-1"}) == plain
        assert config_id(engine, "1", {**base, flag: REDACTED}) == plain
