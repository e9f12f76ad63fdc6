"""The discrete-event loop: a heap of events ordered by (time ns, priority,
sequence number), so the same inputs always replay the same way."""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from dataclasses import dataclass, field

from servescope.predict.deployment import Deployment
from servescope.predict.sim import sglang_scheduler  # noqa: F401  (registers the sglang scheduler)
from servescope.predict.sim.events import Arrival, Event, PhaseStart, StepEnd, StepStart
from servescope.predict.sim.kv_cache import BlockPool
from servescope.predict.sim.load import LoadDriver, Phase
from servescope.predict.sim.replica import PlannedStep, Replica, ReplicaStats
from servescope.predict.sim.request import SimRequest
from servescope.predict.sim.router import make_router
from servescope.predict.sim.scheduler import make_scheduler


@dataclass
class PhaseOutcome:
    """What the replicas did during one point's measured window."""

    point: int
    started_ns: int
    ended_ns: int
    replicas: list[ReplicaStats] = field(default_factory=list)


@dataclass
class SimOutcome:
    requests: list[SimRequest]
    step_ends: list[list[int]] | None
    measured: dict[int, PhaseOutcome]
    replicas: list[Replica]
    events: int
    gave_up: str | None = None
    """Why the run was stopped before its end (``TtftGiveUp``); its figures are then partial."""


@dataclass
class TtftGiveUp:
    """Stop a one-point run as soon as its TTFT percentile is certain to exceed a
    limit (``search``: such a level fails its SLO whatever the rest of the run does).

    A measured request admitted ``t`` after it was sent gets its first token after
    that (the iteration that completes its prefill ends later), so its TTFT is above
    ``t``; so is that of every measured request still queued ``t`` after it was sent
    (counted when a late one is admitted). With ``n`` measured requests, the ``p``-th percentile (linear method,
    ``analysis.stats.percentile``) is at least the sorted value of index
    ``floor((n - 1) p / 100)``, so it exceeds the limit once ``n - floor((n - 1) p / 100)``
    requests are known to. ``late_ns`` is the limit plus 1 us, so float rounding of
    the millisecond figures cannot bring one back under it."""

    limit_ms: float
    percentile: float
    late_ns: int = 0
    needed: int = 0
    measured: int = 0
    seen: set[int] = field(default_factory=set)
    tripped_ns: int | None = None
    stop: Callable[[], None] | None = None

    def arm(self, measured: int, stop: Callable[[], None]) -> None:
        self.late_ns = math.ceil(self.limit_ms * 1e6) + 1_000
        self.measured = measured
        # floor taken a hair low: a larger count than needed, never a smaller one
        self.needed = measured - math.floor((measured - 1) * (self.percentile / 100.0) - 1e-9)
        self.stop = stop

    def late(self, req: SimRequest, now: int) -> None:
        seen = self.seen
        if req.index in seen:
            return
        seen.add(req.index)
        if len(seen) >= self.needed and self.tripped_ns is None:
            self.tripped_ns = now
            assert self.stop is not None
            self.stop()

    @property
    def reason(self) -> str | None:
        if self.tripped_ns is None:
            return None
        return (f"stopped at {self.tripped_ns / 1e9:.3f} s simulated: {len(self.seen)} of {self.measured} measured requests "
                f"waited >= {self.limit_ms:g} ms for a slot, so p{self.percentile:g} TTFT > {self.limit_ms:g} ms")  # fmt: skip


def _ended(point: int, now: int) -> None:
    """The driver's window callback after the run (no window is open any more)."""


class Simulation:
    def __init__(self, deployment: Deployment, phases: list[Phase], *, router: str = "round-robin", give_up: TtftGiveUp | None = None) -> None:
        self.deployment = deployment
        eng = deployment.engine
        self.engine = eng
        self.replicas = [
            Replica(i, eng, deployment.step_model, BlockPool(deployment.kv.num_blocks, eng.block_size, eng.enable_prefix_caching, deployment.kv.state_blocks))
            for i in range(deployment.replicas)
        ]
        self.idle_wakeup_pending = [False] * len(self.replicas)
        self.router = make_router(router)
        self.scheduler = make_scheduler(eng.scheduler)
        self.phases = phases
        self.measured: dict[int, PhaseOutcome] = {}
        self._window: tuple[int, int] | None = None  # (point, start ns) of the open measured window
        self._windowed: set[int] = set()
        overhead_ns = round(deployment.calibration.request_overhead_s * 1e9)
        cal = deployment.calibration
        self.driver = LoadDriver(phases, overhead_ns, self._window_end, cal.intake_request_s * 1e9, cal.intake_token_s * 1e9, deployment.front_ends)
        self.events = 0
        self._fits: tuple[int, bool, int, int] | None = None
        self.give_up = give_up
        if give_up is not None:
            # (one pass over the requests, their points then counted in C: a search arms one rule per run)
            measured_points = [r.point for ph in phases for r in ph.requests if r.phase == "measured"]
            if len(set(measured_points)) > 1:
                raise ValueError("a TTFT give-up rule applies to a one-point run")
            give_up.arm(len(measured_points), self._give_up)
            for rep in self.replicas:
                rep.watch = give_up

    def _give_up(self) -> None:
        self.driver.stopped = True

    def measured_arrival(self, req: SimRequest, now: int) -> None:
        """A measured request reached the engine: the first of its point opens the
        point's window (closing another point's window still open: windows do not
        overlap, so a staged run's stage ends where the next begins)."""
        if req.point in self._windowed:
            return
        self._windowed.add(req.point)
        if self._window is not None:
            self._close(now)
        for r in self.replicas:
            r.reset_stats(now)
        self._window = (req.point, now)

    def _close(self, now: int) -> None:
        assert self._window is not None
        point, started = self._window
        self.measured[point] = PhaseOutcome(point, started, now, [r.close_stats(now) for r in self.replicas])
        self._window = None

    def _window_end(self, point: int, now: int) -> None:
        if self._window is not None and self._window[0] == point:
            self._close(now)

    def _keep_answer(self, req: SimRequest) -> None:
        """A session's turn ended and released its blocks: with prefix caching on, cache the full
        blocks of its answer too (its hashes past what its prefill computed, ``predict.sessions``),
        as vLLM v1 caches every full block computed and llama.cpp keeps the slot's context. The
        answer's last token is never fed back: the KV holds prompt + max_tokens - 1 tokens."""
        pool = self.replicas[req.replica].pool
        bs = pool.block_size
        upto = min(len(req.block_hashes), (req.prompt_tokens + req.max_tokens - 1) // bs)
        if upto > req.computed // bs:
            pool.cache_released(req.block_hashes[req.computed // bs : upto])

    def admission_check(self, req: SimRequest) -> tuple[str, str, str, int | None] | None:
        eng = self.engine
        # (every request but a refused one passes here: its test first, with the values read once)
        fits = self._fits
        if fits is None:
            fits = self._fits = (eng.max_model_len, eng.overflow == "reject", eng.block_size, self.replicas[0].pool.num_blocks)
        max_len, reject, bs, blocks = fits
        prompt = req.prompt_tokens
        if prompt < max_len and not (reject and prompt + req.max_tokens > max_len) and -(-(prompt + req.max_tokens) // bs) <= blocks:
            return None
        if req.prompt_tokens >= eng.max_model_len or (eng.overflow == "reject" and req.prompt_tokens + req.max_tokens > eng.max_model_len):
            return (
                "admission",
                "context-overflow",
                f"prompt of {req.prompt_tokens} tokens + max_tokens {req.max_tokens} exceeds the context of {eng.max_model_len}",
                400,
            )
        pool = self.replicas[0].pool
        need = -(-(req.prompt_tokens + req.max_tokens) // eng.block_size)
        if need > pool.num_blocks:
            return ("admission", "rejected", f"needs {need} KV blocks; the pool holds {pool.num_blocks}", None)
        return None

    def run(self) -> SimOutcome:
        # (time ns, priority, sequence number, event). Where this loop pushes them, a PlannedStep
        # stands for its own StepEnd (priority 0) and a SimRequest for its own Arrival (priority 1):
        # one object fewer per planned step and per request sent
        heap: list[tuple[int, int, int, Event | PlannedStep | SimRequest]] = []
        seq = 0
        ev: Event | PlannedStep | SimRequest
        start = PhaseStart(0)
        heapq.heappush(heap, (start.time, start.priority, seq, start))
        seq += 1
        count = 0
        push, pop = heapq.heappush, heapq.heappop
        driver = self.driver
        replicas, idle, plan, ended = self.replicas, self.idle_wakeup_pending, self.scheduler.plan, driver.request_ended
        if self.phases and self.phases[0].follow is not None:  # multi-turn sessions: a turn's end sends its session's next turn
            ended = driver.turn_ended
            driver.keep_answer = self._keep_answer
        pick = self.router.pick
        overhead_ns = driver.request_overhead_ns
        queued = driver.queued_intake
        # admission_check's test that a request fits, inline below (every request but a refused one passes it)
        eng = self.engine
        max_len, reject, fit_bs, fit_blocks = eng.max_model_len, eng.overflow == "reject", eng.block_size, replicas[0].pool.num_blocks
        while heap and not driver.stopped:
            now, _, _, ev = pop(heap)
            count += 1
            if type(ev) is StepEnd:  # (pushed by a StepStart event's handle)
                ev = ev.step
            if type(ev) is PlannedStep:
                # StepEnd.handle and the StepStart it asks for, inline (the most frequent event):
                # the same effects, events and sequence numbers, without the lists between them
                step = ev
                idx = step.replica
                rep = replicas[idx]
                if rep.pending is not step:
                    continue  # a cut step's old end: the step ended at its new end, pushed then and popped first
                for req in rep.finish(step):
                    # (driver.completed's events: the client's next request, sent at its start_ns - now but
                    # after a session's think time - then the next phase)
                    sent, phase_ended = ended(req, now)
                    if sent is not None:
                        push(heap, (sent.start_ns + overhead_ns if not queued else driver.arrival_ns(sent, sent.start_ns), 1, seq, sent))
                        seq += 1
                    if phase_ended:
                        push(heap, (now, 3, seq, PhaseStart(now)))
                        seq += 1
                if rep.running_order or rep.waiting:
                    if driver.stopped or (heap and heap[0] < (now, 3)):  # (3: the priority after StepStart's 2)
                        idle[idx] = True
                        push(heap, (now, 2, seq, StepStart(now, idx)))
                        seq += 1
                    else:  # the StepStart would be the next event: StepStart.handle at once
                        count += 1
                        idle[idx] = False
                        nstep = plan(rep, now)  # (rep.pending is None: the step just finished)
                        if nstep is not None:
                            push(heap, (nstep.ends_ns[-1], 0, seq, nstep))
                            seq += 1
                continue
            if type(ev) is Arrival:  # (a phase's first requests)
                ev = ev.request
            if type(ev) is SimRequest:
                # Arrival.handle inline (the same effects and events)
                req = ev
                req.arrival_ns = now
                if req.phase == "measured" and req.point not in self._windowed:
                    self.measured_arrival(req, now)
                prompt = req.prompt_tokens
                wanted = prompt + req.max_tokens
                if prompt < max_len and not (reject and wanted > max_len) and -(-wanted // fit_bs) <= fit_blocks:
                    failure = None
                else:
                    failure = self.admission_check(req)
                if failure is not None:
                    req.failure = failure
                    req.done = True
                    # (a finished request's events, as after rep.finish above: inline, not a call, on this hot loop)
                    sent, phase_ended = ended(req, now)
                    if sent is not None:
                        push(heap, (sent.start_ns + overhead_ns if not queued else driver.arrival_ns(sent, sent.start_ns), 1, seq, sent))
                        seq += 1
                    if phase_ended:
                        push(heap, (now, 3, seq, PhaseStart(now)))
                        seq += 1
                else:
                    idx = pick(replicas)
                    rep = replicas[idx]
                    req.replica = idx
                    rep.enqueue(req, now)
                    if rep.pending is None:
                        if not idle[idx]:
                            if heap and heap[0] < (now, 3):  # (the StepStart would not be next: queued)
                                idle[idx] = True
                                push(heap, (now, 2, seq, StepStart(now, idx)))
                                seq += 1
                            else:  # StepStart.handle at once
                                count += 1
                                nstep = plan(rep, now)
                                if nstep is not None:
                                    push(heap, (nstep.ends_ns[-1], 0, seq, nstep))
                                    seq += 1
                    elif rep.free_slots:  # it can join at the next iteration boundary
                        short = rep.truncate(now)
                        if short is not None:
                            push(heap, (short.ends_ns[-1], 0, seq, short))
                            seq += 1
                continue
            assert not isinstance(ev, PlannedStep | SimRequest)  # (handled above; for mypy)
            out = ev.handle(self)
            # A StepStart (always an event's last) that would be the very next event popped
            # - nothing in the heap at its time with a priority up to its own - is handled at
            # once, without a heap round trip: the same events in the same order, with the
            # same relative sequence numbers.
            while out:
                wake = out[-1]
                if type(wake) is not StepStart:
                    for nxt in out:
                        push(heap, (nxt.time, nxt.priority, seq, nxt))
                        seq += 1
                    break
                if len(out) > 1:
                    for nxt in out[:-1]:
                        push(heap, (nxt.time, nxt.priority, seq, nxt))
                        seq += 1
                if driver.stopped or (heap and heap[0] < (wake.time, 3)):  # (3: the priority after StepStart's 2)
                    push(heap, (wake.time, 2, seq, wake))
                    seq += 1
                    break
                count += 1
                out = wake.handle(self)
        self.events = count
        for rep in self.replicas:
            rep.seal_ends()
        # the driver's callback and the give-up rule's stop are bound to this simulation:
        # dropped once the run ends, so the run leaves no reference cycle and its objects go
        # by reference counting when the caller lets go (not at a collector pass: ~5 % of a search)
        self.driver.on_window_end = _ended
        if self.give_up is not None:
            self.give_up.stop = None
        return SimOutcome(
            requests=self.driver.finished,
            step_ends=None,
            measured=self.measured,
            replicas=self.replicas,
            events=count,
            gave_up=self.give_up.reason if self.give_up is not None else None,
        )
