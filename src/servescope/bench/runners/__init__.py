"""One dispatch by workload kind (shared/seeds/workloads.txt conventions).

Most kinds need nothing beyond the shared loop over planned points
(``base.run_points``): what differs between them is the plan
(``workload.plan``), not the running —

- serving: one load level; warmup excluded; ``repeat`` sends each measured prompt
  that many times. Grouped workloads (serve-prefix-c16-v1) send the rows of one
  ``prefix_id`` back to back, unshuffled, excluding ``warmup_per_group`` per group
  (the plan does the ordering; closed loop keeps it);
- sweep: one point per concurrency, each with max(num_requests, concurrency ×
  requests_per_concurrency) measured requests; a point the engine cannot admit,
  or that fails, is kept and recorded;
- prefill: long prompts (haystack passages concatenated to the nominal length), a
  few output tokens: TTFT is the prefill time; a prompt over the served context is
  a ``context-overflow`` failure, recorded like any other;
- longctx: checks every request has its expected answer first (``longctx.run``).

A kind with its own running (eval, image) adds one entry here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from servescope.bench.execute import PointOutcome
from servescope.bench.runners import eval, longctx
from servescope.bench.runners.base import RunContext, run_points
from servescope.documents import Workload
from servescope.workload.plan import PlannedPoint

Runner = Callable[[RunContext, Workload, list[PlannedPoint]], Awaitable[list[PointOutcome]]]

RUNNERS: dict[str, Runner] = {
    "serving": run_points,
    "sweep": run_points,
    "prefill": run_points,
    "longctx": longctx.run,
    "eval": eval.run,
}

__all__ = ["RUNNERS", "RunContext", "Runner"]
