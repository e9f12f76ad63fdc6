"""One runner per workload kind (shared/seeds/workloads.txt conventions)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from servescope.bench.execute import PointOutcome
from servescope.bench.runners import eval, longctx, prefill, serving, sweep
from servescope.bench.runners.base import RunContext
from servescope.catalog.plan import PlannedPoint
from servescope.documents import Workload

Runner = Callable[[RunContext, Workload, list[PlannedPoint]], Awaitable[list[PointOutcome]]]

RUNNERS: dict[str, Runner] = {
    "serving": serving.run,
    "sweep": sweep.run,
    "prefill": prefill.run,
    "longctx": longctx.run,
    "eval": eval.run,
}

__all__ = ["RUNNERS", "RunContext", "Runner"]
