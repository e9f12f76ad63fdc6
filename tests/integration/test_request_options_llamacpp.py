"""What a run sends and what it writes, against the real llama.cpp server: the
workload's request fields reach the engine, credentials reach no file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig
from servescope.bench.engine.tokenizer import load_vocab
from servescope.bench.records import read_header, read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.documents import config_id
from servescope.errors import UsageError
from tests.integration.test_cli_run import cli

pytestmark = pytest.mark.integration


def _eos_first() -> dict[str, object]:
    """A logit bias that makes the tiny model end every answer at once — unless EOS is ignored."""
    return {"logit_bias": {str(load_vocab().eos_id): 2000}}


def test_ignore_eos_makes_the_engine_generate_exactly_max_tokens(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    control = run_workload(
        RunOptions("serve-itest-eos-control-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, extra_body=_eos_first()), catalog=itest_catalog
    )
    ignored = run_workload(RunOptions("serve-itest-eos-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, extra_body=_eos_first()), catalog=itest_catalog)
    stopped = [r.output_tokens for r in read_records(control.records_path)]
    full = [r.output_tokens for r in read_records(ignored.records_path)]
    assert stopped and all(n is not None and n < 16 for n in stopped)  # the bias works: EOS comes first
    assert len(full) == 6 and all(n == 16 for n in full)  # ignore_eos was sent and honoured
    assert ignored.result.resolved_params["ignore_eos"] is True
    assert ignored.result.resolved_params["request_fields"] == {"ignore_eos": True}
    assert control.result.resolved_params["request_fields"] == {}
    assert ignored.result.args == {"request.logit_bias": json.dumps(_eos_first()["logit_bias"], separators=(",", ":"))}
    assert read_header(ignored.records_path)["resolved_params"]["request_fields"] == {"ignore_eos": True}  # type: ignore[index]


def test_min_tokens_is_refused_on_llama_cpp_before_any_request(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"sets min_tokens but engine 'llama\.cpp' is not known to accept it"):
        run_workload(RunOptions("serve-itest-min-tokens-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=itest_catalog)
    assert not list(tmp_path.iterdir())  # no run folder: nothing was sent or written


def test_a_secret_in_engine_args_is_written_nowhere(engine_cache: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    key, hf_token, other = "sk-live-4b1d0e77", "hf_zz81QqLmNOPsecret", "pw-9911-secret"
    with LlamaServer(ServerConfig(parallel=4, ctx_per_slot=1024, cache_dir=engine_cache, extra_args=("--api-key", key))) as server:
        pasted = f"llama-server -m /models/tiny.gguf --parallel 4 --api-key {key} --hf-token {hf_token} --ssl-keyfile-password={other} -hft {hf_token}"
        proc = cli(
            "run",
            "serve-itest-c4-v1",
            "--endpoint",
            server.openai_base_url,
            "--api-key-env",
            "ITEST_SECRET_KEY",
            "--engine-args",
            pasted,
            "--extra-body",
            json.dumps({"api_key": other}),
            "--out",
            str(tmp_path / "runs"),
            catalog=itest_catalog,
            env={"ITEST_SECRET_KEY": key},
        )
        out, err = proc.communicate(timeout=120)
        assert proc.returncode == 0, err
    written = [p for p in (tmp_path / "runs").rglob("*") if p.is_file()]
    assert len(written) == 5  # records (+ its two index files), result, evaluation run
    for p in written:
        data = p.read_bytes()
        for secret in (key, hf_token, other):
            assert secret.encode() not in data, f"{secret} found in {p}"
    for secret in (key, hf_token, other):
        assert secret not in out + err
    result = json.loads(next(p for p in written if p.name == "result.json").read_text())
    assert result["engine"]["id"] == "llama.cpp"  # inferred from the command line
    assert result["args"] == {
        "--parallel": "4",
        "--api-key": "<redacted>",
        "--hf-token": "<redacted>",
        "--ssl-keyfile-password": "<redacted>",
        "-hft": "<redacted>",
        "request.api_key": "<redacted>",
    }
    assert result["engine"]["version"]  # detected with the key (/props needs it too)
    assert result["config_id"] == config_id("llama.cpp", result["engine"]["version"], {"--parallel": 4})
    header = read_header(next(p for p in written if p.name == "records.jsonl"))
    assert header is not None and header["engine_command"] == {"launcher": "llama-server", "model": "/models/tiny.gguf"}


def test_the_embedded_engine_on_loopback_does_not_use_the_network(
    engine_cache: Path, itest_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SERVESCOPE_CACHE_DIR", str(engine_cache))
    art = run_workload(RunOptions("serve-itest-eos-v1", out_dir=tmp_path, embedded_parallel=2, embedded_ctx_per_slot=1024), catalog=itest_catalog)
    assert art.result.metadata.allow_network is False
    assert art.result.engine.id == "llama.cpp" and art.result.metrics.completed_requests == 6
    assert all(r.output_tokens == 16 for r in read_records(art.records_path))
