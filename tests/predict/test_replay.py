"""predict.replay: a closed-loop point replayed by the steady-state rule or as a
known client runs it."""

from __future__ import annotations

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.predict.api import predict, prepare, run_simulation
from servescope.predict.deployment import deploy
from servescope.predict.replay import REPLAYS, STEADY_RANGE_RATIO, replay, symmetric
from servescope.predict.workload_input import SyntheticWorkload
from tests.predict.conftest import scenario


def _dense_32b() -> Scenario:
    return Scenario(name="q32-tp2", model="qwen3-32b", hardware="h100-sxm", count=2, tp=2,
                    engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]  # fmt: skip


def test_steady_rule_counts(catalog: Catalog) -> None:
    """One loop: c warm-up requests (stationary start), max(32, 16 c) measured, the
    loop held full with cool-down requests; lengths +-10 % around the nominal ones."""
    dep = deploy(scenario(), catalog=catalog)
    spec = SyntheticWorkload((8,), 512, 64)
    assert (spec.warmup_at(8), spec.requests_at(8), spec.lengths) == (8, 128, symmetric(STEADY_RANGE_RATIO))
    out = run_simulation(prepare(spec), dep)
    measured = [r for r in out.requests if r.phase == "measured"]
    warm = [r for r in out.requests if r.request_id.startswith("p0-w")]
    assert len(measured) == 128 and len(warm) == 8
    osl = np.asarray([r.max_tokens for r in measured])
    isl = np.asarray([r.prompt_tokens for r in measured])
    assert osl.min() >= 57 and osl.max() <= 71 and len(set(osl.tolist())) > 5
    assert isl.min() >= 460 and isl.max() <= 564 and abs(isl.mean() - 512) < 10
    # stationary start: each client's first request stops at a drawn share of its output
    assert all(1 <= r.max_tokens <= 71 for r in warm) and len({r.max_tokens for r in warm}) > 4
    # held full: every measured request was sent while all 8 clients had a request in flight
    spans = [(r.start_ns, r.segments and out.replicas[r.replica].step_ends[r.segments[-1][1]]) for r in out.requests]
    for r in measured:
        in_flight = sum(1 for s, e in spans if s <= r.start_ns < e)
        assert in_flight == 8, r.request_id


def test_steady_state_breaks_the_lock_step_waves(catalog: Catalog) -> None:
    """Identical requests started together stay in waves that pay c prefills per
    TTFT; the steady-state replay does not (issue 11: a dense 32B at tp2, c16, 1k/1k)."""
    burst = predict(_dense_32b(), SyntheticWorkload((16,), 1024, 1024, harness="burst"), catalog=catalog).prediction.points[0]
    steady = predict(_dense_32b(), SyntheticWorkload((16,), 1024, 1024), catalog=catalog).prediction.points[0]
    assert burst.ttft_ms is not None and steady.ttft_ms is not None and steady.tpot_ms is not None
    assert burst.ttft_ms > 5 * steady.ttft_ms
    assert steady.tpot_ms == pytest.approx(burst.tpot_ms, rel=0.1)


@pytest.mark.parametrize("conc, isl, osl", [(64, 1024, 128), (16, 8192, 1024)])
def test_longer_warmups_change_little(catalog: Catalog, conc: int, isl: int, osl: int) -> None:
    """With the stationary start one request per client is warm-up enough: 8 per
    client moves TTFT by a few per cent, about what the seed does."""

    def ttft(warm: int) -> float:
        spec = SyntheticWorkload((conc,), isl, osl, warmup_requests=warm)
        value = predict(_dense_32b(), spec, catalog=catalog).prediction.points[0].ttft_ms
        assert value is not None
        return value

    assert ttft(8 * conc) == pytest.approx(ttft(conc), rel=0.08)


def test_vllm_bench_serve_replay(catalog: Catalog) -> None:
    """vllm bench serve defaults: 1000 prompts, all measured, sent at once behind the
    concurrency limit, exact lengths (--random-range-ratio 0.0), no warm-up."""
    spec = SyntheticWorkload((4,), 256, 16, harness="vllm")
    assert (spec.requests_at(4), spec.warmup_at(4), spec.lengths, spec.continuous) == (1000, 0, (1.0, 1.0), False)
    out = run_simulation(prepare(spec), deploy(scenario(), catalog=catalog))
    assert len(out.requests) == 1000 and all(r.phase == "measured" for r in out.requests)
    assert sum(1 for r in out.requests if r.start_ns == 0) == 4  # the first 4 together, the rest as slots free
    assert {r.prompt_tokens for r in out.requests} == {256} and {r.max_tokens for r in out.requests} == {16}


def test_inferencex_replay_lengths() -> None:
    spec = SyntheticWorkload((8,), 1000, 100, harness="inferencex")
    assert spec.requests_at(8) == 80 and spec.lengths == (0.8, 1.0)
    dep = deploy(scenario(), catalog=Catalog.load([]))
    out = run_simulation(prepare(spec), dep)
    lens = [r.prompt_tokens for r in out.requests]
    assert min(lens) >= 800 and max(lens) <= 1000 and min(r.max_tokens for r in out.requests) >= 80


@pytest.mark.parametrize("name", ["aiperf", "genai-perf", "guidellm"])
def test_replays_whose_request_count_is_not_pinned_ask_for_it(name: str) -> None:
    with pytest.raises(ValueError, match="give --num-requests"):
        SyntheticWorkload((4,), 128, 16, harness=name)
    spec = SyntheticWorkload((4,), 128, 16, harness=name, num_requests=40)
    assert spec.requests_at(4) == 40 and spec.warmup_at(4) == 0 and spec.lengths == (1.0, 1.0)


def test_unknown_harness_and_bad_ratio_are_one_line() -> None:
    with pytest.raises(ValueError, match="unknown harness 'locust'; known: steady, burst, vllm"):
        replay("locust")
    with pytest.raises(ValueError, match=r"range ratio 1.5: give a number in \[0, 1\)"):
        SyntheticWorkload((4,), 128, 16, range_ratio=1.5)


def test_every_replay_has_a_source() -> None:
    for rep in REPLAYS.values():
        assert rep.source and rep.summary
        lo, hi = rep.length_range
        assert 0 < lo <= 1.0 <= hi


def test_the_last_held_phase_ends_the_simulation(catalog: Catalog) -> None:
    """Once the last measured request ended, the cool-down requests still in flight are
    not simulated on: no request in the outcome ends after the last measured one."""
    out = run_simulation(prepare(SyntheticWorkload((8,), 256, 32)), deploy(scenario(), catalog=catalog))
    ends = {r.request_id: out.replicas[r.replica].step_ends[r.segments[-1][1]] for r in out.requests}
    last = max(e for rid, e in ends.items() if "-m" in rid)
    assert max(ends.values()) <= last
    assert out.measured[0].ended_ns == last
