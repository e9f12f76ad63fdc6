"""kind: longctx — a needle at a depth of a haystack of each context length; the
answer is checked at every point. A wrong answer is a failed request
(``malformed-output``, stage ``score``); a point over the served context is a
``context-overflow`` failure, never omitted."""

from __future__ import annotations

from servescope.bench.execute import PointOutcome
from servescope.bench.runners.base import RunContext, run_points
from servescope.documents import Workload
from servescope.errors import CatalogError
from servescope.workload.plan import PlannedPoint


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    missing = [r.request_id for p in points for r in p.requests if workload.params.needle_check and r.expected is None]
    if missing:
        raise CatalogError(
            f"workload {workload.id}: needle_check is on but {len(missing)} requests have no expected answer (its dataset rows need an expected answer)"
        )
    return await run_points(ctx, workload, points)
