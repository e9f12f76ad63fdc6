"""The one load description: fingerprints and labels, and every bad option as one line."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.errors import UsageError
from servescope.workload.adhoc_plan import plan_load
from servescope.workload.load import Load
from servescope.workload.load_build import LoadRequest, build_load

FIXTURE = Path(__file__).parent / "fixtures" / "mooncake-slice-60-scaled16.jsonl"


def test_ad_hoc_label_is_a_digest_of_what_is_sent_and_never_a_catalog_id() -> None:
    a = build_load(LoadRequest(isl=256, osl=32, num_requests=40, concurrency=[4])).load
    same = build_load(LoadRequest(isl=256, osl=32, num_requests=40, concurrency=[4])).load
    other = build_load(LoadRequest(isl=256, osl=32, num_requests=40, concurrency=[4], range_ratio=0.1)).load
    assert a.label == same.label and a.label.startswith("adhoc-") and len(a.label) == len("adhoc-") + 12
    assert other.label != a.label
    assert build_load(LoadRequest(isl=256, osl=32, num_requests=40, concurrency=[4], seed=1)).load.label != a.label
    assert build_load(LoadRequest(workload="serve-chat-c8-i1k-o256-v1")).load.label == "serve-chat-c8-i1k-o256-v1"
    record = a.record()
    assert record["label"] == a.label and record["isl"] == 256 and record["concurrency"] == [4]
    # the record reads back to the same load (recovery rebuilds it from the run header)
    assert Load.model_validate({k: v for k, v in record.items() if k != "label"}).label == a.label


def test_trace_label_follows_the_bytes_not_the_path(tmp_path: Path) -> None:
    copy = tmp_path / "elsewhere.jsonl"
    copy.write_bytes(FIXTURE.read_bytes())
    a = build_load(LoadRequest(trace=FIXTURE)).load
    assert build_load(LoadRequest(trace=copy)).load.label == a.label
    assert build_load(LoadRequest(trace=FIXTURE, speedup=2)).load.label != a.label
    assert build_load(LoadRequest(trace=FIXTURE, num_requests=10)).load.label != a.label


@pytest.mark.parametrize(
    ("request_", "words"),
    [
        (LoadRequest(isl=0, osl=32, num_requests=4, concurrency=[1]), "--isl 0: give at least 1 token"),
        (LoadRequest(isl=16, osl=-1, num_requests=4, concurrency=[1]), "--osl -1"),
        (LoadRequest(isl=16, num_requests=4, concurrency=[1]), "needs both --isl and --osl"),
        (LoadRequest(isl=16, osl=8, concurrency=[1]), "needs --num-requests"),
        (LoadRequest(isl=16, osl=8, num_requests=4), "--concurrency N (closed loop) or --rate R"),
        (LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], range_ratio=1.5), "--range-ratio 1.5"),
        (LoadRequest(trace=FIXTURE, rate=2.0), "--trace and --rate contradict"),
        (LoadRequest(trace=FIXTURE, concurrency=[4]), "--trace and --concurrency contradict"),
        (LoadRequest(trace=FIXTURE, isl=5), "--trace and --isl contradict"),
        (LoadRequest(trace=FIXTURE, speedup=0.0), "--speedup 0.0"),
        (LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], speedup=2.0), "--speedup replays a --trace"),
        (LoadRequest(workload="serve-chat-c8-i1k-o256-v1", isl=16), "contradict: a workload sends its own plan"),
        (LoadRequest(), "give a WORKLOAD"),
        (LoadRequest(workload="no/such/workload.yaml"), "no such file"),
        (LoadRequest(trace=FIXTURE, num_requests=61), "--num-requests 61: the trace"),
        # a session flag beside a trace or a prompt file is refused, never dropped
        (LoadRequest(trace=FIXTURE, sessions=3, turns=2), "--sessions and --trace contradict"),
        (LoadRequest(input_file=FIXTURE, sessions=3, turns=2, isl=8, osl=8), "--sessions and --input-file contradict"),
        (LoadRequest(trace=FIXTURE, think_time_ms=5.0), "--think-time-ms without --sessions S"),
        (LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], system_prompt_tokens=64), "--system-prompt-tokens without --sessions S"),
        (LoadRequest(sessions=2, turns=2, isl=16, osl=8, system_prompt_tokens=0), "--system-prompt-tokens 0: give at least 1 token"),
        (LoadRequest(sessions=2, isl=16, osl=8), "--sessions without --turns N"),
    ],
)
def test_bad_load_options_are_one_line(request_: LoadRequest, words: str) -> None:
    with pytest.raises(UsageError) as info:
        build_load(request_)
    assert words in str(info.value) and "\n" not in str(info.value)


def test_synthetic_plan_is_seeded_and_uniform_within_the_range_ratio() -> None:
    exact = plan_load(build_load(LoadRequest(isl=256, osl=32, num_requests=40, concurrency=[4])))
    assert [(r.input_tokens_nominal, r.max_tokens) for r in exact[0].requests] == [(256, 32)] * 40
    spread = build_load(LoadRequest(isl=200, osl=50, num_requests=500, concurrency=[2, 4], range_ratio=0.2, seed=3))
    points = plan_load(spread)
    assert [p.concurrency for p in points] == [2, 4] and all(p.measured == 500 for p in points)
    isls = [r.input_tokens_nominal or 0 for r in points[0].requests]
    assert min(isls) >= 160 and max(isls) <= 240 and len(set(isls)) > 40
    assert plan_load(spread)[0].requests == points[0].requests  # same seed, same plan
    assert len({r.prompt_id for p in points for r in p.requests}) == 1000  # nothing shared


def test_trace_plan_keeps_the_schedule_lengths_and_blocks() -> None:
    resolved = build_load(LoadRequest(trace=FIXTURE, speedup=2.0))
    [point] = plan_load(resolved)
    assert resolved.trace is not None
    first = resolved.trace.requests[0].timestamp_ms
    assert point.offsets_ns == [round((r.timestamp_ms - first) * 1e6 / 2.0) for r in resolved.trace.requests]
    assert [(r.input_tokens_nominal, r.max_tokens, r.prefix_blocks) for r in point.requests] == [
        (r.input_length, r.output_length, tuple(r.hash_ids)) for r in resolved.trace.requests
    ]


def test_a_session_system_prompt_is_planned_on_every_turn_and_changes_the_label() -> None:
    plain = build_load(LoadRequest(sessions=2, turns=3, isl=16, osl=8))
    with_system = build_load(LoadRequest(sessions=2, turns=3, isl=16, osl=8, system_prompt_tokens=64))
    assert plain.load.label != with_system.load.label and "64-token system prompt" in with_system.load.describe()
    [point] = plan_load(with_system)
    assert len(point.requests) == 6 and {r.system_tokens_nominal for r in point.requests} == {64}
    assert {r.session for r in point.requests} == {"s00000", "s00001"}
