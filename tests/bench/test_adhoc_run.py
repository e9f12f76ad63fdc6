"""``servescope run`` with an ad-hoc load against a real server on loopback (the timing-truth
server): a trace replayed on its schedule, the load recorded and labelled, compare pairing a
measured and a predicted replay of the same trace, and the one-line refusals."""

from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servescope.bench.records import read_records
from servescope.bench.recover import recover
from servescope.bench.run import RunOptions, run_workload
from servescope.testing.truth.server import TruthServer
from servescope.workload.load_build import LoadRequest, build_load

ROOT = Path(__file__).parents[2]
TOKENIZER = ROOT / "src" / "servescope" / "data" / "engine" / "tokenizer.json"
TRACE = ROOT / "tests" / "workload" / "fixtures" / "mooncake-slice-60-scaled16.jsonl"

pytest.importorskip("tokenizers")


@pytest.fixture(scope="module")
def truth() -> Iterator[TruthServer]:
    with TruthServer(ttft_ms=2.0, itl_ms=0.5) as srv:
        yield srv


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    return subprocess.run([sys.executable, "-m", "servescope", *args], capture_output=True, text=True, timeout=300, env=env)


def test_trace_replay_holds_the_schedule_and_records_the_load(truth: TruthServer, tmp_path: Path) -> None:
    resolved = build_load(LoadRequest(trace=TRACE, num_requests=30, speedup=20.0))
    opts = RunOptions(workload_id=resolved.load.label, endpoint=truth.base_url, load=resolved, tokenizer=TOKENIZER, out_dir=tmp_path, scrape_metrics=False)
    art = run_workload(opts)
    assert art.result.workload_id == resolved.load.label and resolved.load.label.startswith("adhoc-")
    assert art.result.resolved_params["load"] == "open:trace"  # sent on the trace's schedule, not a closed loop
    assert art.result.resolved_params["load_description"]["trace"]["sha256"] == resolved.load.trace.sha256  # type: ignore[union-attr]
    assert art.result.resolved_params["prompt_tokens"]["tokenizer"].startswith("file:")
    header = json.loads(art.records_path.read_text().splitlines()[0])["header"]
    assert header["load"]["label"] == resolved.load.label and header["workload_id"] == resolved.load.label
    records = sorted(read_records(art.records_path), key=lambda r: r.request_id)
    assert len(records) == 30 and all(r.ok for r in records)
    assert resolved.trace is not None
    offsets = resolved.trace.offsets_ns(20.0)
    t0 = records[0].start_ns
    # latency is measured from the scheduled time (no coordinated omission) ...
    assert [r.start_ns - t0 for r in records] == offsets
    # ... and each request's lateness (sent_ns - start_ns) is recorded, never negative
    lateness = [r.sent_ns - r.start_ns for r in records]
    assert min(lateness) >= 0 and max(lateness) < 50_000_000
    assert [r.output_tokens for r in records] == [r.output_length for r in resolved.trace.requests]
    # a run that never wrote result.json is rebuilt from its records with the same label
    (art.run_dir / "result.json").unlink()
    assert recover(art.records_path).result.workload_id == resolved.load.label


def test_compare_pairs_a_measured_and_a_predicted_replay_of_one_trace(truth: TruthServer, tmp_path: Path) -> None:
    common = ("--trace", str(TRACE), "--num-requests", "12", "--speedup", "50")
    run = cli("run", *common, "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--scenario", "tiny-llama-on-cpu",
              "--no-scrape", "--out", str(tmp_path / "runs"))  # fmt: skip
    assert run.returncode == 0, run.stderr
    pred = cli("predict", "tiny-llama-on-cpu", *common, "--out", str(tmp_path / "pred"))
    assert pred.returncode == 0, pred.stderr
    [result] = (tmp_path / "runs").rglob("result.json")
    [prediction] = (tmp_path / "pred").rglob("prediction.json")
    label = json.loads(result.read_text())["workload_id"]
    assert label.startswith("adhoc-") and json.loads(prediction.read_text())["workload"] == label
    summary = cli("summarize", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "summary"))
    assert summary.returncode == 0, summary.stderr
    csv = tmp_path / "summary" / "summary_v0.2.csv"
    assert csv.read_text().splitlines()[1].startswith(f"{label},")  # grouped by the load's label
    both = cli("compare", str(prediction), str(result), "--format", "json")
    assert both.returncode == 0, both.stderr
    assert json.loads(both.stdout)["pairs"]
    other = cli("predict", "tiny-llama-on-cpu", "--trace", str(TRACE), "--num-requests", "11", "--speedup", "50", "--out", str(tmp_path / "p2"))
    assert other.returncode == 0, other.stderr
    [other_prediction] = (tmp_path / "p2").rglob("prediction.json")
    refused = cli("compare", str(other_prediction), str(result))
    assert refused.returncode != 0 and "answer different questions" in refused.stderr and "Traceback" not in refused.stderr


def test_endpoint_without_tokenize_and_no_tokenizer_is_one_line(truth: TruthServer, tmp_path: Path) -> None:
    proc = cli("run", "--isl", "64", "--osl", "8", "--num-requests", "4", "--concurrency", "2", "--endpoint", truth.base_url, "--out", str(tmp_path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "has no /tokenize" in proc.stderr and "--tokenizer PATH" in proc.stderr and proc.stderr.strip().count("\n") == 0
    assert not list(tmp_path.iterdir())  # nothing written


def test_chat_prompts_on_the_completions_api_are_one_line(truth: TruthServer, tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    prompts.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}) + "\n", encoding="utf-8")
    proc = cli("run", "--input-file", str(prompts), "--concurrency", "1", "--api", "completions", "--endpoint", truth.base_url, "--out", str(tmp_path / "r"))
    assert proc.returncode == 2 and "run them with --api chat" in proc.stderr and "Traceback" not in proc.stderr


def test_prompt_file_is_sent_as_written(truth: TruthServer, tmp_path: Path) -> None:
    prompts = tmp_path / "p.jsonl"
    lines = [{"prompt": "one two three", "max_tokens": 3}, {"messages": [{"role": "user", "content": "four five"}], "max_tokens": 5}]
    prompts.write_text("".join(json.dumps(x) + "\n" for x in lines), encoding="utf-8")
    resolved = build_load(LoadRequest(input_file=prompts, concurrency=[2]))
    art = run_workload(RunOptions(workload_id=resolved.load.label, endpoint=truth.base_url, load=resolved, out_dir=tmp_path / "r", scrape_metrics=False))
    records = sorted(read_records(art.records_path), key=lambda r: r.request_id)
    assert [r.output_tokens for r in records] == [3, 5] and art.result.workload_id == resolved.load.label
    assert art.result.resolved_params["load_description"]["prompts"]["format"] == "jsonl"


def test_sessions_resend_the_history_with_the_models_real_answers(truth: TruthServer, tmp_path: Path) -> None:
    resolved = build_load(LoadRequest(isl=16, osl=40, sessions=3, turns=4, think_time_ms=20.0))
    assert resolved.load.label.startswith("adhoc-") and resolved.load.num_requests == 12
    art = run_workload(
        RunOptions(workload_id=resolved.load.label, endpoint=truth.base_url, load=resolved, tokenizer=TOKENIZER, out_dir=tmp_path, scrape_metrics=False)
    )
    records = sorted(read_records(art.records_path), key=lambda r: r.request_id)
    assert len(records) == 12 and all(r.ok for r in records)
    for s in range(3):
        turns = [r for r in records if r.group == f"s{s:05d}"]
        assert [r.request_id for r in turns] == [f"p0-s{s:05d}-t{t:04d}" for t in range(4)]
        for before, after in itertools.pairwise(turns):
            assert before.input_tokens is not None and before.output_tokens == 40 and after.input_tokens is not None
            # the truth server counts words: the next turn carries this turn's prompt, its 40-word answer and a new message
            assert after.input_tokens - before.input_tokens > 40
            assert after.start_ns - (before.end_ns or 0) >= 20_000_000  # the think time
    assert art.result.resolved_params["load_description"]["sessions"] == 3


def test_a_failed_turn_ends_its_session_and_every_later_turn_is_still_a_record(truth: TruthServer, tmp_path: Path) -> None:
    resolved = build_load(LoadRequest(isl=16, osl=4, sessions=2, turns=3))
    # every measured request's stream breaks after 2 tokens (the truth server's fault injection)
    opts = RunOptions(workload_id=resolved.load.label, endpoint=truth.base_url, load=resolved, tokenizer=TOKENIZER, out_dir=tmp_path,
                      scrape_metrics=False, extra_body={"truth": {"error_after": 2}})  # fmt: skip
    art = run_workload(opts)
    records = sorted(read_records(art.records_path), key=lambda r: r.request_id)
    assert len(records) == 6 and not any(r.ok for r in records)
    assert [r.category == "cancelled" for r in records] == [False, True, True] * 2
    assert "turn p0-s00000-t0000 of this session failed" in (records[1].error or "")


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--sessions", "2", "--turns", "3", "--isl", "8", "--osl", "4", "--concurrency", "2"), "--sessions and --concurrency contradict"),
        (("--sessions", "2", "--isl", "8", "--osl", "4"), "need --sessions S and --turns N"),
        (("--sessions", "2", "--turns", "3", "--isl", "8", "--osl", "4", "--think-time-ms", "-1"), "--think-time-ms -1"),
        (("--sessions", "2", "--turns", "3", "--isl", "8", "--osl", "4", "--api", "completions"), "run it with --api chat"),
    ],
)
def test_bad_session_options_are_one_line(truth: TruthServer, tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    proc = cli("run", *args, "--endpoint", truth.base_url, "--tokenizer", str(TOKENIZER), "--out", str(tmp_path))
    assert proc.returncode == 2 and words in proc.stderr and "Traceback" not in proc.stderr, proc.stderr


def test_a_workload_file_runs_and_predicts_under_one_label_never_its_claimed_id(truth: TruthServer, tmp_path: Path) -> None:
    doc = {
        "id": "serve-mine-c2-v1", "kind": "serving", "name": "mine", "dataset_id": "prompts-mixed-v1", "immutable": True, "created": "2026-12-06",
        "params": {"concurrency": 2, "num_requests": 4, "output_tokens": 4, "seed": 0, "dataset_buckets": ["xs"]},
    }  # fmt: skip
    path = tmp_path / "mine.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    run = cli("run", str(path), "--endpoint", truth.base_url, "--scenario", "tiny-llama-on-cpu", "--no-scrape", "--out", str(tmp_path / "runs"))
    assert run.returncode == 0, run.stderr
    [result] = (tmp_path / "runs").rglob("result.json")
    label = json.loads(result.read_text())["workload_id"]
    assert label.startswith("adhoc-") and label != "serve-mine-c2-v1"
    pred = cli("predict", "tiny-llama-on-cpu", str(path), "--out", str(tmp_path / "pred"))
    assert pred.returncode == 0, pred.stderr
    [prediction] = (tmp_path / "pred").rglob("prediction.json")
    assert json.loads(prediction.read_text())["workload"] == label
    doc["params"]["num_requests"] = 5  # type: ignore[index]
    path.write_text(json.dumps(doc), encoding="utf-8")
    again = cli("predict", "tiny-llama-on-cpu", str(path), "--out", str(tmp_path / "pred2"))
    [changed] = (tmp_path / "pred2").rglob("prediction.json")
    assert again.returncode == 0 and json.loads(changed.read_text())["workload"] not in (label, "serve-mine-c2-v1")
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**doc, "params": {"concurrency": 0}}), encoding="utf-8")
    refused = cli("run", str(bad), "--endpoint", truth.base_url, "--out", str(tmp_path / "r2"))
    assert refused.returncode == 2 and str(bad) in refused.stderr and "Traceback" not in refused.stderr


def test_tokenizer_problems_are_one_line_before_anything_starts(tmp_path: Path) -> None:
    missing = cli(
        "run", "--isl", "8", "--osl", "4", "--num-requests", "1", "--concurrency", "1", "--tokenizer", str(tmp_path / "nope.json"), "--out", str(tmp_path / "r")
    )
    assert missing.returncode == 2 and "--tokenizer" in missing.stderr and "no such file" in missing.stderr
    assert "starting the embedded" not in missing.stdout + missing.stderr and not (tmp_path / "r").exists()
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hi", "max_tokens": 2}\n', encoding="utf-8")
    unused = cli("run", "--input-file", str(prompts), "--concurrency", "1", "--tokenizer", str(TOKENIZER), "--out", str(tmp_path / "r"))
    assert unused.returncode == 2 and "sent as written" in unused.stderr and "Traceback" not in unused.stderr
