"""Simulation events. Each event's ``handle`` applies its effect and returns the
events it causes; a heap in ``simulator`` orders them by (time, priority, seq).
At equal times an iteration ends before a request arrives, and both before an
idle replica plans its next iteration, so the plan sees both."""

from __future__ import annotations

from typing import ClassVar, Protocol

from servescope.predict.sim.replica import PlannedStep, Replica
from servescope.predict.sim.request import SimRequest
from servescope.predict.sim.router import Router
from servescope.predict.sim.scheduler import Scheduler


class Driver(Protocol):
    """What events ask of the load driver (``sim.load.LoadDriver``)."""

    def start_next(self, now: int) -> list[Event]: ...

    def completed(self, req: SimRequest, now: int) -> list[Event]: ...


class SimState(Protocol):
    """What events read and change of the simulation (``sim.simulator.Simulation``):
    named here, so events need not import the simulator that imports them."""

    replicas: list[Replica]
    idle_wakeup_pending: list[bool]
    router: Router
    scheduler: Scheduler

    @property
    def driver(self) -> Driver: ...

    def measured_arrival(self, req: SimRequest, now: int) -> None: ...

    def admission_check(self, req: SimRequest) -> tuple[str, str, str, int | None] | None: ...


class Event:
    __slots__ = ("time",)
    priority: ClassVar[int] = 9

    def __init__(self, time: int) -> None:
        self.time = time

    def handle(self, sim: SimState) -> list[Event]:
        raise NotImplementedError


class StepEnd(Event):
    """A replica finished the iteration(s) it planned."""

    __slots__ = ("replica", "step")
    priority = 0

    def __init__(self, time: int, replica: int, step: PlannedStep) -> None:
        self.time = time  # (no super() call: events are made per iteration)
        self.replica = replica
        self.step = step

    def handle(self, sim: SimState) -> list[Event]:
        rep = sim.replicas[self.replica]
        step = self.step
        if rep.pending is not step:
            return []  # a cut step's old end: the step ended at its new end (an earlier event)
        done = rep.finish(step)
        if done:
            out: list[Event] = []
            completed = sim.driver.completed
            for req in done:
                out += completed(req, self.time)
        else:
            out = []
        if rep.running_order or rep.waiting:
            sim.idle_wakeup_pending[self.replica] = True
            out.append(StepStart(self.time, self.replica))
        # else idle: the next arrival wakes it
        return out


class Arrival(Event):
    """A request reaches the engine (after the per-request overhead)."""

    __slots__ = ("request",)
    priority = 1

    def __init__(self, time: int, request: SimRequest) -> None:
        self.time = time  # (no super() call: events are made per iteration)
        self.request = request

    def handle(self, sim: SimState) -> list[Event]:
        req = self.request
        now = req.arrival_ns = self.time
        if req.phase == "measured":
            sim.measured_arrival(req, now)
        failure = sim.admission_check(req)
        if failure is not None:
            req.failure = failure
            req.done = True
            return sim.driver.completed(req, now)
        replicas = sim.replicas
        idx = sim.router.pick(replicas)
        rep = replicas[idx]
        req.replica = idx
        rep.enqueue(req, now)
        if rep.pending is None:
            if not sim.idle_wakeup_pending[idx]:
                sim.idle_wakeup_pending[idx] = True
                return [StepStart(self.time, idx)]
            return []
        if rep.free_slots:  # it can join at the next iteration boundary
            short = rep.truncate(now)
            if short is not None:
                return [StepEnd(short.end_ns, idx, short)]
        return []


class StepStart(Event):
    """An idle replica plans its next iteration (or stays idle)."""

    __slots__ = ("replica",)
    priority = 2

    def __init__(self, time: int, replica: int) -> None:
        self.time = time  # (no super() call: events are made per iteration)
        self.replica = replica

    def handle(self, sim: SimState) -> list[Event]:
        sim.idle_wakeup_pending[self.replica] = False
        rep = sim.replicas[self.replica]
        if rep.pending is not None:
            return []
        step = sim.scheduler.plan(rep, self.time)
        if step is None:
            return []
        return [StepEnd(step.end_ns, self.replica, step)]


class PhaseStart(Event):
    """The load generator starts the next phase (warmup or measured) of a point."""

    __slots__ = ()
    priority = 3

    def handle(self, sim: SimState) -> list[Event]:
        return sim.driver.start_next(self.time)
