#!/usr/bin/env python
"""Where the predictor's GPU defaults come from: one joint fit to public
measurements, scored on measurements the fit never saw.

``--engine vllm`` (the GPU defaults of every engine): training set = the
InferenceX vLLM runs on H100 (Llama 3.1 70B fp8, TP 2/4/8, ISL:OSL 1024:1024 and
8192:1024; the 1024:8192 runs are left out only because they take 4x longer to
simulate). Held out: every other run of the public validation set — vLLM on H200
and B200, TensorRT-LLM on H200 and B200, the H100 1024:8192 runs, NVIDIA NIM.

``--engine trt-llm`` (TensorRT-LLM's own kernel efficiency and per-layer cost, on
top of the vLLM-fitted defaults): training set = the InferenceX TensorRT-LLM runs
on H200 at 1024:8192 and 8192:1024 (at 1024:1024 below TP 8 InferenceX turns on
TensorRT-LLM's batch waiting, which the simulator does not model). Held out:
TensorRT-LLM on B200, and NIM 1.8.0 (a TensorRT-LLM engine, another harness and
publisher).

Fitted: the factors the training points can tell apart (``FIT``). Every other
factor keeps its a-priori default. ``step_overhead_s`` and ``layer_overhead_s``
cannot be told apart on one architecture (every training model has 80 layers),
so the per-iteration cost is put on layers — the latency floor of a decoder
layer's kernels at small batch — and ``step_overhead_s`` keeps 0.3 ms.

    .venv/bin/python benchmarks/fit_gpu_defaults.py          # ~5-10 min on 2 cores

Results: benchmarks/results/fit_gpu_defaults_<engine>.json; the fitted values are
what ``predict.calibration`` ships (``Calibration`` for every GPU engine, then
``ENGINE_DEFAULTS`` for TensorRT-LLM and NIM).

    .venv/bin/python benchmarks/fit_gpu_defaults.py --engine trt-llm
"""

from __future__ import annotations

import argparse
import json
import math
import time
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import EvaluationRun, load_document
from servescope.predict.calibrate import evaluate, fit_cases, measured_of
from servescope.predict.calibration import Calibration
from servescope.predict.deployment import deploy

METRICS = ("ttft_ms", "itl_ms")
FIT = ("memory_bw_eff", "gemm_eff", "layer_overhead_s", "request_overhead_s", "eager_layer_s")
TRT_FIT = ("memory_bw_eff", "gemm_eff", "layer_overhead_s", "eager_layer_s")
#: The values the step model had before any fit (engineering defaults, see calibration.FACTOR_DOCS;
#: the host floor of prefill iterations was not modelled: 0).
A_PRIORI = Calibration(memory_bw_eff=0.85, gemm_eff=0.70, layer_overhead_s=2e-6, request_overhead_s=1e-3, eager_layer_s=0.0)
BOUNDS = {
    "memory_bw_eff": (0.3, 1.0),
    "gemm_eff": (0.1, 1.0),
    "layer_overhead_s": (1e-7, 5e-4),
    "request_overhead_s": (1e-4, 0.2),
    "eager_layer_s": (1e-6, 4e-3),
}
#: Where a factor whose prior is 0 starts the (log-space) search.
START = {"eager_layer_s": 2.5e-4}
OUT = Path(__file__).parent / "results" / "fit_gpu_defaults.json"


def is_training(run: EvaluationRun, engine: str) -> bool:
    # only the Llama 3.1 70B InferenceX runs: the gpt-oss-120b ones share the ix- prefix and are held out
    if "-llama-3.1-70b-" not in run.name:
        return False
    if engine == "vllm":
        return run.name.startswith("ix-vllm-") and "-h100-" in run.name and not run.name.endswith("-i1024-o8192")
    return run.name.startswith("ix-trt-llm-") and "-h200-" in run.name and not run.name.endswith("-i1024-o1024")


def is_held_out(run: EvaluationRun, engine: str) -> bool:
    if engine == "vllm":
        return not is_training(run, engine)
    llama_b200 = run.name.startswith("ix-trt-llm-llama-3.1-70b-") and "-b200-" in run.name
    return llama_b200 or run.name.startswith("nim-")


Prepared = tuple[EvaluationRun, Any, Any, list[Any]]


def prepare(cat: Catalog, runs: list[EvaluationRun]) -> list[Prepared]:
    """Each run with its scenario, deployment and the cases that replay it."""
    out = []
    for run in runs:
        scen = cat.scenario(run.scenario)
        dep = deploy(scen, catalog=cat)
        out.append((run, scen, dep, fit_cases(measured_of(run), scen, cat, dep.template_tokens)))
    return out


def log_errors(cal: Calibration, subset: list[Prepared], cat: Catalog) -> dict[str, list[float]]:
    """log(predicted / measured) per metric over ``subset``, every run under ``cal``."""
    out: dict[str, list[float]] = {m: [] for m in METRICS}
    for _run, scen, dep, cases in subset:
        # every run is scored with the same factors, except what the engine's defaults
        # rule out: NIM's prebuilt TensorRT engines launch no iteration kernel by kernel
        run_cal = cal.with_factors({"eager_layer_s": 0.0}) if scen.engine.id.lower() == "nim" else cal
        ev = evaluate(scen, cases, run_cal, METRICS, cat, model=dep.model, hardware=dep.hardware)
        for m in METRICS:
            out[m] += [math.log(p / q) for p, q in zip(ev.predicted[m], ev.measured[m], strict=True)]
    return out


def log_mape(errs: dict[str, list[float]]) -> dict[str, float]:
    return {m: round(100 * float(np.mean([abs(math.exp(e) - 1) for e in v])), 2) for m, v in errs.items() if v}


def fit_factors(train: list[Prepared], cat: Catalog, fit_names: tuple[str, ...], base: Calibration, max_evaluations: int = 60) -> tuple[Calibration, int]:
    """Least squares in log space over ``fit_names`` (bounded by ``BOUNDS``), from ``base``."""

    def with_x(x: np.ndarray) -> Calibration:
        return base.with_factors({f: math.exp(v) for f, v in zip(fit_names, x, strict=True)})

    calls = 0

    def residuals(x: np.ndarray) -> np.ndarray:
        nonlocal calls
        calls += 1
        e = log_errors(with_x(x), train, cat)
        return np.array([v for m in METRICS for v in e[m]])

    lo = np.log([BOUNDS[f][0] for f in fit_names])
    hi = np.log([BOUNDS[f][1] for f in fit_names])
    x0 = np.clip(np.log([getattr(base, f) or START[f] for f in fit_names]), lo + 1e-6, hi - 1e-6)
    fit = least_squares(residuals, x0, bounds=(lo, hi), method="trf", diff_step=0.05, max_nfev=max_evaluations)
    return with_x(fit.x), calls


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--max-evaluations", type=int, default=60)
    ap.add_argument("--engine", choices=("vllm", "trt-llm"), default="vllm")
    ap.add_argument("--out", type=Path, default=None)
    args = ap.parse_args()
    fit_names = FIT if args.engine == "vllm" else TRT_FIT
    out_path = args.out or OUT.with_name(f"fit_gpu_defaults_{args.engine}.json")
    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    runs = [load_document(p, EvaluationRun) for p in sorted((root / "runs").glob("*.yaml"))]
    prepared = prepare(cat, runs)
    train = [p for p in prepared if is_training(p[0], args.engine)]
    held = [p for p in prepared if is_held_out(p[0], args.engine)]
    # the vLLM fit starts from the a-priori values; the TensorRT-LLM fit from the shipped GPU defaults
    base = A_PRIORI if args.engine == "vllm" else Calibration()
    t0 = time.perf_counter()
    fitted, calls = fit_factors(train, cat, fit_names, base, args.max_evaluations)

    def errors(cal: Calibration, subset: list[Prepared]) -> dict[str, list[float]]:
        return log_errors(cal, subset, cat)

    mape = log_mape
    report = {
        "engine": args.engine,
        "fit": {f: float(f"{getattr(fitted, f):.4g}") for f in fit_names},
        "start": {f: getattr(base, f) for f in fit_names},
        "training_runs": [r.name for r, *_ in train],
        "training_points": sum(len(r.points) for r, *_ in train),
        "held_out_runs": [r.name for r, *_ in held],
        "held_out_points": sum(len(r.points) for r, *_ in held),
        "mape_training_before": mape(errors(base, train)),
        "mape_training_after": mape(errors(fitted, train)),
        "mape_held_out_before": mape(errors(base, held)),
        "mape_held_out_after": mape(errors(fitted, held)),
        "per_run_held_out_after": {r.name: mape(errors(fitted, [(r, s, d, c)])) for r, s, d, c in held},
        "simulation_rounds": calls,
        "wall_s": round(time.perf_counter() - t0, 1),
    }
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps(report, indent=2) + "\n")
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
