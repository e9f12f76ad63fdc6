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

A kind with its own running (eval, image) adds one entry here; image renders
one at a time, timed, and keeps no image (``image.run``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from servescope.bench.execute import PointOutcome
from servescope.bench.run_spec import RunOptions
from servescope.bench.runners import eval, image, image_eval, longctx
from servescope.bench.runners.base import RunContext, run_points
from servescope.documents import Workload
from servescope.errors import UsageError
from servescope.workload.plan import PlannedPoint

Runner = Callable[[RunContext, Workload, list[PlannedPoint]], Awaitable[list[PointOutcome]]]

RUNNERS: dict[str, Runner] = {
    "serving": run_points,
    "sweep": run_points,
    "prefill": run_points,
    "longctx": longctx.run,
    "eval": eval.run,
    "image": image.run,
}


async def _eval(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    """A scored image suite renders and scores images (``image_eval``); any other eval sends text."""
    return await (image_eval.run if renders_images(workload) else eval.run)(ctx, workload, points)


RUNNERS["eval"] = _eval


def renders_images(workload: Workload) -> bool:
    """kind: image, or a scored image suite (kind: eval with an image scorer)."""
    return workload.renders_images


def check_image_options(opts: RunOptions) -> None:
    """Options an image run cannot honour, refused in one line each (never dropped); the
    image extra's Pillow, which decodes the renders, checked before anything starts."""
    from servescope.bench.images import require

    require("PIL", "an image run (decoding renders)")
    if opts.endpoint is None:
        raise UsageError(
            "an image workload needs --endpoint URL of an image server (the embedded engine serves text); "
            "e.g. python -m servescope.testing.image.server --port 8100, then --endpoint http://127.0.0.1:8100"
        )
    if opts.rate is not None:
        raise UsageError("image workloads run one render at a time (concurrency 1): --rate does not apply")
    if opts.concurrency:
        raise UsageError("image workloads run one render at a time (concurrency 1): --concurrency does not apply")
    if opts.api != "chat":
        raise UsageError(f"--api {opts.api}: an image run posts to /v1/images/generations (or /edits); --api does not apply")
    if opts.unsafe_code_exec:
        raise UsageError("--unsafe-code-exec: an image run executes no generated code; leave it out")
    from servescope.bench.images.lane import PINNED_FIELDS

    pinned = sorted(set(opts.extra_body or {}) & PINNED_FIELDS)
    if pinned:
        raise UsageError(f"--extra-body sets {', '.join(pinned)}, which an image run sets from the workload (or the case's render); leave it out")


__all__ = ["RUNNERS", "RunContext", "Runner", "check_image_options", "renders_images"]
