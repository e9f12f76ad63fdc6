"""The planned points of an ad-hoc load (``workload.load``): synthetic lengths, a trace's
requests at their timestamps, or a prompt file's prompts.

Synthetic and trace requests are planned by length: ``input_tokens_nominal`` is the
input length asked for and ``prompt`` is empty until the prompt text is built for the
served model's tokenizer (``workload.prompt_text``), once the endpoint is known. The
plan itself is pure and seeded: same load, same plan.
"""

from __future__ import annotations

import numpy as np

from servescope.documents import Workload, WorkloadParams
from servescope.workload.lengths import uniform_lengths
from servescope.workload.load import Load
from servescope.workload.load_build import ResolvedLoad
from servescope.workload.plan import PlannedPoint, PlannedRequest

ADHOC_DATASET = "adhoc"  # an ad-hoc load's Workload has no dataset: its plan comes from the load
WARMUP_STREAM = 1  # np.random.default_rng([seed, WARMUP_STREAM]): the warm-ups' lengths, apart from the measured ones


def _synthetic_points(resolved: ResolvedLoad) -> list[PlannedPoint]:
    load = resolved.load
    assert load.isl is not None and load.osl is not None and load.num_requests is not None
    # the measured requests' lengths come from the seed's own stream, the warm-ups' from another:
    # the measured draws are the same whatever the warm-up count (predict simulates its own warm-up)
    rng, warm_rng = np.random.default_rng(load.seed), np.random.default_rng([load.seed, WARMUP_STREAM])
    lo, hi = 1.0 - load.range_ratio, 1.0 + load.range_ratio
    warm = load.warmup_requests or 0
    points = []
    for index, concurrency in enumerate(load.levels):
        n = load.num_requests
        isls = uniform_lengths(load.isl, lo, hi, warm, warm_rng) + uniform_lengths(load.isl, lo, hi, n, rng)
        osls = uniform_lengths(load.osl, lo, hi, warm, warm_rng) + uniform_lengths(load.osl, lo, hi, n, rng)
        point = PlannedPoint(index=index, concurrency=concurrency)
        for i, (isl, osl) in enumerate(zip(isls, osls, strict=True)):
            phase = "warmup" if i < warm else "measured"
            rid = f"p{index}-{phase[0]}{i:05d}"
            point.requests.append(
                PlannedRequest(request_id=rid, prompt="", prompt_id=f"synthetic-{rid}", max_tokens=osl, input_tokens_nominal=isl, phase=phase,
                               origin=_isl_origin(load, isl))
            )  # fmt: skip
        points.append(point)
    return points


def _isl_origin(load: Load, drawn: int) -> str:
    """Where a synthetic request's input length comes from, for a refusal to name."""
    return f"--isl {load.isl}" + (f" (--range-ratio {load.range_ratio:g} drew {drawn})" if drawn != load.isl else "")


def _session_points(resolved: ResolvedLoad) -> list[PlannedPoint]:
    """``sessions`` conversations at once, ``turns`` requests each: request k of a session
    is its k-th user message (``isl`` new tokens), sent with the history before it (and,
    with ``system_prompt_tokens``, after the session's own system message)."""
    load = resolved.load
    assert load.isl is not None and load.osl is not None and load.sessions is not None and load.turns is not None
    rng = np.random.default_rng(load.seed)
    lo, hi = 1.0 - load.range_ratio, 1.0 + load.range_ratio
    n = load.sessions * load.turns
    isls, osls = uniform_lengths(load.isl, lo, hi, n, rng), uniform_lengths(load.osl, lo, hi, n, rng)
    point = PlannedPoint(index=0, concurrency=load.sessions, think_time_ns=round(load.think_time_ms * 1e6))
    for i, (isl, osl) in enumerate(zip(isls, osls, strict=True)):
        session, turn = divmod(i, load.turns)
        rid = f"p0-s{session:05d}-t{turn:04d}"
        point.requests.append(
            PlannedRequest(
                request_id=rid, prompt="", prompt_id=f"session-{rid}", max_tokens=osl, input_tokens_nominal=isl, group=f"s{session:05d}",
                session=f"s{session:05d}", system_tokens_nominal=load.system_prompt_tokens, origin=_isl_origin(load, isl),
            )
        )  # fmt: skip
    return [point]


def _trace_points(resolved: ResolvedLoad) -> list[PlannedPoint]:
    trace, load = resolved.trace, resolved.load
    assert trace is not None
    point = PlannedPoint(index=0, concurrency=1, offsets_ns=trace.offsets_ns(load.speedup))
    for i, r in enumerate(trace.requests):
        rid = f"p0-m{i:05d}"
        point.requests.append(
            PlannedRequest(
                request_id=rid,
                prompt="",
                prompt_id=f"trace-{i:05d}",
                max_tokens=r.output_length,
                input_tokens_nominal=r.input_length,
                group=f"block-{r.hash_ids[0]}" if len(r.hash_ids) else None,
                prefix_blocks=tuple(r.hash_ids),
                origin=f"--trace {trace.path} line {r.line}",
            )
        )
    return [point]


def _file_points(resolved: ResolvedLoad) -> list[PlannedPoint]:
    """The file's prompts in turn, warm-ups included and on across points: a measured request
    never resends a prompt a warm-up (or an earlier point) sent while the file has prompts
    left, since a resent prompt is a prefix-cache hit, not a cold prefill."""
    pf, load = resolved.prompt_file, resolved.load
    assert pf is not None
    warm = load.warmup_requests or 0
    n = load.num_requests or len(pf.prompts)
    points = []
    for index, concurrency in enumerate(load.levels):
        point = PlannedPoint(index=index, concurrency=concurrency)
        first = index * (warm + n)  # this point's place in the file's cycle
        for i in range(warm + n):
            at = (first + i) % len(pf.prompts)
            fp = pf.prompts[at]
            phase = "warmup" if i < warm else "measured"
            max_tokens = fp.max_tokens if fp.max_tokens is not None else load.osl
            assert max_tokens is not None  # load_build refused a prompt without either
            point.requests.append(
                PlannedRequest(
                    request_id=f"p{index}-{phase[0]}{i:05d}",
                    prompt=fp.prompt,
                    prompt_id=f"file-{at:05d}",
                    max_tokens=max_tokens,
                    input_tokens_nominal=None,
                    phase=phase,
                    messages=fp.messages,
                )
            )
        points.append(point)
    return points


def plan_load(resolved: ResolvedLoad) -> list[PlannedPoint]:
    """The points of an ad-hoc synthetic, trace or prompt-file load, in run order."""
    source = resolved.load.source
    if source == "synthetic" and resolved.load.sessions is not None:
        return _session_points(resolved)
    if source == "synthetic":
        return _synthetic_points(resolved)
    if source == "trace":
        return _trace_points(resolved)
    if source == "prompts":
        return _file_points(resolved)
    raise ValueError(f"a {source} load is planned from its workload (workload.plan)")


def adhoc_workload(load: Load, created: str, timeout_s: float | None = None) -> Workload:
    """The Workload an ad-hoc load stands for, in memory (never published): its id is the
    load's label, its params what the runners and the result read."""
    params: dict[str, object] = {
        "concurrency": load.levels[0],
        "num_requests": load.num_requests,
        "input_tokens": load.isl,
        "output_tokens": load.osl,
        "seed": load.seed,
        "warmup_requests": load.warmup_requests,
        "temperature": 0.0,
        "timeout_s": timeout_s,
    }
    # constructed, not validated as a document: an ad-hoc label is not a published <kind>-<shape>-vN id
    return Workload.model_construct(
        id=load.label,
        kind="serving",
        name=load.describe(),
        description="an ad-hoc load (servescope.workload.load), not a catalog workload",
        dataset_id=ADHOC_DATASET,
        params=WorkloadParams(**{k: v for k, v in params.items() if v is not None}),  # type: ignore[arg-type]
        immutable=True,
        created=created,
        notes=None,
        sweep=None,
        eval=None,
        metrics_required=[],
        supersedes=None,
    )


__all__ = ["ADHOC_DATASET", "adhoc_workload", "plan_load"]
