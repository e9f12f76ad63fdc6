"""What running one planned point produced: its records (or columns read from a
records file), the load pattern's outcome and the engine's own counters.

Kept apart from ``bench.execute`` (which needs aiohttp) so that rebuilding a
Result from a records file imports no HTTP client.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from servescope.analysis.metrics import Columns
from servescope.bench.load import LoadOutcome
from servescope.documents.record import RequestRecord
from servescope.workload.plan import PlannedPoint, PlannedRequest


def planned_record(req: PlannedRequest, point: PlannedPoint, start_ns: int) -> RequestRecord:
    """The record of a planned request, sent or not, before its outcome: what the plan
    says of it (id, phase, point, prompt, group, expected answer), starting at
    ``start_ns`` from the run's start."""
    return RequestRecord(
        request_id=req.request_id,
        phase=req.phase,  # type: ignore[arg-type]
        concurrency=point.concurrency,
        point=point.index,
        context_tokens=point.context_tokens,
        prompt_id=req.prompt_id,
        group=req.group,
        start_ns=start_ns,
        expected=req.expected,
    )


@dataclass
class EngineWindow:
    """What the engine said between two snapshots."""

    kv_utilization: float | None = None
    prefix_cache_hit_rate: float | None = None
    preemptions: int | None = None
    raw_delta: dict[str, float] = field(default_factory=dict)
    # The prompt tokens the cache was asked for over the window (vLLM's Δprefix_cache_queries,
    # llama.cpp's cached + computed prompt tokens): what a run's hit rate weighs this window by.
    prefix_cache_queries: float | None = None
    # The GPUs over the same window (bench.gpu_telemetry.summarize_gpus): the Result's
    # gpu_telemetry block less energy per token; None when not scraped.
    gpu: dict[str, Any] | None = None


@dataclass
class PointOutcome:
    point: PlannedPoint
    records: list[RequestRecord] = field(default_factory=list)
    load: LoadOutcome | None = None
    engine: EngineWindow = field(default_factory=EngineWindow)
    # Set instead of ``records`` when a records file was read straight into columns.
    prebuilt: Columns | None = None
    # kind: eval — the scores block of this point (servescope.scoring.aggregate).
    scores: dict[str, Any] | None = None
    # What the run learned that belongs in the Result's args (image: the guidance that applied).
    args: dict[str, Any] | None = None

    def columns(self) -> Columns:
        if self.prebuilt is not None:
            return self.prebuilt
        cols = Columns()
        for r in self.records:
            cols.add(r)
        return cols
