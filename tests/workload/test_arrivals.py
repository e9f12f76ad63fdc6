"""Arrival schedules of an open-loop run (pure): shared by harness and simulator."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from servescope.errors import UsageError
from servescope.workload.arrivals import MAX_SCHEDULE_S, arrival_offsets_ns, check_rate, check_span

# ---- arrival_offsets_ns ----------------------------------------------------------


@pytest.mark.parametrize("arrival", ["poisson", "gamma", "constant"])
def test_first_offset_is_zero_and_offsets_never_go_back(arrival: str) -> None:
    offs = arrival_offsets_ns(500, 20.0, arrival, shape=0.5, seed=1)  # type: ignore[arg-type]
    assert len(offs) == 500
    assert offs[0] == 0
    assert all(b >= a for a, b in itertools.pairwise(offs))
    assert all(isinstance(o, int) for o in offs)


@pytest.mark.parametrize(("arrival", "shape"), [("poisson", 1.0), ("gamma", 0.5), ("gamma", 1.0), ("gamma", 4.0)])
def test_mean_gap_is_one_over_rate(arrival: str, shape: float) -> None:
    n, rate = 20_001, 8.0
    offs = arrival_offsets_ns(n, rate, arrival, shape=shape, seed=7)  # type: ignore[arg-type]
    mean_gap_s = offs[-1] / (n - 1) / 1e9
    # standard error of the mean gap is CV/(rate*sqrt(n)) <= 1.5% here; allow 5%
    assert mean_gap_s == pytest.approx(1 / rate, rel=0.05)


def test_constant_arrivals_are_evenly_spaced() -> None:
    assert arrival_offsets_ns(5, 4.0, "constant") == [0, 250_000_000, 500_000_000, 750_000_000, 1_000_000_000]


def test_constant_arrivals_are_exact_at_a_rate_that_is_not_a_power_of_two() -> None:
    assert arrival_offsets_ns(20, 10.0, "constant") == [i * 100_000_000 for i in range(20)]


def cv(offs: list[int]) -> float:
    gaps = np.diff(np.asarray(offs, dtype=float))
    return float(gaps.std() / gaps.mean())


def test_gamma_shape_below_one_is_burstier_than_poisson() -> None:
    n = 20_000
    bursty = cv(arrival_offsets_ns(n, 10.0, "gamma", shape=0.25, seed=3))
    poisson_like = cv(arrival_offsets_ns(n, 10.0, "gamma", shape=1.0, seed=3))
    smooth = cv(arrival_offsets_ns(n, 10.0, "gamma", shape=4.0, seed=3))
    # gamma CV is 1/sqrt(shape): 2, 1, 0.5
    assert bursty == pytest.approx(2.0, rel=0.1)
    assert poisson_like == pytest.approx(1.0, rel=0.1)
    assert smooth == pytest.approx(0.5, rel=0.1)
    assert bursty > poisson_like > smooth


def test_poisson_gaps_have_cv_one() -> None:
    assert cv(arrival_offsets_ns(20_000, 5.0, "poisson", seed=11)) == pytest.approx(1.0, rel=0.1)


def test_constant_gaps_have_cv_zero() -> None:
    assert cv(arrival_offsets_ns(100, 4.0, "constant")) == 0.0


@pytest.mark.parametrize("arrival", ["poisson", "gamma"])
def test_same_seed_same_schedule_other_seed_other_schedule(arrival: str) -> None:
    a = arrival_offsets_ns(100, 3.0, arrival, shape=0.7, seed=42)  # type: ignore[arg-type]
    assert a == arrival_offsets_ns(100, 3.0, arrival, shape=0.7, seed=42)  # type: ignore[arg-type]
    assert a != arrival_offsets_ns(100, 3.0, arrival, shape=0.7, seed=43)  # type: ignore[arg-type]


def test_zero_requests_is_an_empty_schedule() -> None:
    assert arrival_offsets_ns(0, 5.0) == []


@pytest.mark.parametrize("rate", [0.0, -1.0])
def test_non_positive_rate_raises(rate: float) -> None:
    with pytest.raises(ValueError, match="rate"):
        arrival_offsets_ns(10, rate)


def test_nan_rate_raises() -> None:
    with pytest.raises(ValueError):
        arrival_offsets_ns(3, math.nan)


@pytest.mark.parametrize("shape", [0.0, -0.5])
def test_non_positive_gamma_shape_raises(shape: float) -> None:
    with pytest.raises(ValueError, match="shape"):
        arrival_offsets_ns(10, 1.0, "gamma", shape=shape)


def test_unknown_arrival_pattern_raises() -> None:
    with pytest.raises(ValueError, match="unknown arrival"):
        arrival_offsets_ns(10, 1.0, "bursty")  # type: ignore[arg-type]


# ---- schedules that cannot be sent ------------------------------------------------


@pytest.mark.parametrize(("n", "rate"), [(2, 1e-300), (320, 1e-9), (100, 1e-4), (10**6, 1.0)])
def test_a_schedule_longer_than_the_bound_is_refused_in_one_line(n: int, rate: float) -> None:
    with pytest.raises(UsageError, match="past the longest arrival schedule") as info:
        arrival_offsets_ns(n, rate)
    assert "\n" not in str(info.value) and "req/s" in str(info.value)
    with pytest.raises(UsageError):
        check_rate(rate, n, "--rate")


def test_a_schedule_just_inside_the_bound_is_sent() -> None:
    n = 101
    rate = (n - 1) / MAX_SCHEDULE_S * 1.01
    check_rate(rate, n)
    offs = arrival_offsets_ns(n, rate, "constant")
    assert offs[-1] <= MAX_SCHEDULE_S * 1e9 and all(o >= 0 for o in offs)


def test_one_request_at_any_rate_is_sent_at_zero() -> None:
    assert arrival_offsets_ns(1, 1e-300) == [0]


def test_a_drawn_gamma_schedule_past_the_bound_is_refused() -> None:
    # mean span half the bound (accepted), but a tiny shape puts it in a few enormous gaps:
    # the span drawn is past the bound for some seeds (about one in five)
    n = 1000
    rate = 2 * (n - 1) / MAX_SCHEDULE_S
    with pytest.raises(UsageError, match="drawn gamma schedule"):
        for seed in range(100):
            arrival_offsets_ns(n, rate, "gamma", shape=1e-4, seed=seed)


def test_stage_seconds_past_the_bound_are_refused() -> None:
    check_span(MAX_SCHEDULE_S, "--stages")
    with pytest.raises(UsageError, match="--stages"):
        check_span(MAX_SCHEDULE_S + 1, "--stages")
    with pytest.raises(UsageError):
        check_span(float("inf"), "--stages")
