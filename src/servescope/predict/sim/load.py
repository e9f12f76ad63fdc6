"""The load generator of a simulated run: the same phases the harness runs for a
workload (per point: warmup at the point's concurrency, then the measured
requests), closed loop or open loop.

- Closed loop: ``concurrency`` virtual clients; each sends its next request the
  moment its previous one ends, so latency starts at the send time. A phase may
  carry its warm-up requests first and cool-down requests last in the same loop
  (``hold``): once its last measured request has ended, the cool-down requests
  not yet sent are dropped, so every measured request ran under the full load
  (the steady-state rule, ``predict.replay``). When that phase is the last, the
  simulation ends there: the cool-down requests still in flight change nothing
  measured and are not simulated to their end (nor written to the records).
- Open loop: request i is sent at ``offsets_ns[i]`` after the phase starts and
  latency starts at that scheduled time (``workload.arrivals``, the schedule the
  harness sends by, so the same seed gives the same arrivals).
- Multi-turn sessions (``follow``, ``bench.sessions``' loop): every session's first turn
  is sent at the phase's start; a turn that ends sends its session's next turn
  ``think_ns`` later (latency starts at that send). A turn that fails ends its session:
  the turns after it are not sent, each finished at once as a failure of category
  ``cancelled``, as the harness records them.

A request reaches the engine once the front end has taken it in and
``request_overhead`` later: each front-end process (one per replica, or vLLM's
``--api-server-count``) spends ``intake_request_s`` + ``intake_token_s`` per prompt
token on each request, in send order; requests sent at the same instant (a burst)
reach the engine together once the whole burst's intake is done, as an event loop
that advances them all a step at a time hands them over; a lone request pays its
own intake only. The *measured window* of a point
runs from the arrival of its first measured request to the end of its last
(``Simulation`` keeps the engine's figures over it).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from itertools import groupby
from operator import itemgetter

from servescope.predict.sim.events import Arrival, Event, PhaseStart
from servescope.predict.sim.request import SimRequest


@dataclass
class Phase:
    point: int
    name: str
    requests: list[SimRequest]
    concurrency: int
    offsets_ns: list[int] | None = None
    hold: bool = False
    """Closed loop: stop sending once the phase's measured requests have all ended."""
    follow: dict[SimRequest, SimRequest] | None = None
    """Multi-turn sessions: each turn's next turn in its session (a request that is no
    turn's next opens its session). None: one request per client at a time, in list order."""
    think_ns: int = 0
    """Multi-turn sessions: from a turn's end to its session's next send."""
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
    on_window_end: Callable[[int, int], None]
    """(point, now): the last measured request of a point has ended."""
    intake_request_ns: float = 0.0
    intake_token_ns: float = 0.0
    """The front end's intake, per request and per prompt token (``calibration.intake_request_s``)."""
    front_ends: int = 1
    """Front-end processes, each spending its intake on the requests it takes in the order the harness sends them."""
    _frontend_free: list[float] = field(default_factory=list)
    """When each front end is next free (ns)."""
    _taken: int = 0
    _current: int = -1
    _measured_left: dict[int, int] = field(default_factory=dict)
    _phase_measured: int = 0
    keep_answer: Callable[[SimRequest], None] | None = None
    """Multi-turn: a turn that ended well, its blocks just released: cache its answer's (``Simulation``)."""
    finished: list[SimRequest] = field(default_factory=list)
    stopped: bool = False
    """Nothing left to measure: the last phase is held and its measured requests have
    ended, so the cool-down requests still in flight need not be simulated to their end."""

    @property
    def phase(self) -> Phase:
        return self.phases[self._current]

    def __post_init__(self) -> None:
        self._frontend_free = [0.0] * max(1, self.front_ends)

    @property
    def queued_intake(self) -> bool:
        return bool(self.intake_request_ns or self.intake_token_ns)

    def arrival_ns(self, req: SimRequest, sent_ns: int) -> int:
        """When a request sent at ``sent_ns`` reaches the engine: after its front end has taken
        every request handed to it before (FIFO, in the harness's send order: an open-loop phase's
        list order, which a staged run's later stage may start before the last sends of the one
        before), its own intake, and the fixed per-request overhead. Several front ends take
        requests in turn (vLLM's API servers share one listening socket and the kernel spreads
        the connections; round robin is the deterministic stand-in, not the least busy one)."""
        if self.intake_request_ns or self.intake_token_ns:
            free = self._frontend_free
            i = self._taken % len(free)
            self._taken += 1
            done = max(float(sent_ns), free[i]) + self.intake_request_ns + self.intake_token_ns * req.prompt_tokens
            free[i] = done
            return round(done) + self.request_overhead_ns
        return sent_ns + self.request_overhead_ns

    def _send(self, req: SimRequest, sent_ns: int) -> Arrival:
        req.start_ns = sent_ns
        return Arrival(self.arrival_ns(req, sent_ns), req)

    def _send_together(self, reqs: list[SimRequest], sent_ns: int) -> list[Arrival]:
        """Requests sent at the same instant (a phase's opening burst): each front end advances every
        request it holds a step at a time, as an event loop does (parse, template, tokenise, hand
        over: each request's step waits for every other request's), so they reach the engine together
        once all their intake is done, in the order they were sent - not one after another."""
        if not self.queued_intake:
            return [self._send(r, sent_ns) for r in reqs]
        free = self._frontend_free
        mine: list[list[SimRequest]] = [[] for _ in free]
        for r in reqs:
            r.start_ns = sent_ns
            mine[self._taken % len(free)].append(r)
            self._taken += 1
        at: list[int] = []
        for i, group in enumerate(mine):
            if group:
                free[i] = max(float(sent_ns), free[i]) + sum(self.intake_request_ns + self.intake_token_ns * r.prompt_tokens for r in group)
            at.append(round(free[i]) + self.request_overhead_ns)
        return [Arrival(at[k % len(free)], r) for k, r in enumerate(reqs, start=self._taken - len(reqs))]

    def start_next(self, now: int) -> list[Event]:
        """Start the next non-empty phase at ``now`` (nothing when all are done)."""
        while True:
            self._current += 1
            if self._current >= len(self.phases):
                return []
            ph = self.phase
            ph.started_ns = now
            if ph.requests:
                break
            ph.ended_ns = now
        ph._open = len(ph.requests)
        left = self._measured_left
        measured = 0
        for r in ph.requests:
            if r.phase == "measured":
                left[r.point] = left.get(r.point, 0) + 1
                measured += 1
        self._phase_measured = measured
        if ph.follow is not None:  # multi-turn: every session's first turn at once, the later ones as turns end
            ph._next = len(ph.requests)
            later = set(ph.follow.values())
            return list[Event](self._send_together([r for r in ph.requests if r not in later], now))
        if ph.closed:
            n = max(1, min(ph.concurrency, len(ph.requests)))
            ph._next = n
            return list[Event](self._send_together(ph.requests[:n], now))
        assert ph.offsets_ns is not None
        ph._next = len(ph.requests)
        out: list[Event] = []
        # runs of requests sent at the same instant are taken in together
        for off, run in groupby(zip(ph.requests, ph.offsets_ns, strict=True), key=itemgetter(1)):
            out.extend(self._send_together([r for r, _ in run], now + off))
        return out

    def completed(self, req: SimRequest, now: int) -> list[Event]:
        """A request ended at ``now``: send the next one (closed loop), or end the phase."""
        ended = self.turn_ended if self.phases[self._current].follow is not None else self.request_ended
        nxt, phase_ended = ended(req, now)
        out: list[Event] = []
        if nxt is not None:
            out.append(Arrival(self.arrival_ns(nxt, nxt.start_ns), nxt))
        if phase_ended:
            out.append(PhaseStart(now))
        return out

    def request_ended(self, req: SimRequest, now: int) -> tuple[SimRequest | None, bool]:
        """``completed`` without its event objects (``Simulation.run`` pushes a request as its own
        arrival): the request a closed-loop client sends (at its ``start_ns``, here ``now``; None
        when none is sent) and whether the phase ended (the next starts at ``now``), in that order."""
        self.finished.append(req)
        ph = self.phases[self._current]
        ph._open -= 1
        if req.phase == "measured":
            left = self._measured_left
            left[req.point] -= 1
            if not left[req.point]:
                self.on_window_end(req.point, now)
            self._phase_measured -= 1
            if ph.hold and not self._phase_measured:
                if ph._next < len(ph.requests):
                    ph._open -= len(ph.requests) - ph._next  # the cool-down requests not yet sent are dropped
                    ph._next = len(ph.requests)
                if all(not later.requests for later in self.phases[self._current + 1 :]):
                    self.stopped = True
                    ph.ended_ns = now
                    return None, False
        sent = None
        nxt = ph._next
        if nxt < len(ph.requests) and ph.offsets_ns is None:  # (closed loop: the client sends its next request)
            sent = ph.requests[nxt]
            sent.start_ns = now
            ph._next = nxt + 1
        if ph._open == 0:
            ph.ended_ns = now
            return sent, True
        return sent, False

    def turn_ended(self, req: SimRequest, now: int) -> tuple[SimRequest | None, bool]:
        """``request_ended`` in a multi-turn phase: the session's next turn, sent ``think_ns``
        after ``now`` (its ``start_ns``). After a failed turn the session's later turns are
        finished at ``now``, unsent, as the harness records them (``bench.sessions``): failed,
        stage ``send``, category ``cancelled``, naming the turn that failed."""
        follow = self.phases[self._current].follow
        assert follow is not None
        nxt = follow.get(req)
        _, phase_ended = self.request_ended(req, now)
        if nxt is None:  # (a session's last turn: nothing resends its answer)
            return None, phase_ended
        if req.failure is None:
            if self.keep_answer is not None:
                self.keep_answer(req)
            nxt.start_ns = now + self.phases[self._current].think_ns
            return nxt, phase_ended
        why = f"not sent: turn {req.request_id} of this session failed, and its answer is the history this turn needs"
        while nxt is not None:
            nxt.failure = ("send", "cancelled", why, None)
            nxt.done = True
            nxt.start_ns = nxt.arrival_ns = now
            _, phase_ended = self.request_ended(nxt, now)
            nxt = follow.get(nxt)
        return None, phase_ended
