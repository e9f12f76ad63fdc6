"""The simulator replays an ad-hoc load as the harness sends it: a trace's schedule,
lengths and prefix blocks; a prompt file's prompts; labelled by the load."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.predict.api import prepare, resolve_deployment
from servescope.predict.workload_input import phases_from_plan
from servescope.workload.load_build import LoadRequest, build_load

TRACE = Path(__file__).parents[1] / "workload" / "fixtures" / "mooncake-slice-60-scaled16.jsonl"


def test_trace_phases_keep_schedule_lengths_and_shared_prefix_blocks() -> None:
    resolved = build_load(LoadRequest(trace=TRACE, speedup=4.0))
    prepared = prepare(resolved)
    assert prepared.workload_id == resolved.load.label and prepared.resolved["load_description"]["speedup"] == 4.0
    assert prepared.points is not None
    dep = resolve_deployment("llama-3.1-8b-on-h100")  # vLLM: 16-token blocks, prefix caching on
    [warm, measured] = phases_from_plan(prepared.points, dep, prepared.load)
    assert not warm.requests and resolved.trace is not None
    assert measured.offsets_ns == resolved.trace.offsets_ns(4.0)
    assert [r.prompt_tokens for r in measured.requests] == [t.input_length for t in resolved.trace.requests]
    bs = dep.engine.block_size
    by_blocks: dict[tuple[int, ...], tuple[int, ...]] = {}
    for req, t in zip(measured.requests, resolved.trace.requests, strict=True):
        assert len(req.block_hashes) == t.input_length // bs
        if t.input_length >= 512:
            # block 0 (every request's first 512 tokens) hashes alike everywhere
            first = req.block_hashes[: 512 // bs]
            by_blocks.setdefault((0,), first)
            assert first == by_blocks[(0,)]
    tails = {r.block_hashes[512 // bs] for r in measured.requests if len(r.block_hashes) > 512 // bs}
    assert len(tails) > 1  # past the shared block, each request's own


def test_prompt_file_is_predicted_from_its_prompts(tmp_path: Path) -> None:
    path = tmp_path / "p.jsonl"
    path.write_text("".join(json.dumps({"prompt": "word " * n, "max_tokens": 8}) + "\n" for n in (10, 200, 40)), encoding="utf-8")
    resolved = build_load(LoadRequest(input_file=path, concurrency=[2]))
    prepared = prepare(resolved)
    assert prepared.points is not None and prepared.workload_id == resolved.load.label
    [_, measured] = phases_from_plan(prepared.points, resolve_deployment("tiny-llama-on-cpu"), prepared.load)
    lengths = [r.prompt_tokens for r in measured.requests]
    assert lengths[1] > lengths[2] > lengths[0] and [r.max_tokens for r in measured.requests] == [8, 8, 8]


def test_a_loads_isl_is_the_whole_prompt_as_run_sends_it() -> None:
    from servescope.predict.workload_input import SyntheticWorkload, phases_synthetic

    dep = resolve_deployment("tiny-llama-on-cpu")
    assert dep.template_tokens == 11  # the tiny model's ChatML around one message
    as_run = SyntheticWorkload((4,), isl=256, osl=32, num_requests=8, range_ratio=0.0, label="adhoc-x", whole_prompt=True)
    on_top = SyntheticWorkload((4,), isl=256, osl=32, num_requests=8, range_ratio=0.0)
    assert {r.prompt_tokens for ph in phases_synthetic(as_run, dep) for r in ph.requests} == {256}
    assert {r.prompt_tokens for ph in phases_synthetic(on_top, dep) for r in ph.requests} == {256 + dep.template_tokens}


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("--trace", str(TRACE), "--harness", "vllm"), "--trace is simulated as servescope's client sends it"),
        (("--trace", str(TRACE), "--rate", "2"), "--trace and --rate contradict"),
        (("--trace", str(TRACE), "--max-throughput"), "--trace sets its own load; leave --max-throughput out"),
        (("--isl", "0", "--osl", "8", "--concurrency", "1"), "--isl 0: give at least 1 token"),
        (("serve-chat-c8-i1k-o256-v1", "--speedup", "2"), "give them without a WORKLOAD"),
    ],
)
def test_bad_predict_load_options_are_one_line(tmp_path: Path, args: tuple[str, ...], words: str) -> None:
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).parents[2] / "src")}
    proc = subprocess.run([sys.executable, "-m", "servescope", "predict", "tiny-llama-on-cpu", *args, "--out", str(tmp_path)],
                          capture_output=True, text=True, timeout=120, env=env)  # fmt: skip
    assert proc.returncode == 2 and words in proc.stderr and proc.stderr.strip().count("\n") == 0, proc.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.parametrize(("run_warmups", "predict_warmups"), [(0, None), (3, None), (3, 5), (0, 0)])
def test_a_loads_measured_lengths_are_the_ones_run_sends_whatever_the_warm_ups(run_warmups: int, predict_warmups: int | None) -> None:
    """A --range-ratio load: the measured requests predicted have run's lengths draw for draw, at every
    level, though run sends its own warm-ups (--warmup-requests) and predict's steady replay simulates
    others, with a cool-down and stationary-start cuts of its own."""
    from servescope.predict.workload_input import LoadOptions, SyntheticWorkload, phases_synthetic
    from servescope.workload.adhoc_plan import plan_load

    resolved = build_load(LoadRequest(isl=200, osl=40, num_requests=12, concurrency=[2, 4], range_ratio=0.5, seed=7, warmup_requests=run_warmups))
    sent = [[(r.input_tokens_nominal, r.max_tokens) for r in point.requests if r.phase == "measured"] for point in plan_load(resolved)]
    dep = resolve_deployment("tiny-llama-on-cpu")
    spec = SyntheticWorkload((2, 4), isl=200, osl=40, num_requests=12, range_ratio=0.5, warmup_requests=predict_warmups,
                             label=resolved.load.label, whole_prompt=True)  # fmt: skip
    predicted: list[list[tuple[int, int]]] = [[], []]
    for phase in phases_synthetic(spec, dep, LoadOptions(seed=7)):
        predicted[phase.point] += [(r.prompt_tokens, r.max_tokens) for r in phase.requests if "-m" in r.request_id]
    assert len({n for level in sent for n, _ in level}) > 5  # the lengths do vary
    assert predicted == sent
