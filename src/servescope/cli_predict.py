"""``servescope predict | calibrate | search | probe``: the predicting side's
commands. Library entry points live in ``servescope.predict``; this module parses,
calls and prints."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ParamSpec, TypeVar

import typer
from rich.console import Console

from servescope.cli_args import check_count, check_number, check_seed
from servescope.errors import BadArgument
from servescope.output_paths import check_output_file, check_output_folder

if TYPE_CHECKING:  # imported lazily at run time: the CLI starts without them
    from servescope.documents import EvaluationRun, Result

_P = ParamSpec("_P")
_R = TypeVar("_R")


def _console() -> Console:
    import sys

    return Console(highlight=False, width=None if sys.stdout.isatty() else 160)


def _ints(text: str | None, flag: str) -> list[int] | None:
    """``run``'s rule for a list of levels (``cli_args.parse_levels``): an empty list or level, a
    level that is not a whole number >= 1, or one given twice is one line."""
    from servescope.cli_args import parse_levels

    # (a batch limit's upper bound is the simulator's, said where it applies: search's own check)
    return parse_levels(text, flag, example="1,8,64", high=sys.maxsize if flag == "--max-num-seqs" else None)


def _is_file_name(text: str) -> bool:
    """A Scenario file rather than a catalog name (catalog names have no suffix or slash)."""
    return text.lower().endswith((".yaml", ".yml", ".json")) or "/" in text or os.sep in text


def _load_measured(path: Path) -> EvaluationRun | Result:
    from servescope.documents import EvaluationRun, Result, load

    loaded = load(path)
    errors = [i for i in loaded.issues if i.level == "error"]
    if errors:
        raise BadArgument(errors[0].format(str(path)))
    if not isinstance(loaded.document, (EvaluationRun, Result)):
        raise BadArgument(f"{path}: is a {type(loaded.document).__name__}; give a measured EvaluationRun or Result")
    return loaded.document


def _value_errors_as_one_line(fn: Callable[_P, _R]) -> Callable[_P, _R]:
    import functools

    @functools.wraps(fn)
    def wrapper(*args: _P.args, **kwargs: _P.kwargs) -> _R:
        try:
            return fn(*args, **kwargs)
        except ValueError as exc:
            raise BadArgument(str(exc)) from exc

    return wrapper


def _stages(text: str) -> tuple[tuple[float, float], ...]:
    out = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        rate, sep, seconds = part.partition(":")
        try:
            if not sep:
                raise ValueError
            stage = (float(rate), float(seconds))
        except ValueError as exc:
            raise BadArgument(f"--stages: cannot read {part!r}; write RATE:SECONDS,... e.g. 5:60,10:60") from exc
        if not all(math.isfinite(v) and v > 0 for v in stage):
            raise BadArgument(f"--stages {part!r}: rate and seconds must be finite numbers > 0, e.g. 5:60,10:60")
        out.append(stage)
    if not out:
        raise BadArgument("--stages: write RATE:SECONDS,... e.g. 5:60,10:60")
    return tuple(out)


def _synthetic_modes(workload: str | None, levels: list[int] | None, rate: float | None, isl: int | None,
                     osl: int | None, flags: dict[str, bool]) -> str | None:  # fmt: skip
    """The one mode asked for (--max-throughput, --max-rate, --stages), checked against the other options."""
    given = [name for name, on in flags.items() if on]
    if len(given) > 1:
        raise BadArgument(f"give one of {', '.join(flags)} (got {' and '.join(given)})")
    if not given:
        return None
    mode = given[0]
    if workload is not None:
        raise BadArgument(f"{mode} predicts a synthetic --isl/--osl workload; leave the WORKLOAD argument out")
    if levels is not None or rate is not None:
        raise BadArgument(f"{mode} sets its own load; leave --concurrency and --rate out")
    if isl is None or osl is None:
        raise BadArgument(f"{mode} needs --isl and --osl")
    return mode


def _differs(path: Path, prediction: Any) -> bool:
    """Whether the prediction already written at ``path`` is another one than ``prediction`` (its
    points, interval, seed or calibration differ): then neither is lost."""
    try:
        old = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False  # unreadable: replaced, as before
    from servescope.redaction import redact_obj

    new = json.loads(json.dumps(redact_obj(prediction.dump())))  # as write_json writes it
    keep = ("date",)  # a re-run of the same prediction on another day is the same prediction
    return {k: v for k, v in old.items() if k not in keep} != {k: v for k, v in new.items() if k not in keep}


def _free_folder(folder: Path) -> Path:
    """``folder-2``, ``folder-3``, ...: the first that does not exist."""
    n = 2
    while (candidate := folder.with_name(f"{folder.name}-{n}")).exists():
        n += 1
    return candidate


@_value_errors_as_one_line
def predict_command(
    scenario: Annotated[str, typer.Argument(help="Scenario name from the catalog (e.g. llama-3.1-8b-on-h100) or a Scenario file (.yaml/.json).")],
    workload: Annotated[
        str | None,
        typer.Argument(help="Workload id or a Workload file's path; or give --isl/--osl with --concurrency and/or --rate, --trace or --input-file."),
    ] = None,
    concurrency: Annotated[str | None, typer.Option(help="Concurrency levels, e.g. 1,8,64 (overrides the workload's).")] = None,
    isl: Annotated[int | None, typer.Option(help="Synthetic workload: input tokens per request.")] = None,
    osl: Annotated[int | None, typer.Option(help="Synthetic workload: output tokens per request.")] = None,
    num_requests: Annotated[int | None, typer.Option(help="Synthetic workload: measured requests per point.")] = None,
    harness: Annotated[
        str | None,
        typer.Option(
            help="Replay a closed-loop point as this client runs it: steady, burst, vllm, inferencex, aiperf, genai-perf, guidellm. "
            "Unstated: the figures are steady state's and the interval spans steady and burst (how the client started is unknown)."
        ),
    ] = None,
    warmup_requests: Annotated[int | None, typer.Option(help="Synthetic closed loop: warm-up requests (default: the harness's).")] = None,
    range_ratio: Annotated[float | None, typer.Option(help="Synthetic workload: lengths uniform in L(1±r) (default: the harness's; steady 0.1).")] = None,
    endpoint: Annotated[
        str | None,
        typer.Option(
            help="With --harness vllm: the API vllm bench serve calls, completions (its default) or chat (--backend openai-chat: "
            "its ITL also times the chat stream's chunks without text)."
        ),
    ] = None,
    rate: Annotated[float | None, typer.Option(help="Open loop: requests per second (alone: one point labelled by its rate).")] = None,
    arrival: Annotated[str, typer.Option(help="poisson, gamma or constant.")] = "poisson",
    gamma_shape: Annotated[float, typer.Option(help="Gamma arrivals: shape.")] = 1.0,
    max_throughput: Annotated[
        bool, typer.Option("--max-throughput", help="Offline: every request at t = 0 (trtllm-bench, MLPerf Offline); reports output tok/s.")
    ] = False,
    max_rate: Annotated[bool, typer.Option("--max-rate", help="The highest Poisson rate meeting --slo (bisection over simulated probes).")] = False,
    slo: Annotated[str | None, typer.Option(help="--max-rate limits, e.g. 'p99_ttft_ms<=2000,p99_tpot_ms<=100' (no prefix: p99).")] = None,
    tolerance: Annotated[float, typer.Option(help="--max-rate: stop when the rate is known within this fraction of capacity.")] = 0.02,
    stages: Annotated[str | None, typer.Option(help="Staged Poisson rates RATE:SECONDS,..., e.g. 5:60,10:60 (one point per stage).")] = None,
    trace: Annotated[
        Path | None,
        typer.Option(
            help="Replay a Mooncake/aiperf trace (JSONL: timestamp ms, input_length, output_length, hash_ids) in the simulator, e.g. --trace trace.jsonl."
        ),
    ] = None,
    speedup: Annotated[float | None, typer.Option(help="--trace: replay this many times faster than recorded, e.g. 2.")] = None,
    input_file: Annotated[
        Path | None, typer.Option(help="Predict the prompts of a file: JSONL of prompt or messages (optional max_tokens) or ShareGPT JSON.")
    ] = None,
    sessions: Annotated[
        int | None, typer.Option(help="Multi-turn: conversations at once, each resending its history, as `run --sessions` sends them, e.g. 4.")
    ] = None,
    turns: Annotated[int | None, typer.Option(help="Multi-turn: turns per conversation, e.g. 5 (with --sessions, --isl, --osl).")] = None,
    think_time_ms: Annotated[float | None, typer.Option(help="Multi-turn: pause between an answer and the next turn, e.g. 500.")] = None,
    system_prompt_tokens: Annotated[
        int | None, typer.Option(help="Multi-turn: each session opens with a system message of this many tokens, resent every turn, e.g. 1024.")
    ] = None,
    seed: Annotated[int, typer.Option(help="Simulation seed (same seed → identical output).")] = 0,
    calibration: Annotated[Path | None, typer.Option(help="A Calibration file from `servescope calibrate`.")] = None,
    model_config: Annotated[Path | None, typer.Option(help="A local HF config.json to use as the model.")] = None,
    router: Annotated[str, typer.Option(help="DP router: round-robin or least-loaded.")] = "round-robin",
    out: Annotated[Path, typer.Option(help="Folder to write prediction.json, result.json and records.jsonl into.")] = Path("predictions"),
) -> None:
    """Predict how SCENARIO serves a workload (simulated; no GPU needed) and write a Prediction."""
    from servescope.predict.api import format_table, load_scenario, predict
    from servescope.predict.replay import replay
    from servescope.predict.workload_input import SyntheticWorkload

    check_output_folder(out)
    harness_unstated = harness is None
    harness = harness or "steady"
    levels = _ints(concurrency, "--concurrency")
    check_number(rate, "--rate", low=0, low_open=True, example="--rate 4 (requests per second)")
    check_number(gamma_shape, "--gamma-shape", low=0, low_open=True, example="--gamma-shape 0.5 (1 = Poisson)")
    check_count(num_requests, "--num-requests")
    check_count(warmup_requests, "--warmup-requests", low=0)
    check_seed(seed)
    if arrival not in ("poisson", "gamma", "constant"):
        raise BadArgument(f"--arrival {arrival!r}: use poisson, gamma or constant")
    try:
        replay(harness)
    except ValueError as exc:
        raise BadArgument(f"--harness: {exc}") from exc
    from_file = trace is not None or input_file is not None
    modes_given = [name for name, on in (("--max-throughput", max_throughput), ("--max-rate", max_rate), ("--stages", stages is not None)) if on]
    if from_file and modes_given:
        raise BadArgument(f"{'--trace' if trace is not None else '--input-file'} sets its own load; leave {modes_given[0]} out")
    mode = _synthetic_modes(workload, levels, rate, isl, osl,
                            {"--max-throughput": max_throughput, "--max-rate": max_rate, "--stages": stages is not None})  # fmt: skip
    if slo is not None and mode != "--max-rate":
        raise BadArgument("--slo is read by --max-rate only (servescope search takes its own --slo)")
    if workload is not None and (harness != "steady" or warmup_requests is not None or range_ratio is not None or endpoint is not None):
        raise BadArgument("--harness, --warmup-requests, --range-ratio and --endpoint shape a synthetic --isl/--osl workload; "
                          "a catalog workload runs its own plan")  # fmt: skip
    if workload is not None and (given := [f for f, v in (("--isl", isl), ("--osl", osl), ("--num-requests", num_requests)) if v is not None]):
        raise BadArgument(f"{' and '.join(given)} with workload {workload}: a workload sets its own lengths and request count; "
                          "leave the workload out for a synthetic load of your own, or the options out for the workload's")  # fmt: skip
    if endpoint is not None and mode == "--max-rate":
        raise BadArgument("--endpoint is not applied to --max-rate's probes (their ITL is servescope's client's: chunks with text)")
    session_flags = {"--sessions": sessions is not None, "--turns": turns is not None, "--think-time-ms": think_time_ms is not None,
                     "--system-prompt-tokens": system_prompt_tokens is not None}  # fmt: skip
    multi_turn = next((name for name, on in session_flags.items() if on), None)
    if multi_turn is not None and workload is None and not from_file:
        # what run has no flag for, refused here (build_load refuses the rest, in run's words)
        others = {**dict.fromkeys(modes_given, True), "--harness": not harness_unstated, "--endpoint": endpoint is not None,
                  "--speedup": speedup is not None, "--arrival": arrival != "poisson", "--gamma-shape": gamma_shape != 1.0}  # fmt: skip
        clash = next((name for name, on in others.items() if on), None)
        if clash is not None:
            raise BadArgument(f"{multi_turn} and {clash} contradict: the sessions run at once, each sending its turns one after another "
                              "as servescope's client does (`run --sessions`); leave " + clash + " out")  # fmt: skip
    if from_file and (harness != "steady" or endpoint is not None):
        raise BadArgument(f"--harness and --endpoint shape a synthetic --isl/--osl workload; {'--trace' if trace is not None else '--input-file'} "
                          "is simulated as servescope's client sends it")  # fmt: skip
    resolved_load = None
    if multi_turn is not None or (
        # servescope's own starts (steady, burst) replay the load run sends, labelled as run labels it and with
        # --isl counted as the engine counts it; another client's replay (vllm, aiperf, ...) builds its own prompts
        mode is None and (workload is None or _is_file_name(workload) or from_file) and (harness in ("steady", "burst") or range_ratio is not None or from_file)
    ):
        from servescope.workload.load_build import LoadRequest, build_load

        resolved_load = build_load(
            LoadRequest(workload=workload, isl=isl, osl=osl, num_requests=num_requests, concurrency=levels, rate=rate, arrival=arrival,
                        gamma_shape=gamma_shape, range_ratio=range_ratio, seed=seed, warmup_requests=warmup_requests, trace=trace,
                        speedup=speedup, input_file=input_file, sessions=sessions, turns=turns, think_time_ms=think_time_ms,
                        system_prompt_tokens=system_prompt_tokens),
            require_requests=False,
        )  # fmt: skip
    elif speedup is not None or from_file:
        raise BadArgument("--trace, --speedup and --input-file describe a load of their own; give them without a WORKLOAD or --harness")
    scen: object = load_scenario(scenario) if _is_file_name(scenario) else scenario
    common = {"calibration": str(calibration) if calibration else None,
              "model_config": str(model_config) if model_config else None, "router": router,
              "date": dt.date.today().isoformat()}  # fmt: skip
    if mode == "--max-rate":
        from servescope.predict.max_rate import predict_max_rate
        from servescope.predict.search import parse_slos

        if not slo:
            raise BadArgument("--max-rate needs --slo, e.g. 'p99_ttft_ms<=2000,p99_tpot_ms<=100'")
        if not 0 < tolerance < 1:
            raise BadArgument("--tolerance: give a fraction in (0, 1), e.g. 0.02")
        assert isl is not None and osl is not None
        run, found = predict_max_rate(
            scen,  # type: ignore[arg-type]
            isl,
            osl,
            parse_slos(slo),
            num_requests=num_requests,
            tolerance=tolerance,
            harness=harness,
            range_ratio=range_ratio,
            arrival=arrival,
            seed=seed,
            **common,  # type: ignore[arg-type]
        )
        lines = [f"highest Poisson rate meeting {slo}: {found.rate:.4g} req/s"
                 + (" (the offline capacity: throughput, not latency, is the limit)" if found.at_capacity else
                    f" (within {100 * found.tolerance:g} % of the {found.capacity_rps:.4g} req/s capacity)"),
                 f"capacity from the offline point, then {len(found.probes)} probes of {found.num_requests} requests "
                 "(req/s, meets the limits?): " + ", ".join(f"{p.rate:.4g} {'yes' if p.ok else 'no'}" for p in found.probes)]  # fmt: skip
    else:
        lines = []
        load_record = resolved_load.load.record() if resolved_load is not None else None
        if resolved_load is not None and resolved_load.load.sessions is not None:
            wl: object = resolved_load  # multi-turn sessions: the plan run sends, simulated turn by turn (predict.sessions)
            levels = rate = None
        elif resolved_load is not None and resolved_load.load.source != "synthetic":
            wl = resolved_load  # a trace, a prompt file or a Workload file: planned as the harness plans it
            if resolved_load.load.source != "workload-file":
                levels = rate = None  # the load's own
        elif workload is None:
            if isl is None or osl is None or (levels is None and rate is None and mode is None):
                raise BadArgument("give a WORKLOAD id, or --isl and --osl with --concurrency (closed loop) and/or --rate "
                                  "(open loop), or --max-throughput, --max-rate or --stages")  # fmt: skip
            if mode == "--stages" and num_requests is not None:
                raise BadArgument("--stages: each stage sends rate x seconds requests; leave --num-requests out")
            if warmup_requests is not None and (mode is not None or levels is None or rate is not None):
                raise BadArgument("--warmup-requests applies to a closed-loop --concurrency point")
            # from a load: --range-ratio means what it means to run (default 0, exact lengths), and the label is the load's
            wl = SyntheticWorkload(
                concurrency=tuple(levels or ()), isl=isl, osl=osl, num_requests=num_requests,
                range_ratio=resolved_load.load.range_ratio if resolved_load is not None else range_ratio,
                rate=rate if levels is None else None, harness=harness, warmup_requests=warmup_requests,
                offline=mode == "--max-throughput", stages=_stages(stages) if stages else (), endpoint=endpoint,
                label=resolved_load.load.label if resolved_load is not None else None,
                whole_prompt=resolved_load is not None,  # as run sends a load: --isl is what the engine counts
            )  # fmt: skip
            levels = None
        else:
            wl = workload
        run = predict(
            scen,  # type: ignore[arg-type]
            wl,  # type: ignore[arg-type]
            concurrency=levels,
            rate=rate,
            arrival=arrival,
            gamma_shape=gamma_shape,
            seed=seed,
            load_record=load_record,
            **common,  # type: ignore[arg-type]
        )
        # an open loop (--rate, with or without a --concurrency cap) has no first wave: its start is its arrivals
        if harness_unstated and isinstance(wl, SyntheticWorkload) and wl.concurrency and rate is None and mode is None:
            run = _with_burst_reading(run, scen, wl, seed, common)
            lines.append(
                "client start not stated: figures are steady state; the interval spans steady state and a wave sent at once. "
                "servescope's own `run` of this load starts its streams at once, with exact lengths: it sits at the burst end, "
                "which --harness burst predicts alone (same label, so compare pairs it with the run); "
                "vllm bench serve with exact lengths too: --harness vllm (benchmarks/docs/client-start-check.md)"
            )
    folder = out / run.prediction.name
    if (folder / "prediction.json").is_file() and _differs(folder / "prediction.json", run.prediction):
        # another prediction of the same name (another seed, calibration or option): kept, never overwritten
        folder = _free_folder(folder)
        print(f"note: {out / run.prediction.name} holds another prediction of this name; this one goes to {folder}", file=sys.stderr)
    check_output_folder(folder)  # --out was checked before the work; its run folder is known only now
    folder.mkdir(parents=True, exist_ok=True)
    run = _result_with_point_intervals(run)
    run.prediction.write_json(folder / "prediction.json")
    run.result.write_json(folder / "result.json")
    with (folder / "records.jsonl").open("w", encoding="utf-8") as fh:
        for rec in run.records:
            fh.write(rec.to_json() + "\n")
    for line in run.warnings:
        print(f"warning: {line}", file=sys.stderr)
    console = _console()
    for line in lines:
        console.print(line, markup=False, soft_wrap=True)  # one line each, whatever the width (grep finds it whole)
    console.print(format_table(run.prediction), markup=False)
    if run.result is not None and run.result.resolved_params.get("turns"):
        from servescope.cli_run import format_turn  # the lines run prints for the same load

        for row in run.result.resolved_params["turns"]:
            console.print(format_turn(row), markup=False)
    if run.result is not None and run.result.blocked_by_reason_code:
        # failures are results: say how many and why (each record says its own)
        codes = run.result.blocked_by_reason_code
        why = ", ".join(f"{category} {n}" for category, n in sorted(codes.items()))
        total = run.result.metrics.total_requests
        console.print(f"failed: {sum(codes.values())}{f' of {total}' if total is not None else ''} measured requests ({why}); "
                      "records.jsonl gives each one's reason", markup=False)  # fmt: skip
    for note in run.notes:
        console.print(f"note: {note}", markup=False)
    measured = sum(1 for r in run.records if r.phase == "measured")
    console.print(f"simulated {len(run.records)} requests ({measured} measured; {run.events} events) in {run.wall_s:.2f} s",
                  markup=False)  # fmt: skip
    console.print(f"prediction: {folder / 'prediction.json'}\nresult: {folder / 'result.json'}", markup=False)


def _with_burst_reading(run: Any, scen: object, wl: Any, seed: int, common: dict[str, Any]) -> Any:
    """``run`` whose points' intervals also cover the first-wave-at-once reading (predict.semantics)."""
    from dataclasses import replace

    from servescope.predict.api import predict
    from servescope.predict.semantics import envelope

    burst = predict(scen, replace(wl, harness="burst", warmup_requests=None, range_ratio=None), seed=seed, **common)  # type: ignore[arg-type]
    return replace(run, prediction=envelope(run.prediction, burst.prediction))


def _result_with_point_intervals(run: Any) -> Any:
    """``run`` whose simulated Result carries the prediction's interval as the Prediction has it: the
    block (factors, basis) and each point's own [low, high] per field, which the factors alone do not
    give (a known-miss regime widens some points, an unstated client start spans the burst reading, E2E
    has no factor): ``compare`` and ``report`` read a prediction's folder by its result.json."""
    from dataclasses import replace

    from servescope.analysis.predicted_intervals import STORED_POINT_INTERVALS

    result, prediction = run.result, run.prediction
    if result is None or prediction.interval is None:
        return run
    block = prediction.interval.model_dump(mode="json")
    block[STORED_POINT_INTERVALS] = [{"concurrency": p.concurrency, "intervals": p.intervals} for p in prediction.points]
    return replace(run, result=result.model_copy(update={"resolved_params": {**result.resolved_params, "prediction_interval": block}}))


@_value_errors_as_one_line
def calibrate_command(
    scenario: Annotated[str, typer.Argument(help="Scenario that was measured: a catalog name or a Scenario file (.yaml/.json).")],
    measured: Annotated[Path, typer.Option("--from", help="The measured EvaluationRun or Result.")],
    factors: Annotated[str | None, typer.Option(help="Factors to fit, comma-separated (default: the usual few).")] = None,
    metrics: Annotated[str | None, typer.Option(help="Metrics to fit, e.g. ttft_ms,itl_ms,output_tokens_per_sec.")] = None,
    out: Annotated[Path | None, typer.Option(help="Calibration file to write (default: calibration-SCENARIO.json).")] = None,
) -> None:
    """Fit the step-time model's efficiency and overhead factors to a measurement; report MAPE before/after."""
    from servescope.predict.api import load_scenario
    from servescope.predict.calibrate import DEFAULT_FIT, DEFAULT_METRICS, calibrate

    if out is not None:
        check_output_file(out)
    doc = _load_measured(measured)
    scen = load_scenario(scenario) if _is_file_name(scenario) else None
    outcome = calibrate(
        scen or scenario,
        doc,
        factors=[f.strip() for f in factors.split(",")] if factors else DEFAULT_FIT,
        metrics=[m.strip() for m in metrics.split(",")] if metrics else DEFAULT_METRICS,
        fitted_from=str(measured),
        date=dt.date.today().isoformat(),
    )
    path = out or Path(f"calibration-{scen.name if scen else scenario}.json")
    if out is None:  # the default name, made from the scenario's
        check_output_file(path)
    outcome.document.write_json(path)
    for line in outcome.warnings:
        print(f"warning: {line}", file=sys.stderr)
    console = _console()
    console.print(f"{'metric':<24} {'MAPE before %':>14} {'MAPE after %':>13}", markup=False)
    for m, before in outcome.document.mape_before.items():
        console.print(f"{m:<24} {before:>14.1f} {outcome.document.mape_after.get(m, float('nan')):>13.1f}", markup=False)
    console.print(f"factors: {json.dumps(outcome.document.factors)}", markup=False)
    console.print(f"calibration: {path} (use it with `servescope predict --calibration {path}`)", markup=False)


@_value_errors_as_one_line
def search_command(
    model: Annotated[str, typer.Option(help="Model id from the catalog.")],
    hardware: Annotated[str, typer.Option(help="Hardware id from the catalog.")],
    gpus: Annotated[int, typer.Option(help="Devices to spend.")],
    slo: Annotated[str, typer.Option(help="SLOs, e.g. ttft_ms<=500,itl_ms<=30.")],
    workload: Annotated[str | None, typer.Option(help="Workload id (or --isl/--osl/--concurrency).")] = None,
    isl: Annotated[int | None, typer.Option(help="Synthetic: input tokens.")] = None,
    osl: Annotated[int | None, typer.Option(help="Synthetic: output tokens.")] = None,
    concurrency: Annotated[str | None, typer.Option(help="Levels to try, e.g. 8,32,128 (default: the workload's; --isl/--osl: a sweep).")] = None,
    max_num_seqs: Annotated[str | None, typer.Option(help="max_num_seqs choices, e.g. 32,64,128,256.")] = None,
    engines: Annotated[str, typer.Option(help="Engines to try, ENGINE@VERSION,..., e.g. vllm@0.11.0,sglang@0.5.2,trt-llm@1.0.0.")] = "vllm@0.11.0",
    dtypes: Annotated[str, typer.Option(help="Weight dtypes to try, e.g. bf16,fp8.")] = "bf16",
    harness: Annotated[str, typer.Option(help="How a closed-loop level is replayed (see predict --harness).")] = "steady",
    num_requests: Annotated[
        int | None, typer.Option(help="Synthetic: measured requests per level, e.g. 200 (default: the harness's; aiperf, genai-perf and guidellm need it).")
    ] = None,
    percentile: Annotated[float, typer.Option(help="Percentile an SLO without a prefix applies to (p99_ttft_ms<=... names its own).")] = 90.0,
    top: Annotated[int, typer.Option(help="How many configurations to show.")] = 10,
    workers: Annotated[int, typer.Option(help="Local processes to search in (0: one per CPU); each tp, engine and dtype is a part.")] = 0,
    ray: Annotated[
        str | None,
        typer.Option(
            help="Search on a Ray cluster instead: its ADDRESS (HOST:PORT, ray://HOST:PORT) or auto (the cluster this host joined; "
            "`ray start --head` starts one). Needs pip install 'servescope\\[ray]'. Same ranking as one process."
        ),
    ] = None,
) -> None:
    """Rank engine/dtype/tp/dp/max_num_seqs choices by throughput per GPU under the SLO (simulated)."""
    import os

    from servescope.predict.search import (
        DEFAULT_SEQS,
        format_search,
        format_warnings,
        parse_dtypes,
        parse_engines,
        search,
    )
    from servescope.predict.workload_input import SyntheticWorkload

    check_count(gpus, "--gpus")
    check_number(percentile, "--percentile", low=0, high=100, low_open=True, example="--percentile 90")
    check_count(top, "--top")
    check_count(workers, "--workers", low=0, high=1024, what="processes (0: one per CPU)")
    if ray is not None:
        if not ray.strip():
            raise BadArgument("--ray: give a Ray cluster's ADDRESS (HOST:PORT or ray://HOST:PORT) or auto")
        if workers:
            raise BadArgument("--ray runs the search on the cluster's workers; leave --workers out (it sets local processes)")
        from servescope.predict.fanout import import_ray

        import_ray()  # before the catalog and the work: one line if Ray is not installed
    levels = _ints(concurrency, "--concurrency")
    engine_list, dtype_list = parse_engines(engines), parse_dtypes(dtypes)
    if workload is None:
        if isl is None or osl is None:
            raise BadArgument("give --workload, or --isl and --osl (with --concurrency)")
        # (the levels are search's: its default sweep, or --concurrency's)
        if num_requests is not None and num_requests < 1:
            raise BadArgument(f"--num-requests {num_requests}: give 1 or more measured requests per level, e.g. --num-requests 200")
        wl: object = SyntheticWorkload(concurrency=tuple(levels or (1,)), isl=isl, osl=osl, harness=harness, num_requests=num_requests)
    else:
        if harness != "steady":
            raise BadArgument("--harness replays a synthetic --isl/--osl workload; a catalog workload runs its own plan")
        if isl is not None or osl is not None or num_requests is not None:
            raise BadArgument(f"--isl/--osl/--num-requests with --workload {workload}: the workload sets its own lengths and count; give one or the other")
        wl = workload
    if not slo.strip():  # (required, and an empty one would rank against no SLO at all)
        raise BadArgument("--slo '': give at least one SLO, e.g. --slo 'ttft_ms<=500,itl_ms<=30'")
    outcome = search(
        model,
        hardware,
        gpus,
        slo,
        wl,  # type: ignore[arg-type]
        engines=engine_list,
        weight_dtypes=dtype_list,
        max_num_seqs=_ints(max_num_seqs, "--max-num-seqs") or DEFAULT_SEQS,
        concurrency=levels if levels or workload is not None else "sweep",
        percentile=percentile,
        workers=workers or os.cpu_count() or 1,
        ray=ray.strip() if ray is not None else None,
    )
    bands, interval_warnings = _search_intervals(outcome, model, hardware, top, isl, osl, workload)
    for line in [*format_warnings(outcome), *interval_warnings]:
        print(f"warning: {line}", file=sys.stderr)
    _console().print(format_search(outcome, top=top, bands=bands), markup=False)


def _search_intervals(
    outcome: Any, model: str, hardware: str, top: int, isl: int | None, osl: int | None, workload: str | None
) -> tuple[dict[str, tuple[float, float]], list[str]]:
    """Each shown configuration's 80 % interval of its best level's out tok/s, as ``predict`` gives it
    (its groups' held-out error, widened where a known-miss regime holds at that level: a search level
    is a closed loop), and the interval's warnings (an engine or hardware generation without validation),
    one line each with how many ranked configurations it concerns."""
    from servescope.catalog.store import Catalog
    from servescope.documents import Scenario
    from servescope.predict.deployment import Deployment, deploy
    from servescope.predict.intervals import Interval, interval_for
    from servescope.predict.regimes import LoadShape, regimes_for, widen
    from servescope.predict.regimes import warning as regime_warning

    cat = Catalog.load()
    mdl, hw = cat.model(model), cat.hardware(hardware)
    if workload is not None:
        params = cat.workload(workload).params
        isl, osl = params.input_tokens, params.output_tokens
    shape = LoadShape(float(isl) if isl else None, float(osl) if osl else None, offline=False, closed_loop=True)
    deployments: dict[tuple[str, str, str, int, int], Deployment] = {}
    intervals: dict[tuple[str, str, str], Interval] = {}
    concerns: dict[str, list[str]] = {}
    bands: dict[str, tuple[float, float]] = {}
    for rank, cand in enumerate(outcome.ranked):  # (a deployment per tp, engine, dtype and cap: ~1 ms each)
        key = (cand.engine, cand.engine_version, cand.weight_dtype, cand.tp, cand.max_num_seqs)
        if key not in deployments:
            scen = Scenario(
                name=f"search-{cand.label}", model=mdl.id, hardware=hw.id, count=outcome.devices, tp=cand.tp, dp=cand.dp,
                engine={"id": cand.engine, "version": cand.engine_version, "max_num_seqs": cand.max_num_seqs},  # type: ignore[arg-type]
                weight_dtype=cand.weight_dtype,
            )  # fmt: skip
            deployments[key] = deploy(scen, catalog=cat, model=mdl, hardware=hw)
        dep = deployments[key]
        if key[:3] not in intervals:
            intervals[key[:3]] = interval_for(dep)
        interval = intervals[key[:3]]
        tput = cand.output_tokens_per_sec
        misses = regimes_for(dep, shape, cand.best_concurrency) if cand.best_concurrency is not None else []
        for line in [*interval.warnings, *(regime_warning(r) for r in misses)]:
            concerns.setdefault(line, []).append(cand.label)
        factors = widen(interval.factors, misses).get("output_tokens_per_sec")
        if rank < top and tput is not None and factors is not None:
            bands[cand.label] = (tput * factors[0], tput * factors[1])
    total = len(outcome.ranked)
    return bands, [f"{line} ({len(labels)} of {total} configurations)" for line, labels in concerns.items()]


def probe_command(
    hw_id: Annotated[str | None, typer.Option("--id", help="Id for the Hardware entry (default: derived from the CPU).")] = None,
    out: Annotated[Path | None, typer.Option(help="Write the Hardware document here (default: print it).")] = None,
) -> None:
    """Measure this machine's memory bandwidth and matmul rate (numpy) and write a Hardware entry."""
    from servescope.predict.probe import probe, to_hardware

    if out is not None:
        check_output_file(out)  # before the minute of measuring
    hw = to_hardware(probe(), hw_id=hw_id, date=dt.date.today().isoformat())
    text = json.dumps(hw.dump(), indent=2) + "\n"
    if out is None:
        print(text, end="")
    else:
        out.write_text(text, encoding="utf-8")
        _console().print(f"{out}: {hw.id}: {hw.memory_bandwidth_gb_s:.1f} GB/s, {max(hw.peak_tflops.values()):.3f} TFLOP/s", markup=False)
