"""A distinct secret planted in every input of ``servescope run`` — ``--extra-body`` (a
credential key, a nested one, a token-shaped value under an innocent key), the API key
(``--api-key-env SERVESCOPE_API_KEY``), ``OPENAI_API_KEY`` in the environment,
``--engine-args``, ``--scenario``, the workload file and the endpoint URL's query string —
against a real server on loopback that echoes every other request's headers and body in
its error answer; then ``summarize``, ``report`` and ``validate`` over the output. No planted
secret may appear in any file under the output folders or in any captured stdout/stderr.

And a code-exec eval run under ``--unsafe-code-exec`` on a machine without a working
sandbox: the Result and the EvaluationRun say the code ran unsandboxed, a warning is shown
at the start, an answer that detaches (``os.setsid()``) and sleeps forever fails as a
timeout within its limit and leaves no process behind, and the environment it prints
holds none of our secrets."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import subprocess
import sys
import threading
import uuid
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig, find_llama_server
from servescope.bench.run import Progress, RunArtifacts, RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.errors import EngineError
from servescope.scoring import sandbox
from servescope.scoring.code_exec import UNSAFE_ENV
from tests.bench.hostile import _chunk, hostile_server
from tests.sleepers import kill_sleepers, unique_mark

pytestmark = pytest.mark.integration

TAG = uuid.uuid4().hex[:10]
SECRETS = {
    "extra-body authorization": f"sk-{TAG}AuthorizationTop0123456789",
    "extra-body nested key": f"nested-xapikey-{TAG}",
    "extra-body token-shaped value": f"hf_{TAG}ValueShapedUnderAnInnocentKey",
    "api key (SERVESCOPE_API_KEY)": f"apikey-{TAG}-servescope",
    "OPENAI_API_KEY": f"sk-proj-{TAG}openaiEnvironment0123",
    "engine-args --api-key": f"engarg-{TAG}-apikey",
    "engine-args --hf-token": f"hf_{TAG}EngineArgsHfToken012345",
    "scenario": f"scen-{TAG}-password",
    "workload file": f"wlfile-{TAG}-token",
    "endpoint query": f"urlquery-{TAG}-key",
}

BASE = {"immutable": True, "created": "2026-12-06", "supersedes": None}


def _catalog(root: Path, workloads: list[dict[str, Any]], datasets: Sequence[tuple[dict[str, Any], list[dict[str, Any]]]] = ()) -> Path:
    (root / "workloads").mkdir(parents=True)
    for w in workloads:
        (root / "workloads" / f"{w['id']}.json").write_text(json.dumps(BASE | w, indent=2), encoding="utf-8")
    if datasets:
        (root / "datasets").mkdir()
    for meta, rows in datasets:
        text = "".join(json.dumps(r) + "\n" for r in rows)
        (root / "datasets" / f"{meta['id']}.jsonl").write_text(text, encoding="utf-8")
        doc = (
            BASE
            | meta
            | {"kind": "Dataset", "rows_file": f"{meta['id']}.jsonl", "rows_sha256": hashlib.sha256(text.encode()).hexdigest(), "row_count": len(rows)}
        )
        (root / "datasets" / f"{meta['id']}.json").write_text(json.dumps(doc, indent=2), encoding="utf-8")
    return root


def _cli(*args: str, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "servescope", *args], env=env, capture_output=True, text=True, timeout=180)


def _leaks(texts: dict[str, str]) -> list[str]:
    return [f"{what} in {where}" for where, text in texts.items() for what, secret in SECRETS.items() if secret in text]


@contextlib.contextmanager
def _server(kind: str, cache: Path) -> Iterator[tuple[str, str, list[str], Callable[[], None]]]:
    """(base URL, model, engine flags, a check that the key was used) of a server on loopback:
    the echoing one (every other answer a 400 that echoes headers and body), or the real
    llama.cpp engine started with the planted API key (a request without it is refused)."""
    key = SECRETS["api key (SERVESCOPE_API_KEY)"]
    if kind == "echo":
        with hostile_server("echo-request") as srv:
            flags = ["--engine", "vllm", "--engine-args", f"vllm serve org/model --api-key {SECRETS['engine-args --api-key']} "
                     f"--hf-token {SECRETS['engine-args --hf-token']} --max-num-seqs 4"]  # fmt: skip

            def echoed() -> None:
                assert any(h.get("authorization") == f"Bearer {key}" for h in srv.seen_headers), "the key was sent, and echoed back"

            yield srv.base_url, "hostile", flags, echoed
        return
    try:
        find_llama_server(cache)
    except EngineError as exc:
        pytest.skip(str(exc))
    with LlamaServer(ServerConfig(parallel=2, ctx_per_slot=1024, cache_dir=cache, extra_args=("--api-key", key))) as server:
        flags = [
            "--engine-args",
            f"llama-server -m model.gguf --api-key {SECRETS['engine-args --api-key']} -hft {SECRETS['engine-args --hf-token']} --parallel 2",
        ]
        yield server.openai_base_url, server.model_name, flags, lambda: None  # a run without the key fails with HTTP 401


@pytest.mark.parametrize("server", ["echo", "llama.cpp"])
def test_no_planted_secret_reaches_any_file_or_stream(server: str, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    root = _catalog(
        tmp_path / "catalog",
        [
            {
                "id": "serve-secrets-v1",
                "kind": "serving",
                "name": "secrets everywhere",
                "description": f"a workload whose file holds a credential: token: {SECRETS['workload file']}",
                "dataset_id": "prompts-mixed-v1",
                "params": {"concurrency": 2, "num_requests": 6, "output_tokens": 8, "seed": 0, "timeout_s": 30, "dataset_buckets": ["xs"]},
                "metrics_required": [],
            }
        ],
    )
    # --scenario names a catalog scenario (one of the user catalog's here), whose file holds a credential
    (root / "scenarios").mkdir()
    packaged = (Path(__file__).resolve().parents[1] / "src" / "servescope" / "data" / "scenarios" / "tiny-llama-on-cpu.yaml").read_text(encoding="utf-8")
    (root / "scenarios" / "team-x.yaml").write_text(
        packaged.replace("name: tiny-llama-on-cpu", "name: team-x").replace("notes: ", f"notes: team-x password={SECRETS['scenario']}. "),
        encoding="utf-8",
    )
    env = {
        **os.environ,
        "SERVESCOPE_CATALOG_PATH": str(root),
        "SERVESCOPE_API_KEY": SECRETS["api key (SERVESCOPE_API_KEY)"],
        "OPENAI_API_KEY": SECRETS["OPENAI_API_KEY"],
    }
    extra_body = {
        "authorization": f"Bearer {SECRETS['extra-body authorization']}",
        "metadata": {"x-api-key": SECRETS["extra-body nested key"], "team": "perf"},
        "user_tag": SECRETS["extra-body token-shaped value"],
    }
    runs, site, summary = tmp_path / "runs", tmp_path / "site", tmp_path / "summary"
    streams: dict[str, str] = {}
    with _server(server, tmp_path_factory.mktemp("engine-cache")) as (url, model, engine_flags, key_was_sent):
        common = ["--model", model, "--api-key-env", "SERVESCOPE_API_KEY", "--no-scrape", "--out", str(runs)]
        run = _cli(
            "run",
            "serve-secrets-v1",
            "--endpoint",
            url,
            *common,
            *engine_flags,
            "--extra-body",
            json.dumps(extra_body),
            "--scenario",
            "team-x",
            "--min-success-rate",
            "0",
            env=env,
        )
        streams |= {"run stdout": run.stdout, "run stderr": run.stderr}
        assert run.returncode == 0, run.stderr
        key_was_sent()
        query = _cli("run", "serve-secrets-v1", "--endpoint", f"{url}/v1?key={SECRETS['endpoint query']}&n=5#{SECRETS['endpoint query']}", *common, env=env)
        streams |= {"query-run stdout": query.stdout, "query-run stderr": query.stderr}
        assert query.returncode in (1, 2), query.stderr  # refused in one line: a query string is never sent
        assert [ln for ln in query.stderr.splitlines() if ln.strip()] == [ln for ln in query.stderr.splitlines() if ln.startswith("error:")]
    for args in (("summarize", "--in", str(runs), "--out", str(summary)), ("report", "--in", str(runs), "--out", str(site)), ("validate", str(runs))):
        done = _cli(*args, env=env)
        streams |= {f"{args[0]} stdout": done.stdout, f"{args[0]} stderr": done.stderr}
        assert done.returncode == 0, (args, done.stdout, done.stderr)
    files = {str(p): p.read_bytes().decode("utf-8", errors="replace") for folder in (runs, site, summary) for p in folder.rglob("*") if p.is_file()}
    assert any(p.endswith("records.jsonl") for p in files) and any(p.endswith("result.json") for p in files)
    records = next(t for p, t in files.items() if p.endswith("records.jsonl"))
    if server == "echo":
        assert '"category":' in records and "HTTP 400" in records and "<redacted>" in records  # the echo was recorded, redacted
    assert _leaks(files | streams) == []
    result = json.loads(next(t for p, t in files.items() if p.endswith("result.json")))
    assert result["metrics"]["completed_requests"] >= 3  # it ran: the secrets were sent, not refused
    assert result["args"]["request.authorization"] == "<redacted>"
    assert result["args"].get("--max-num-seqs", result["args"].get("--parallel")) in ("4", "2")  # what is no credential stays


CODE_ROWS = [
    {
        "id": f"detach-{i}",
        "category": "function",
        "difficulty": "easy",
        "scorer": "code_exec",
        "text": "Write add(a, b).",
        "score_args": {"tests": "assert add(2, 3) == 5", "timeout_s": 2},
    }
    for i in range(2)
]


def test_unsafe_code_exec_run_is_marked_and_contained(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    mark = unique_mark()
    # The answer prints our environment (it must hold no secret of ours), detaches a sleeper and sleeps forever.
    code = (
        "import os, sys, time\n"
        "sys.stderr.write(' '.join(f'{k}={v}' for k, v in os.environ.items()) + '\\n')\n"
        "sys.stderr.flush()\n"
        "if os.fork() == 0:\n"
        "    os.setsid()\n"
        f"    os.execvp('sleep', ['sleep', '{mark}'])\n"
        "time.sleep(1000)\n"
    )
    answer = f"```python\n{code}```"
    raw = _chunk(answer) + _chunk("", "stop") + b"data: [DONE]\n\n"
    root = _catalog(
        tmp_path / "catalog",
        [
            {
                "id": "eval-detach-v1",
                "kind": "eval",
                "name": "code that detaches",
                "dataset_id": "eval-detach-v1",
                "params": {"concurrency": 2, "num_requests": 2, "output_tokens": 64, "seed": 0, "timeout_s": 30, "shuffle": False},
                "eval": {"scorer": "code-exec"},
                "metrics_required": [],
            }
        ],
        [({"id": "eval-detach-v1", "name": "detach", "description": "rows whose answers detach", "license": "CC0-1.0"}, CODE_ROWS)],
    )
    # A machine where no sandbox works: --unsafe-code-exec then runs the code without one.
    monkeypatch.setattr(sandbox, "_FOUND", [])
    monkeypatch.setattr(sandbox, "_bwrap_candidates", list)
    monkeypatch.setenv(UNSAFE_ENV, "1")
    for name in ("OPENAI_API_KEY", "SERVESCOPE_API_KEY"):
        monkeypatch.setenv(name, SECRETS[name if name == "OPENAI_API_KEY" else "api key (SERVESCOPE_API_KEY)"])
    notices: list[str] = []
    done: list[RunArtifacts] = []
    with hostile_server("raw") as srv:
        srv.raw_body = raw
        opts = RunOptions(
            workload_id="eval-detach-v1", endpoint=srv.base_url, model="hostile", out_dir=tmp_path / "runs", scrape_metrics=False, unsafe_code_exec=True
        )
        # in a thread, with a bound: a run that waits on what the code left behind is a failure here, not a hung suite
        thread = threading.Thread(target=lambda: done.append(run_workload(opts, Progress(on_notice=notices.append), catalog=Catalog.load([root]))), daemon=True)
        thread.start()
        thread.join(120)
        leftover = kill_sleepers(mark)  # what a failing run left behind, by pid
        thread.join(30)
    assert done, "the run hung on code that detached"
    assert leftover == []
    artifacts = done[0]
    assert any("WITHOUT a sandbox" in n for n in notices)
    result = json.loads(artifacts.result_path.read_text())
    assert result["resolved_params"]["code_exec_sandbox"] == "none"
    assert "WITHOUT a sandbox" in result["scores"]["note"]
    assert any("WITHOUT a sandbox" in n for n in json.loads(artifacts.evaluation_run_path.read_text())["notes"])
    records = [json.loads(ln) for ln in artifacts.records_path.read_text().splitlines() if '"request_id"' in ln]
    assert [r["score"]["detail"].split(":")[0] for r in records] == ["timeout", "timeout"]
    files = {str(p): p.read_text(errors="replace") for p in artifacts.run_dir.rglob("*") if p.is_file()}
    assert _leaks(files) == []


def test_an_error_line_echoing_a_bad_value_is_redacted(tmp_path: Path) -> None:
    """A usage error quotes the bad value back; a credential-named environment variable's
    value (learned when the CLI starts) and a token's shape are redacted from it."""
    env = {**os.environ, "MY_SERVICE_TOKEN": f"envtok-{TAG}-value"}
    shaped = f"sk-proj-{TAG}EchoedInAnErrorLine0123"
    for bad in (env["MY_SERVICE_TOKEN"], shaped):
        done = _cli("run", "serve-itest-c4-v1", "--concurrency", f"1,{bad}", "--out", str(tmp_path), env=env)
        assert done.returncode == 2, done.stderr
        assert bad not in done.stdout + done.stderr
        assert [ln for ln in done.stderr.splitlines() if ln.strip()] == [
            "error: --concurrency '1,<redacted>': level '<redacted>' is not a whole number >= 1; give levels like --concurrency 1,4,8"
        ]
