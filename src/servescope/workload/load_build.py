"""Build a ``Load`` from what a user typed (``run`` and ``predict`` share this): a catalog
id, a Workload document's path, or the ad-hoc options. Every contradiction or bad value
is one ``UsageError`` line naming the flag (or file, line and field), before anything
starts."""

from __future__ import annotations

import hashlib
import json
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from servescope import limits
from servescope.documents import Workload
from servescope.documents.workload import SEED_MAX
from servescope.errors import UsageError
from servescope.workload.jsonl_lines import shown
from servescope.workload.load import FileRef, Load, check_speedup
from servescope.workload.prompt_file import MAX_FILE_PROMPTS, PromptFile, read_prompt_file
from servescope.workload.trace import MAX_TIMESTAMP_MS, Trace, read_trace, span_words

MAX_THINK_TIME_MS = 3_600_000.0  # an hour between turns
MAX_TURNS = 10_000


@dataclass
class LoadRequest:
    """The load options as typed (None: not given)."""

    workload: str | None = None
    isl: int | None = None
    osl: int | None = None
    num_requests: int | None = None
    concurrency: list[int] | None = None
    rate: float | None = None
    arrival: str = "poisson"
    gamma_shape: float = 1.0
    range_ratio: float | None = None
    seed: int = 0
    warmup_requests: int | None = None
    trace: Path | None = None
    speedup: float | None = None
    input_file: Path | None = None
    sessions: int | None = None
    turns: int | None = None
    think_time_ms: float | None = None
    system_prompt_tokens: int | None = None
    api: str = "chat"  # run's --api: part of what is sent, so of the label
    given: set[str] = field(default_factory=set)  # extra flags given that only shape an ad-hoc load


@dataclass
class ResolvedLoad:
    load: Load
    workload: Workload | None = None  # workload-file (a catalog id is resolved by the catalog)
    trace: Trace | None = None
    prompt_file: PromptFile | None = None


def is_document_path(text: str) -> bool:
    """A Workload file rather than a catalog id (catalog ids have no suffix or slash)."""
    return text.lower().endswith((".yaml", ".yml", ".json")) or "/" in text or os.sep in text


def _tokens(value: int | None, flag: str, example: str) -> None:
    if value is None:
        return
    if value < 1:
        raise UsageError(f"{flag} {value}: give at least 1 token, e.g. {flag} {example}")
    if value > limits.MAX_TOKENS:
        raise UsageError(f"{flag} {value:,} is above the limit of {limits.MAX_TOKENS:,} tokens (SERVESCOPE_MAX_TOKENS)")


def _positive(value: float | None, flag: str, example: str) -> None:
    """None, or a finite number > 0: 0, negatives, NaN and inf are one line (the catalog
    path's words, ``bench.run_checks``), never a pydantic dump from ``Load``. Upper limits
    are the runner's (``run``: ``bench.run_checks``; ``predict``: the simulator's)."""
    if value is None:
        return
    if not (math.isfinite(value) and value > 0):
        raise UsageError(f"{flag} {shown(value)}: give a finite number > 0, e.g. {example}")


def _check_values(req: LoadRequest) -> None:
    """Every numeric option by name, before any is used: NaN, inf, zero, negatives and
    values past the limits are each one line naming the flag."""
    _tokens(req.isl, "--isl", "256")
    _tokens(req.osl, "--osl", "32")
    if req.num_requests is not None and not 1 <= req.num_requests <= limits.MAX_REQUESTS:
        raise UsageError(f"--num-requests {req.num_requests}: give a count in 1..{limits.MAX_REQUESTS:,}, e.g. --num-requests 40")
    if req.warmup_requests is not None and not 0 <= req.warmup_requests <= limits.MAX_REQUESTS:
        raise UsageError(f"--warmup-requests {req.warmup_requests}: give a count in 0..{limits.MAX_REQUESTS:,}, e.g. --warmup-requests 4")
    if req.range_ratio is not None and not (math.isfinite(req.range_ratio) and 0.0 <= req.range_ratio < 1.0):
        raise UsageError(f"--range-ratio {shown(req.range_ratio)}: give a number in [0, 1), e.g. 0.1 (lengths uniform in L(1-r)..L(1+r))")
    if not 0 <= req.seed <= SEED_MAX:
        raise UsageError(f"--seed {req.seed}: give 0..{SEED_MAX:,} (2^63-1: the largest seed a request body carries to vLLM or SGLang)")
    _positive(req.rate, "--rate", "--rate 4 (requests per second)")
    _positive(req.gamma_shape, "--gamma-shape", "--gamma-shape 0.5 (1 = Poisson)")
    if req.speedup is not None:
        try:
            check_speedup(req.speedup)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
    if req.think_time_ms is not None and not (math.isfinite(req.think_time_ms) and 0.0 <= req.think_time_ms <= MAX_THINK_TIME_MS):
        raise UsageError(f"--think-time-ms {shown(req.think_time_ms)}: give milliseconds in 0..{MAX_THINK_TIME_MS:,.0f}, e.g. 500")
    if req.sessions is not None and not 1 <= req.sessions <= limits.MAX_CONCURRENCY:
        raise UsageError(f"--sessions {req.sessions}: give 1..{limits.MAX_CONCURRENCY:,} sessions (SERVESCOPE_MAX_CONCURRENCY), e.g. --sessions 4")
    if req.turns is not None and not 1 <= req.turns <= MAX_TURNS:
        raise UsageError(f"--turns {req.turns}: give 1..{MAX_TURNS:,} turns per session, e.g. --turns 5")
    _tokens(req.system_prompt_tokens, "--system-prompt-tokens", "1024")
    for level in req.concurrency or ():
        if level < 1:
            raise UsageError(f"--concurrency {level}: give levels of at least 1, e.g. --concurrency 1,4,8")


def _refuse_with(flag: str, others: dict[str, bool], why: str) -> None:
    given = [name for name, on in others.items() if on]
    if given:
        raise UsageError(f"{flag} and {given[0]} contradict: {why}")


def _workload_load(req: LoadRequest) -> ResolvedLoad:
    assert req.workload is not None
    adhoc = {"--isl": req.isl is not None, "--osl": req.osl is not None, "--trace": req.trace is not None,
             "--input-file": req.input_file is not None, "--range-ratio": req.range_ratio is not None,
             "--speedup": req.speedup is not None, "--num-requests": req.num_requests is not None,
             "--warmup-requests": req.warmup_requests is not None, "--sessions": req.sessions is not None,
             "--turns": req.turns is not None, "--think-time-ms": req.think_time_ms is not None,
             "--system-prompt-tokens": req.system_prompt_tokens is not None}  # fmt: skip
    adhoc.update({name: True for name in req.given})
    _refuse_with(f"WORKLOAD {req.workload!r}", adhoc, "a workload sends its own plan; leave the workload out for an ad-hoc load")
    if not is_document_path(req.workload):  # a catalog id: the catalog resolves it when the run plans
        return ResolvedLoad(Load(source="catalog", workload_id=req.workload))
    from servescope.documents import load as load_document

    path = Path(req.workload)
    if not path.is_file():
        raise UsageError(f"{req.workload}: no such file (a WORKLOAD is a catalog id, see `servescope catalog list`, or a Workload file)")
    loaded = load_document(path)
    errors = [i for i in loaded.issues if i.level == "error"]
    if errors:
        raise UsageError(errors[0].format(str(path)))
    doc = loaded.document
    if not isinstance(doc, Workload):
        raise UsageError(f"{path}: is a {type(doc).__name__}; give a Workload document (or a catalog workload id)")
    _check_dataset(doc, path)
    digest = hashlib.sha256(json.dumps(doc.model_dump(mode="json"), sort_keys=True).encode("utf-8")).hexdigest()
    return ResolvedLoad(Load(source="workload-file", workload_id=doc.id, workload_sha256=digest), workload=doc)


def _check_dataset(doc: Workload, path: Path) -> None:
    """A Workload file's dataset is the catalog's: an unknown id is one line naming the file
    and the field, like the file's other errors, before anything starts."""
    from servescope.catalog.store import Catalog

    known = Catalog.load().ids("datasets")
    if doc.dataset_id not in known:
        shown_ids = ", ".join(known[:8]) + (f" (+{len(known) - 8} more)" if len(known) > 8 else "")
        raise UsageError(f"{path}: dataset_id: unknown dataset {doc.dataset_id!r}; known: {shown_ids or 'none'} (servescope catalog list)")


def _session_load(req: LoadRequest, multi: dict[str, bool]) -> ResolvedLoad:
    if req.sessions is None or req.turns is None:
        flag = next(name for name, on in multi.items() if on)
        missing = "--sessions S" if req.sessions is None else "--turns N"
        raise UsageError(f"{flag} without {missing}: multi-turn sessions need --sessions S and --turns N (with --isl, --osl and optionally --think-time-ms)")
    think = req.think_time_ms if req.think_time_ms is not None else 0.0
    _refuse_with("--sessions", {"--concurrency": req.concurrency is not None, "--rate": req.rate is not None,
                                "--num-requests": req.num_requests is not None, "--warmup-requests": req.warmup_requests is not None,
                                "--trace": req.trace is not None, "--input-file": req.input_file is not None,
                                "--speedup": req.speedup is not None},
                 "the sessions run at once, each sending its turns one after another; --sessions x --turns is the request count")  # fmt: skip
    if req.isl is None or req.osl is None:
        raise UsageError("multi-turn sessions need --isl (new tokens per user turn) and --osl (tokens per answer)")
    load = Load(source="synthetic", isl=req.isl, osl=req.osl, range_ratio=req.range_ratio or 0.0, num_requests=req.sessions * req.turns,
                concurrency=(req.sessions,), seed=req.seed, sessions=req.sessions, turns=req.turns, think_time_ms=think,
                system_prompt_tokens=req.system_prompt_tokens)  # fmt: skip
    return ResolvedLoad(load)


def build_load(req: LoadRequest, *, require_requests: bool = True, one_loop: bool = False) -> ResolvedLoad:
    """The one load the options describe. ``require_requests``: synthetic loads need
    ``--num-requests`` (``predict`` has the harness's default). ``one_loop``: ``--rate``
    with ``--concurrency`` is refused (``run``: nothing caps an open loop's requests in
    flight, so the levels would only label identical points). The API is set on the load
    built, whatever its source: chat and completion requests of one load are two loads."""
    resolved = _build(req, require_requests=require_requests, one_loop=one_loop)
    if req.api != resolved.load.api:
        resolved.load = resolved.load.model_copy(update={"api": req.api})
    return resolved


def _build(req: LoadRequest, *, require_requests: bool, one_loop: bool) -> ResolvedLoad:
    _check_values(req)
    if req.workload is not None:
        return _workload_load(req)
    # first: a session flag beside --trace or --input-file is refused there, never dropped
    multi = {"--sessions": req.sessions is not None, "--turns": req.turns is not None, "--think-time-ms": req.think_time_ms is not None,
             "--system-prompt-tokens": req.system_prompt_tokens is not None}  # fmt: skip
    if any(multi.values()):
        return _session_load(req, multi)
    levels = tuple(req.concurrency) if req.concurrency else None
    common = {"seed": req.seed, "warmup_requests": req.warmup_requests, "arrival": req.arrival, "gamma_shape": req.gamma_shape}
    if req.trace is not None:
        _refuse_with("--trace", {"--rate": req.rate is not None, "--concurrency": levels is not None, "--input-file": req.input_file is not None,
                                 "--isl": req.isl is not None, "--osl": req.osl is not None, "--range-ratio": req.range_ratio is not None,
                                 "--arrival": req.arrival != "poisson", "--gamma-shape": req.gamma_shape != 1.0,
                                 "--warmup-requests": req.warmup_requests is not None},
                     "the trace's timestamps and lengths are the load")  # fmt: skip
        trace = read_trace(req.trace, req.num_requests)
        if req.num_requests is not None and len(trace.requests) < req.num_requests:
            raise UsageError(f"--num-requests {req.num_requests}: the trace {req.trace} has only {len(trace.requests)} requests; "
                             "leave --num-requests out to replay them all")  # fmt: skip
        span_s = trace.span_s(req.speedup or 1.0)
        if span_s * 1000 > MAX_TIMESTAMP_MS:  # the limit holds for the schedule sent, after --speedup, not for the file's numbers
            raise UsageError(f"--trace {req.trace} at --speedup {shown(req.speedup or 1.0)}: the replay would span {span_words(span_s)}, "
                             f"more than {MAX_TIMESTAMP_MS // 86_400_000} days; give a larger --speedup (timestamps are milliseconds)")  # fmt: skip
        ref = FileRef(path=str(req.trace), sha256=trace.sha256, requests=len(trace.requests))
        load = Load(source="trace", trace=ref, speedup=req.speedup or 1.0, num_requests=len(trace.requests), seed=req.seed)
        return ResolvedLoad(load, trace=trace)
    if req.speedup is not None:
        raise UsageError("--speedup replays a --trace faster (or slower); give --trace PATH with it")
    if one_loop and levels is not None and req.rate is not None:
        raise UsageError(f"--rate and --concurrency contradict: an ad-hoc load is a closed loop of --concurrency {','.join(map(str, levels))} "
                         f"or an open loop at --rate {shown(req.rate)} requests per second, which no in-flight count limits; give one of them")  # fmt: skip
    if req.input_file is not None:
        _refuse_with("--input-file", {"--isl": req.isl is not None, "--range-ratio": req.range_ratio is not None},
                     "the file's prompts set the input lengths")  # fmt: skip
        # with --num-requests, as many prompts as the run sends (warm-ups and every level's point
        # take them in turn: workload.adhoc_plan), so no measured request resends one while the file has more
        sends = None
        if req.num_requests is not None:
            sends = min((req.num_requests + (req.warmup_requests or 0)) * len(levels or (1,)), MAX_FILE_PROMPTS)
        pf = read_prompt_file(req.input_file, sends)
        if req.osl is None:
            missing = next((i for i, p in enumerate(pf.prompts) if p.max_tokens is None), None)
            if missing is not None:
                raise UsageError(f"--input-file {req.input_file}: prompt {missing + 1} has no max_tokens; give --osl M for those without one")
        if levels is None and req.rate is None:
            raise UsageError("--input-file: give --concurrency N (closed loop) or --rate R (open loop)")
        ref = FileRef(path=str(req.input_file), sha256=pf.sha256, requests=len(pf.prompts), format=pf.format, skipped=pf.skipped)
        # --num-requests past the file's end sends its prompts again, in order
        n = req.num_requests or len(pf.prompts)
        _levels_fit(levels, n, "--num-requests" if req.num_requests is not None else f"the prompts of {req.input_file}")
        load = Load(source="prompts", prompts=ref, osl=req.osl, num_requests=n, concurrency=levels, rate=req.rate, **common)  # type: ignore[arg-type]
        return ResolvedLoad(load, prompt_file=pf)
    if req.isl is None and req.osl is None:
        raise UsageError("give a WORKLOAD (catalog id or Workload file), or an ad-hoc load: --isl N --osl M --num-requests K "
                         "with --concurrency C or --rate R, --trace PATH, or --input-file PATH")  # fmt: skip
    if req.isl is None or req.osl is None:
        raise UsageError(f"a synthetic load needs both --isl and --osl (got only {'--isl' if req.isl is not None else '--osl'})")
    if require_requests and req.num_requests is None:
        raise UsageError(f"a synthetic load needs --num-requests K (measured requests per point), e.g. --isl {req.isl} --osl {req.osl} --num-requests 40")
    if levels is None and req.rate is None:
        raise UsageError("a synthetic load needs --concurrency N (closed loop) or --rate R (open loop)")
    if req.num_requests is not None:
        _levels_fit(levels, req.num_requests, "--num-requests")
    load = Load(source="synthetic", isl=req.isl, osl=req.osl, range_ratio=req.range_ratio or 0.0, num_requests=req.num_requests,
                concurrency=levels, rate=req.rate, **common)  # type: ignore[arg-type]  # fmt: skip
    return ResolvedLoad(load)


def _levels_fit(levels: tuple[int, ...] | None, requests: int, source: str) -> None:
    """A closed loop cannot keep more requests in flight than its point sends: a level past
    the count would label a point by a concurrency it never reached."""
    if levels is not None and max(levels) > requests:
        raise UsageError(f"--concurrency {max(levels):,} is more than the {requests:,} requests of a point ({source}): at most {requests:,} "
                         f"can be in flight; give --concurrency {requests:,} or less, or more requests")  # fmt: skip


__all__ = ["LoadRequest", "ResolvedLoad", "build_load", "is_document_path"]
