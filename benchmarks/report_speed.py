"""How long `servescope report` takes on 1,000 Results, how big the site is, and how
long its pages take to load in headless Chromium.

    .venv/bin/python benchmarks/report_speed.py [--results 1000] [--out benchmarks/results/report_speed.json]

The Results are built with the document models: 10 workloads x 10 configurations
(model x hardware x engine) x 10 repeats, each a 4-point concurrency sweep; the
tenth repeat of each configuration is a simulated Result (a prediction), paired with
the nine measured ones, so pairing and the error chart are exercised too. Generation time = `write_report` from reading
the files to the last page written (the goal: < 5 s), in wall and CPU seconds. Page load = `goto` until
the load event and every chart's SVG is drawn, in Debian's chromium driven by
playwright (goal: usable, i.e. a few seconds at most)."""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import tempfile
import time
from pathlib import Path

from servescope.documents import (
    Distribution,
    Metadata,
    Metrics,
    Result,
    ResultPoint,
    config_id,
)
from servescope.documents.result import HardwareIdentity, Identity, ModelIdentity
from servescope.report import write_report

MODELS = ("llama-3.1-8b", "qwen2.5-7b", "mistral-nemo-12b", "llama-3.1-70b", "qwen3-32b")
HARDWARE = (("h100-sxm", "vllm"), ("h200", "sglang"))
CONCURRENCY = (1, 4, 16, 64)


def _dist(v: float) -> Distribution:
    return Distribution(count=100, mean=v * 1.1, p50=v, p90=v * 1.5, p95=v * 1.7, p99=v * 2, min=v * 0.8, max=v * 2.2, std=v * 0.2)


def make_result(i: int) -> Result:
    workload = f"serve-bench-c{i % 10}-v1"
    config = (i // 10) % 10
    model = MODELS[config % len(MODELS)]
    hardware, engine = HARDWARE[config // len(MODELS)]
    version = "0.29.0" if engine == "vllm" else "0.5.2"
    simulated = i // 100 == 9  # the tenth repeat of every configuration: paired with the nine measured
    args = {"--max-num-seqs": 64 * (1 + config)}
    points = []
    for c in CONCURRENCY:
        n = 8 * c
        m = Metrics(
            total_requests=n,
            completed_requests=n,
            failed_requests=0,
            success_rate=1.0,
            duration_s=10.0,
            output_tokens_total=256 * n,
            output_tokens_per_sec=40.0 * c**0.8 * (1 + config / 10) * (1 + (i % 7) / 100),
            ttft_ms=_dist(20 + 3 * c),
            itl_ms=_dist(5 + c / 8),
            tpot_ms=_dist(5 + c / 8),
            e2e_ms=_dist(1300 + 40 * c),
        )
        points.append(ResultPoint(concurrency=c, metrics=m))
    total = sum(p.metrics.total_requests or 0 for p in points)
    return Result(
        run_id=f"bench-{i:04d}",
        workload_id=workload,
        config_id=config_id(engine, version, args),
        timing_mode="simulated" if simulated else "explicit",
        engine=Identity(id=engine, version=version),
        model=ModelIdentity(id=model),
        hardware=HardwareIdentity(id=hardware),
        args=args,
        resolved_params={},
        metrics=Metrics(total_requests=total, completed_requests=total, failed_requests=0, success_rate=1.0),
        points=points,
        throughput=total,
        metadata=Metadata(
            pipeline_mode="deterministic" if simulated else "llm_live",
            non_deterministic=not simulated,
            harness="servescope-sim" if simulated else "servescope",
            started_at=f"2026-12-01T10:{i % 60:02d}:00+00:00",
        ),
    )


def page_load_ms(paths: list[Path]) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    out = {}
    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        ctx = pw.chromium.launch_persistent_context(
            profile,
            executable_path="/usr/bin/chromium",
            headless=True,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
            ],
        )
        page = ctx.new_page()
        for path in paths:
            times = []
            for _ in range(3):
                t0 = time.perf_counter()
                page.goto(path.as_uri(), wait_until="load")
                page.wait_for_function("() => Array.from(document.querySelectorAll('.chart')).every(c => c.querySelector('.main-svg'))")
                times.append((time.perf_counter() - t0) * 1000)
            out[path.name] = statistics.median(times)
        ctx.close()
    return out


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--results", type=int, default=1000)
    ap.add_argument("--out", type=Path, default=Path("benchmarks/results/report_speed.json"))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        runs = root / "runs"
        runs.mkdir()
        for i in range(args.results):
            (runs / f"bench-{i:04d}.json").write_text(json.dumps(make_result(i).dump()), encoding="utf-8")
        times, cpu = [], []
        for k in range(3):
            t0, c0 = time.perf_counter(), time.process_time()
            files = write_report([runs], root / f"site{k}")
            times.append(time.perf_counter() - t0)
            cpu.append(time.process_time() - c0)
        site = root / "site0"
        sizes = {p: p.stat().st_size for p in site.rglob("*") if p.is_file()}
        workload_pages = sorted((site / "workloads").glob("*.html"), key=lambda p: -p.stat().st_size)
        loads = page_load_ms([site / "index.html", workload_pages[0], next((site / "runs").glob("*.html"))])
        record = {
            "results": args.results,
            "pages": files.pages,
            "generation_s": {"median": statistics.median(times), "runs": times},
            # CPU seconds of this process: what a quiet machine's wall time would approach
            "generation_cpu_s": {"median": statistics.median(cpu), "runs": cpu},
            "site_bytes": sum(sizes.values()),
            "plotly_js_bytes": (site / "assets" / "plotly.min.js").stat().st_size,
            "index_bytes": (site / "index.html").stat().st_size,
            "largest_workload_page_bytes": workload_pages[0].stat().st_size,
            "page_load_ms": loads,
            "machine": f"{platform.machine()}, {platform.python_version()}, {os.cpu_count()} cores, 1-min load {os.getloadavg()[0]:.2f} at the end",
        }
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2))


if __name__ == "__main__":
    main()
