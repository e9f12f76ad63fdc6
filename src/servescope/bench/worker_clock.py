"""A worker's clock against the driver's, NTP-style (pure arithmetic).

One ping-pong: the driver reads its clock (d0), asks the worker for its clock (w),
reads its clock again when the answer is back (d1). If the worker read its clock
half-way, its offset is ``w − (d0 + d1) / 2``; wherever in between it read it, the
error is at most half the round trip. Of several samples the one with the smallest
round trip is kept (the least queueing on either side), and its half round trip is
the stated uncertainty. Offsets are taken before and after the run: their difference
is the drift over the run. On one host every process reads the same
CLOCK_MONOTONIC (``time.perf_counter_ns`` on Linux): a worker that shares the
driver's kernel (``boot_id``) is put on the driver's clock with an offset of exactly
0, and the offsets measured for it (~0, within their uncertainty) are only recorded.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class ClockSample:
    sent_ns: int  # driver clock when the ping left (d0)
    worker_ns: int  # the worker's clock in its answer (w)
    received_ns: int  # driver clock when the answer arrived (d1)

    @property
    def rtt_ns(self) -> int:
        return self.received_ns - self.sent_ns


@dataclass(frozen=True)
class ClockOffset:
    offset_ns: int  # worker clock − driver clock
    uncertainty_ns: int  # half the round trip of the sample it came from
    samples: int

    def to_driver(self, worker_ns: int) -> int:
        return worker_ns - self.offset_ns

    def to_worker(self, driver_ns: int) -> int:
        return driver_ns + self.offset_ns

    def as_dict(self) -> dict[str, int]:
        return {"offset_ns": self.offset_ns, "uncertainty_ns": self.uncertainty_ns, "samples": self.samples}


def boot_id() -> str | None:
    """This kernel's boot id: two processes that share it read one CLOCK_MONOTONIC."""
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text(encoding="ascii").strip() or None
    except OSError:
        return None


def estimate(samples: list[ClockSample]) -> ClockOffset:
    """The offset of the minimum-round-trip sample, with half its round trip as uncertainty."""
    if not samples:
        raise ValueError("no clock sample")
    best = min(samples, key=lambda s: s.rtt_ns)
    midpoint2 = best.sent_ns + best.received_ns  # twice the midpoint: integer arithmetic
    return ClockOffset(offset_ns=(2 * best.worker_ns - midpoint2) // 2, uncertainty_ns=(best.rtt_ns + 1) // 2, samples=len(samples))


__all__ = ["ClockOffset", "ClockSample", "boot_id", "estimate"]
