"""Every option of ``servescope run`` checked before anything starts.

Nothing is launched, asked or written until the options make sense: a rate, timeout or
shape that is not a finite positive number, a port outside 1..65535, an unset
``--api-key-env`` variable, an ``--out`` that names a file, a concurrency past
``limits.MAX_CONCURRENCY`` — each is one ``UsageError`` line (exit 2). Checks that
need the workload or the endpoint (request fields, engine flags) stay where those are
known, still before the first request.
"""

from __future__ import annotations

import math
import os
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from servescope import limits
from servescope.errors import EndpointError, UsageError
from servescope.output_paths import check_output_folder
from servescope.redaction import redact

if TYPE_CHECKING:
    from servescope.bench.run_spec import RunOptions
    from servescope.workload.load_build import ResolvedLoad

ARRIVALS = ("poisson", "gamma", "constant")
APIS = ("chat", "completions")


def positive_number(value: float | None, option: str, example: str, *, maximum: float | None = None) -> None:
    """``value`` is None or a finite number > 0 (and <= ``maximum``), else one line."""
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{option} {value!r}: give a finite number > 0, e.g. {example}")
    if maximum is not None and value > maximum:
        raise UsageError(f"{option} {value:g} is above the limit of {maximum:g}")


def check_endpoint_url(url: str) -> None:
    """An http(s) URL with a host and, if given, a port in 1..65535; credentials are never echoed."""
    from servescope.bench.endpoint import normalize_base_url

    try:
        normalize_base_url(url)
        port = urlsplit(url.strip()).port
    except EndpointError as exc:
        raise UsageError(f"--endpoint: {exc}") from None
    except ValueError:
        raise UsageError(f"--endpoint {redact(url)!r}: the port must be a number in 1..65535") from None
    if port is not None and not 1 <= port <= 65535:
        raise UsageError(f"--endpoint {redact(url)!r}: the port must be in 1..65535")
    if not urlsplit(url.strip()).hostname:
        raise UsageError(f"--endpoint {redact(url)!r}: no host; give e.g. http://127.0.0.1:8000/v1")


def check_out_dir(out: Path) -> None:
    """``--out`` is a folder, or can become one (no file in the way, files can be created)."""
    check_output_folder(out, "--out")


def check_run_options(opts: RunOptions) -> None:
    """Raise ``UsageError`` (one line) for the first option that cannot be acted on."""
    if opts.api not in APIS:
        raise UsageError(f"--api {opts.api!r}: use chat or completions")
    if opts.arrival not in ARRIVALS:
        raise UsageError(f"--arrival {opts.arrival!r}: use poisson, gamma or constant")
    positive_number(opts.rate, "--rate", "--rate 4 (requests per second)", maximum=1e6)
    if opts.rate is None and opts.arrival != "poisson":
        raise UsageError(f"--arrival {opts.arrival} needs --rate (without a rate the load is a closed loop)")
    positive_number(opts.gamma_shape, "--gamma-shape", "--gamma-shape 0.5 (1 = Poisson)", maximum=1e6)
    if opts.gamma_shape != 1.0 and opts.arrival != "gamma":
        raise UsageError(f"--gamma-shape {opts.gamma_shape:g} only shapes --arrival gamma (the arrivals are {opts.arrival})")
    positive_number(opts.timeout_s, "--timeout", "--timeout 600 (seconds per request)", maximum=7 * 24 * 3600)
    positive_number(opts.scrape_interval_s, "--scrape-interval", "--scrape-interval 0.5", maximum=3600)
    for level in opts.concurrency or []:
        if not 1 <= level <= limits.MAX_CONCURRENCY:
            raise UsageError(f"--concurrency {level}: give levels in 1..{limits.MAX_CONCURRENCY:,} (SERVESCOPE_MAX_CONCURRENCY)")
    if opts.embedded_parallel is not None and not 1 <= opts.embedded_parallel <= 1024:
        raise UsageError(f"--parallel {opts.embedded_parallel}: give 1..1024 slots")
    if not 16 <= opts.embedded_ctx_per_slot <= 10_000_000:
        raise UsageError(f"--ctx-per-slot {opts.embedded_ctx_per_slot}: give 16..10,000,000 tokens")
    if opts.endpoint is not None:
        check_endpoint_url(opts.endpoint)
    if opts.api_key_env is not None and not os.environ.get(opts.api_key_env):
        raise UsageError(f"--api-key-env {opts.api_key_env}: that environment variable is not set or empty")
    check_workers(opts.workers, opts.ray_address)
    check_out_dir(Path(opts.out_dir))


# What one request of a run holds until its Result is made, measured with tracemalloc on
# CPython 3.12: its planned request (~360 B) and its record (~830 B); the prompt text built
# before the first send (ASCII, ~4-5 characters a token) and the record's arrival time of
# each streamed token (an int and its list slot, ~40 B).
REQUEST_BYTES = 1_200
PROMPT_BYTES_PER_TOKEN = 6
RECORD_BYTES_PER_OUTPUT_TOKEN = 40


def check_run_memory(resolved: ResolvedLoad) -> None:
    """An ad-hoc load whose plan and records would not fit ``limits.MAX_RUN_MEMORY_BYTES`` is
    one line before anything is planned: every prompt is built before the first send and
    every record is kept until the Result is made, so a 100,000,000-request load grew by GBs
    without sending anything."""
    load = resolved.load
    if load.source == "catalog" or (load.source == "workload-file" and resolved.workload is None):
        return  # the catalog's workloads are published with counts that fit
    if resolved.workload is not None:  # a Workload file: its dataset's prompts are shared, each request keeps its record
        params, sweep = resolved.workload.params, resolved.workload.sweep
        points = len(sweep.values) if sweep is not None else 1
        per_point = (params.warmup_requests or 0) + (params.num_requests or 0)
        requests = per_point * points
        need = requests * (REQUEST_BYTES + RECORD_BYTES_PER_OUTPUT_TOKEN * (params.output_tokens or 0))
        what = (
            f"Workload {resolved.workload.id!r} (params.num_requests {params.num_requests or 0:,}"
            + (f" + warmup_requests {params.warmup_requests:,}" if params.warmup_requests else "")
            + (f", {points} sweep points)" if points > 1 else ")")
        )
        fix = "give a smaller params.num_requests"
    elif load.source == "trace" and resolved.trace is not None:
        requests = len(resolved.trace.requests)
        need = sum(REQUEST_BYTES + PROMPT_BYTES_PER_TOKEN * r.input_length + RECORD_BYTES_PER_OUTPUT_TOKEN * r.output_length
                   for r in resolved.trace.requests)  # fmt: skip
        what, fix = f"--trace {resolved.trace.path} ({requests:,} requests)", "give --num-requests N to replay its first N"
    elif load.sessions is not None and load.turns is not None:
        requests = load.sessions * load.turns  # each turn's new text, and its answer's text kept for the next turn
        each = REQUEST_BYTES + PROMPT_BYTES_PER_TOKEN * ((load.isl or 0) + (load.osl or 0)) + RECORD_BYTES_PER_OUTPUT_TOKEN * (load.osl or 0)
        need = requests * each
        what, fix = f"--sessions {load.sessions:,} x --turns {load.turns:,}", "give fewer --sessions or --turns"
    else:  # synthetic prompts are built each of its length; a prompt file's are held once, however often they are sent
        warm, levels = load.warmup_requests or 0, len(load.levels)
        requests = (warm + (load.num_requests or 0)) * levels
        each = REQUEST_BYTES + PROMPT_BYTES_PER_TOKEN * (load.isl or 0) + RECORD_BYTES_PER_OUTPUT_TOKEN * (load.osl or 0)
        need = requests * each
        what = f"--num-requests {load.num_requests:,}" + (f" (+{warm:,} warm-up)" if warm else "") + (f" at {levels} levels" if levels > 1 else "")
        fix = f"give at most --num-requests {max(1, limits.MAX_RUN_MEMORY_BYTES // (each * levels) - warm):,}"
    if need > limits.MAX_RUN_MEMORY_BYTES:
        raise UsageError(
            f"{what}: the run would hold about {_gib(need)} in memory (every prompt is built before the first send and every "
            f"record is kept until the Result is made), more than {_gib(limits.MAX_RUN_MEMORY_BYTES)} (SERVESCOPE_MAX_RUN_MEMORY_BYTES); "
            f"{fix}, or split the load into several runs (summarize pools their results)"
        )


def _gib(n: int) -> str:
    return f"{n / 1024**3:,.1f} GiB" if n >= 1024**3 else f"{n / 1024**2:,.1f} MiB"


# Kinds whose running is the shared loop over points (bench.runners): those a split run can deal out.
SPLIT_KINDS = ("serving", "sweep", "prefill", "longctx")
MAX_WORKERS = 1024
LOCAL_WORKERS_PER_CPU = 4  # past this, local client processes only take turns on the CPUs (and memory: ~60 MB each)


def check_workers(workers: int, ray_address: str | None) -> None:
    """``--workers`` is a count of client processes in 1..MAX_WORKERS; ``--ray`` needs Ray installed."""
    if isinstance(workers, bool) or not isinstance(workers, int) or not 1 <= workers <= MAX_WORKERS:
        raise UsageError(f"--workers {workers!r}: give a number of client processes in 1..{MAX_WORKERS}, e.g. --workers 2 (1 = this process alone)")
    cpus = os.cpu_count() or 1
    if ray_address is None and workers > LOCAL_WORKERS_PER_CPU * cpus:
        raise UsageError(
            f"--workers {workers}: this host has {cpus} CPUs, and more than {LOCAL_WORKERS_PER_CPU} client processes a CPU only compete for them; "
            f"give --workers ≤ {LOCAL_WORKERS_PER_CPU * cpus}, or place them on a Ray cluster with --ray ADDRESS"
        )
    if ray_address is not None:
        if not ray_address.strip():
            raise UsageError(f"--ray {ray_address!r}: give the cluster's address (host:port, as `ray start --head` prints it) or auto")
        import importlib.util

        if importlib.util.find_spec("ray") is None:
            from servescope.bench.worker_links import RAY_MISSING

            raise UsageError(RAY_MISSING)


def check_workers_kind(workers: int, ray_address: str | None, kind: str) -> None:
    """A split run deals out the shared loop over points; a kind with its own running is refused."""
    if (workers > 1 or ray_address is not None) and kind not in SPLIT_KINDS:
        option = f"--workers {workers}" if workers > 1 else "--ray"
        raise UsageError(f"{option}: a workload of kind {kind} runs in one client process (its kinds that split: {', '.join(SPLIT_KINDS)}); drop {option}")


__all__ = ["MAX_WORKERS", "SPLIT_KINDS", "check_endpoint_url", "check_out_dir", "check_run_options", "check_workers", "check_workers_kind", "positive_number"]
