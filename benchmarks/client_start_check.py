#!/usr/bin/env python
"""Do the two client-start readings land where they should, on public points whose client is known?

When ``predict`` is not told how a closed loop's client started, it prints the steady-state
reading and spans the interval to the first-wave-at-once reading (``--harness burst``;
``predict.semantics``). This checks both readings on the closed-loop points of the public
validation set (src/servescope/data/validation) whose EvaluationRun names its client. Each
point is predicted three ways, with zero calibration and the same deployment:

- **steady**: ``SyntheticWorkload((c,), isl, osl)``, what ``predict --isl --osl --concurrency c``
  simulates without ``--harness`` (``replay.REPLAYS["steady"]``);
- **burst**: the same workload with ``harness="burst"`` and the steady rule's warm-up and length
  spread dropped, exactly as ``cli_predict._with_burst_reading`` builds it;
- **own**: the known client's own replay, as ``benchmarks/predict_accuracy.py`` predicts the point
  (``calibrate.fit_cases``: InferenceX's and ``vllm bench serve``'s replays, the point's request
  count, its dataset's lengths and its client's stream timing; the steady rule for a client
  without a documented replay).

Per client and metric (TTFT, ITL or TPOT - whatever the source stored as ``itl_ms`` / its median,
as predict_accuracy scores it -, output tok/s) it reports the share of points whose measurement
lies between the two readings, which reading is closer (in log ratio), where between them the
measurement sits (0 = steady, 1 = burst, on a log scale), the MAPE of each reading and of the
client's own replay, and the share inside the interval ``predict`` prints (the two readings'
80 % intervals merged by ``semantics.envelope``).

These points are IN the validation set: the step-time constants were fitted on part of it and
the shipped intervals were built from its held-out errors. So this checks the client readings
against each other and the measurement, not the predictor's held-out error.

    PYTHONPATH=src .venv/bin/python benchmarks/client_start_check.py              # every third point: ~2-3 min on the loaded 2-core VM
    PYTHONPATH=src .venv/bin/python benchmarks/client_start_check.py --every 1 --out benchmarks/results/client_start_check_all.json   # all 752: 6-8 min

Results: benchmarks/results/client_start_check.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import math
import time
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np

from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import EvaluationPoint, EvaluationRun, load_document
from servescope.documents.prediction import Prediction, PredictionPoint
from servescope.predict.api import prepare, simulate
from servescope.predict.calibrate import HARNESS_REPLAYS, fit_cases, measured_of
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.semantics import envelope
from servescope.predict.workload_input import SyntheticWorkload

HERE = Path(__file__).resolve().parent
OUT = HERE / "results" / "client_start_check.json"
METRICS = ("ttft_ms", "itl_ms", "output_tokens_per_sec")
#: A source that publishes medians only is compared median to median (as ``calibrate._statistic``).
MEDIAN_OF = {"ttft_ms": "ttft_p50_ms", "itl_ms": "itl_p50_ms"}
#: Readings closer than this (ratio) are "indistinct": no reading can be closer, no measurement between.
DISTINCT = 1.05
#: Concurrency bands for the position of the measurement between the readings.
BANDS = ((1, 8, "c 1-8"), (9, 64, "c 16-64"), (65, 10**9, "c >= 80"))
#: The default subsample: every third point (all 752 take 6-8 min on the loaded 2-core VM, over the 5 min budget).
EVERY = 3

#: What each known client does at the start of a closed loop, from its source, and so where its
#: points should land. Keyed by ``client_of``.
EXPECTED: dict[str, dict[str, str]] = {
    "vllm bench serve, exact lengths (silybench)": {
        "source": "vllm-project/vllm vllm/benchmarks/serve.py: get_request() yields every request with delay 0 at "
        "--request-rate inf; benchmark() wraps each in limited_request_func(), an asyncio.Semaphore(max_concurrency), "
        "and creates every task at once, so the first c requests start together and each later one the moment a slot "
        "frees; warm-ups (--num-warmups) run before 'Starting main benchmark run' and are not measured; every request "
        "is measured. vllm/benchmarks/datasets.py RandomDataset: --random-range-ratio 0 gives every request the same "
        "lengths; silybench adds --ignore-eos.",
        "expect": "identical requests started together finish together and re-enter together: the waves persist for "
        "all 5 x c requests, so the burst reading should be the closer one on every metric (the median ITL is a "
        "decode-only step's) and the client's own replay (--harness vllm) closest",
    },
    "vllm bench serve, ShareGPT lengths (GPUStack)": {
        "source": "as above (vllm bench serve --max-concurrency 4, request rate inf); ShareGPT prompts and outputs of "
        "widely varying length (vllm/benchmarks/datasets.py ShareGPTDataset).",
        "expect": "the first wave starts together, then ShareGPT's spread of lengths de-synchronises the loop within a "
        "request or two: near steady state; at c = 4 the two readings barely differ",
    },
    "InferenceX (vLLM's benchmark_serving.py, range ratio 0.8)": {
        "source": "SemiAnalysisAI/InferenceX utils/bench_serving/benchmark_serving.py: benchmark() creates every task "
        "behind asyncio.Semaphore(max_concurrency) in limited_request_func(), get_request() does not wait at "
        "--request-rate inf, warm-ups run before 'Starting main benchmark run'; 10 x c prompts "
        "(benchmarks/benchmark_lib.sh), lengths uniform in [0.8 L, L] (sample_random_requests).",
        "expect": "the first wave (1/10 of the measured requests) starts together and pays c prefills at once; lengths "
        "spread over 20 % then de-synchronise the loop. Mean TTFT should lie between the readings, above steady "
        "state; TPOT near steady state (between, or at its end); the client's own replay (--harness inferencex) closest",
    },
    "aiperf, settings not stated (NVIDIA NIM)": {
        "source": "the NIM guide names AIPerf but not its request count, warm-up or length spread; predict_accuracy "
        "replays it by the steady-state rule (calibrate.HARNESS_REPLAYS has no entry for it).",
        "expect": "no expectation can be derived: the run does not say how the client started (its own replay is the steady reading)",
    },
}
SGLANG = "sglang.bench_serving (DataCrunch)"
NOT_CHECKED = {
    SGLANG: "sgl-project/sglang python/sglang/bench_serving.py: benchmark() puts every "
    "request behind asyncio.Semaphore(max_concurrency) (limited_request_func) and get_request() does not wait at "
    "request rate inf; one warm-up request (--warmup-requests 1) runs and is gathered before the measured run: the "
    "same first-wave-at-once start as vllm bench serve. The set's 20 sglang-bench-serving points are offline bursts "
    "and open-loop Poisson points, none a closed loop: nothing to check here.",
}


def client_of(run: EvaluationRun) -> str | None:
    """The known client a closed-loop run names, labelled by what decides its start (None: no known client)."""
    harness = run.harness.lower()
    if harness == "inferencex":
        return "InferenceX (vLLM's benchmark_serving.py, range ratio 0.8)"
    if harness == "vllm-bench-serve":
        return "vllm bench serve, ShareGPT lengths (GPUStack)" if run.dataset == "sharegpt" else "vllm bench serve, exact lengths (silybench)"
    if harness == "aiperf":
        return "aiperf, settings not stated (NVIDIA NIM)"
    if harness == "sglang-bench-serving":
        return SGLANG
    return None


def closed_loop(p: EvaluationPoint) -> bool:
    """A closed-loop point: no arrival rate, and more requests than clients (not an offline burst)."""
    return p.request_rate is None and not (p.completed_requests is not None and p.completed_requests <= p.concurrency)


def statistic(p: EvaluationPoint, metric: str) -> str | None:
    """The field the source published for ``metric``: the mean, else its median; None: neither."""
    for name in (metric, MEDIAN_OF.get(metric)):
        if name is not None and (v := getattr(p, name, None)) is not None and math.isfinite(v) and v > 0:
            return name
    return None


def value(point: PredictionPoint | None, field: str) -> float | None:
    v = getattr(point, field, None) if point is not None else None
    return float(v) if v is not None and math.isfinite(v) and v > 0 else None


def readings(p: EvaluationPoint, dep: Deployment) -> tuple[Prediction, Prediction]:
    """The steady and burst predictions of one point, built as ``predict`` builds them when the client is unstated."""
    isl = max(1, (p.mean_isl or 0) - dep.template_tokens)
    steady = SyntheticWorkload((p.concurrency,), isl, p.mean_osl or 1)
    burst = replace(steady, harness="burst", warmup_requests=None, range_ratio=None)  # cli_predict._with_burst_reading
    return simulate(prepare(steady), dep, documents=False).prediction, simulate(prepare(burst), dep, documents=False).prediction


def own_replay(run: EvaluationRun, points: list[EvaluationPoint], dep: Deployment, scen: Any, cat: Catalog) -> dict[int, PredictionPoint]:
    """The client's own replay of ``points``, as predict_accuracy predicts them (``calibrate.fit_cases``)."""
    sub = run.model_copy(update={"points": points})
    out: dict[int, PredictionPoint] = {}
    for case in fit_cases(measured_of(sub), scen, cat, dep.template_tokens):
        pred = {q.concurrency: q for q in simulate(case.prepared, dep, documents=False).prediction.points}
        for mp in case.points:
            if (q := pred.get(mp.concurrency)) is not None:
                out[mp.concurrency] = q
    return out


def first_wave_share(run: EvaluationRun, p: EvaluationPoint) -> float | None:
    """The first wave's share of the measured requests, c / N, where the client's count is known:
    ``vllm bench serve`` measures the point's --num-prompts (its completed requests), InferenceX 10 c."""
    rep = HARNESS_REPLAYS.get(run.harness.lower())
    if rep is None:
        return None
    n = p.completed_requests if rep.name == "vllm" else rep.measured_at(p.concurrency)
    return min(1.0, p.concurrency / n) if n else None


def check_point(run: EvaluationRun, p: EvaluationPoint, dep: Deployment, own: PredictionPoint | None) -> dict[str, Any]:
    steady, burst = readings(p, dep)
    printed = envelope(steady, burst)  # the interval predict prints when the client is unstated
    s = next((q for q in steady.points if q.concurrency == p.concurrency), None)
    b = next((q for q in burst.points if q.concurrency == p.concurrency), None)
    e = next((q for q in printed.points if q.concurrency == p.concurrency), None)
    row: dict[str, Any] = {"run": run.name, "concurrency": p.concurrency, "mean_isl": p.mean_isl, "mean_osl": p.mean_osl}
    for m in METRICS:
        field = statistic(p, m)
        if field is None:
            continue
        meas = float(getattr(p, field))
        interval = (e.intervals or {}).get(field) if e is not None else None
        row[m] = {
            "statistic": field,
            "measured": meas,
            "steady": value(s, field),
            "burst": value(b, field),
            "own": value(own, field),
            "printed_interval": [round(x, 4) for x in interval] if interval else None,
        }
    share = first_wave_share(run, p)
    t = row.get("ttft_ms")
    if share is not None and t is not None and t["steady"] is not None and t["burst"] is not None:
        # only the first wave sent at once, every later request in steady state: the burst reading's mean TTFT is a
        # lock-step wave's (every wave pays c prefills), so this mean is the share-weighted mix of the two readings
        t["first_wave_share"] = round(share, 4)
        t["first_wave_only"] = share * t["burst"] + (1 - share) * t["steady"]
    return row


def judge(entry: dict[str, Any]) -> dict[str, Any]:
    """Where the measurement sits against the two readings (log scale)."""
    m, s, b = entry["measured"], entry["steady"], entry["burst"]
    if s is None or b is None:
        return {"distinct": None}
    distinct = max(s, b) / min(s, b) >= DISTINCT
    out: dict[str, Any] = {"distinct": distinct, "between": min(s, b) <= m <= max(s, b)}
    if distinct:
        ds, db = abs(math.log(s / m)), abs(math.log(b / m))
        out["closer"] = "burst" if db < ds else "steady"
        out["position"] = math.log(m / s) / math.log(b / s)  # 0 = steady, 1 = burst; < 0 or > 1: outside
    lo_hi = entry.get("printed_interval")
    out["inside_printed"] = None if not lo_hi else lo_hi[0] <= m <= lo_hi[1]
    return out


def pct(xs: list[bool]) -> float | None:
    return round(100.0 * sum(xs) / len(xs), 1) if xs else None


def mape(pairs: list[tuple[float, float | None]]) -> float | None:
    errs = [abs(p - m) / m for m, p in pairs if p is not None]
    return round(100.0 * float(np.mean(errs)), 1) if errs else None


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Per metric: shares, the median position between the readings, and each prediction's MAPE."""
    out: dict[str, Any] = {}
    for m in METRICS:
        entries = [r[m] for r in rows if m in r]
        if not entries:
            continue
        judged = [judge(e) for e in entries]
        distinct = [j for j in judged if j["distinct"]]
        positions = [j["position"] for j in distinct]
        out[m] = {
            "points": len(entries),
            "statistic": sorted({e["statistic"] for e in entries}),
            "distinct_points": len(distinct),
            "between_pct": pct([j["between"] for j in judged if j["distinct"] is not None]),
            "between_pct_of_distinct": pct([j["between"] for j in distinct]),
            "burst_closer_pct_of_distinct": pct([j["closer"] == "burst" for j in distinct]),
            "position_median": round(float(np.median(positions)), 3) if positions else None,
            "position_p10_p90": [round(float(np.quantile(positions, q)), 3) for q in (0.1, 0.9)] if positions else None,
            "above_first_wave_only_pct": pct([e["measured"] >= e["first_wave_only"] for e in entries if "first_wave_only" in e]),
            "inside_printed_interval_pct": pct([j["inside_printed"] for j in judged if j.get("inside_printed") is not None]),
            "mape_steady": mape([(e["measured"], e["steady"]) for e in entries]),
            "mape_burst": mape([(e["measured"], e["burst"]) for e in entries]),
            "mape_own": mape([(e["measured"], e["own"]) for e in entries]),
            "own_closest_pct": pct(
                [
                    abs(math.log(e["own"] / e["measured"])) <= min(abs(math.log(e[k] / e["measured"])) for k in ("steady", "burst"))
                    for e in entries
                    if e["own"] and e["steady"] and e["burst"]
                ]
            ),
        }
    return out


def band_of(c: int) -> str:
    return next(label for lo, hi, label in BANDS if lo <= c <= hi)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument(
        "--every",
        type=int,
        default=EVERY,
        help=f"keep every Nth closed-loop point of each run, the offset turning "
        f"from run to run (deterministic; default {EVERY}: ~2-3 min on the loaded 2-core VM; 1 = all 752, 6-8 min)",
    )
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    if a.every < 1:
        ap.error(f"--every {a.every}: give 1 or more")
    started = time.perf_counter()
    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    runs = [load_document(p, EvaluationRun) for p in sorted((root / "runs").glob("*.yaml"))]
    rows: list[dict[str, Any]] = []
    skipped: dict[str, int] = defaultdict(int)
    deps: dict[str, Deployment] = {}
    kept_runs = 0
    for run in runs:
        client = client_of(run)
        points = sorted((p for p in run.points if closed_loop(p)), key=lambda q: q.concurrency)
        if client is None or client not in EXPECTED or not points:
            why = "client not known" if client is None else "offline bursts and open-loop points only"
            skipped[f"{run.harness}: {why}"] += len(run.points)
            continue
        # every Nth point, the offset turning from run to run so every concurrency stays represented
        points = [p for i, p in enumerate(points) if (i + kept_runs) % a.every == 0]
        kept_runs += 1
        if not points:
            continue
        scen = cat.scenario(run.scenario)
        dep = deps.get(run.scenario) or deps.setdefault(run.scenario, deploy(scen, catalog=cat))
        own = own_replay(run, points, dep, scen, cat)
        for p in points:
            row = check_point(run, p, dep, own.get(p.concurrency))
            row["client"] = client
            row["own_replay"] = HARNESS_REPLAYS[run.harness.lower()].name if run.harness.lower() in HARNESS_REPLAYS else "steady"
            rows.append(row)
        print(f"  {run.name:<64} {len(points):>3} points  {time.perf_counter() - started:6.1f} s", flush=True)

    by_client: dict[str, Any] = {}
    for client in EXPECTED:
        mine = [r for r in rows if r["client"] == client]
        if not mine:
            continue
        by_band = {label: summarise([r for r in mine if band_of(r["concurrency"]) == label]) for _, _, label in BANDS}
        by_client[client] = {
            **EXPECTED[client],
            "runs": len({r["run"] for r in mine}),
            "points": len(mine),
            "all": summarise(mine),
            "by_concurrency": {k: v for k, v in by_band.items() if v},
        }
    report = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "what": "steady and burst readings (predict's envelope when the client is unstated) and the known client's own replay, "
        "zero calibration, on the closed-loop public points whose client is known",
        "in_sample": "these points are in the validation set the step-time constants and the shipped intervals were built from: "
        "a check of the client readings, not the predictor's held-out error",
        "every": a.every,
        "distinct_ratio": DISTINCT,
        "position": "log(measured / steady) / log(burst / steady): 0 at the steady reading, 1 at the burst reading",
        "by_client": by_client,
        "not_checked": NOT_CHECKED,
        "skipped_points": dict(sorted(skipped.items())),
        "wall_s": round(time.perf_counter() - started, 1),
        "points": rows,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(report, indent=1) + "\n", encoding="utf-8")
    print_table(by_client)
    print(f"{len(rows)} points in {report['wall_s']} s; wrote {a.out}")
    return 0


def print_table(by_client: dict[str, Any]) -> None:
    def f(v: float | None, unit: str = " %") -> str:
        return "-" if v is None else f"{v:g}{unit}"

    print(f"{'client':<58} {'metric':<22} {'pts':>4} {'between':>8} {'burst closer':>12} {'position':>8} {'MAPE steady/burst/own':>24}")
    for client, block in by_client.items():
        for m, s in block["all"].items():
            errs = " / ".join(f(s[k], "") for k in ("mape_steady", "mape_burst", "mape_own"))
            pos = "-" if s["position_median"] is None else f"{s['position_median']:.2f}"
            print(f"{client:<58} {m:<22} {s['points']:>4} {f(s['between_pct']):>8} {f(s['burst_closer_pct_of_distinct']):>12} {pos:>8} {errs:>24}")


if __name__ == "__main__":
    raise SystemExit(main())
