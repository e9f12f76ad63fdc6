"""The one load description: fingerprints and labels, and every bad option as one line."""

from __future__ import annotations

import json
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
        (LoadRequest(trace=FIXTURE, speedup=0.0), "--speedup 0: give a finite number > 0"),
        (LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], speedup=2.0), "--speedup replays a --trace"),
        (LoadRequest(isl=16, osl=8, sessions=2, turns=2, speedup=2.0), "--sessions and --speedup contradict"),  # was silently dropped
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
        (LoadRequest(trace=FIXTURE, gamma_shape=0.5), "--trace and --gamma-shape contradict"),
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


SYN = {"isl": 16, "osl": 8, "num_requests": 4}
NUMBERS = [
    # every numeric ad-hoc option: NaN, inf, zero, negatives and past its limit are one line naming it (never a pydantic dump)
    *[(dict(SYN, rate=v), f"--rate {t}: give a finite number > 0") for v, t in ((0.0, "0"), (-1.0, "-1"), (float("nan"), "nan"), (float("inf"), "inf"))],
    *[
        (dict(SYN, concurrency=[1], gamma_shape=v), f"--gamma-shape {t}: give a finite number > 0")
        for v, t in ((0.0, "0"), (-2.0, "-2"), (float("nan"), "nan"))
    ],
    *[({"trace": FIXTURE, "speedup": v}, f"--speedup {t}: give a finite number > 0") for v, t in ((-1.0, "-1"), (float("nan"), "nan"), (float("inf"), "inf"))],
    ({"trace": FIXTURE, "speedup": 1e9}, "--speedup 1000000000 is above the limit"),
    *[
        (dict(SYN, concurrency=[1], range_ratio=v), f"--range-ratio {t}: give a number in [0, 1)")
        for v, t in ((float("nan"), "nan"), (-0.5, "-0.5"), (1.0, "1"))
    ],
    *[
        ({"sessions": 2, "turns": 2, "isl": 8, "osl": 8, "think_time_ms": v}, f"--think-time-ms {t}: give milliseconds")
        for v, t in ((float("nan"), "nan"), (-1.0, "-1"), (1e12, "1000000000000"), (float("inf"), "inf"))
    ],
    (dict(SYN, concurrency=[1], num_requests=0), "--num-requests 0: give a count"),
    (dict(SYN, concurrency=[1], num_requests=10**12), "--num-requests 1000000000000: give a count"),
    (dict(SYN, concurrency=[1], warmup_requests=-1), "--warmup-requests -1: give a count"),
    (dict(SYN, concurrency=[1], isl=10**12), "--isl 1,000,000,000,000 is above the limit"),
    (dict(SYN, concurrency=[0]), "--concurrency 0: give levels of at least 1"),
    ({"sessions": 0, "turns": 2, "isl": 8, "osl": 8}, "--sessions 0: give 1.."),
    ({"sessions": 2, "turns": 10**6, "isl": 8, "osl": 8}, "--turns 1000000: give 1.."),
    ({"sessions": 2, "turns": 2, "isl": 8, "osl": 8, "system_prompt_tokens": -5}, "--system-prompt-tokens -5: give at least 1 token"),
]


@pytest.mark.parametrize(("fields", "words"), NUMBERS, ids=[w.split(":")[0].split(" is ")[0] + f"-{i}" for i, (_, w) in enumerate(NUMBERS)])
def test_every_numeric_load_option_is_checked_by_name(fields: dict[str, object], words: str) -> None:
    with pytest.raises(UsageError) as info:
        build_load(LoadRequest(**fields))  # type: ignore[arg-type]
    assert words in str(info.value) and "\n" not in str(info.value)


def test_a_scaled_trace_longer_than_a_month_is_refused_after_the_speedup() -> None:
    # 60 requests over a few seconds: at speedup 1e-6 the replay would take weeks, which is refused
    with pytest.raises(UsageError, match=r"--speedup 1e-06: the replay would span [\d,.]+ days, more than 30 days"):
        build_load(LoadRequest(trace=FIXTURE, speedup=1e-6))
    assert build_load(LoadRequest(trace=FIXTURE, speedup=0.5)).load.speedup == 0.5  # slower, within a month: fine


def test_an_explicit_default_labels_the_load_as_leaving_it_out() -> None:
    plain = build_load(LoadRequest(**SYN, concurrency=[4])).load
    # run's --warmup-requests default is 0; predict's steady-state warm-up is the simulator's, not the load's
    assert build_load(LoadRequest(**SYN, concurrency=[4], warmup_requests=0)).load.label == plain.label
    assert build_load(LoadRequest(**SYN, concurrency=[4], range_ratio=0.0)).load.label == plain.label
    assert build_load(LoadRequest(**SYN, concurrency=[4], warmup_requests=2)).load.label != plain.label  # requests sent: a different load
    open_loop = build_load(LoadRequest(**SYN, rate=2.0)).load
    assert build_load(LoadRequest(**SYN, rate=2.0, gamma_shape=1.0)).load.label == open_loop.label
    assert build_load(LoadRequest(**SYN, rate=2.0, arrival="gamma", gamma_shape=0.5)).load.label != open_loop.label
    # a gamma shape that shapes no gamma arrivals sends nothing different
    assert Load(source="synthetic", isl=16, osl=8, num_requests=4, rate=2.0, gamma_shape=3.0).label == open_loop.label
    assert Load(source="synthetic", isl=16, osl=8, num_requests=4, concurrency=(4,), arrival="constant").label == plain.label


def test_a_workload_file_with_an_unknown_dataset_names_the_file_and_field(tmp_path: Path) -> None:
    packaged = Path(__file__).parents[2] / "src" / "servescope" / "data" / "workloads" / "serve-chat-c8-i1k-o256-v1.json"
    doc = json.loads(packaged.read_text(encoding="utf-8"))
    path = tmp_path / "nods.json"
    path.write_text(json.dumps({**doc, "dataset_id": "nope-v1"}), encoding="utf-8")
    with pytest.raises(UsageError) as info:
        build_load(LoadRequest(workload=str(path)))
    assert str(info.value).startswith(f"{path}: dataset_id: unknown dataset 'nope-v1'; known: ") and "servescope catalog list" in str(info.value)
    assert info.value.exit_code == 2
    path.write_text(json.dumps(doc), encoding="utf-8")
    assert build_load(LoadRequest(workload=str(path))).load.source == "workload-file"


def test_rate_with_concurrency_is_refused_for_a_run_of_an_ad_hoc_load(tmp_path: Path) -> None:
    # an open loop is not capped by an in-flight count: for run the two are a contradiction, never a label
    prompts = tmp_path / "p.jsonl"
    prompts.write_text('{"prompt": "hi"}\n', encoding="utf-8")
    for req in (LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], rate=4.0), LoadRequest(input_file=prompts, osl=8, concurrency=[1, 4], rate=50.0)):
        with pytest.raises(UsageError, match="--rate and --concurrency contradict: an ad-hoc load is a closed loop of --concurrency"):
            build_load(req, one_loop=True)
    assert build_load(LoadRequest(isl=16, osl=8, num_requests=4, concurrency=[1], rate=4.0)).load.rate == 4.0  # predict's open-loop points per level


def test_the_measured_lengths_do_not_depend_on_the_warmup_count() -> None:
    """run and predict of one --range-ratio load and seed drew different requests: the warm-ups
    took the first draws of the seed's stream. They now have a stream of their own."""

    def measured(warmup: int) -> list[tuple[int, int]]:
        points = plan_load(build_load(LoadRequest(isl=100, osl=20, num_requests=40, concurrency=[4, 8], range_ratio=0.2, warmup_requests=warmup)))
        return [(r.input_tokens_nominal or 0, r.max_tokens) for p in points for r in p.requests if r.phase == "measured"]

    assert measured(0) == measured(4) == measured(7)
    cold = plan_load(build_load(LoadRequest(isl=100, osl=20, num_requests=40, concurrency=[4], range_ratio=0.2, warmup_requests=4)))[0]
    warm = [(r.input_tokens_nominal, r.max_tokens) for r in cold.requests if r.phase == "warmup"]
    assert len(warm) == 4 and warm != [(r.input_tokens_nominal, r.max_tokens) for r in cold.requests if r.phase == "measured"][:4]
