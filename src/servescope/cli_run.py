"""``servescope run`` and ``servescope engine ...``: formatting and progress for the
measuring side. Library entry points live in ``servescope.bench``; this module
only parses, draws and prints."""

from __future__ import annotations

import functools
import math
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

from servescope.cli_args import check_count, check_scenario_name, check_text, parse_levels
from servescope.cli_examples import epilog
from servescope.errors import RunFailedBar, UsageError

if TYPE_CHECKING:  # imported lazily at run time: the CLI starts without it
    from servescope.workload.load_build import ResolvedLoad

engine_app = typer.Typer(help="Manage the embedded llama.cpp engine (tiny local model, loopback only).", no_args_is_help=True, epilog=epilog("engine"))


def parse_slos(spec: str | None) -> list[Any]:
    """``ttft_ms<=500,itl_ms<=30`` → SLOs with ids like ``ttft_ms<=500`` (``documents.slo``)."""
    from servescope.documents.slo import SloSyntaxError, parse_request_slos

    try:
        return parse_request_slos(spec)
    except SloSyntaxError as exc:
        raise UsageError(f"--slo {exc.part!r}: {exc.reason}") from None
    except ValueError as exc:  # a statistic prefix: a search's, not a run's
        raise UsageError(f"--slo {exc}") from None


def _console() -> Console:
    import sys

    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _fmt(v: float | None, digits: int = 1) -> str:
    return "-" if v is None else f"{v:,.{digits}f}"


def summary_table(result: Any) -> Table:
    """One row per point (or one for the run): the numbers a reader looks at first. An ad-hoc
    open loop's row is named by its load (``rate=4/s``, ``trace x2``), not by concurrency 1."""
    from servescope.analysis.summarize import open_loop_load

    own = open_loop_load(result.resolved_params)
    table = Table(title=f"{result.workload_id} — {result.engine.id} {result.engine.version or ''} — {result.model.id}")
    blocks = (
        [(p.concurrency, p.context_tokens, p.metrics) for p in result.points]
        if result.points
        else [(result.resolved_params.get("concurrency"), result.resolved_params.get("context_tokens"), result.metrics)]
    )
    # columns only a run with SLOs (goodput) or GPU telemetry has: absent, not "-", on the others
    goodput = bool(result.slos)
    gpus = any(m.gpu_telemetry is not None for _, _, m in blocks)
    images = any(m.s_per_image is not None for _, _, m in blocks)
    columns = ["load" if own else "conc", "ctx", "ok/total", "out tok/s", "TTFT p50", "TTFT p90", "ITL p50", "TPOT p50", "E2E p50", "failures"]
    columns += (["goodput req/s"] if goodput else []) + (["GPU W", "J/out tok"] if gpus else []) + (["s/image p50", "s/image p90"] if images else [])
    for col in columns:
        table.add_column(col, justify="right")
    for conc, ctx, m in blocks:
        failed = m.failed_requests or 0
        row = [
            own or str(conc),
            str(ctx) if ctx else "-",
            f"{m.completed_requests}/{m.total_requests}",
            _fmt(m.output_tokens_per_sec),
            _fmt(m.ttft_ms.p50 if m.ttft_ms else None),
            _fmt(m.ttft_ms.p90 if m.ttft_ms else None),
            _fmt(m.itl_ms.p50 if m.itl_ms else None, 2),
            _fmt(m.tpot_ms.p50 if m.tpot_ms else None, 2),
            _fmt(m.e2e_ms.p50 if m.e2e_ms else None),
            f"[red]{failed}[/red]" if failed else "0",
        ]
        if goodput:
            row.append(_fmt(m.goodput_requests_per_sec, 2))
        if gpus:
            t = m.gpu_telemetry
            watts = [g.power_w_mean for g in t.gpus] if t is not None else []
            row.append(_fmt(sum(w for w in watts if w is not None) if watts and all(w is not None for w in watts) else None))
            row.append(_fmt(t.energy_per_output_token_j if t is not None else None, 3))
        if images:
            row += [_fmt(m.s_per_image.p50 if m.s_per_image else None, 3), _fmt(m.s_per_image.p90 if m.s_per_image else None, 3)]
        table.add_row(*row)
    return table


def format_lengths(row: dict[str, Any], load: str | None = None) -> str:
    """One line per point of an ad-hoc load: requested against actual lengths (the engine's
    usage); ``load`` names an open loop's point (``rate=4/s``) instead of its concurrency."""
    head = f"lengths {load or 'c=' + str(row.get('concurrency'))}: "
    if not row.get("with_usage"):
        return head + f"no usage reported for the {row.get('completed', 0)} completed requests; actual lengths unknown"
    text = head
    if "requested_input_mean" in row:
        text += f"input {row['input_mean']:.1f} tokens (asked {row['requested_input_mean']:.1f}, off by at most {row['input_max_abs_diff']}), "
    text += (
        f"output {row['output_mean']:.1f} tokens (asked {row['requested_output_mean']:.1f}; exactly as asked: {row['output_exact']}/{row['with_usage']}); "
        "from the engine's usage"
    )
    return text


def format_on_time(result: Any) -> str | None:
    """One line for a run with SLOs: how many measured requests met every SLO, and how many
    missed each (``on_time_rate``, ``violations_by_invariant_id``); None without SLOs."""
    if not result.slos or result.on_time_rate is None:
        return None
    total = result.metrics.total_requests or 0
    on_time = round(result.on_time_rate * total)
    missed = ", ".join(f"{s.id} missed by {result.violations_by_invariant_id.get(s.id, 0)}" for s in result.slos)
    return f"on time {on_time}/{total} ({100 * result.on_time_rate:.1f} %): {missed}"


def format_turn(row: dict[str, Any]) -> str:
    """One line per turn number of a multi-turn load: its median TTFT and the prompt tokens
    the engine served from its cache."""
    text = f"turn {row['turn']}: {row['completed']} completed, TTFT p50 {_fmt(row.get('ttft_ms_p50'))} ms, "
    if not row.get("with_cache_counts"):
        return text + "the engine reports no cached prompt tokens"
    share = row["cached_tokens_mean"] / row["input_tokens_mean"] if row.get("input_tokens_mean") else None
    return text + f"prompt {row['input_tokens_mean']:.0f} tokens, {row['cached_tokens_mean']:.0f} from the engine's cache ({_fmt(share, 2)})"


def format_scores(scores: Any) -> str:
    """One line: accuracy with its Wilson interval, strict accuracy, success rate, latency."""

    def pct(v: float | None) -> str:
        return "-" if v is None else f"{100 * v:.1f} %"

    text = (
        f"accuracy {pct(scores.accuracy)} ({scores.correct_count}/{scores.item_count}, 95 % CI {pct(scores.accuracy_ci_low)}"
        f"-{pct(scores.accuracy_ci_high)}), strict {pct(scores.strict_accuracy)}, success rate {pct(scores.success_rate)}, "
        f"avg latency {_fmt(scores.avg_latency_ms)} ms"
    )
    if scores.instruction_accuracy is not None:
        text += f", instructions kept {pct(scores.instruction_accuracy)} (strict {pct(scores.instruction_strict_accuracy)})"
    if scores.abstention is not None:
        text += f", abstention {pct(scores.abstention)}"
    if scores.unsupported_count:
        text += f", {scores.unsupported_count} rows unsupported by the endpoint (not in accuracy)"
    cal = scores.calibration
    if cal is not None:
        ece = "-" if cal.ece is None else f"{cal.ece:.3f}"
        mce = "-" if cal.mce is None else f"{cal.mce:.3f}"
        text += f", ECE {ece}, MCE {mce} ({cal.answered_with_confidence}/{scores.item_count} stated a confidence)"
    if scores.note:
        text += f"\n{scores.note}"
    return text


def run_command(
    workload: Annotated[
        str | None,
        typer.Argument(
            help="Workload id from the catalog (see `servescope catalog list`) or a Workload file's path; "
            "leave it out for an ad-hoc load (--isl/--osl, --trace or --input-file)."
        ),
    ] = None,
    endpoint: Annotated[str | None, typer.Option(help="Base URL, with or without /v1. Default: start the embedded engine.")] = None,
    model: Annotated[str | None, typer.Option(help="Model name to request (default: the endpoint's first model).")] = None,
    api: Annotated[str, typer.Option(help="chat or completions.")] = "chat",
    api_key_env: Annotated[str | None, typer.Option(help="Environment variable holding the API key (never written).")] = None,
    scenario: Annotated[str | None, typer.Option(help="Scenario name recorded in the results.")] = None,
    out: Annotated[Path, typer.Option(help="Folder for run folders.")] = Path("runs"),
    concurrency: Annotated[str | None, typer.Option(help="Concurrency levels, e.g. 1,4,8 (overrides a workload's; an ad-hoc load's closed loop).")] = None,
    isl: Annotated[
        int | None, typer.Option(help="Ad-hoc synthetic load: input tokens per request, cut exactly by the served model's tokenizer, e.g. 256.")
    ] = None,
    osl: Annotated[
        int | None, typer.Option(help="Ad-hoc synthetic load: output tokens per request, held with ignore_eos/min_tokens where the engine takes them, e.g. 32.")
    ] = None,
    num_requests: Annotated[int | None, typer.Option(help="Ad-hoc load: measured requests per point, e.g. 40 (a trace or prompt file: its first K).")] = None,
    range_ratio: Annotated[
        float | None, typer.Option(help="Ad-hoc synthetic load: lengths uniform in L(1-r)..L(1+r), seeded, e.g. 0.1 (default 0: exact).")
    ] = None,
    seed: Annotated[int, typer.Option(help="Ad-hoc load: seed of the lengths, the prompt text and open-loop arrivals.")] = 0,
    warmup_requests: Annotated[int | None, typer.Option(help="Ad-hoc load: requests sent first at each point and left out of the metrics (default 0).")] = None,
    trace: Annotated[
        Path | None,
        typer.Option(help="Replay a Mooncake/aiperf trace (JSONL: timestamp ms, input_length, output_length, hash_ids), e.g. --trace trace.jsonl."),
    ] = None,
    speedup: Annotated[float | None, typer.Option(help="--trace: replay this many times faster than recorded, e.g. 2.")] = None,
    input_file: Annotated[
        Path | None,
        typer.Option(help="Send the prompts of a file: JSONL of prompt or messages (optional max_tokens) or ShareGPT JSON, e.g. --input-file prompts.jsonl."),
    ] = None,
    tokenizer: Annotated[Path | None, typer.Option(help="Ad-hoc lengths: the served model's tokenizer.json, for endpoints without /tokenize.")] = None,
    sessions: Annotated[
        int | None, typer.Option(help="Multi-turn: conversations run at once, each resending its history with the model's real answers, e.g. 4.")
    ] = None,
    turns: Annotated[int | None, typer.Option(help="Multi-turn: turns per conversation, e.g. 5 (with --sessions, --isl, --osl).")] = None,
    think_time_ms: Annotated[float | None, typer.Option(help="Multi-turn: pause between an answer and the next turn, e.g. 500.")] = None,
    system_prompt_tokens: Annotated[
        int | None, typer.Option(help="Multi-turn: each session opens with a system message of this many tokens, resent every turn, e.g. 1024.")
    ] = None,
    rate: Annotated[float | None, typer.Option(help="Open loop: requests per second (default: closed loop).")] = None,
    arrival: Annotated[str, typer.Option(help="Open-loop arrivals: poisson, gamma or constant.")] = "poisson",
    gamma_shape: Annotated[float, typer.Option(help="Gamma arrivals: shape (1 = Poisson, <1 burstier).")] = 1.0,
    slo: Annotated[str | None, typer.Option(help="SLOs per request, e.g. ttft_ms<=500,tpot_ms<=30.")] = None,
    engine: Annotated[str | None, typer.Option(help="Engine name for the record (default: detected).")] = None,
    engine_version: Annotated[str | None, typer.Option(help="Engine version for the record (default: detected).")] = None,
    engine_args: Annotated[
        str | None,
        typer.Option(
            help="The engine's flags or its command line, quoted, for config_id, e.g. '--max-num-seqs 64' or 'vllm serve MODEL --max-num-seqs 64' (credentials are redacted)."
        ),
    ] = None,
    extra_body: Annotated[
        str | None, typer.Option(help="A JSON object merged into every request body, e.g. '{\"ignore_eos\": true}'; recorded as request.<key> args.")
    ] = None,
    timeout: Annotated[float | None, typer.Option(help="Per-request timeout in seconds (default: the workload's).")] = None,
    parallel: Annotated[int | None, typer.Option(help="Embedded engine: --parallel slots (default: the highest concurrency, at most 64).")] = None,
    ctx_per_slot: Annotated[int, typer.Option(help="Embedded engine: context tokens per slot.")] = 4096,
    engine_model: Annotated[
        str | None,
        typer.Option(
            help="Embedded engine: the model to serve, servescope-tiny-llama (default, random weights) or smollm2-135m (a real instruct model, fetched once)."
        ),
    ] = None,
    min_success_rate: Annotated[float, typer.Option(help="Exit non-zero when the success rate is below this.")] = 0.95,
    unsafe_code_exec: Annotated[
        bool, typer.Option("--unsafe-code-exec", help="Eval code-exec: run generated code WITHOUT a sandbox when none works (a disposable machine only).")
    ] = False,
    compare_prefix_cache: Annotated[bool, typer.Option(help="Run twice, prefix cache on then off, and report the TTFT ratio.")] = False,
    scrape: Annotated[
        bool, typer.Option("--scrape/--no-scrape", help="Read the engine's /metrics (KV usage, prefix hits, preemptions) from a thread during the run.")
    ] = True,
    scrape_interval: Annotated[float, typer.Option(help="Seconds between /metrics reads at first; doubles while a read takes over 10 % of it.")] = 0.5,
    gpu_metrics_url: Annotated[
        str | None,
        typer.Option(
            help="A DCGM exporter's page (e.g. http://gpu-node:9400/metrics): power, utilisation, memory, SM clock and temperature "
            "per GPU and energy per output token, per point, read from a thread like /metrics; checked before the run."
        ),
    ] = None,
    workers: Annotated[
        int,
        typer.Option(
            help="Client processes the load is split over, e.g. 2 (closed loop: the streams split; open loop: one schedule dealt out); "
            "records and Result merged exactly. 1 = this process alone."
        ),
    ] = 1,
    ray: Annotated[
        str | None,
        typer.Option(
            help="Place the --workers on a Ray cluster: its address as `ray start --head` prints it, or auto (needs pip install 'servescope\\[ray]')."
        ),
    ] = None,
    fail_fast: Annotated[
        bool,
        typer.Option(
            "--fail-fast/--no-fail-fast",
            help="Stop sending when the first max(8, 2 x concurrency) requests (at most 128) all fail the same way; the rest are recorded as not sent.",
        ),
    ] = True,
    reference_bundle: Annotated[
        Path | None,
        typer.Option(help="Fidelity image suites: the reference bundle made by servescope t2i-reference (a case rendered from another spec is refused)."),
    ] = None,
) -> None:
    """Measure a workload against an endpoint (default: the embedded llama.cpp engine)."""
    from servescope.analysis.summarize import open_loop_load
    from servescope.bench.request_fields import parse_extra_body
    from servescope.bench.run import Progress as RunProgress
    from servescope.bench.run import RunOptions, run_workload
    from servescope.bench.run_checks import check_run_memory, check_run_options

    console = _console()
    check_text(slo, "--slo", "'ttft_ms<=500,tpot_ms<=30'")
    check_text(model, "--model", "meta-llama/Llama-3.1-8B-Instruct")
    check_text(engine, "--engine", "vllm")
    check_text(api_key_env, "--api-key-env", "OPENAI_API_KEY")
    if api not in ("chat", "completions"):
        raise UsageError(f"--api {api!r}: use chat or completions")
    if arrival not in ("poisson", "gamma", "constant"):
        raise UsageError(f"--arrival {arrival!r}: use poisson, gamma or constant")
    if not (math.isfinite(scrape_interval) and scrape_interval > 0):
        raise UsageError(f"--scrape-interval {scrape_interval!r}: give a finite number of seconds > 0, e.g. 0.5")
    levels = parse_levels(concurrency, "--concurrency")
    resolved_load = _resolve_load(workload, levels, rate, arrival, gamma_shape, isl=isl, osl=osl, num_requests=num_requests,
                                  range_ratio=range_ratio, seed=seed, warmup_requests=warmup_requests, trace=trace, speedup=speedup,
                                  input_file=input_file, tokenizer=tokenizer, sessions=sessions, turns=turns,
                                  think_time_ms=think_time_ms, system_prompt_tokens=system_prompt_tokens, api=api)  # fmt: skip
    check_run_memory(resolved_load)  # before the progress bar: a load too large to hold is one line
    if resolved_load.trace is not None:  # a slow --speedup can make hours of a seconds-long trace: said before it starts
        from servescope.workload.trace import span_words

        replay = resolved_load.trace
        console.print(f"replaying {len(replay.requests):,} requests of {replay.path} over {span_words(replay.span_s(resolved_load.load.speedup))} "
                      f"(--speedup {resolved_load.load.speedup:g})", markup=False, soft_wrap=True)  # fmt: skip
    if resolved_load.prompt_file is not None and (note := prompt_file_note(resolved_load)) is not None:
        console.print(note, markup=False, soft_wrap=True)
    if resolved_load.load.adhoc and resolved_load.load.source != "workload-file":
        levels = None  # the load's own levels
    opts = RunOptions(
        workload_id=resolved_load.load.label,
        load=resolved_load,
        tokenizer=tokenizer,
        endpoint=endpoint,
        model=model,
        api=api,  # type: ignore[arg-type]
        api_key_env=api_key_env,
        scenario=scenario,
        out_dir=out,
        engine_id=engine,
        engine_version=engine_version,
        engine_args=[engine_args] if engine_args else [],
        rate=rate,
        arrival=arrival,
        gamma_shape=gamma_shape,
        concurrency=levels,
        timeout_s=timeout,
        slos=parse_slos(slo),
        embedded_parallel=parallel,
        embedded_ctx_per_slot=ctx_per_slot,
        scrape_metrics=scrape,
        scrape_interval_s=scrape_interval,
        gpu_metrics_url=gpu_metrics_url,
        engine_model=engine_model,
        unsafe_code_exec=unsafe_code_exec,
        fail_fast=fail_fast,
        reference_bundle=reference_bundle,
        workers=workers,
        ray_address=ray,
    )
    if not (math.isfinite(min_success_rate) and 0.0 <= min_success_rate <= 1.0):
        raise UsageError(f"--min-success-rate {min_success_rate!r}: give a share in 0..1, e.g. 0.95")
    check_run_options(opts)  # every option, before the engine starts or anything is written
    catalog = check_scenario_name(scenario)
    if resolved_load.load.source == "catalog" and resolved_load.load.workload_id is not None:
        catalog.workload(resolved_load.load.workload_id)  # an unknown id: one line before the progress bar starts
    if unsafe_code_exec:
        import os

        from servescope.scoring.code_exec import UNSAFE_ENV

        os.environ[UNSAFE_ENV] = "1"  # what the code-exec scorer reads
    user_body = parse_extra_body(extra_body) if extra_body is not None else {}
    variants: list[tuple[str, dict[str, Any] | None]] = [("prefix cache on", None)]
    if compare_prefix_cache:
        if endpoint is not None:
            raise typer.BadParameter(
                "only the embedded engine can switch its prefix cache per run; for another engine run twice, "
                "restarting it with and without its prefix-cache flag, and compare the two results",
                param_hint="--compare-prefix-cache",
            )
        # llama.cpp's per-request switch: cache_prompt false recomputes every prompt.
        variants.append(("prefix cache off", {"cache_prompt": False}))
    results = []
    for label, extra in variants:
        if compare_prefix_cache:
            console.print(f"[bold]{label}[/bold]")
        opts.extra_body = {**user_body, **(extra or {})} or None
        artifacts = _run_with_progress(console, opts, RunProgress, functools.partial(run_workload, catalog=catalog))
        results.append(artifacts.result)
        console.print(summary_table(artifacts.result))
        on_time = format_on_time(artifacts.result)
        if on_time is not None:
            console.print(on_time, markup=False)
        own = open_loop_load(artifacts.result.resolved_params)
        for row in artifacts.result.resolved_params.get("lengths") or []:
            console.print(format_lengths(row, own), markup=False)
        for warning in artifacts.result.resolved_params.get("warnings") or []:
            console.print(f"warning: {warning}", markup=False)
        for row in artifacts.result.resolved_params.get("turns") or []:
            console.print(format_turn(row), markup=False)
        if artifacts.result.scores is not None:
            console.print(format_scores(artifacts.result.scores))
        console.print(f"records: {artifacts.records_path}\nresult: {artifacts.result_path}\nevaluation run: {artifacts.evaluation_run_path}")
    if compare_prefix_cache and len(results) == 2:
        on, off = (r.metrics.ttft_ms.p50 if r.metrics.ttft_ms else None for r in results)
        ratio = (on / off) if on and off else None
        console.print(f"TTFT p50 with / without prefix cache: {_fmt(on)} ms / {_fmt(off)} ms = ratio {_fmt(ratio, 3)}")
    for r in results:
        m = r.metrics
        lost = r.blocked_by_reason_code.get("worker-lost", 0)
        if lost:
            gone = "; ".join(f"{w['worker']} ({w['how']})" for w in (r.resolved_params.get("workers") or {}).get("lost", []))
            raise RunFailedBar(
                f"client worker(s) died or stopped answering: {gone}; {lost} requests they had not finished are failures of category "
                "'worker-lost'; every finished request is kept"
            )
        if not m.completed_requests:
            unsupported = r.blocked_by_reason_code.get("unsupported", 0)
            if unsupported and unsupported == m.total_requests:
                raise RunFailedBar(f"no request completed: the endpoint cannot take any of the {unsupported} rows (failures of category 'unsupported')")
            raise RunFailedBar(f"no request completed: {failure_summary(r)}")
        if m.success_rate is not None and m.success_rate < min_success_rate:
            raise RunFailedBar(f"success rate {m.success_rate:.3f} is below --min-success-rate {min_success_rate}")


def _resolve_load(workload: str | None, levels: list[int] | None, rate: float | None, arrival: str, gamma_shape: float, **adhoc: Any) -> ResolvedLoad:
    """The one load description (``workload.load``) of this run, or one line saying what contradicts."""
    from servescope.workload.load_build import LoadRequest, build_load

    tokenizer = adhoc.pop("tokenizer")
    req = LoadRequest(workload=workload, concurrency=levels, rate=rate, arrival=arrival, gamma_shape=gamma_shape, **adhoc)
    if workload is not None and tokenizer is not None:
        req.given.add("--tokenizer")
    if workload is not None and adhoc["seed"] != 0:
        req.given.add("--seed")
    resolved = build_load(req, one_loop=True)
    if tokenizer is not None:
        if resolved.load.source == "prompts":
            raise UsageError("--tokenizer cuts synthetic and trace prompts to their lengths; a prompt file's prompts are sent as written")
        from servescope.bench.prompt_tokenizer import LocalTokenizer

        LocalTokenizer(tokenizer)  # a bad file is one line now, before an engine starts
    return resolved


def failure_summary(result: Any) -> str:
    """The failures of a Result, one category each with its count and first message, in one
    line: the cause (a context overflow, a refused request) on the console, not only in result.json."""
    by_category: dict[str, tuple[int, str]] = {}
    for f in result.failures:
        count, message = by_category.get(f.category, (0, " ".join(f.message.split())))
        by_category[f.category] = (count + f.count, message)
    if not by_category:
        return "see the failures in the result"
    total = sum(count for count, _ in by_category.values())
    parts = [f"{count} {category} ({message[:200]})" for category, (count, message) in sorted(by_category.items(), key=lambda kv: -kv[1][0])]
    return f"{total} failed: " + ", ".join(parts)


def prompt_file_note(resolved: ResolvedLoad) -> str | None:
    """One line when a prompt file is not sent one request a prompt: ShareGPT conversations
    skipped (no human turn), or requests that cycle through the prompts again."""
    pf, load = resolved.prompt_file, resolved.load
    if pf is None or load.num_requests is None:
        return None
    parts = []
    if pf.skipped:
        parts.append(f"{len(pf.prompts):,} of {len(pf.prompts) + pf.skipped:,} ShareGPT conversations used ({pf.skipped:,} without a human turn skipped)")
    warm, levels, have = load.warmup_requests or 0, len(load.levels), len(pf.prompts)
    sent = (warm + load.num_requests) * levels
    if sent > have and warm == 0 and levels == 1:
        parts.append(f"{load.num_requests:,} requests per point cycle through the {have:,} prompts")
    elif sent > have:  # warm-ups and later points take the prompts in turn with the measured requests (workload.adhoc_plan)
        shape = (f"{warm:,} warm-up and " if warm else "") + f"{load.num_requests:,} measured requests" + (f" at each of {levels} levels" if levels > 1 else "")
        parts.append(f"{shape} take the {have:,} prompts in turn: {sent - have:,} of the {sent:,} resend a prompt already sent "
                     "(a prefix-cache hit where the engine caches; give a file with more prompts to avoid it)")  # fmt: skip
    return f"prompts: {'; '.join(parts)}" if parts else None


def _run_with_progress(console: Console, opts: Any, progress_cls: Any, run_workload: Any) -> Any:
    stats: dict[str, float] = {"tokens": 0, "failed": 0, "t0": 0.0}  # t0 0: not started
    import time

    from servescope.analysis.summarize import open_loop_load

    point_load = open_loop_load({"load_description": opts.load.load.record()}) if getattr(opts, "load", None) is not None else None

    with Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[tps]} tok/s"),
        TextColumn("failures {task.fields[failed]}"),
        TimeElapsedColumn(),
        # Two redraws a second: a redraw holds the GIL ~1 ms, and the loop stamping
        # tokens waits for it (rich's default is ten).
        console=console,
        transient=False,
        refresh_per_second=2,
    ) as bar:
        task = bar.add_task("starting", total=None, tps="-", failed=0)

        def on_start(total: int) -> None:
            stats["t0"] = time.perf_counter()
            bar.update(task, total=total, description=opts.workload_id)

        def on_point(point: Any) -> None:
            load = point_load or f"c={point.concurrency}"
            bar.update(task, description=f"{opts.workload_id} {load}" + (f" ctx={point.context_tokens}" if point.context_tokens else ""))

        def on_record(rec: Any) -> None:
            stats["tokens"] += rec.output_tokens or 0
            stats["failed"] += 0 if rec.ok else 1
            elapsed = time.perf_counter() - (stats["t0"] or time.perf_counter())
            tps = f"{stats['tokens'] / elapsed:,.0f}" if elapsed > 0 else "-"
            bar.update(task, advance=1, tps=tps, failed=stats["failed"])

        def on_status(msg: str) -> None:
            bar.update(task, description=msg)

        def on_notice(msg: str) -> None:
            console.print(msg, markup=False, soft_wrap=True)

        records: list[Path] = []
        progress = progress_cls(on_start=on_start, on_point=on_point, on_record=on_record, on_status=on_status, on_notice=on_notice,
                                on_records=records.append)  # fmt: skip
        try:
            return run_workload(opts, progress)
        except KeyboardInterrupt:
            bar.stop()
            console.print(interrupted_line(records[0] if records else None, bar.tasks[0].total), markup=False, soft_wrap=True)
            raise typer.Exit(130) from None


def interrupted_line(records_path: Path | None, planned: float | None) -> str:
    """What an interrupted run kept: its records so far (each written as it finished), and
    the commands that rebuild a Result from them."""
    if records_path is None or not records_path.is_file():
        return "interrupted: before the first request; nothing was recorded"
    with records_path.open("rb") as fh:
        kept = sum(1 for line in fh if line.startswith(b'{"request_id"'))  # a record line (the header is {"header": ...})
    of = f" of {planned:,.0f}" if planned else ""
    return f"interrupted: {kept}{of} requests recorded in {records_path} (no result.json; servescope summarize, report and export rebuild it from the records)"


@engine_app.command("start", epilog=epilog("engine start"))
def engine_start(
    parallel: Annotated[int, typer.Option(help="Slots (concurrent sequences).")] = 4,
    ctx_per_slot: Annotated[int, typer.Option(help="Context tokens per slot.")] = 4096,
    threads: Annotated[int, typer.Option(help="CPU threads.")] = 1,
    engine_model: Annotated[
        str, typer.Option(help="The model to serve: servescope-tiny-llama (random weights, for timing) or smollm2-135m (a real instruct model, fetched once).")
    ] = "servescope-tiny-llama",
) -> None:
    """Start the embedded engine in the background (builds or fetches its model on first use)."""
    from servescope.bench.engine import start_detached
    from servescope.bench.engine.models import check_engine_model, engine_model_args, ensure_engine_model

    check_count(parallel, "--parallel", high=1024, what="slots")
    check_count(ctx_per_slot, "--ctx-per-slot", low=16, high=10_000_000, what="tokens")
    check_count(threads, "--threads", high=1024, what="CPU threads")
    check_engine_model(engine_model)
    st = start_detached(
        parallel=parallel,
        ctx_per_slot=ctx_per_slot,
        threads=threads,
        model=ensure_engine_model(engine_model),
        alias=engine_model,
        extra_args=engine_model_args(engine_model),
    )
    _console().print(f"{st.message}\nendpoint: {st.state.openai_base_url if st.state else '-'}  model: {st.state.model_name if st.state else '-'}")


@engine_app.command("status", epilog=epilog("engine status"))
def engine_status() -> None:
    """Say whether the embedded engine is running, and where."""
    from servescope.bench.engine import status
    from servescope.bench.engine.lifetime import embedded_servers, reap_orphans

    console = _console()
    for gone in reap_orphans():
        console.print(f"stopped an orphaned embedded llama-server (pid {gone.pid}, port {gone.port}; its servescope {gone.parent_pid} had died)")
    for entry in embedded_servers():
        console.print(f"embedded llama-server pid {entry.pid} at http://127.0.0.1:{entry.port} (for servescope pid {entry.parent_pid})")
    st = status()
    console.print(st.message)
    raise typer.Exit(0 if st.running else 1)


@engine_app.command("stop", epilog=epilog("engine stop"))
def engine_stop() -> None:
    """Stop the background embedded engine."""
    from servescope.bench.engine import stop_detached
    from servescope.bench.engine.lifetime import reap_orphans

    console = _console()
    for gone in reap_orphans():
        console.print(f"stopped an orphaned embedded llama-server (pid {gone.pid}, port {gone.port})")
    console.print(stop_detached().message)
