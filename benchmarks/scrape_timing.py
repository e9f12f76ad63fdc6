#!/usr/bin/env python
"""Does reading the engine's ``/metrics`` disturb token timing?

The timing-truth server (``servescope.testing.truth.server``, its own process)
writes every token at a scheduled time, logs ``perf_counter_ns()`` just before
each write, and serves a recorded real vLLM 0.32 ``/metrics`` page (52 KB,
tests/bench/fixtures/vllm_0.32_cpu_metrics.txt). servescope measures it through
``bench.execute.run_point`` — the path every ``servescope run`` takes, records
written as they finish — with the progress bar the CLI draws (rich, to a
terminal-like sink), and each token's receipt stamp is held against the log
(``testing.truth.errors.Pairing``):

    ITL error = (client gap k) - (server gap k); bunched = client gaps < 0.1 ms
    (the server's gaps are 10 ms, so a bunched gap is tokens stamped together).

Modes, interleaved in each repeat so machine noise hits them alike:

- ``none``: no scraping (``--no-scrape``);
- ``thread``: the shipped sampler (its own thread, needed families only), 0.5 s;
- ``thread-fast``: the same at 0.05 s, ten times the default rate;
- ``on-loop``: what servescope did before: the whole page fetched and parsed on
  the event loop every 0.5 s (kept here only as the contrast).

Usage (repository root, package installed)::

    .venv/bin/python benchmarks/scrape_timing.py               # 3 repeats, ~2 min
    .venv/bin/python benchmarks/scrape_timing.py --repeats 1   # a smoke run

Results: benchmarks/results/scrape_timing.json and a table on stdout. Loopback
only; every load is bounded (requests x tokens) and the script stops by itself.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import platform
import statistics
import time
from pathlib import Path
from typing import Any

import numpy as np
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from servescope.bench.client import make_session
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec, run_point
from servescope.bench.records import RecordWriter
from servescope.bench.scrape import MetricsSampler
from servescope.testing.truth.contrast import OnLoopSampler
from servescope.testing.truth.errors import Pairing
from servescope.testing.truth.server import TruthServer
from servescope.workload.plan import PlannedPoint, PlannedRequest

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
PAGE = ROOT / "tests" / "bench" / "fixtures" / "vllm_0.32_cpu_metrics.txt"
RESULTS = HERE / "results" / "scrape_timing.json"
ITL_MS = 10.0
TTFT_MS = 20.0
LOOP = "asyncio"
BAR = True


MODES: dict[str, Any] = {
    "none": lambda url: None,
    "thread": lambda url: MetricsSampler(url, 0.5),
    "thread-fast": lambda url: MetricsSampler(url, 0.05, max_interval_s=0.05),
    "on-loop": lambda url: OnLoopSampler(url, 0.5),
}


def _cpu_other() -> float:
    """Load average of the last minute (the benchmark's own processes included)."""
    return os.getloadavg()[0]


def measure(mode: str, concurrency: int, requests: int, tokens: int, work: Path, tag: str) -> dict[str, Any]:
    with TruthServer(ttft_ms=TTFT_MS, itl_ms=ITL_MS, metrics_file=PAGE) as srv:
        sampler = MODES[mode](srv.base_url)
        endpoint = Endpoint.create(srv.base_url, model="truth")
        reqs = [PlannedRequest(f"{tag}-{i}", f"[truth-id:{tag}-{i}] hello", f"p{i}", tokens, None) for i in range(requests)]
        point = PlannedPoint(index=0, concurrency=concurrency, requests=reqs)
        sink = Console(file=open(os.devnull, "w"), force_terminal=True, width=160)  # noqa: SIM115 - closed below

        async def go() -> tuple[int, Any]:
            async with make_session() as session:
                with Progress(
                    TextColumn("[bold]{task.description}"),
                    BarColumn(),
                    MofNCompleteColumn(),
                    TextColumn("{task.fields[tps]} tok/s"),
                    TimeElapsedColumn(),
                    console=sink,
                    refresh_per_second=2,
                    disable=not BAR,
                ) as bar:
                    task = bar.add_task(tag, total=requests, tps="-")
                    done = {"tokens": 0}

                    def on_record(rec: Any) -> None:  # what the CLI does per record
                        done["tokens"] += rec.output_tokens or 0
                        bar.update(task, advance=1, tps=f"{done['tokens']:,}")

                    t0 = time.perf_counter_ns()
                    with RecordWriter(work / f"{tag}.jsonl") as writer:
                        out = await run_point(
                            session,
                            endpoint,
                            point,
                            writer,
                            t0_ns=t0,
                            timeout_s=120,
                            temperature=0.0,
                            seed=None,
                            load=LoadSpec(),
                            sampler=sampler,
                            on_record=on_record,
                        )
                    return t0, out

        load_before = _cpu_other()
        if LOOP == "uvloop":
            import uvloop

            t0, outcome = uvloop.run(go())
        else:
            t0, outcome = asyncio.run(go())
        sink.file.close()
        log = srv.read_log()
    pairing = Pairing()
    gaps: list[int] = []
    server_gaps: list[int] = []
    for rec in outcome.records:
        pairing.add(rec.request_id, [t0 + c for c in rec.chunk_ns], log.get(rec.request_id))
        gaps.extend(np.diff(rec.chunk_ns).tolist())
        server_gaps.extend(np.diff((log.get(rec.request_id) or {}).get("token_ns") or []).tolist())
    # The error of the figure a Result reports: client ITL percentile minus the server's.
    metric_err = {q: (float(np.percentile(gaps, q) - np.percentile(server_gaps, q)) / 1e6 if gaps and server_gaps else None) for q in (50, 99)}
    s = pairing.summary()
    itl = s["itl_abs_error_ms"] or {}
    stats = sampler.stats.as_metadata() if sampler is not None else None
    return {
        "mode": mode,
        "concurrency": concurrency,
        "requests": requests,
        "failed": sum(1 for r in outcome.records if not r.ok),
        "matched": s["requests_matched"],
        "itl_err_p50_ms": itl.get("p50"),
        "itl_err_p99_ms": itl.get("p99"),
        "itl_err_max_ms": itl.get("max"),
        "itl_p50_metric_err_ms": metric_err[50],
        "itl_p99_metric_err_ms": metric_err[99],
        "ttft_err_p50_ms": (s["ttft_abs_error_ms"] or {}).get("p50"),
        "bunched_fraction": float(np.mean(np.asarray(gaps) < 100_000)) if gaps else None,
        "scrape": stats,
        "loadavg_1m_before": load_before,
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--concurrency", default="16,64", help="comma-separated stream counts")
    ap.add_argument("--requests-per-stream", type=int, default=6)
    ap.add_argument("--tokens", type=int, default=48)
    ap.add_argument("--modes", default=",".join(MODES))
    ap.add_argument("--loop", choices=["asyncio", "uvloop"], default="asyncio", help="the client's event loop (servescope picks uvloop when installed)")
    ap.add_argument("--no-bar", action="store_true", help="draw no progress bar (the CLI draws one)")
    ap.add_argument("--out", type=Path, default=RESULTS)
    a = ap.parse_args(argv)
    global LOOP, BAR
    LOOP, BAR = a.loop, not a.no_bar
    modes = [m for m in a.modes.split(",") if m]
    unknown = [m for m in modes if m not in MODES]
    if unknown:
        ap.error(f"unknown mode(s) {unknown}; known: {', '.join(MODES)}")
    levels = [int(x) for x in a.concurrency.split(",") if x]
    work = Path(os.environ.get("TMPDIR", "/tmp")) / "servescope-scrape-timing"
    work.mkdir(parents=True, exist_ok=True)
    rows: list[dict[str, Any]] = []
    for rep in range(a.repeats):
        for conc in levels:
            for mode in modes:
                row = measure(mode, conc, conc * a.requests_per_stream, a.tokens, work, f"{mode}-c{conc}-r{rep}")
                row["repeat"] = rep
                rows.append(row)
                print(
                    f"rep {rep} c={conc:<4} {mode:<12} ITL err p50 {row['itl_err_p50_ms']:.3f} p99 {row['itl_err_p99_ms']:.3f} "
                    f"max {row['itl_err_max_ms']:.2f} ms  bunched {100 * row['bunched_fraction']:.2f} %  load {row['loadavg_1m_before']:.2f}",
                    flush=True,
                )
    print("\nmedian over repeats (min-max):")
    print(f"{'c':>5} {'mode':<12} {'ITL err p50 ms':>18} {'ITL err p99 ms':>18} {'bunched %':>16} {'parse ms mean':>14} {'p99 figure err ms':>20}")
    summary = []
    for conc in levels:
        for mode in modes:
            sel = [r for r in rows if r["mode"] == mode and r["concurrency"] == conc]

            def rng(key: str, scale: float = 1.0, sel: list[dict[str, Any]] = sel) -> tuple[float, float, float]:
                v = [r[key] * scale for r in sel if r[key] is not None]
                return statistics.median(v), min(v), max(v)

            p50, p99, bunched = rng("itl_err_p50_ms"), rng("itl_err_p99_ms"), rng("bunched_fraction", 100.0)
            fig99 = rng("itl_p99_metric_err_ms")
            parse = [r["scrape"]["parse_ms_mean"] for r in sel if r["scrape"] and r["scrape"]["parse_ms_mean"] is not None]
            parse_s = f"{statistics.median(parse):.2f}" if parse else "-"
            print(
                f"{conc:>5} {mode:<12} {p50[0]:>6.3f} ({p50[1]:.3f}-{p50[2]:.3f}) {p99[0]:>6.2f} ({p99[1]:.2f}-{p99[2]:.2f}) "
                f"{bunched[0]:>5.2f} ({bunched[1]:.2f}-{bunched[2]:.2f}) {parse_s:>14} {fig99[0]:>+7.3f} ({fig99[1]:+.3f}-{fig99[2]:+.3f})"
            )
            summary.append(
                {
                    "concurrency": conc,
                    "mode": mode,
                    "itl_err_p50_ms": p50,
                    "itl_err_p99_ms": p99,
                    "bunched_pct": bunched,
                    "parse_ms_mean": parse_s,
                    "itl_p99_figure_err_ms": fig99,
                    "itl_p50_figure_err_ms": rng("itl_p50_metric_err_ms"),
                }
            )
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(
        json.dumps(
            {
                "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
                "machine": {"cpus": os.cpu_count(), "python": platform.python_version(), "platform": platform.platform()},
                "page": {"file": str(PAGE.relative_to(ROOT)), "bytes": PAGE.stat().st_size},
                "itl_ms": ITL_MS,
                "ttft_ms": TTFT_MS,
                "tokens": a.tokens,
                "loop": a.loop,
                "progress_bar": not a.no_bar,
                "summary": summary,
                "runs": rows,
            },
            indent=1,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"\nwrote {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
