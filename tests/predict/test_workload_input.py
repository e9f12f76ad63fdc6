"""Synthetic workloads as phases: the offline point (--max-throughput), staged
Poisson rates (--stages), and the requests kept between calls (search)."""

from __future__ import annotations

import dataclasses
from dataclasses import replace

import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Prediction
from servescope.predict.api import predict
from servescope.predict.deployment import deploy
from servescope.predict.sim.load import Phase
from servescope.predict.sim.request import SimRequest, requests_from_rows
from servescope.predict.sim.simulator import Simulation
from servescope.predict.workload_input import OFFLINE_REQUESTS, LoadOptions, SyntheticWorkload, phases_synthetic
from servescope.workload.arrivals import arrival_offsets_ns
from tests.predict.conftest import scenario


def test_offline_sends_everything_at_once(catalog: Catalog) -> None:
    spec = SyntheticWorkload((), 512, 64, offline=True, num_requests=300)
    run = predict(scenario(), spec, catalog=catalog)
    [point] = run.prediction.points
    assert run.prediction.workload == spec.id == "synthetic-offline-n300-i512-o64"
    assert {r.start_ns for r in run.records} == {0} and len(run.records) == 300
    assert point.concurrency == 300 and point.request_rate is None  # every request in flight at t = 0
    assert point.output_tokens_per_sec is not None and point.completed_requests == 300
    # offline throughput is the most the deployment gives: above a closed loop of 16
    closed = predict(scenario(), SyntheticWorkload((16,), 512, 64), catalog=catalog).prediction.points[0]
    assert closed.output_tokens_per_sec is not None and point.output_tokens_per_sec > 2 * closed.output_tokens_per_sec
    assert run.result.resolved_params["load"] == "offline"
    assert SyntheticWorkload((), 8, 8, offline=True).requests_at(1) == OFFLINE_REQUESTS


def test_stages_are_one_point_each(catalog: Catalog) -> None:
    spec = SyntheticWorkload((), 256, 32, stages=((4.0, 10.0), (12.0, 5.0)))
    run = predict(scenario(), spec, catalog=catalog, seed=3)
    points = run.prediction.points
    assert [p.request_rate for p in points] == [4.0, 12.0]
    assert [p.completed_requests for p in points] == [40, 60]  # rate x seconds each
    by_point: dict[int, list[int]] = {}
    for rec in run.records:
        by_point.setdefault(rec.point or 0, []).append(rec.start_ns)
    # one arrival process: stage 2 starts when stage 1's 10 s are over, each with its own seed
    assert sorted(by_point[0]) == arrival_offsets_ns(40, 4.0, "poisson", seed=3)
    assert sorted(by_point[1]) == [10_000_000_000 + o for o in arrival_offsets_ns(60, 12.0, "poisson", seed=4)]
    assert all(r.concurrency == p.concurrency for p, idx in zip(points, (0, 1), strict=True) for r in run.records if r.point == idx)
    assert run.result.resolved_params["stages"] == [{"rate": 4.0, "seconds": 10.0}, {"rate": 12.0, "seconds": 5.0}]
    assert [pt.metrics.requested_rate for pt in run.result.points or []] == [4.0, 12.0]
    Prediction.model_validate(run.prediction.dump())


def test_stage_rows_may_share_a_concurrency_but_not_a_rate() -> None:
    row = {"concurrency": 3, "ttft_ms": 10.0, "itl_ms": 1.0}
    doc = {"kind": "Prediction", "name": "p", "scenario": "s", "predictor": "x", "predictor_version": "1"}
    ok = Prediction.model_validate({**doc, "points": [{**row, "request_rate": 1.0}, {**row, "request_rate": 2.0}]})
    assert not [i for i in ok.check() if i.level == "error"]
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"points\[1\].concurrency: concurrency 3 at rate 1 already used by points\[0\]"):
        Prediction.model_validate({**doc, "points": [{**row, "request_rate": 1.0}, {**row, "request_rate": 1.0}]})
    with pytest.raises(ValidationError, match=r"points\[1\].concurrency: concurrency 3 already used"):
        Prediction.model_validate({**doc, "points": [row, row]})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"stages": ((5.0, 60.0), (5.0, 30.0))}, "different rate"),
        ({"stages": ((5.0, 0.0),)}, "both > 0"),
        ({"stages": ((5.0, 60.0),), "offline": True}, "give one of"),
        ({"concurrency": (4,), "offline": True}, "leave --concurrency out"),
        ({"num_requests": 0, "offline": True}, "at least 1"),
    ],
)
def test_bad_modes_are_one_line(kwargs: dict[str, object], message: str) -> None:
    args = {"concurrency": (), "isl": 64, "osl": 8, **kwargs}
    with pytest.raises(ValueError, match=message):
        SyntheticWorkload(**args)  # type: ignore[arg-type]


def test_the_offline_table_says_so(catalog: Catalog) -> None:
    from servescope.predict.api import format_table

    run = predict(scenario(), SyntheticWorkload((), 128, 8, offline=True, num_requests=20), catalog=catalog)
    assert "offline: every request sent at t = 0" in format_table(run.prediction)


def _request_fields(r: SimRequest) -> tuple[object, ...]:
    return tuple(getattr(r, f.name) for f in dataclasses.fields(SimRequest))


def _phase_fields(ph: Phase) -> tuple[object, ...]:
    return (ph.point, ph.name, ph.concurrency, ph.offsets_ns, ph.hold, ph.started_ns, ph.ended_ns, ph._next, ph._open,
            [_request_fields(r) for r in ph.requests])  # fmt: skip


def test_rows_make_the_requests_the_constructor_makes() -> None:
    rows = [(0, "p0-w00000", "warmup", 0, 4, 100, 7, 100), (5, "p1-m00003", "measured", 1, 64, 2048, 1, 2047)]
    made = requests_from_rows(rows)
    built = [SimRequest(*row[:7], target=row[7]) for row in rows]
    assert [_request_fields(r) for r in made] == [_request_fields(r) for r in built]  # every field (an unset one raises)
    assert made[0].hashed is not made[1].hashed and made[0].segments is not made[1].segments  # a list each


@pytest.mark.parametrize(
    "spec, load",
    [
        (SyntheticWorkload((16,), 1024, 256, requests_per_concurrency=2, min_requests=16), LoadOptions()),  # steady: stationary first requests
        (SyntheticWorkload((8, 32), 512, 64, harness="burst", num_requests=40), LoadOptions(seed=3)),
        (SyntheticWorkload((), 512, 64, rate=20.0, num_requests=50), LoadOptions(rate=20.0)),
        (SyntheticWorkload((), 256, 32, offline=True, num_requests=30), LoadOptions()),
        (SyntheticWorkload((), 256, 32, stages=((4.0, 2.0), (8.0, 1.0))), LoadOptions(seed=1)),
        (SyntheticWorkload((8,), 200, 100, num_requests=40, sharegpt_client="vllm-bench-serve"), LoadOptions()),
    ],
)
def test_cached_requests_are_the_drawn_ones(catalog: Catalog, spec: SyntheticWorkload, load: LoadOptions) -> None:
    """``phases_synthetic`` with a cache (search: one workload on many deployments) makes fresh
    requests equal to drawing them again, after a simulation has filled in the first ones,
    and a deployment that clamps them differently gets its own."""
    dep = deploy(scenario(), catalog=catalog)
    cache: dict[object, object] = {}
    first = phases_synthetic(spec, dep, load, cache)
    want = [_phase_fields(ph) for ph in phases_synthetic(spec, dep, load)]
    assert [_phase_fields(ph) for ph in first] == want
    Simulation(dep, first).run()  # fills in the first requests and phases
    again = phases_synthetic(spec, dep, load, cache)
    assert [_phase_fields(ph) for ph in again] == want
    assert not {id(r) for ph in first for r in ph.requests} & {id(r) for ph in again for r in ph.requests}
    # the template's tokens and the engine's clamp of max_tokens are part of what a request is
    clamped = replace(dep, engine=replace(dep.engine, overflow="truncate", max_model_len=spec.isl + 40), template_tokens=dep.template_tokens + 3)
    own = [_phase_fields(ph) for ph in phases_synthetic(spec, clamped, load)]
    assert own != want
    assert [_phase_fields(ph) for ph in phases_synthetic(spec, clamped, load, cache)] == own


def test_a_chat_lines_prompt_counts_the_template_of_each_message(catalog: Catalog) -> None:
    """A prompt file's chat line is wrapped message by message, each by its role's wrap
    (predict.sessions.template_tokens_for), as the engine counts it, not the template once (a
    21-message chat was predicted 42 % short), each message's text tokenised on its own. The
    embedded engine (2026-12-07) counted this chat 215 prompt tokens: 74 of its messages' texts and
    141 of the template around its 11 user and 10 assistant messages (5 + 11 x 6 + 10 x 7)."""
    from servescope.predict.workload_input import PromptTokenizer
    from servescope.workload.plan import PlannedRequest

    dep = deploy(catalog.scenario("tiny-llama-on-cpu"), catalog=catalog)
    msgs = tuple({"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i}"} for i in range(21))
    text = "\n".join(m["content"] for m in msgs)
    count = PromptTokenizer(dep, 4.0)
    one = count(PlannedRequest("a", text, "p0", 8, None))
    chat = count(PlannedRequest("b", text, "p0", 8, None, messages=msgs))
    assert chat.count == 215
    assert count(PlannedRequest("c", text, "p0", 8, None)).count == one.count  # the plain line is not confused with the chat in the memo
