"""kind: sweep — one point per concurrency, each with
max(num_requests, concurrency × requests_per_concurrency) measured requests.
A point the engine cannot admit, or that fails, is kept and recorded."""

from __future__ import annotations

from servescope.bench.execute import PointOutcome
from servescope.bench.runners.base import RunContext, run_points
from servescope.catalog.plan import PlannedPoint
from servescope.documents import Workload


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    return await run_points(ctx, workload, points)
