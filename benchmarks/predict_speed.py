#!/usr/bin/env python
"""Speed of the predictor: wall time to simulate N requests, configurations
searched per second, and how both grow with requests and concurrency.

Every figure is the best of ``--repeats`` runs (the machine's speed, not its
background load) and is split into its stages:

- ``sim``: the discrete-event simulation alone (``api.run_simulation``);
- ``records``: + building the per-request ``RequestRecord``s (one time stamp per token);
- ``full``: ``api.simulate`` end to end - records, ``analysis.metrics.aggregate``
  per point, the ``Prediction`` and the simulated ``Result``.

"N requests" are N *measured* requests replayed by the default steady-state rule
(``predict.replay``): the warm-up (one request per client) and the cool-down
requests that keep the loop full are simulated on top and counted in
``simulated_requests``. ``--harness burst`` times the replay before the rule.

``search`` stops a level's run once its TTFT percentile is certain to break the
SLO (``stopped_early`` counts those runs); ``--no-give-up`` times every level to its end.

Usage (repository root, package installed)::

    .venv/bin/python benchmarks/predict_speed.py            # ~1-2 min on 2 cores
    .venv/bin/python benchmarks/predict_speed.py --quick    # a smoke run
    .venv/bin/python benchmarks/predict_speed.py --round    # one JSON line: the headline figures
    .venv/bin/python benchmarks/predict_speed.py --opcodes  # one JSON line: their Python opcodes (~1 min)

``--round`` times only the headline figures (search cases, best of 5, 1 and 2
processes; 10,000 requests at c = 8 / 64 / 256, best of 3; wall time and, for one
process, the process's CPU time ``cpu_s``) and prints them as one JSON line, so that two versions can be timed turn about on a shared machine
(``PYTHONPATH=OTHER/src`` runs another checkout's servescope with this script).

Each run says whether the simulator ran compiled (``compiled_simulator``: ``servescope.native_sim``
built for these sources); ``SERVESCOPE_PURE_PYTHON=1`` times the pure Python beside it.

``--opcodes`` counts instead of timing: the Python opcodes executed (and Python calls made)
by each search case in one process and by 10,000 requests at c = 8 end to end, as one JSON
line (~1 min). The count is the same from run to run whatever else the machine runs, so a
change's effect on the interpreter's work shows even when the shared VM's load hides it in
the timings; work done in C (numpy, builtins) is not counted, so it complements the timings,
it does not replace them.

Results: benchmarks/results/predict_speed.json and tables on stdout.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

if "--opcodes" in sys.argv:  # sys.settrace sees only Python: count the simulator's pure-Python source
    os.environ["SERVESCOPE_PURE_PYTHON"] = "1"

import servescope.predict.sim as sim
from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.predict.api import prepare, run_simulation, simulate
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.outputs import build_records
from servescope.predict.search import search
from servescope.predict.workload_input import SyntheticWorkload

OUT = Path(__file__).parent / "results" / "predict_speed.json"


def best_of(repeats: int, fn: Any, cpu: list[float] | None = None) -> float:
    """Best wall time of ``repeats`` calls; ``cpu`` gets the best CPU time of this process."""
    times, cpu_times = [], []
    for _ in range(repeats):
        gc.collect()
        t, c = time.perf_counter(), time.process_time()
        fn()
        times.append(time.perf_counter() - t)
        cpu_times.append(time.process_time() - c)
    if cpu is not None:
        cpu.append(min(cpu_times))
    return min(times)


def stages(dep: Deployment, n: int, conc: int, isl: int, osl: int, repeats: int, harness: str = "steady") -> dict[str, Any]:
    prepared = prepare(SyntheticWorkload((conc,), isl, osl, num_requests=n, harness=harness))
    first = run_simulation(prepared, dep)
    events = first.events
    sim = best_of(repeats, lambda: run_simulation(prepared, dep))
    rec = best_of(repeats, lambda: build_records(run_simulation(prepared, dep)))
    full = best_of(repeats, lambda: simulate(prepared, dep))
    return {
        "harness": harness,
        "requests": n,
        "simulated_requests": len(first.requests),
        "concurrency": conc,
        "isl": isl,
        "osl": osl,
        "tokens_out": n * osl,
        "events": events,
        "sim_s": round(sim, 4),
        "records_s": round(rec, 4),
        "full_s": round(full, 4),
        "requests_per_s_sim": round(n / sim),
    }


def _give_up(off: bool) -> dict[str, bool]:
    # (only when asked: a checkout from before the TTFT give-up rule has no such argument)
    return {"give_up": False} if off else {}


SEARCH_CASES = (
    ("70b", "llama-3.1-70b", dict(concurrency=(16, 64, 256), isl=1024, osl=256, requests_per_concurrency=2, min_requests=16)),
    ("8b-three", "llama-3.1-8b", dict(concurrency=(16, 64, 256), isl=1024, osl=256, requests_per_concurrency=2, min_requests=16)),
    ("8b-one", "llama-3.1-8b", dict(concurrency=(32,), isl=512, osl=128, num_requests=32)),
)


def one_round(no_give_up: bool) -> None:
    """The headline figures of whichever servescope is first on sys.path, as one JSON line."""
    cat = Catalog.load([])
    row: dict[str, Any] = {"servescope": str(Path(search.__code__.co_filename).parents[2]), "compiled_simulator": sim.NATIVE, "load_avg_1m": os.getloadavg()[0]}
    for name, model, spec in SEARCH_CASES:
        work = SyntheticWorkload(**spec)  # type: ignore[arg-type]
        for workers in (1, 2):
            outs, cpu_s = [], []
            for _ in range(5):
                # CPU time of this process: the steadier figure on a shared machine (one process only:
                # the workers' time is not counted)
                cpu0 = time.process_time()
                outs.append(search(model, "h100-sxm", 8, "ttft_ms<=1000,itl_ms<=50", work, catalog=cat, workers=workers, **_give_up(no_give_up)))
                cpu_s.append(time.process_time() - cpu0)
            best = min(outs, key=lambda o: o.wall_s)
            row[f"search {name} w{workers}"] = {"wall_s": round(best.wall_s, 4), "configurations_per_s": round(best.configurations_per_s, 1),
                                                "simulations": best.simulations, "stopped_early": getattr(best, "gave_up", 0)}  # fmt: skip
            if workers == 1:
                row[f"search {name} w1"]["cpu_s"] = round(min(cpu_s), 4)
    scen = Scenario(name="bench-llama-8b-h100-tp1", model="llama-3.1-8b", hardware="h100-sxm", engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]
    dep = deploy(scen, catalog=cat)
    for c in (8, 64, 256):
        prepared = prepare(SyntheticWorkload((c,), 1024, 256, num_requests=10_000))
        sim_cpu: list[float] = []
        full_cpu: list[float] = []
        row[f"10k c{c} sim_s"] = round(best_of(3, lambda p=prepared: run_simulation(p, dep), sim_cpu), 4)
        row[f"10k c{c} full_s"] = round(best_of(3, lambda p=prepared: simulate(p, dep), full_cpu), 4)
        row[f"10k c{c} sim_cpu_s"] = round(sim_cpu[0], 4)
        row[f"10k c{c} full_cpu_s"] = round(full_cpu[0], 4)
    print(json.dumps(row))


def count_opcodes(fn: Any) -> tuple[int, int]:
    """(Python opcodes executed, Python calls made) by ``fn()``: ``sys.settrace``'s opcode events,
    a count of the interpreter's work that the machine's load does not change."""
    counts = [0, 0]

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        if event == "call":
            counts[1] += 1
            frame.f_trace_opcodes = True
            frame.f_trace_lines = False
            return tracer
        if event == "opcode":
            counts[0] += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return counts[0], counts[1]


def opcode_round() -> None:
    """The headline cases' Python work (``count_opcodes``) for whichever servescope is first on sys.path, as one JSON line."""
    cat = Catalog.load([])
    row: dict[str, Any] = {"servescope": str(Path(search.__code__.co_filename).parents[2])}
    for name, model, spec in SEARCH_CASES:
        work = SyntheticWorkload(**spec)  # type: ignore[arg-type]

        def one(model: str = model, work: SyntheticWorkload = work) -> None:
            search(model, "h100-sxm", 8, "ttft_ms<=1000,itl_ms<=50", work, catalog=cat, workers=1)

        one()  # the catalog's caches and the imports first: the count is then the same on every run
        ops, calls = count_opcodes(one)
        row[f"search {name} w1"] = {"opcodes": ops, "python_calls": calls}
    scen = Scenario(name="bench-llama-8b-h100-tp1", model="llama-3.1-8b", hardware="h100-sxm", engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]
    dep = deploy(scen, catalog=cat)
    prepared = prepare(SyntheticWorkload((8,), 1024, 256, num_requests=10_000))
    simulate(prepared, dep)
    ops, calls = count_opcodes(lambda: simulate(prepared, dep))
    row["10k c8 full"] = {"opcodes": ops, "python_calls": calls}
    print(json.dumps(row))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="fewer sizes, one repeat")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--harness", default="steady", help="replay of the closed-loop points (predict --harness)")
    ap.add_argument("--no-give-up", action="store_true", help="search: simulate every level to its end (no TTFT give-up rule)")
    ap.add_argument("--round", action="store_true", help="one JSON line of the headline figures (turn-about comparisons)")
    ap.add_argument("--opcodes", action="store_true", help="one JSON line of the headline cases' Python opcodes (a load-independent count)")
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    if args.round and args.opcodes:
        ap.error("--round times and --opcodes counts: give one of them")
    if args.round:
        one_round(args.no_give_up)
        return
    if args.opcodes:
        opcode_round()
        return
    h = args.harness
    repeats = 1 if args.quick else args.repeats
    cat = Catalog.load([])
    scen = Scenario(name="bench-llama-8b-h100-tp1", model="llama-3.1-8b", hardware="h100-sxm", engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]
    dep = deploy(scen, catalog=cat)
    report: dict[str, Any] = {
        "machine": {
            "cpus": os.cpu_count(),
            "cpu": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "load_avg_1m": os.getloadavg()[0],
        },
        "compiled_simulator": sim.NATIVE,
        "scenario": "llama-3.1-8b on 1 x h100-sxm, vLLM defaults (1024 seqs, 8192 batched tokens)",
    }
    print("## 10,000 requests (ISL 1024, OSL 256)")
    report["harness"] = h
    report["search_give_up"] = not args.no_give_up
    headline = [stages(dep, 10_000, c, 1024, 256, repeats, h) for c in ((64,) if args.quick else (8, 64, 256))]
    report["ten_thousand"] = headline
    for r in headline:
        print(
            f"  c={r['concurrency']:>4}: sim {r['sim_s']:.3f} s, +records {r['records_s']:.3f} s, full {r['full_s']:.3f} s "
            f"({r['events']} events, {r['simulated_requests']} requests simulated)"
        )

    print("## growth with requests (c=64)")
    sizes = (1000, 10_000) if args.quick else (1000, 2500, 5000, 10_000, 20_000)
    growth_n = [stages(dep, n, 64, 1024, 256, repeats, h) for n in sizes]
    report["growth_requests"] = growth_n
    for r in growth_n:
        print(f"  n={r['requests']:>6}: sim {r['sim_s']:.3f} s, full {r['full_s']:.3f} s")

    print("## growth with concurrency (10,000 requests)")
    levels = (1, 64) if args.quick else (1, 8, 64, 256, 1024)
    growth_c = [stages(dep, 10_000, c, 1024, 256, repeats, h) for c in levels]
    report["growth_concurrency"] = growth_c
    for r in growth_c:
        print(
            f"  c={r['concurrency']:>5}: sim {r['sim_s']:.3f} s, full {r['full_s']:.3f} s ({r['events']} events, {r['simulated_requests']} requests simulated)"
        )

    print("## configurations searched per second")
    searches = []
    cases = [
        ("llama-3.1-70b", 8, SyntheticWorkload((16, 64, 256), 1024, 256, requests_per_concurrency=2, min_requests=16, harness=h)),
        ("llama-3.1-8b", 8, SyntheticWorkload((16, 64, 256), 1024, 256, requests_per_concurrency=2, min_requests=16, harness=h)),
        ("llama-3.1-8b", 8, SyntheticWorkload((32,), 512, 128, num_requests=32, harness=h)),
    ]
    for (model, gpus, work), workers in [(case, w) for case in (cases[:1] if args.quick else cases) for w in (1, 2)]:
        best = None
        for _ in range(repeats):
            gc.collect()
            out = search(model, "h100-sxm", gpus, "ttft_ms<=1000,itl_ms<=50", work, catalog=cat, workers=workers, **_give_up(args.no_give_up))
            if best is None or out.wall_s < best.wall_s:
                best = out
        assert best is not None
        row = {
            "model": model,
            "workers": workers,
            "gpus": gpus,
            "workload": work.id,
            "requests_per_level": [work.requests_at(c) for c in work.concurrency],
            "configurations": best.configurations,
            "simulated_configurations": best.configurations - len(best.skipped),
            "simulations": best.simulations,
            "stopped_early": getattr(best, "gave_up", 0),
            "wall_s": round(best.wall_s, 3),
            "configurations_per_s": round(best.configurations_per_s, 1),
            "simulated_configurations_per_s": round((best.configurations - len(best.skipped)) / best.wall_s, 1),
        }
        searches.append(row)
        print(
            f"  {model} on {gpus} GPUs, {work.id}, {workers} process(es): {row['configurations']} configs ({row['simulations']} sims, {row['stopped_early']} stopped early) in {row['wall_s']} s = {row['configurations_per_s']}/s"
        )
    report["search"] = searches
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
