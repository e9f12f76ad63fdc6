"""One run's load split over N client workers: the union is exactly what one process sends."""

from __future__ import annotations

from collections import Counter

import pytest

from servescope.errors import UsageError
from servescope.workload.arrivals import arrival_offsets_ns
from servescope.workload.partition import check_split, shares, split_point, split_points
from servescope.workload.plan import PlannedPoint, PlannedRequest


def _req(i: int, *, phase: str = "measured", group: str | None = None, session: str | None = None) -> PlannedRequest:
    return PlannedRequest(f"r{i}", f"prompt {i}", f"p{i}", 16, None, phase=phase, group=group, session=session)


def _point(n: int, concurrency: int, warmup: int = 0, **kw: object) -> PlannedPoint:
    reqs = [_req(1000 + i, phase="warmup") for i in range(warmup)] + [_req(i) for i in range(n)]
    return PlannedPoint(index=0, concurrency=concurrency, requests=reqs, **kw)  # type: ignore[arg-type]


def _ids(points: list[PlannedPoint]) -> Counter[str]:
    return Counter(r.request_id for p in points for r in p.requests)


@pytest.mark.parametrize(("total", "n", "want"), [(16, 3, [6, 5, 5]), (16, 2, [8, 8]), (5, 5, [1] * 5), (7, 4, [2, 2, 2, 1])])
def test_streams_are_split_with_remainders_spread(total: int, n: int, want: list[int]) -> None:
    assert shares(total, n) == want
    subs = split_point(_point(64, total), n, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert [s.client_concurrency for s in subs] == want
    assert all(s.concurrency == total for s in subs)  # the records still say the run's concurrency


def test_closed_loop_union_is_the_plan_and_requests_follow_the_streams() -> None:
    point = _point(320, 16, warmup=2)
    subs = split_point(point, 3, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert _ids(subs) == _ids([point])
    assert [s.measured for s in subs] == [120, 100, 100]  # 6:5:5 of 320
    assert sum(s.requests[0].phase == "warmup" for s in subs) == 2


def test_groups_and_sessions_stay_whole() -> None:
    grouped = PlannedPoint(0, 4, [_req(i, group=f"g{i // 3}") for i in range(12)])
    subs = split_point(grouped, 2, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    for sub in subs:
        groups = Counter(r.group for r in sub.requests)
        assert all(count == 3 for count in groups.values())
    sessions = PlannedPoint(0, 3, [_req(i, session=f"s{i % 3}") for i in range(9)])
    subs = split_point(sessions, 2, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert _ids(subs) == _ids([sessions])
    owners = {r.session: k for k, sub in enumerate(subs) for r in sub.requests}
    assert all(owners[r.session] == k for k, sub in enumerate(subs) for r in sub.requests)
    assert [s.client_concurrency for s in subs] == [2, 1]  # every session of a worker at once


def test_open_loop_deals_one_global_schedule() -> None:
    point = _point(101, 8)
    subs = split_point(point, 3, rate=50.0, arrival="gamma", gamma_shape=0.5, seed=7)
    want = arrival_offsets_ns(101, 50.0, "gamma", 0.5, 7)
    got = {r.request_id: off for s in subs for r, off in zip(s.requests, s.offsets_ns or [], strict=True)}
    assert got == {f"r{i}": int(want[i]) for i in range(101)}
    assert [len(s.requests) for s in subs] == [34, 34, 33]


def test_a_trace_schedule_is_dealt_as_is() -> None:
    offsets = [0, 5, 5, 30, 31, 90]
    point = _point(6, 2, offsets_ns=offsets)
    subs = split_point(point, 2, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert sorted(o for s in subs for o in s.offsets_ns or []) == offsets
    assert subs[0].offsets_ns == [0, 5, 31] and subs[1].offsets_ns == [5, 30, 90]


def test_a_trace_whose_requests_share_a_first_block_still_splits() -> None:
    """A conversation trace's requests all start with the same prefix block (one group): under
    its schedule the order holds whichever worker sends them, so they are dealt one by one."""
    offsets = [0, 0, 0, 0, 10, 10]
    point = PlannedPoint(0, 1, [_req(i, group="block-7") for i in range(6)], offsets_ns=offsets)
    check_split([point], 2, None)
    subs = split_point(point, 2, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert _ids(subs) == _ids([point]) and [len(s.requests) for s in subs] == [3, 3]
    assert subs[0].offsets_ns == [0, 0, 10] and subs[1].offsets_ns == [0, 0, 10]


def test_every_point_of_a_sweep_is_split() -> None:
    points = [_point(8, c) for c in (2, 4)]
    for i, p in enumerate(points):
        p.index = i
    per_worker = split_points(points, 2, rate=None, arrival="poisson", gamma_shape=1.0, seed=0)
    assert [[p.index for p in w] for w in per_worker] == [[0, 1], [0, 1]]
    assert [[p.client_concurrency for p in w] for w in per_worker] == [[1, 2], [1, 2]]


@pytest.mark.parametrize(
    ("point", "n", "rate", "says"),
    [
        (_point(40, 2), 3, None, "--workers 3 is more than the 2 streams of point 0 (concurrency 2): each worker needs one; give --workers ≤ 2"),
        (_point(2, 8), 4, 5.0, "--workers 4 is more than the 2 requests (or request groups) of point 0 (concurrency 8); give --workers ≤ 2"),
        (
            PlannedPoint(0, 2, [_req(i, session=f"s{i % 2}") for i in range(6)]),
            3,
            None,
            "--workers 3: point 0 (concurrency 2) has 2 sessions and a session runs whole on one worker; give --workers ≤ 2",
        ),
    ],
)
def test_a_split_that_leaves_a_worker_idle_is_refused(point: PlannedPoint, n: int, rate: float | None, says: str) -> None:
    with pytest.raises(UsageError) as exc:
        check_split([point], n, rate)
    assert str(exc.value) == says
