"""kind: eval with an image scorer — render each case as its row freezes it, score the render.

One case at a time (renders never overlap: see ``runners.image``). Each case's render
spec comes from its dataset row (``render``); the render is decoded in memory, scored
(``scoring.score_render``: fidelity, ocr, rgba) and dropped, and its record carries
the score beside the timing, with ``predicted`` null: what an image scorer reads back
is generated content and stays out of the Result. Fidelity scores against the
reference bundle given with ``--reference-bundle`` (checked case by case before
anything is sent: ``bench.images.reference.check_bundle``). A render that failed is a
failure with its category and an unanswered item, as for text suites.
"""

from __future__ import annotations

import time
from typing import Any

from servescope.bench.images import lane_for, require
from servescope.bench.images.cases import case_ask, case_digest, case_refs, case_render
from servescope.bench.images.client import render
from servescope.bench.images.reference import check_bundle
from servescope.bench.outcome import PointOutcome
from servescope.bench.runners.base import RunContext
from servescope.bench.runners.eval import row_scorer
from servescope.bench.runners.image import guidance_args
from servescope.documents import Workload
from servescope.documents.record import RequestRecord
from servescope.errors import UsageError
from servescope.scoring import canonical_name, is_image_scorer, score_render
from servescope.scoring.aggregate import ScoredItem, scores_block
from servescope.scoring.image import Render
from servescope.workload.plan import PlannedPoint


def preflight(workload: Workload, points: list[PlannedPoint], reference_bundle: Any) -> None:
    """Everything that would stop the suite, in one line, before anything is sent or written."""
    names = {canonical_name(row_scorer(workload, r)) for p in points for r in p.requests}
    text = sorted(n for n in names if not is_image_scorer(n))
    if text:
        raise UsageError(f"workload {workload.id}: an image suite's rows must all use image scorers; {', '.join(text)} score text")
    for req in (r for p in points for r in p.requests):
        assert req.row is not None
        case_render(req.row)  # a row without its render is refused here
    if "clip" in names:
        from servescope.scoring import clip

        clip.check()
    if "ocr" in names:
        from servescope.scoring.ocr import tesseract_command

        tesseract_command()
    if "fidelity" in names:
        require("imagehash", "the fidelity scorer (pHash)")
    if "fidelity" in names and reference_bundle is None:
        raise UsageError(
            f"workload {workload.id} scores fidelity against a reference: pass --reference-bundle DIR (made once by servescope t2i-reference --spec SPEC --out DIR)"
        )
    if reference_bundle is not None:
        if "fidelity" not in names:
            raise UsageError(f"--reference-bundle applies to a fidelity suite; {workload.id} scores {', '.join(sorted(names))}")
        check_bundle(reference_bundle, workload, points)


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    lane = lane_for(ctx.engine_id)
    references = check_bundle(ctx.reference_bundle, workload, points) if ctx.reference_bundle is not None else {}
    workload_scorer = workload.eval.scorer if workload.eval else "fidelity"
    outcomes = []
    for point in points:
        if ctx.on_point is not None:
            ctx.on_point(point)
        outcome = PointOutcome(point)
        items: list[ScoredItem] = []
        reported: set[float | None] = set()
        for req in point.requests:
            row = req.row
            assert row is not None  # eval plans carry their rows
            scorer = row_scorer(workload, req)
            spec = case_render(row)
            record = RequestRecord(
                request_id=req.request_id, phase="measured", concurrency=1, point=point.index, prompt_id=row.id, start_ns=time.perf_counter_ns() - ctx.t0_ns
            )
            ask = case_ask(row, spec, ctx.endpoint.model)
            images = await render(ctx.session, ctx.endpoint, lane, ask, case_refs(row), record, t0_ns=ctx.t0_ns, timeout_s=ctx.timeout_s, extra=ctx.extra_body)
            expected = row.expected if row.expected is not None else row.answer
            score = None
            if record.ok and images:
                args = {**(row.score_args or {}), **({"reference": references[row.id]} if row.id in references else {})}
                score = score_render(scorer, Render(images[0][1], row.id, case_digest(row, spec)), expected, args)
                record.score = {
                    "scorer": scorer,
                    "correct": score.correct,
                    "score": score.score,
                    "strict": score.strict,
                    "predicted": None,
                    "detail": score.detail,
                }
            del images  # numbers only: the render is never kept
            if record.raw is not None:
                reported.add(record.raw["payload"].get("guidance"))
            ctx.writer.write(record)
            outcome.records.append(record)
            if ctx.on_record is not None:
                ctx.on_record(record)
            latency = record.e2e_ns / 1e6 if record.ok and record.e2e_ns is not None else None
            items.append(ScoredItem(row.id, row.category, row.difficulty, scorer, record.ok, score, expected, latency))
        outcome.scores = scores_block(items, workload_scorer)
        guidances = {r.render.guidance for r in (q.row for q in point.requests) if r is not None and r.render is not None}
        outcome.args = guidance_args(guidances.pop() if len(guidances) == 1 else None, reported, lane)
        outcomes.append(outcome)
    return outcomes
