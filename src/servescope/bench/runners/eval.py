"""kind: eval — send each row (its messages and tools), score the answer, record both.

Each request ends in a record written to ``records.jsonl`` with its score beside the
timing (``record.score``), the moment it is scored. A row the endpoint said it cannot
take (tools on a chat template without them, images without vision:
``bench.capabilities``) is not sent; its record is a failure of category
``unsupported``, written before anything is sent. Wrong answers are not failed
requests: ``success_rate`` is the share that completed at all (workloads.txt); a
request that failed (timeout, HTTP error, ...) is a failure with its category and an
unanswered item in the scores. The row's own scorer wins over the workload's.
The ``scores`` block is built by :mod:`servescope.scoring.aggregate` and travels on
the point outcome to the one result builder.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from servescope.bench.capabilities import REASONS, unsupported_reason
from servescope.bench.client import send
from servescope.bench.load import closed_loop
from servescope.bench.outcome import PointOutcome
from servescope.bench.runners.base import RunContext
from servescope.documents import Workload
from servescope.documents.record import RequestRecord
from servescope.errors import DocumentError
from servescope.scoring import canonical_name, known, score_item
from servescope.scoring.abstain import with_abstention
from servescope.scoring.aggregate import ScoredItem, scores_block
from servescope.scoring.base import Output
from servescope.scoring.confidence import read as read_confidence
from servescope.workload.plan import PlannedPoint, PlannedRequest


def request_body(ctx: RunContext, workload: Workload, req: PlannedRequest) -> dict[str, Any]:
    row = req.row
    body = ctx.endpoint.body(req.prompt, req.max_tokens, workload.params.temperature or 0.0, workload.params.seed, ctx.extra_body)
    if row is not None and ctx.endpoint.api == "chat":
        if row.messages:
            body["messages"] = row.messages
        if row.tools:
            body["tools"] = row.tools
    return body


def row_scorer(workload: Workload, req: PlannedRequest) -> str:
    """The row's own scorer wins over the workload's (workloads.txt)."""
    workload_scorer = workload.eval.scorer if workload.eval else "exact"
    return (req.row.scorer if req.row is not None and req.row.scorer else None) or workload_scorer


# resolved_params.code_exec_sandbox: how generated code ran ("bwrap", or "none" under --unsafe-code-exec)
CODE_EXEC_SANDBOX = "code_exec_sandbox"
UNSANDBOXED_WARNING = (
    "warning: --unsafe-code-exec and no working sandbox: generated code runs WITHOUT a sandbox, as this user, on this machine "
    "(minimal environment, killed with everything it starts when it ends); the result records code_exec_sandbox: none"
)


def preflight(workload: Workload, points: list[PlannedPoint], unsafe_code_exec: bool = False) -> str | None:
    """Refuse before anything is sent: an unknown scorer, a code row whose ``forbidden`` cannot be
    read, or code to run and no sandbox.
    Returns what will run the code (``"bwrap"``, or ``"none"`` under ``--unsafe-code-exec``),
    or None when no row runs code."""
    names = {row_scorer(workload, r) for p in points for r in p.requests}
    unknown = sorted(n for n in names if not known(n))
    if unknown:
        raise ValueError(f"workload {workload.id}: unknown scorer(s) {', '.join(unknown)}")
    if any(canonical_name(n) == "numeric" for n in names):
        from servescope.scoring.numeric import unit_problem

        for req in (req for p in points for req in p.requests):
            row = req.row
            if row is None or canonical_name(row_scorer(workload, req)) != "numeric":
                continue
            if problem := unit_problem((row.score_args or {}).get("unit")):  # every answer would score 0: say so before sending
                raise DocumentError(f"dataset {workload.dataset_id}", f"row {row.id}: {problem}; fix the row")
    if any(canonical_name(n) == "code_exec" for n in names):
        from servescope.scoring.forbidden import malformed
        from servescope.scoring.sandbox import UnsafeRunner, find_sandbox

        for req in (req for p in points for req in p.requests):
            row = req.row
            if row is None or canonical_name(row_scorer(workload, req)) != "code_exec":
                continue
            problem = malformed((row.score_args or {}).get("forbidden"))
            if problem:  # every answer would score 0 for the row's fault: say so once, before anything is sent
                raise DocumentError(f"dataset {workload.dataset_id}", f"row {row.id}: {problem}; fix the row")

        runner = find_sandbox(unsafe=unsafe_code_exec)  # a UsageError in one line when none works
        return "none" if isinstance(runner, UnsafeRunner) else runner.name
    return None


async def _scored(workload: Workload, req: PlannedRequest, record: RequestRecord) -> ScoredItem:
    row = req.row
    assert row is not None  # eval plans always carry the row
    scorer = row_scorer(workload, req)
    expected = row.expected if row.expected is not None else row.answer
    score = None
    confidence = None
    if record.ok:
        text = record.output_text or ""
        asks_confidence = bool(workload.eval and workload.eval.confidence)
        if asks_confidence:  # read it, and keep it out of what the answer's scorer reads
            stated = read_confidence(text)
            text, confidence = stated.answer_text, stated.value
        output = Output(text, record.tool_calls or [], record.finish_reason)
        if canonical_name(scorer) == "code_exec":  # seconds in a subprocess: off the loop that stamps tokens
            score = await asyncio.to_thread(score_item, scorer, output, expected, row.score_args or {})
        else:
            score = score_item(scorer, output, expected, row.score_args or {})
        score = with_abstention(score, text)  # false_abstention on a grounded suite's answerable rows
        record.score = {
            "scorer": scorer,
            "correct": score.correct,
            "score": score.score,
            "strict": score.strict,
            "predicted": score.predicted,
            "detail": score.detail,
            "abstained": score.abstained,
        }
        if asks_confidence:
            record.score["confidence"] = confidence
    latency = record.e2e_ns / 1e6 if record.ok and record.e2e_ns is not None else None
    return ScoredItem(
        row.id,
        row.category,
        row.difficulty,
        scorer,
        record.ok,
        score,
        expected,
        latency,
        bool(row.unanswerable),
        unsupported=record.category == "unsupported",
        confidence=confidence,
        parts=_rule_count(scorer, row.score_args),
    )


def _rule_count(scorer: str, args: dict[str, Any] | None) -> int | None:
    """An instruction row's number of rules (its parts), answered or not; None for other scorers."""
    rules = (args or {}).get("rules")
    return len(rules) if canonical_name(scorer) == "instruction" and isinstance(rules, list) and rules else None


def unsupported_record(ctx: RunContext, point: PlannedPoint, req: PlannedRequest, reason: str) -> RequestRecord:
    """The record of a row that is not sent: a failure at admission, never a wrong answer."""
    return RequestRecord(
        request_id=req.request_id,
        phase="measured",
        concurrency=point.concurrency,
        point=point.index,
        prompt_id=req.prompt_id,
        start_ns=time.perf_counter_ns() - ctx.t0_ns,
        ok=False,
        stage="admission",
        category="unsupported",
        error=REASONS[reason][0],
    )


async def run(ctx: RunContext, workload: Workload, points: list[PlannedPoint]) -> list[PointOutcome]:
    if any(r.row is None for p in points for r in p.requests):
        raise ValueError(f"workload {workload.id}: an eval plan must carry its dataset rows")
    workload_scorer = workload.eval.scorer if workload.eval else "exact"
    outcomes = []
    for point in points:
        if ctx.on_point is not None:
            ctx.on_point(point)
        outcome = PointOutcome(point)
        items: dict[str, ScoredItem] = {}

        async def one(
            req: PlannedRequest, start_abs_ns: int, point: PlannedPoint = point, outcome: PointOutcome = outcome, items: dict[str, ScoredItem] = items
        ) -> None:
            record = RequestRecord(
                request_id=req.request_id,
                phase="measured",
                concurrency=point.concurrency,
                point=point.index,
                prompt_id=req.prompt_id,
                start_ns=start_abs_ns - ctx.t0_ns,
            )
            await send(ctx.session, ctx.endpoint, request_body(ctx, workload, req), record, t0_ns=ctx.t0_ns, timeout_s=ctx.timeout_s, keep_text=True)
            items[req.request_id] = await _scored(workload, req, record)
            ctx.writer.write(record)
            outcome.records.append(record)
            if ctx.on_record is not None:
                ctx.on_record(record)

        to_send = []
        for req in point.requests:
            reason = unsupported_reason(req.row, ctx.capabilities, ctx.endpoint.api)
            if reason is None:
                to_send.append(req)
                continue
            record = unsupported_record(ctx, point, req, reason)
            items[req.request_id] = await _scored(workload, req, record)
            ctx.writer.write(record)
            outcome.records.append(record)
            if ctx.on_record is not None:
                ctx.on_record(record)
        if ctx.sampler is not None:
            await ctx.sampler.start()
        try:
            outcome.load = await closed_loop(to_send, point.concurrency, one)
        finally:
            if ctx.sampler is not None:
                outcome.engine = await ctx.sampler.stop()
        ordered = [items[r.request_id] for r in point.requests if r.request_id in items]
        outcome.scores = scores_block(ordered, workload_scorer, confidence_asked=bool(workload.eval and workload.eval.confidence))
        outcomes.append(outcome)
    return outcomes
