"""Multi-turn sessions on the embedded llama.cpp engine with its prompt cache on: each
session opens with a long system message, resent with every turn, so turns 2 and 3 find
their history in the engine's cache, as the engine's own counters
(usage.prompt_tokens_details.cached_tokens) say; with the cache off (``cache_prompt: false``)
the counters read 0. One session alone shows what the cache saves: its later turns start
sooner than its first, and sooner than with the cache off. (With four sessions at once their
TTFTs are mostly waits behind one another's work: on this build, b11434 with 4 slots, a cached
later turn waited ~250 ms, as long as an uncached one, on 2026-12-07 on this tree and the one
before it, so four sessions' TTFTs say nothing of the cache.)"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer
from servescope.bench.records import read_records

pytestmark = pytest.mark.integration

SYSTEM_TOKENS = 1024


def _sessions(
    llama: LlamaServer, out: Path, *extra: str, sessions: int = 4, seed: int = 7331
) -> tuple[dict[int, list[float]], dict[int, list[int]], list[dict[str, object]], str]:
    # a seed of its own: the engine is shared with other tests, and one seed's system prompt is the same text
    # in every run (test_predict_sessions sends seed 0's), which turn 1 would then find in the cache
    args = ["--sessions", str(sessions), "--turns", "3", "--isl", "32", "--osl", "16", "--system-prompt-tokens", str(SYSTEM_TOKENS),
            "--seed", str(seed), "--endpoint", llama.openai_base_url, "--out", str(out), *extra]  # fmt: skip
    env = {**os.environ, "SERVESCOPE_CACHE_DIR": str(out / "cache")}
    proc = subprocess.run([sys.executable, "-m", "servescope", "run", *args], capture_output=True, text=True, timeout=300, env=env)
    assert proc.returncode == 0, proc.stderr
    [records_path] = out.rglob("records.jsonl")
    ttft: dict[int, list[float]] = {}
    cached: dict[int, list[int]] = {}
    records = [r for r in read_records(records_path) if r.phase == "measured"]
    assert len(records) == 3 * sessions and all(r.ok for r in records)
    for r in records:
        turn = int(r.request_id.rsplit("-t", 1)[1]) + 1
        assert r.ttft_ns is not None and r.cached_tokens is not None
        ttft.setdefault(turn, []).append(r.ttft_ns / 1e6)
        cached.setdefault(turn, []).append(r.cached_tokens)
    result = json.loads((records_path.parent / "result.json").read_text())
    return ttft, cached, result["resolved_params"]["turns"], proc.stdout


@pytest.mark.timing
def test_later_turns_hit_the_prompt_cache_and_start_sooner(llama: LlamaServer, tmp_path: Path) -> None:
    _, cached, turns, stdout = _sessions(llama, tmp_path / "on")
    # the engine's counters: nothing cached on a session's first turn (4 sessions, 4 slots), its
    # whole system message and history after
    assert max(cached[1]) < SYSTEM_TOKENS // 4
    assert min(cached[2] + cached[3]) >= SYSTEM_TOKENS
    assert [row["turn"] for row in turns] == [1, 2, 3]
    assert turns[1]["cached_tokens_mean"] >= SYSTEM_TOKENS
    assert "turn 2: 4 completed, TTFT p50" in stdout and "from the engine's cache" in stdout
    _, off_cached, _, _ = _sessions(llama, tmp_path / "off", "--extra-body", '{"cache_prompt": false}')
    assert set(off_cached[2] + off_cached[3]) == {0}

    # one session alone (seeds of their own: turn 1 finds nothing either way): 2026-12-07, turn 1 ~133 ms,
    # turns 2-3 61-64 ms with the cache and 84-93 ms without
    ttft, cached, _, _ = _sessions(llama, tmp_path / "one-on", sessions=1, seed=7332)
    off_ttft, off_cached, _, _ = _sessions(llama, tmp_path / "one-off", "--extra-body", '{"cache_prompt": false}', sessions=1, seed=7333)
    later = ttft[2] + ttft[3]
    assert min(cached[2] + cached[3]) >= SYSTEM_TOKENS and set(off_cached[2] + off_cached[3]) == {0}
    assert statistics.median(later) < statistics.median(ttft[1]), (ttft, cached)
    assert statistics.median(off_ttft[2] + off_ttft[3]) > statistics.median(later), (ttft, off_ttft)


def test_a_repeat_of_one_seed_is_called_warm_and_the_first_run_is_not(llama: LlamaServer, tmp_path: Path) -> None:
    """A synthetic load shares no prefix, but a second run of one --seed sends the same text: the
    engine serves it from its cache, and the run says its TTFT is warm (the first run does not)."""

    def once(out: Path) -> tuple[list[str], str]:
        args = ["--isl", "200", "--osl", "4", "--num-requests", "4", "--concurrency", "2", "--seed", "90210",
                "--endpoint", llama.openai_base_url, "--out", str(out)]  # fmt: skip
        env = {**os.environ, "SERVESCOPE_CACHE_DIR": str(out / "cache")}
        proc = subprocess.run([sys.executable, "-m", "servescope", "run", *args], capture_output=True, text=True, timeout=300, env=env)
        assert proc.returncode == 0, proc.stderr
        [result] = out.rglob("result.json")
        return json.loads(result.read_text())["resolved_params"].get("warnings") or [], proc.stdout + proc.stderr

    first, _ = once(tmp_path / "first")
    second, printed = once(tmp_path / "second")
    assert not [w for w in first if "prefix cache" in w]
    [warm] = [w for w in second if "prefix cache" in w]
    assert "the TTFT measured is warm" in warm and "another --seed" in warm and "prefix cache" in printed
