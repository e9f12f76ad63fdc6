"""The load generator of a simulated run: the same phases the harness runs for a
workload (per point: warmup at the point's concurrency, then the measured
requests), closed loop or open loop.

- Closed loop: ``concurrency`` virtual clients; each sends its next request the
  moment its previous one ends, so latency starts at the send time.
- Open loop: request i is sent at ``offsets_ns[i]`` after the phase starts and
  latency starts at that scheduled time (``catalog.arrivals``, the schedule the
  harness sends by, so the same seed gives the same arrivals).

A request reaches the engine ``request_overhead`` after it is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from servescope.predict.sim.events import Arrival, Event, PhaseStart
from servescope.predict.sim.request import SimRequest


@dataclass
class Phase:
    point: int
    name: str
    requests: list[SimRequest]
    concurrency: int
    offsets_ns: list[int] | None = None
    started_ns: int = 0
    ended_ns: int = 0
    _next: int = 0
    _open: int = 0

    @property
    def closed(self) -> bool:
        return self.offsets_ns is None


@dataclass
class LoadDriver:
    phases: list[Phase]
    request_overhead_ns: int
    on_phase_start: Callable[[Phase, int], None]
    on_phase_end: Callable[[Phase, int], None]
    _current: int = -1
    finished: list[SimRequest] = field(default_factory=list)

    @property
    def phase(self) -> Phase:
        return self.phases[self._current]

    def _send(self, req: SimRequest, sent_ns: int) -> Arrival:
        req.start_ns = sent_ns
        return Arrival(sent_ns + self.request_overhead_ns, req)

    def start_next(self, now: int) -> list[Event]:
        """Start the next non-empty phase at ``now`` (nothing when all are done)."""
        while True:
            self._current += 1
            if self._current >= len(self.phases):
                return []
            ph = self.phase
            ph.started_ns = now
            self.on_phase_start(ph, now)
            if ph.requests:
                break
            ph.ended_ns = now
            self.on_phase_end(ph, now)
        ph._open = len(ph.requests)
        if ph.closed:
            n = max(1, min(ph.concurrency, len(ph.requests)))
            ph._next = n
            return [self._send(r, now) for r in ph.requests[:n]]
        assert ph.offsets_ns is not None
        ph._next = len(ph.requests)
        return [self._send(r, now + off) for r, off in zip(ph.requests, ph.offsets_ns, strict=True)]

    def completed(self, req: SimRequest, now: int) -> list[Event]:
        """A request ended at ``now``: send the next one (closed loop), or end the phase."""
        self.finished.append(req)
        ph = self.phase
        ph._open -= 1
        out: list[Event] = []
        if ph.closed and ph._next < len(ph.requests):
            out.append(self._send(ph.requests[ph._next], now))
            ph._next += 1
        if ph._open == 0:
            ph.ended_ns = now
            self.on_phase_end(ph, now)
            out.append(PhaseStart(now))
        return out
