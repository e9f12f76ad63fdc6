"""kind: image — renders one at a time, timed, nothing stored (workloads.txt).

Concurrency is 1 and the runner never parallelises: a second render in flight
would measure the queue. ``warmup_requests`` renders go first and are excluded;
each prompt is then rendered ``repeat`` times, and ``s_per_image`` is the
distribution over every measured render (a request of ``images_per_request`` > 1
counts its time per image). The lane's own inference time (``timing.total_ms``) is
used when it reports one, the wall clock otherwise; which applied is in each
record's ``raw.payload.timing_source``. ``guidance: null`` leaves the lane's default:
the value that applied (as the lane reported it, when it does) goes in the Result's
args. A workload with ``ref_images`` > 0 is an edit: each request carries that many
of its row's reference images (``/v1/images/edits``). Renders are decoded in memory
and dropped (``bench.images.client``): no image is ever written. A failed render
is a record with its category, like any failed request.
"""

from __future__ import annotations

import base64
import contextlib
import time
from typing import Any

import aiohttp

from servescope.bench.endpoint import Endpoint
from servescope.bench.images import ImageAsk, Lane, lane_for
from servescope.bench.images.client import images_url, render
from servescope.bench.outcome import PointOutcome
from servescope.bench.runners.base import RunContext
from servescope.documents import Workload
from servescope.documents.record import RequestRecord
from servescope.errors import EndpointError
from servescope.workload.plan import PlannedPoint, PlannedRequest


async def preflight(session: aiohttp.ClientSession, endpoint: Endpoint) -> None:
    """Refuse in one line, before anything is written, an endpoint with no images API:
    an empty body is answered 400/422 by an images server and 404/405 by anything else."""
    url = images_url(endpoint, edit=False)
    status = None
    with contextlib.suppress(aiohttp.ClientError, TimeoutError):
        async with session.post(url, json={}, headers=endpoint.auth_headers(), timeout=aiohttp.ClientTimeout(total=30)) as r:
            status = r.status
    if status in (404, 405):
        raise EndpointError(
            f"{url} answered HTTP {status}: this endpoint does not serve the OpenAI images API; "
            "give the --endpoint of an image server (e.g. python -m servescope.testing.image.server)"
        )


def ask_of(workload: Workload, req: PlannedRequest, model: str | None) -> ImageAsk:
    p = workload.params
    assert p.width and p.height and p.steps and p.seed is not None and p.images_per_request  # Workload.check: required for image
    return ImageAsk(req.prompt, p.width, p.height, p.steps, p.seed, p.images_per_request, p.guidance, model=model)


def references(workload: Workload, req: PlannedRequest) -> list[bytes]:
    wanted = workload.params.ref_images or 0
    return [base64.b64decode(s) for s in ((req.row.ref_images or []) if req.row is not None else [])[:wanted]]


def guidance_args(asked: float | None, reported: set[float | None], lane: Lane) -> dict[str, Any]:
    """The guidance that applied, for the Result's args (workloads.txt: record it before comparing seconds)."""
    if asked is not None:
        return {"image_lane": lane.name, "guidance": asked, "guidance_source": "workload"}
    values = {g for g in reported if g is not None}
    if len(values) == 1:
        return {"image_lane": lane.name, "guidance": values.pop(), "guidance_source": "lane-reported"}
    return {"image_lane": lane.name, "guidance": "lane-default", "guidance_source": "not-reported"}


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    lane = lane_for(ctx.engine_id)
    outcomes = []
    for point in points:
        if ctx.on_point is not None:
            ctx.on_point(point)
        outcome = PointOutcome(point)
        reported: set[float | None] = set()
        if ctx.sampler is not None:
            await ctx.sampler.start()
        try:
            for req in point.requests:
                record = RequestRecord(
                    request_id=req.request_id,
                    phase=req.phase,  # type: ignore[arg-type]
                    concurrency=1,
                    point=point.index,
                    prompt_id=req.prompt_id,
                    start_ns=time.perf_counter_ns() - ctx.t0_ns,
                )
                images = await render(
                    ctx.session,
                    ctx.endpoint,
                    lane,
                    ask_of(workload, req, ctx.endpoint.model),
                    references(workload, req),
                    record,
                    t0_ns=ctx.t0_ns,
                    timeout_s=ctx.timeout_s,
                    extra=ctx.extra_body,
                )
                del images  # numbers only: the renders are never kept
                if record.raw is not None:
                    reported.add(record.raw["payload"].get("guidance"))
                ctx.writer.write(record)
                outcome.records.append(record)
                if ctx.on_record is not None:
                    ctx.on_record(record)
        finally:
            if ctx.sampler is not None:
                outcome.engine = await ctx.sampler.stop()
        outcome.args = guidance_args(workload.params.guidance, reported, lane)
        outcomes.append(outcome)
    return outcomes
