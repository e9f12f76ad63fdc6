"""The plan of an eval workload: one request per dataset row, in file order.

Rows are filtered by ``params.dataset_categories`` and capped at ``num_requests``;
each planned request carries its whole row, because the eval runner sends the row's
messages and tools and scores against its expected answer. Eval concurrency changes
only the wall clock (workloads.txt), so an override is one point per level.
"""

from __future__ import annotations

import random

from servescope.catalog.plan import DEFAULT_OUTPUT_TOKENS, PlannedPoint, PlannedRequest
from servescope.documents import DatasetRow, Workload


def eval_rows(workload: Workload, rows: list[DatasetRow]) -> list[DatasetRow]:
    p = workload.params
    picked = [r for r in rows if not p.dataset_categories or r.category in p.dataset_categories]
    if not picked:
        raise ValueError(f"workload {workload.id}: no row of dataset {workload.dataset_id} matches categories={p.dataset_categories}")
    if p.shuffle:
        picked = picked[:]
        random.Random(p.seed or 0).shuffle(picked)
    return picked[: p.num_requests or len(picked)]


def eval_points(workload: Workload, rows: list[DatasetRow], concurrency_override: list[int] | None = None) -> list[PlannedPoint]:
    chosen = eval_rows(workload, rows)
    max_tokens = workload.params.output_tokens or DEFAULT_OUTPUT_TOKENS
    points = []
    for index, concurrency in enumerate(concurrency_override or [workload.params.concurrency or 1]):
        point = PlannedPoint(index=index, concurrency=concurrency)
        for i, row in enumerate(chosen):
            point.requests.append(
                PlannedRequest(
                    request_id=f"p{index}-m{i:05d}", prompt=row.text, prompt_id=row.id, max_tokens=max_tokens,
                    input_tokens_nominal=row.tokens_nominal, phase="measured", row=row,
                )
            )
        points.append(point)
    return points
