"""``servescope run``: one workload against one endpoint, everything recorded.

Writes into ``OUT/<run_id>/``: ``records.jsonl`` (a header line saying what is
being run, then one line per request as it ends), then ``result.json`` and
``evaluation-run.json``. With no endpoint, the embedded llama.cpp engine is
started for the run and stopped afterwards.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import datetime as dt
import os
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import aiohttp

from servescope.bench.adhoc import check_api, length_report, prepare_adhoc
from servescope.bench.cache_reuse import warm_cache_warning
from servescope.bench.capabilities import Capabilities, probe_tools, read_capabilities, unsupported_notice, unsupported_reason
from servescope.bench.client import make_session
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec, OnRecord, PointOutcome
from servescope.bench.fail_fast import FailFast, window_for
from servescope.bench.gpu_telemetry import GpuSampler, check_gpu_metrics_url
from servescope.bench.records import RecordWriter
from servescope.bench.request_fields import request_extras
from servescope.bench.result import RunIdentity, build_evaluation_run, build_result
from servescope.bench.run_checks import check_run_memory, check_run_options, check_workers_kind
from servescope.bench.run_spec import EngineIdent, RunOptions, RunSpec
from servescope.bench.runners import RUNNERS, RunContext, check_image_options, renders_images
from servescope.bench.scrape import MetricsSampler, PointSamplers
from servescope.bench.sessions import turn_report
from servescope.bench.workers import WorkersRun, run_workers, split_block
from servescope.catalog.store import Catalog
from servescope.documents import EvaluationRun, Result, Workload
from servescope.documents.config_id import config_id, parse_flags
from servescope.documents.engine_command import (
    EngineCommand,
    command_for_engine,
    redact_flags,
)
from servescope.errors import EndpointError, UsageError
from servescope.workload.adhoc_plan import ADHOC_DATASET, adhoc_workload, plan_load
from servescope.workload.arrivals import arrival_offsets_ns, check_rate
from servescope.workload.partition import check_split, split_points
from servescope.workload.plan import PlannedPoint, plan

# Flags of the embedded engine's command line that say nothing about what runs.
_EMBEDDED_DROP = {"--model", "--alias", "--host", "--port"}


@dataclass
class RunArtifacts:
    run_dir: Path
    records_path: Path
    result_path: Path
    evaluation_run_path: Path
    result: Result
    evaluation_run: EvaluationRun


@dataclass
class Progress:
    """Callbacks the CLI uses to draw progress; all optional."""

    on_start: Callable[[int], None] | None = None
    on_point: Callable[[PlannedPoint], None] | None = None
    on_record: OnRecord | None = None
    on_status: Callable[[str], None] | None = None
    on_notice: Callable[[str], None] | None = None  # one line the user must see (rows not sent, and why)
    on_records: Callable[[Path], None] | None = None  # the records file, once its folder is made (an interrupted run says where)


def _utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds")


def _embedded_args(argv: list[str]) -> dict[str, Any]:
    from servescope.bench.engine.models import CHAT_TEMPLATE_FLAG, chat_template_label

    flags = parse_flags(argv[1:])
    if isinstance(flags.get(CHAT_TEMPLATE_FLAG), str):
        flags[CHAT_TEMPLATE_FLAG] = chat_template_label(flags[CHAT_TEMPLATE_FLAG])
    return redact_flags({k: v for k, v in flags.items() if k not in _EMBEDDED_DROP})


def _engine_command(opts: RunOptions) -> EngineCommand:
    """``--engine-args`` as flags or a pasted command line, or one clear line."""
    try:
        return command_for_engine(opts.engine_args, opts.engine_id)
    except ValueError as exc:
        raise UsageError(f"--engine-args: {exc}") from None


def _check_config(engine_id: str, engine_version: str | None, args: dict[str, Any]) -> None:
    """The args must give a config_id (no flag twice with two values) before anything is sent."""
    try:
        config_id(engine_id, engine_version or "", args)
    except ValueError as exc:
        raise UsageError(f"--engine-args: {exc}") from None


@contextlib.contextmanager
def _embedded_engine(opts: RunOptions, points: list[PlannedPoint], status: Callable[[str], None]) -> Iterator[tuple[str, str, str, dict[str, Any]]]:
    """Start the embedded llama.cpp engine sized for the run; yields (url, model, version, args)."""
    from servescope.bench.engine import LlamaServer, ServerConfig, find_llama_server, llama_server_version
    from servescope.bench.engine.models import DEFAULT_ENGINE_MODEL, engine_model_args, ensure_engine_model

    model_name = opts.engine_model or DEFAULT_ENGINE_MODEL
    status(f"preparing engine model {model_name}")
    model_path = ensure_engine_model(model_name)
    max_conc = max(p.concurrency for p in points)
    parallel = opts.embedded_parallel or min(max_conc, 64)
    status(f"starting the embedded llama.cpp engine (--parallel {parallel}, ctx {opts.embedded_ctx_per_slot}/slot)")
    binary = find_llama_server()
    version = llama_server_version(binary)
    config = ServerConfig(
        model=model_path, alias=model_name, parallel=parallel, ctx_per_slot=opts.embedded_ctx_per_slot, extra_args=engine_model_args(model_name)
    )
    with LlamaServer(config) as server:
        yield server.openai_base_url, server.model_name, version, _embedded_args(server.argv)


async def _get_json(session: aiohttp.ClientSession, url: str, headers: dict[str, str]) -> Any:
    """The JSON a GET answers with HTTP 200, or None (any other answer, or none)."""
    with contextlib.suppress(aiohttp.ClientError, TimeoutError, ValueError):
        async with session.get(url, headers=headers, timeout=aiohttp.ClientTimeout(total=5)) as r:
            if r.status == 200:
                return await r.json(content_type=None)
    return None


async def _discover(session: aiohttp.ClientSession, endpoint: Endpoint) -> tuple[str | None, str | None, str | None]:
    """(model, engine id, engine version) as far as the endpoint tells."""
    model = None
    with contextlib.suppress(aiohttp.ClientError, TimeoutError, ValueError, KeyError, IndexError, TypeError):
        async with session.get(f"{endpoint.base_url}/v1/models", headers=endpoint.headers(), timeout=aiohttp.ClientTimeout(total=10)) as r:
            if r.status == 200:
                data = await r.json(content_type=None)
                model = data["data"][0]["id"]
            elif r.status in (401, 403):
                raise EndpointError(f"{endpoint.base_url}/v1/models answered HTTP {r.status}: check --api-key-env")
    # SGLang first: its server info (server args + "version") is unmistakable, while a
    # bare {"version": ...} at /version is what vLLM answers. Only the version is kept:
    # SGLang's server args include its API keys.
    probes = (
        ("/server_info", "sglang", "version", "model_path"),
        ("/get_server_info", "sglang", "version", "model_path"),
        ("/version", "vllm", "version", None),
        ("/props", "llama.cpp", "build_info", None),
    )
    for path, name, version_key, marker in probes:
        data = await _get_json(session, f"{endpoint.base_url}{path}", endpoint.headers())
        if isinstance(data, dict) and version_key in data and (marker is None or marker in data):
            return model, name, str(data[version_key])
    return model, None, None


async def _fill_input_tokens(
    session: aiohttp.ClientSession, endpoint: Endpoint, points: list[PlannedPoint], outcomes: list[PointOutcome], writer: RecordWriter
) -> None:
    """Token counts: the server's usage when it reported one; otherwise the prompt's
    length from the engine's ``/tokenize`` (after the run, outside every measured
    window) with the output counted from the stream. The counts found this way are
    appended to the records file as one ``{"tokenized": ...}`` line; the request
    lines above it keep what was seen live."""
    missing = [r for o in outcomes for r in o.records if r.ok and r.input_tokens is None]
    if not missing:
        return
    prompts = {req.prompt_id: req.prompt for p in points for req in p.requests}
    counts: dict[str, int] = {}
    for prompt_id in sorted({r.prompt_id for r in missing if r.prompt_id in prompts}):
        try:
            async with session.post(
                f"{endpoint.base_url}/tokenize", json={"content": prompts[prompt_id]}, headers=endpoint.headers(), timeout=aiohttp.ClientTimeout(total=30)
            ) as resp:
                if resp.status != 200:
                    return  # no /tokenize here: input counts stay null, never guessed
                data = await resp.json(content_type=None)
        except (aiohttp.ClientError, TimeoutError, ValueError):
            return
        tokens = data.get("tokens") if isinstance(data, dict) else None
        if not isinstance(tokens, list):
            return
        counts[str(prompt_id)] = len(tokens)
    for r in missing:
        if r.prompt_id in counts:
            r.input_tokens = counts[str(r.prompt_id)]
            r.token_count_source = "tokenize-endpoint"
    writer.write_extra("tokenized", {"source": "/tokenize", "input_tokens": counts})


# How long the first GET /v1/models may take before the run is refused (the server is up
# by then: a loading engine that accepts connections and says nothing is not ready).
PROBE_TIMEOUT_S = 10.0


async def _check_reachable(session: aiohttp.ClientSession, endpoint: Endpoint) -> None:
    """One line naming the URL, what happened and what to do, whatever answers (or does not)."""
    url = f"{endpoint.base_url}/v1/models"
    try:
        async with session.get(url, headers=endpoint.headers(), timeout=aiohttp.ClientTimeout(total=PROBE_TIMEOUT_S)):
            return
    except TimeoutError as exc:  # its text is empty: say what it means
        raise EndpointError(
            f"no answer from {url} within {PROBE_TIMEOUT_S:g} s: something accepts connections there but does not answer; "
            "is the engine still loading, or is this another service's port?"
        ) from exc
    except aiohttp.ClientResponseError as exc:  # aiohttp could not parse the answer as HTTP
        raise EndpointError(f"{url} answered with something that is not HTTP ({' '.join(exc.message.split())[:120]}); is this the server's HTTP port?") from exc
    except aiohttp.ServerDisconnectedError as exc:
        raise EndpointError(f"{url}: the server closed the connection without answering; is this the server's HTTP port?") from exc
    except (aiohttp.ClientError, OSError) as exc:
        detail = " ".join(str(exc).split()) or type(exc).__name__
        raise EndpointError(f"cannot reach {endpoint.base_url}: {detail}; is the server running?") from exc


async def _run_async(
    opts: RunOptions,
    workload: Workload,
    points: list[PlannedPoint],
    base_url: str,
    model: str | None,
    engine_id: str | None,
    engine_version: str | None,
    engine_args: dict[str, Any],
    progress: Progress,
    *,
    allow_network: bool,
    command: EngineCommand | None = None,
    code_exec_sandbox: str | None = None,
) -> RunArtifacts:
    endpoint = Endpoint.create(base_url, model, opts.api, opts.api_key_env)
    session = make_session()
    async with session:
        await _check_reachable(session, endpoint)
        found_model, found_engine, found_version = await _discover(session, endpoint)
        if endpoint.model is None:
            if found_model is None:
                raise EndpointError(f"{endpoint.base_url} lists no model; pass --model NAME")
            endpoint = Endpoint(endpoint.base_url, found_model, endpoint.api, endpoint.api_key)
        engine_id = engine_id or found_engine or "unknown"
        engine_version = engine_version or found_version
        # Everything that could refuse the run does so here, before a request is sent or a file written.
        extras = request_extras(workload.params, engine_id, opts.extra_body, workload_id=workload.id)
        # Request-level switches change what runs: they belong in the fingerprint.
        engine_args = {**engine_args, **extras.args}
        if workload.params.reasoning is not None:
            # Reasoning settings move scores and latency more than most flags (workloads.txt): fingerprinted.
            engine_args["reasoning"] = workload.params.reasoning
        _check_config(engine_id, engine_version, engine_args)
        load = opts.load.load if opts.load is not None else None
        adhoc_resolved: dict[str, Any] = {}
        if load is not None and workload.dataset_id == ADHOC_DATASET:
            prepared = await prepare_adhoc(
                session,
                endpoint,
                engine_id,
                load,
                points,
                tokenizer=opts.tokenizer,
                user_body=opts.extra_body or {},
                timeout_s=opts.timeout_s or workload.params.timeout_s or 600.0,
                notice=progress.on_notice or (lambda _msg: None),
            )
            points, adhoc_resolved = prepared.points, prepared.resolved
            extras = dataclasses.replace(extras, body={**prepared.body, **extras.body}, workload_fields={**prepared.body, **extras.workload_fields})
        capabilities = Capabilities()
        if workload.kind == "eval" and not renders_images(workload):
            # llama.cpp says in /props whether its template renders tools and whether it sees images;
            # rows it cannot take are recorded as unsupported instead of being sent (bench.capabilities).
            capabilities = await read_capabilities(session, endpoint.base_url, endpoint.headers())
            if capabilities.supports_tools is None and endpoint.api == "chat" and any(r.row is not None and r.row.tools for p in points for r in p.requests):
                # No /props (vLLM, SGLang, hosted): measure whether tools reach the prompt at all.
                probed = await probe_tools(session, endpoint.url, endpoint.headers(), endpoint.model)
                if probed.supports_tools is not None:
                    capabilities = Capabilities(probed.supports_tools, capabilities.vision, probed.source, probed.detail)
            notice = unsupported_notice(workload.id, [unsupported_reason(r.row, capabilities, endpoint.api) for p in points for r in p.requests])
            if notice is not None and progress.on_notice is not None:
                progress.on_notice(notice)
        if renders_images(workload):
            from servescope.bench.runners.image import preflight as image_preflight

            await image_preflight(session, endpoint)  # no images API there: one line, nothing written
        run_id = opts.run_id or f"{workload.id}-{dt.datetime.now(dt.UTC).strftime('%Y%m%dT%H%M%SZ')}-{uuid.uuid4().hex[:6]}"
        run_dir = opts.out_dir / run_id
        run_dir.mkdir(parents=True, exist_ok=False)
        records_path = run_dir / "records.jsonl"
        started = _utc_now()
        resolved = workload.params.model_dump(exclude_none=True) | {
            "points": [{"concurrency": p.concurrency, "context_tokens": p.context_tokens, "measured": p.measured} for p in points],
            "api": opts.api,
            "load": "open:trace" if any(p.offsets_ns is not None for p in points) else "closed" if opts.rate is None else f"open:{opts.arrival}",
            "rate": opts.rate,
            "event_loop": event_loop_name(),
            "request_fields": extras.workload_fields,
        }
        if load is not None:
            resolved["load_description"] = load.record()
            resolved |= adhoc_resolved
        if len(points) == 1:
            resolved["concurrency"] = points[0].concurrency
        if code_exec_sandbox is not None:  # "none": the code ran unsandboxed (--unsafe-code-exec), said in the Result
            resolved["code_exec_sandbox"] = code_exec_sandbox
        # Closed loop: the first point's concurrency; open loop: its in-flight requests are not capped, the same window.
        fail_fast = FailFast(window_for(points[0].concurrency)) if opts.fail_fast and workload.kind not in ("eval", "image") and points else None
        resolved["fail_fast_window"] = fail_fast.window if fail_fast is not None else None
        splits: list[list[PlannedPoint]] | None = None
        if opts.workers > 1 or opts.ray_address is not None:
            # one global plan and schedule, dealt to the workers (workload.partition); each keeps its own fail-fast rule
            splits = split_points(points, opts.workers, rate=opts.rate, arrival=opts.arrival, gamma_shape=opts.gamma_shape, seed=workload.params.seed or 0)
            resolved["workers"] = split_block(points, splits, opts.ray_address)
            resolved["fail_fast_window"] = "per worker" if fail_fast is not None else None
            fail_fast = None
        if capabilities.source is not None:  # what the rows were checked against, kept with the run
            resolved["endpoint_capabilities"] = {"source": capabilities.source, "supports_tools": capabilities.supports_tools, "vision": capabilities.vision}
            if capabilities.detail is not None:
                resolved["endpoint_capabilities"]["detail"] = capabilities.detail
        ident = RunIdentity(
            run_id=run_id,
            engine_id=engine_id,
            engine_version=engine_version,
            model_id=endpoint.model or "unknown",
            scenario=opts.scenario,
            endpoint=endpoint.base_url,
            args=engine_args,
            allow_network=allow_network,
        )
        spec = RunSpec(
            run_id=run_id,
            workload_id=workload.id,
            started_at=started,
            endpoint=endpoint.base_url,
            model=endpoint.model,
            engine=EngineIdent(id=engine_id, version=engine_version),
            args=engine_args,
            scenario=opts.scenario,
            resolved_params=resolved,
            allow_network=allow_network,
            slos=opts.slos,
            requested_rate=opts.rate,
            load=load.record() if load is not None else None,
            engine_command={"launcher": command.launcher, "model": command.model} if command is not None and (command.launcher or command.model) else None,
        )
        if progress.on_records is not None:
            progress.on_records(records_path)
        if progress.on_start:
            progress.on_start(sum(len(p.requests) for p in points))
        t_start = time.perf_counter()
        # The samplers poll /metrics and the GPUs from their own threads (see bench.scrape): never on this loop.
        engine_sampler = MetricsSampler(endpoint.base_url, opts.scrape_interval_s, headers=endpoint.auth_headers()) if opts.scrape_metrics else None
        gpu_sampler = GpuSampler(opts.gpu_metrics_url, opts.scrape_interval_s) if opts.gpu_metrics_url else None
        sampler = PointSamplers(engine_sampler, gpu_sampler) if engine_sampler or gpu_sampler else None
        timeout = opts.timeout_s or workload.params.timeout_s or 600.0
        with RecordWriter(records_path) as writer:
            writer.write_header(spec.header())
            ctx = RunContext(
                session=session,
                endpoint=endpoint,
                writer=writer,
                t0_ns=time.perf_counter_ns(),
                timeout_s=timeout,
                load=LoadSpec(opts.rate, opts.arrival, opts.gamma_shape, workload.params.seed or 0),
                sampler=sampler,
                on_record=progress.on_record,
                on_point=progress.on_point,
                extra_body=extras.body or None,
                capabilities=capabilities,
                fail_fast=fail_fast,
                engine_id=engine_id,
                reference_bundle=opts.reference_bundle,
            )
            try:
                if splits is not None:
                    split = WorkersRun(
                        count=opts.workers,
                        ray_address=opts.ray_address,
                        endpoint=endpoint,
                        workload=workload,
                        points=points,
                        splits=splits,
                        run_dir=run_dir.resolve(),  # absolute: a Ray worker's cwd is not the driver's (its file would land elsewhere)
                        header=spec.header(),
                        timeout_s=timeout,
                        event_loop=event_loop_name(),
                        extra_body=extras.body or None,
                        capabilities=capabilities,
                        fail_fast=opts.fail_fast,
                    )
                    done = await run_workers(split, writer, sampler=sampler, on_record=progress.on_record, on_point=progress.on_point)
                    outcomes: list[PointOutcome] = done.outcomes
                    resolved["workers"] = done.block
                    if done.stopped_early is not None:
                        resolved["stopped_early"] = done.stopped_early
                        if progress.on_notice is not None:
                            progress.on_notice(done.stopped_early)
                else:
                    outcomes = await RUNNERS[workload.kind](ctx, workload, points)
            finally:
                if sampler is not None:
                    sampler.close()
            if fail_fast is not None and fail_fast.stopped:
                resolved["stopped_early"] = fail_fast.notice()
                if progress.on_notice is not None:
                    progress.on_notice(fail_fast.notice())
            wall = time.perf_counter() - t_start
            if not renders_images(workload):  # a render has no prompt tokens to count
                await _fill_input_tokens(session, endpoint, points, outcomes, writer)
    if adhoc_resolved:
        resolved["lengths"] = length_report(points, outcomes)  # requested against actual, per point
        warnings = length_warnings(resolved["lengths"], adhoc_resolved.get("prompt_tokens"))
        warm = warm_cache_warning(load, (r for o in outcomes for r in o.records))  # a repeat of the same prompts: warm TTFT
        if warnings or warm:
            resolved["warnings"] = [*warnings, *([warm] if warm else [])]
        if turns := turn_report(points, outcomes):
            resolved["turns"] = turns  # multi-turn: TTFT and the engine's cached prompt tokens, per turn number
    result = build_result(
        workload,
        outcomes,
        ident,
        resolved_params=resolved,
        started_at=started,
        finished_at=_utc_now(),
        wall_s=wall,
        records_file="records.jsonl",
        slos=opts.slos,
        requested_rate=opts.rate,
        engine_scrape=engine_sampler.stats.as_metadata() if engine_sampler is not None else None,
        gpu_scrape=gpu_sampler.stats.as_metadata() if gpu_sampler is not None else None,
    )
    result_path = run_dir / "result.json"
    result.write_json(result_path)
    evrun = build_evaluation_run(result, name=run_id, scenario=opts.scenario or f"{engine_id}-{endpoint.model}", date=started[:10])
    ev_path = run_dir / "evaluation-run.json"
    evrun.write_json(ev_path)
    return RunArtifacts(run_dir, records_path, result_path, ev_path, result, evrun)


#: Input lengths the engine counts further than this from the asked ones (the larger of the
#: two, on the mean per point) are worth a warning: one token where two prefix blocks join
#: is expected, a third of the prompt missing is a tokenizer that is not the served model's.
LENGTH_TOLERANCE_TOKENS = 2.0
LENGTH_TOLERANCE_SHARE = 0.02


def length_warnings(rows: list[dict[str, Any]], prompt_tokens: dict[str, Any] | None) -> list[str]:
    """One warning per point whose actual input (the engine's usage) is off the asked
    length by more than max(2 tokens, 2 %) on the mean, naming the likely cause."""
    source = str((prompt_tokens or {}).get("tokenizer") or "")
    cause = (
        "is --tokenizer the served model's? (prompts are cut by it)"
        if source.startswith("file:")
        else "the endpoint's /tokenize and its usage count differently (a proxy in front of another model?)"
    )
    out = []
    for row in rows:
        asked, actual = row.get("requested_input_mean"), row.get("input_mean")
        if asked is None or actual is None or not asked:
            continue
        off = actual - asked
        if abs(off) > max(LENGTH_TOLERANCE_TOKENS, LENGTH_TOLERANCE_SHARE * asked):
            where = f"point {row.get('point')} (c={row.get('concurrency')}): " if len(rows) > 1 else ""
            out.append(
                f"{where}prompts are {100 * abs(off) / asked:.0f} % {'shorter' if off < 0 else 'longer'} than asked "
                f"(the engine counts {actual:.1f} input tokens where {asked:g} were asked); {cause}"
            )
    return out


def event_loop_name() -> str:
    """``uvloop`` when it is installed (the ``fast`` extra) unless
    ``SERVESCOPE_EVENT_LOOP=asyncio``; it cuts the client's CPU per token (see
    benchmarks/README.md, client timing). Recorded in every result."""
    choice = os.environ.get("SERVESCOPE_EVENT_LOOP", "auto").strip().lower()
    if choice not in ("auto", "asyncio", "uvloop"):
        raise EndpointError(f"SERVESCOPE_EVENT_LOOP={choice!r}: use auto, asyncio or uvloop")
    if choice == "asyncio":
        return "asyncio"
    try:
        import uvloop  # noqa: F401
    except ImportError:
        if choice == "uvloop":
            raise EndpointError("SERVESCOPE_EVENT_LOOP=uvloop but uvloop is not installed: pip install 'servescope[fast]'") from None
        return "asyncio"
    return "uvloop"


def run_event_loop(coro: Any) -> Any:
    if event_loop_name() == "uvloop":
        import uvloop

        return uvloop.run(coro)
    return asyncio.run(coro)


def _plan(opts: RunOptions, cat: Catalog) -> tuple[Workload, list[PlannedPoint]]:
    """The workload (the catalog's, a Workload file's, or an ad-hoc load's) and its planned points."""
    resolved = opts.load
    if resolved is not None and resolved.load.source in ("synthetic", "trace", "prompts"):
        workload = adhoc_workload(resolved.load, created=_utc_now()[:10], timeout_s=opts.timeout_s)
        points = plan_load(resolved)
        check_api(resolved.load, points, opts.api)
        return workload, points
    if resolved is not None and resolved.workload is not None:
        # a Workload file is labelled by its content's digest, never by the id it claims
        workload = resolved.workload.model_copy(update={"id": resolved.load.label})
    else:
        workload = cat.workload(resolved.load.workload_id or opts.workload_id if resolved is not None else opts.workload_id)
    if workload.kind not in RUNNERS:
        raise EndpointError(f"workload kind {workload.kind!r} has no runner")
    rows = cat.dataset_rows(workload.dataset_id)
    return workload, plan(workload, rows, opts.concurrency)


def run_workload(opts: RunOptions, progress: Progress | None = None, catalog: Catalog | None = None) -> RunArtifacts:
    """Plan, run and record one workload (library entry point of ``servescope run``)."""
    check_run_options(opts)  # before anything is loaded, started or written
    if opts.load is not None:
        check_run_memory(opts.load)  # before its prompts are planned and built
    if opts.gpu_metrics_url is not None:
        check_gpu_metrics_url(opts.gpu_metrics_url)  # a wrong URL is one line now, not a run without telemetry
    prog = progress or Progress()
    status = prog.on_status or (lambda _msg: None)
    cat = catalog or Catalog.load()
    workload, points = _plan(opts, cat)
    if opts.workers > 1 or opts.ray_address is not None:  # a split that leaves a worker idle is refused before anything starts
        check_workers_kind(opts.workers, opts.ray_address, workload.kind)
        check_split(points, opts.workers, opts.rate)
    if opts.rate is not None:  # a schedule that cannot be sent is refused before anything starts
        for point in points:
            n = sum(r.phase == "measured" for r in point.requests)
            check_rate(opts.rate, n, "--rate")
            arrival_offsets_ns(n, opts.rate, opts.arrival, opts.gamma_shape, workload.params.seed or 0)  # type: ignore[arg-type]  # the schedule execute draws
    if renders_images(workload):
        check_image_options(opts)
    elif opts.reference_bundle is not None:
        raise UsageError(f"--reference-bundle applies to a fidelity image suite; {workload.id} is kind {workload.kind}")
    if opts.ray_address is None:
        return _run_planned(opts, workload, points, prog, status)
    from servescope.bench.worker_links import ray_cluster

    with ray_cluster(opts.ray_address, opts.workers):  # joined before anything is started or written
        return _run_planned(opts, workload, points, prog, status)


def _run_planned(opts: RunOptions, workload: Workload, points: list[PlannedPoint], prog: Progress, status: Callable[[str], None]) -> RunArtifacts:
    command = _engine_command(opts)
    code_exec_sandbox = None
    if workload.kind == "eval" and renders_images(workload):
        from servescope.bench.runners.image_eval import preflight as image_suite_preflight

        image_suite_preflight(workload, points, opts.reference_bundle)
    elif workload.kind == "eval":
        from servescope.bench.runners.eval import UNSANDBOXED_WARNING, preflight

        code_exec_sandbox = preflight(workload, points, opts.unsafe_code_exec)
        if code_exec_sandbox == "none" and prog.on_notice is not None:
            prog.on_notice(UNSANDBOXED_WARNING)
    if opts.engine_model is not None:
        from servescope.bench.engine.models import check_engine_model

        check_engine_model(opts.engine_model)
        if opts.endpoint is not None:
            raise UsageError("--engine-model picks the embedded engine's model; with --endpoint the server's own model is measured (use --model)")
    if opts.endpoint is None:
        if opts.engine_args:
            raise UsageError(
                "--engine-args describes a server you started (give its --endpoint); the embedded engine's flags are recorded from its own command line"
            )
        # Loopback only, started by servescope, nothing downloaded: the run does not use the network.
        with _embedded_engine(opts, points, status) as (url, model, version, emb_args):
            return run_event_loop(
                _run_async(opts, workload, points, url, model, "llama.cpp", version, emb_args, prog, allow_network=False, code_exec_sandbox=code_exec_sandbox)
            )
    engine_id = opts.engine_id or command.engine
    args = redact_flags(command.flags)
    if engine_id is not None:
        _check_config(engine_id, opts.engine_version, args)  # before the endpoint is asked anything
    # An --endpoint may be anywhere (a loopback URL can proxy a hosted API): the run uses the network.
    return run_event_loop(
        _run_async(
            opts,
            workload,
            points,
            opts.endpoint,
            opts.model,
            engine_id,
            opts.engine_version,
            args,
            prog,
            allow_network=True,
            command=command,
            code_exec_sandbox=code_exec_sandbox,
        )
    )
