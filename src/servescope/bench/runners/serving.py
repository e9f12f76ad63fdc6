"""kind: serving — one load level; warmup excluded; ``repeat`` sends each measured
prompt that many times. Grouped workloads (serve-prefix-c16-v1) send the rows of
one ``prefix_id`` back to back, unshuffled, excluding ``warmup_per_group``
per group (the plan does the ordering; closed loop keeps it)."""

from __future__ import annotations

from servescope.bench.execute import PointOutcome
from servescope.bench.runners.base import RunContext, run_points
from servescope.catalog.plan import PlannedPoint
from servescope.documents import Workload


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    return await run_points(ctx, workload, points)
