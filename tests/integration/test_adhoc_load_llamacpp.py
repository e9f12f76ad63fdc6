"""An ad-hoc synthetic load on the embedded llama.cpp engine, as a new user types it:
``servescope run --isl 256 --osl 32 --num-requests 40 --concurrency 4``. Every prompt is
256 ± 1 tokens and every output exactly 32 tokens by the engine's own count (its usage),
not by the stream."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer
from servescope.bench.records import read_records
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load_build import LoadRequest, build_load

pytestmark = pytest.mark.integration


def _run(*args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SERVESCOPE_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "servescope", "run", *args], capture_output=True, text=True, timeout=300, env=env)


def _check_lengths(out: Path, n: int, isl: int, osl: int) -> dict[str, object]:
    [records_path] = out.rglob("records.jsonl")
    measured = [r for r in read_records(records_path) if r.phase == "measured"]
    assert len(measured) == n and all(r.ok for r in measured)
    assert {r.token_count_source for r in measured} == {"server-usage"}  # the engine's usage, never the stream
    assert all(r.input_tokens is not None and abs(r.input_tokens - isl) <= 1 for r in measured), sorted({r.input_tokens for r in measured})
    assert [r.output_tokens for r in measured] == [osl] * n
    result = json.loads((records_path.parent / "result.json").read_text())
    assert result["workload_id"].startswith("adhoc-") and result["resolved_params"]["load_description"]["isl"] == isl
    [row] = result["resolved_params"]["lengths"]
    assert row["input_max_abs_diff"] <= 1 and row["output_exact"] == n
    return dict(result["resolved_params"])


def test_run_isl_osl_sends_exact_lengths_on_the_embedded_engine(engine_cache: Path, tmp_path: Path) -> None:
    proc = _run("--isl", "256", "--osl", "32", "--num-requests", "40", "--concurrency", "4", "--scenario", "tiny-llama-on-cpu",
                "--out", str(tmp_path), cache=engine_cache)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    resolved = _check_lengths(tmp_path, 40, 256, 32)
    assert resolved["output_held_by"] == {"ignore_eos": True}  # llama.cpp takes ignore_eos, not min_tokens
    assert "lengths c=4: input 256" in proc.stdout or "lengths c=4: input 25" in proc.stdout


def test_completions_api_accounts_for_the_tokens_the_engine_adds(llama: LlamaServer, tmp_path: Path) -> None:
    proc = _run("--isl", "100", "--osl", "8", "--num-requests", "6", "--concurrency", "2", "--range-ratio", "0.5", "--api", "completions",
                "--endpoint", llama.openai_base_url, "--out", str(tmp_path), cache=tmp_path / "cache")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [records_path] = tmp_path.rglob("records.jsonl")
    records = {r.request_id: r for r in read_records(records_path) if r.phase == "measured"}
    # the same load planned here (seeded): each request's asked length, met by the engine's count
    [point] = plan_load(build_load(LoadRequest(isl=100, osl=8, num_requests=6, concurrency=[2], range_ratio=0.5)))
    asked = {r.request_id: (r.input_tokens_nominal, r.max_tokens) for r in point.requests}
    assert len({a for a, _ in asked.values()}) > 1 and set(records) == set(asked)
    for rid, rec in records.items():
        isl, osl = asked[rid]
        assert rec.input_tokens is not None and isl is not None and abs(rec.input_tokens - isl) <= 1, (rid, rec.input_tokens, isl)
        assert rec.output_tokens == osl


@pytest.mark.timing  # (reads the engine's prefix cache: another test's prompts in its slots moved the hits)
def test_trace_replay_sends_the_traces_lengths_and_its_shared_blocks_hit_the_prefix_cache(llama: LlamaServer, tmp_path: Path) -> None:
    trace = Path(__file__).parents[1] / "workload" / "fixtures" / "mooncake-slice-60-scaled16.jsonl"
    proc = _run("--trace", str(trace), "--num-requests", "20", "--speedup", "20", "--endpoint", llama.openai_base_url, "--out", str(tmp_path),
                cache=tmp_path / "cache")  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    [records_path] = tmp_path.rglob("records.jsonl")
    records = sorted(read_records(records_path), key=lambda r: r.request_id)
    asked = [json.loads(line) for line in trace.read_text().splitlines()[:20]]
    # the engine's count (template tokens left out of the cut); a prompt of blocks only may be off by one where they join
    assert all(abs((r.input_tokens or 0) - a["input_length"]) <= 1 for r, a in zip(records, asked, strict=True))
    assert [r.output_tokens for r in records] == [a["output_length"] for a in asked]
    # every request starts with block 0: after the first ones, the engine finds it in its cache
    hits = [r.cached_tokens or 0 for r in records[4:] if (r.input_tokens or 0) >= 512]
    assert hits and sum(1 for h in hits if h >= 400) >= len(hits) // 2, hits
