"""Routers in front of data-parallel replicas, registered by name."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from servescope.predict.sim.replica import Replica


class Router(Protocol):
    def pick(self, replicas: Sequence[Replica]) -> int: ...


ROUTERS: dict[str, Callable[[], Router]] = {}


def register_router(name: str) -> Callable[[Callable[[], Router]], Callable[[], Router]]:
    def wrap(factory: Callable[[], Router]) -> Callable[[], Router]:
        ROUTERS[name] = factory
        return factory

    return wrap


def make_router(name: str) -> Router:
    try:
        return ROUTERS[name]()
    except KeyError:
        raise ValueError(f"unknown router {name!r}; known: {', '.join(sorted(ROUTERS))}") from None


@register_router("round-robin")
class RoundRobin:
    def __init__(self) -> None:
        self._next = 0

    def pick(self, replicas: Sequence[Replica]) -> int:
        i = self._next % len(replicas)
        self._next += 1
        return i


@register_router("least-loaded")
class LeastLoaded:
    """Fewest running + waiting requests; ties go to the lowest index."""

    def pick(self, replicas: Sequence[Replica]) -> int:
        best, load = 0, None
        for i, r in enumerate(replicas):
            n = r.load
            if load is None or n < load:
                best, load = i, n
        return best
