"""kind: prefill — long prompts (haystack passages concatenated to the nominal
length), a few output tokens: TTFT is the prefill time. A prompt over the served
context is a ``context-overflow`` failure, recorded like any other."""

from __future__ import annotations

from servescope.bench.execute import PointOutcome
from servescope.bench.runners.base import RunContext, run_points
from servescope.catalog.plan import PlannedPoint
from servescope.documents import Workload


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    return await run_points(ctx, workload, points)
