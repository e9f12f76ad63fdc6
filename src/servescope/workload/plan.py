"""What a workload sends: the planned requests of each point, from its params
and its dataset rows (shared/seeds/workloads.txt's runner conventions).

The plan is pure and deterministic (same workload + rows → same plan), and it
is shared by the harness (which sends it) and the simulator (which predicts it),
so both answer the same pinned question.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field

from servescope.documents import DatasetRow, Workload
from servescope.errors import CatalogError

DEFAULT_OUTPUT_TOKENS = 128


@dataclass(frozen=True, slots=True)
class PlannedRequest:
    request_id: str
    prompt: str
    prompt_id: str
    max_tokens: int
    input_tokens_nominal: int | None
    phase: str = "measured"
    group: str | None = None
    expected: str | None = None
    row: DatasetRow | None = None  # eval: the whole row (messages, tools, expected answer, scorer)
    # ad-hoc loads (workload.adhoc_plan): a chat sent as is, the trace's prefix blocks the
    # prompt is built from, and min_tokens where the engine takes it (output held at max_tokens)
    messages: tuple[dict[str, str], ...] | None = None
    prefix_blocks: tuple[int, ...] = ()
    min_tokens: int | None = None
    session: str | None = None  # multi-turn: the conversation this turn belongs to (sent after its previous turn's answer)
    # multi-turn: the session's system message, planned by length then built (the same text for every turn of a session)
    system_tokens_nominal: int | None = None
    system_prompt: str | None = None
    # ad-hoc loads: where this request's length was asked ("--isl 10", "--trace t.jsonl line 3"), named by a refusal
    origin: str | None = None


@dataclass
class PlannedPoint:
    """One load level: its concurrency and (for longctx) its context length."""

    index: int
    concurrency: int
    requests: list[PlannedRequest] = field(default_factory=list)
    context_tokens: int | None = None
    # a replayed trace: each measured request's send offset (ns from the point's start)
    offsets_ns: list[int] | None = None
    # multi-turn sessions: the pause between an answer and the session's next turn
    think_time_ns: int = 0
    # one client process's share of the streams when the load is split over workers
    # (workload.partition); None: this process runs all of them
    client_concurrency: int | None = None

    @property
    def measured(self) -> int:
        return sum(1 for r in self.requests if r.phase == "measured")


def _pick_rows(workload: Workload, rows: list[DatasetRow]) -> list[DatasetRow]:
    p = workload.params
    picked = [r for r in rows if r.category not in ("needle",)]
    if p.dataset_buckets:
        picked = [r for r in picked if r.bucket in p.dataset_buckets]
    if p.dataset_categories:
        picked = [r for r in picked if r.category in p.dataset_categories]
    if not picked:
        raise ValueError(
            f"workload {workload.id}: no row of dataset {workload.dataset_id} matches buckets={p.dataset_buckets} categories={p.dataset_categories}"
        )
    if p.shuffle is not False and not p.group_by:
        picked = picked[:]
        random.Random(p.seed or 0).shuffle(picked)
    return picked


def _cycle(rows: list[DatasetRow], n: int, start: int = 0) -> list[DatasetRow]:
    return [rows[(start + i) % len(rows)] for i in range(n)]


def _simple_point(workload: Workload, rows: list[DatasetRow], index: int, concurrency: int, n: int, warmup: int, offset: int) -> PlannedPoint:
    p = workload.params
    max_tokens = p.output_tokens or DEFAULT_OUTPUT_TOKENS
    repeat = p.repeat or 1
    point = PlannedPoint(index=index, concurrency=concurrency)
    chosen = _cycle(rows, warmup + n, offset)
    for i, row in enumerate(chosen):
        phase = "warmup" if i < warmup else "measured"
        for rep in range(repeat if phase == "measured" else 1):
            suffix = f"-r{rep}" if repeat > 1 and phase == "measured" else ""
            point.requests.append(
                PlannedRequest(
                    request_id=f"p{index}-{phase[0]}{i:05d}{suffix}",
                    prompt=row.text,
                    prompt_id=row.id,
                    max_tokens=max_tokens,
                    input_tokens_nominal=row.tokens_nominal,
                    phase=phase,
                    group=row.prefix_id,
                )
            )
    return point


def _grouped_point(workload: Workload, rows: list[DatasetRow]) -> PlannedPoint:
    """serve-prefix: rows of one group back to back, in file order, never shuffled.
    ``num_requests`` counts every request sent; the first ``warmup_per_group`` of
    each group warm its prefix and are excluded from the aggregate."""
    p = workload.params
    key = p.group_by or "prefix_id"
    groups: dict[str, list[DatasetRow]] = {}
    for row in rows:
        gid = getattr(row, key, None)
        if gid is None:
            raise ValueError(f"workload {workload.id}: row {row.id} has no {key!r} to group by")
        groups.setdefault(str(gid), []).append(row)
    point = PlannedPoint(index=0, concurrency=p.concurrency or 1)
    warm = p.warmup_per_group or 0
    budget = p.num_requests or len(rows)
    for gid, members in groups.items():
        for i, row in enumerate(members[:budget]):
            point.requests.append(
                PlannedRequest(
                    request_id=f"p0-{gid}-{i:03d}",
                    prompt=row.text,
                    prompt_id=row.id,
                    max_tokens=p.output_tokens or DEFAULT_OUTPUT_TOKENS,
                    input_tokens_nominal=row.tokens_nominal,
                    phase="warmup" if i < warm else "measured",
                    group=gid,
                )
            )
        budget -= min(budget, len(members))
        if budget == 0:
            break
    return point


def haystack_prompt(passages: list[DatasetRow], target_tokens: int, needle: DatasetRow | None, depth: float) -> tuple[str, int]:
    """Concatenate passages to ~target_tokens nominal, the needle at ``depth``,
    the question (needle.needle) last. Returns (prompt, nominal tokens)."""
    body: list[str] = []
    total = 0
    question_tokens = (needle.tokens_nominal or 0) * 2 if needle is not None else 0
    i = 0
    while total + question_tokens < target_tokens and passages:
        row = passages[i % len(passages)]
        body.append(row.text)
        total += row.tokens_nominal or max(1, len(row.text.split()) * 13 // 10)
        i += 1
    if needle is not None:
        at = round(depth * len(body))
        body.insert(at, needle.text)
        total += needle.tokens_nominal or 0
        question = needle.needle or ""
        body.append(f"Answer from the text above. {question}")
        total += question_tokens // 2
    return "\n\n".join(body), total


def _context_point(workload: Workload, rows: list[DatasetRow], index: int, context_tokens: int) -> PlannedPoint:
    p = workload.params
    passages = [r for r in rows if r.category != "needle"]
    needles = [r for r in rows if r.category == "needle"] if (workload.kind == "longctx" or p.needle_check) else []
    point = PlannedPoint(index=index, concurrency=p.concurrency or 1, context_tokens=context_tokens)
    warm = p.warmup_requests or 0
    n = p.num_requests or 1
    rng = random.Random((p.seed or 0) * 1_000_003 + index)
    for i in range(warm + n):
        start = rng.randrange(len(passages)) if passages else 0
        ordered = passages[start:] + passages[:start]
        needle = needles[i % len(needles)] if needles else None
        prompt, nominal = haystack_prompt(ordered, context_tokens, needle, p.needle_depth if p.needle_depth is not None else 0.5)
        phase = "warmup" if i < warm else "measured"
        point.requests.append(
            PlannedRequest(
                request_id=f"p{index}-{phase[0]}{i:05d}",
                prompt=prompt,
                prompt_id=f"haystack-{context_tokens}-{i}",
                max_tokens=p.output_tokens or 32,
                input_tokens_nominal=nominal,
                phase=phase,
                expected=needle.answer if needle is not None and p.needle_check else None,
            )
        )
    return point


def plan(workload: Workload, rows: list[DatasetRow], concurrency_override: list[int] | None = None) -> list[PlannedPoint]:
    """The planned points of a workload, in the order they run."""
    p = workload.params
    warm = p.warmup_requests or 0
    if workload.kind == "eval":
        return eval_points(workload, rows, concurrency_override)
    if workload.kind == "image":
        return image_points(workload, rows)
    if workload.kind in ("prefill", "longctx"):
        if workload.sweep is not None and workload.sweep.axis == "context_tokens":
            return [_context_point(workload, rows, i, c) for i, c in enumerate(workload.sweep.values)]
        target = p.context_tokens or p.input_tokens or 1024
        return [_context_point(workload, rows, 0, target)]
    if p.group_by:
        return [_grouped_point(workload, rows)]
    picked = _pick_rows(workload, rows)
    if workload.kind == "sweep" and workload.sweep is not None:
        levels = concurrency_override or workload.sweep.values
        points, offset = [], 0
        for i, c in enumerate(levels):
            n = workload.requests_per_point(c)
            # Warmup per point: at least one request per slot so the measured window starts warm.
            points.append(_simple_point(workload, picked, i, c, n, warm, offset))
            offset += n + warm
        return points
    levels = concurrency_override or [p.concurrency or 1]
    return [_simple_point(workload, picked, i, c, p.num_requests or 1, warm, 0) for i, c in enumerate(levels)]


# --- eval: one request per dataset row, in file order. Rows are filtered by
# ``params.dataset_categories`` and capped at ``num_requests``; each planned request
# carries its whole row (the eval runner sends its messages and tools and scores
# against its expected answer). Eval concurrency changes only the wall clock
# (workloads.txt), so an override is one point per level.


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
                    request_id=f"p{index}-m{i:05d}",
                    prompt=row.text,
                    prompt_id=row.id,
                    max_tokens=max_tokens,
                    input_tokens_nominal=row.tokens_nominal,
                    phase="measured",
                    row=row,
                )
            )
        points.append(point)
    return points


# --- image: one point at concurrency 1 (the runner never parallelises). The rows
# (filtered by ``dataset_categories``, capped at ``num_requests`` prompts when given) are
# rendered in file order, each ``repeat`` times; ``warmup_requests`` renders of the first
# rows go first and are excluded. Every planned request carries its row (prompt and,
# for edits, its reference images).


def image_points(workload: Workload, rows: list[DatasetRow]) -> list[PlannedPoint]:
    p = workload.params
    picked = [r for r in rows if not p.dataset_categories or r.category in p.dataset_categories]
    if not picked:
        raise CatalogError(f"workload {workload.id}: no row of dataset {workload.dataset_id} matches categories={p.dataset_categories}")
    picked = picked[: p.num_requests or len(picked)]
    wanted = p.ref_images or 0
    short = [r.id for r in picked if len(r.ref_images or []) < wanted]
    if short:
        raise CatalogError(
            f"workload {workload.id}: params.ref_images is {wanted} but row(s) {', '.join(short[:3])} of dataset {workload.dataset_id} "
            f"carry fewer reference images; use an edit dataset (rows with ref_images) or ref_images: 0"
        )
    point = PlannedPoint(index=0, concurrency=1)
    for i in range(p.warmup_requests or 0):
        row = picked[i % len(picked)]
        point.requests.append(PlannedRequest(f"p0-w{i:05d}", row.text, row.id, 0, None, phase="warmup", row=row))
    for i, row in enumerate(picked):
        for rep in range(p.repeat or 1):
            point.requests.append(PlannedRequest(f"p0-m{i:05d}-r{rep}", row.text, row.id, 0, None, phase="measured", row=row))
    return [point]
