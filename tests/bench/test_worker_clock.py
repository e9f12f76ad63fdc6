"""A worker's clock offset from ping-pong samples: the minimum round trip wins."""

from __future__ import annotations

import pytest

from servescope.bench.worker_clock import ClockSample, boot_id, estimate


def test_the_minimum_round_trip_sample_gives_offset_and_uncertainty() -> None:
    # worker clock = driver clock + 1_000_000; the fast sample answered half-way
    samples = [ClockSample(0, 1_000_900, 2_000), ClockSample(10_000, 1_010_100, 10_200), ClockSample(20_000, 1_025_000, 30_000)]
    got = estimate(samples)
    assert (got.offset_ns, got.uncertainty_ns, got.samples) == (1_000_000, 100, 3)
    assert got.to_worker(5) == 1_000_005 and got.to_driver(1_000_005) == 5


def test_no_sample_is_an_error() -> None:
    with pytest.raises(ValueError):
        estimate([])


def test_this_process_has_a_boot_id() -> None:
    assert boot_id() == boot_id() and boot_id()  # Linux: one id per boot, read from /proc
