"""What every runner shares: the run context and the loop over planned points."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp

from servescope.bench.capabilities import Capabilities
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec, OnRecord, PointOutcome, Sync, run_point
from servescope.bench.fail_fast import FailFast
from servescope.bench.records import RecordWriter
from servescope.bench.scrape import MetricsSampler, PointSamplers
from servescope.documents import Workload
from servescope.workload.plan import PlannedPoint


@dataclass
class RunContext:
    session: aiohttp.ClientSession
    endpoint: Endpoint
    writer: RecordWriter
    t0_ns: int
    timeout_s: float
    load: LoadSpec = field(default_factory=LoadSpec)
    sampler: MetricsSampler | PointSamplers | None = None
    on_record: OnRecord | None = None
    on_point: Callable[[PlannedPoint], None] | None = None
    extra_body: dict[str, Any] | None = None
    capabilities: Capabilities = field(default_factory=Capabilities)  # what the endpoint said it can take (eval)
    fail_fast: FailFast | None = None  # the early-stop rule (bench.fail_fast); None: every request is sent
    engine_id: str | None = None  # what the endpoint is (image runs pick their lane's adapter by it)
    reference_bundle: Path | None = None  # fidelity suites: the t2i-reference bundle scored against
    sync: Sync | None = None  # a worker of a split run (bench.workers): meets the other workers at each phase


async def run_points(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    """Run each point in order. A point that fails is kept with its failed
    records (every request ends in a record), never dropped."""
    outcomes = []
    for point in points:
        if ctx.on_point is not None:
            ctx.on_point(point)
        outcome = await run_point(
            ctx.session,
            ctx.endpoint,
            point,
            ctx.writer,
            t0_ns=ctx.t0_ns,
            timeout_s=ctx.timeout_s,
            temperature=workload.params.temperature or 0.0,
            seed=workload.params.seed,
            load=ctx.load,
            sampler=ctx.sampler,
            on_record=ctx.on_record,
            extra_body=ctx.extra_body,
            fail_fast=ctx.fail_fast,
            sync=ctx.sync,
        )
        ctx.writer.write_point_done(point.index, outcome.load.achieved_rate if outcome.load else None, outcome.engine)
        outcomes.append(outcome)
    return outcomes
