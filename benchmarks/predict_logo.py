#!/usr/bin/env python
"""Leave-one-group-out error of the predictor on the public validation set.

A claim of accuracy counts only on points that took no part in fitting what the
prediction depends on. The predictor ships constants fitted by
``benchmarks/fit_gpu_defaults.py`` in two fits:

- the GPU defaults of every engine (``Calibration``): trained on the InferenceX
  vLLM H100 runs at 1k:1k and 8k:1k (``fit_gpu_defaults.is_training(run, "vllm")``);
- TensorRT-LLM's and NIM's factors (``calibration.ENGINE_DEFAULTS``), fitted on top
  of those: trained on the InferenceX TensorRT-LLM H200 runs at 1k:8k and 8k:1k.

For each group along five dimensions (model family, engine, weight dtype, hardware
generation, publisher) the group's points are predicted with the constants a fit
*without that group* gives:

- a group that touches neither training set is predicted as shipped;
- a group that touches only TensorRT-LLM's training set: its factors are refitted on
  what remains of that set, or emptied (the GPU defaults as shipped) when nothing does;
- a group that touches the GPU defaults' training set: the GPU defaults are refitted
  (the same factors, bounds and a-priori start as ``fit_gpu_defaults.py``) on the
  validation runs outside the group - every one of them, engines pooled, up to
  ``--train-runs`` of them spread evenly by name to bound the time - and that one
  calibration predicts the group's points (TensorRT-LLM's factors, fitted on top of
  the old defaults, are dropped with them). With no run outside the group (today: the
  model family, every point being Llama 3.x 70B) the a-priori values are all there is.

So every figure here is held out. Groups with fewer than 5 points are listed but
not held to the goals (issue 11: TTFT <= 30 %, ITL/TPOT <= 15 %, output tok/s <= 15 %).

    .venv/bin/python benchmarks/predict_logo.py          # ~2-4 min on 2 cores

Each MAPE comes with a 95 % interval from redrawing the group's deployments (scenarios) with
replacement (``mape_ci95_by_scenario``; the points of one scenario move together, whatever run
they are in, since they share a deployment and a publisher's setup), for groups of 5 or more
scenarios: a rough reading of how far the figure could move on another sample of deployments like
these (the refitted constants are held fixed over the redraws, so it is if anything too narrow).
The goals are held against the MAPE itself, not the interval.

Results: benchmarks/results/predict_logo.json and a table on stdout.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import re
import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import EvaluationRun, load_document
from servescope.documents.config_id import normalize_engine
from servescope.predict.calibrate import evaluate
from servescope.predict.calibration import Calibration
from servescope.predict.groups import ENGINE_NAMES, family, generation, weight_dtype_label  # one labelling: the intervals read these groups

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from fit_gpu_defaults import A_PRIORI, FIT, TRT_FIT, fit_factors, is_training, prepare  # noqa: E402
from predict_accuracy import METRICS  # noqa: E402

OUT = HERE / "results" / "predict_logo.json"
GOALS = {"ttft_ms": 30.0, "itl_ms": 15.0, "output_tokens_per_sec": 15.0}
MIN_POINTS = 5
#: Redraws of a group's scenarios behind each MAPE's 95 % interval (``cluster_bootstrap_interval``).
BOOTSTRAP_DRAWS = 2000
MIN_CLUSTERS_FOR_INTERVAL = 5


def publisher(run: EvaluationRun) -> str:
    """Who measured the points: the first URL of the run's notes (a GitHub organisation, else the host)."""
    for note in run.notes:
        m = re.search(r"https?://([^/\s]+)/?([^/\s]*)", note)
        if m:
            host, first = m.group(1).removeprefix("www."), m.group(2)
            if host == "github.com" and first:
                return "SemiAnalysis" if first.lower().startswith("semianalysis") else first
            if host.endswith("nvidia.com"):
                return "NVIDIA"
            return host
    return run.harness


def dimensions(run: EvaluationRun, cat: Catalog) -> dict[str, str]:
    scen = cat.scenario(run.scenario)
    return {
        "model family": family(scen.model),
        "engine": ENGINE_NAMES.get(scen.engine.id.lower(), scen.engine.id),
        "weight dtype": weight_dtype_label(scen, cat),
        "hardware generation": generation(scen.hardware),
        "publisher": publisher(run),
    }


def is_burst(run: EvaluationRun) -> bool:
    """An offline burst (every request in flight at once; ``predict.calibrate``)."""
    return all(p.completed_requests is not None and p.completed_requests <= p.concurrency for p in run.points)


def plan_for(group_runs: set[str], runs: list[EvaluationRun]) -> tuple[str, list[str]]:
    """How the group is held out: ("shipped" | "trt-refit" | "trt-emptied" | "refit" | "a-priori", training runs).
    A refit trains on closed-loop runs outside the group (an offline burst of thousands of requests costs
    minutes per least-squares evaluation on 2 cores); bursts are still scored."""
    vllm_train = {r.name for r in runs if is_training(r, "vllm")}
    trt_train = {r.name for r in runs if is_training(r, "trt-llm")}
    if vllm_train & group_runs:
        outside = sorted(r.name for r in runs if r.name not in group_runs and not is_burst(r))
        return ("refit", outside) if outside else ("a-priori", [])
    if trt_train & group_runs:
        left = sorted(trt_train - group_runs)
        return ("trt-refit", left) if left else ("trt-emptied", [])
    return "shipped", []


def cluster_bootstrap_interval(errors_by_cluster: list[list[float]], draws: int = BOOTSTRAP_DRAWS, seed: int = 0) -> list[float] | None:
    """95 % interval of a group's MAPE (in %) when its clusters of points (one per deployment) are
    redrawn with replacement: the points of one deployment share its setup, so they are resampled
    together (points drawn one by one would give a narrower, overconfident interval). None with
    fewer than ``MIN_CLUSTERS_FOR_INTERVAL`` clusters that have the metric (redraws of two or three
    take a handful of values: no interval to speak of)."""
    runs = [np.asarray(e, dtype=float) for e in errors_by_cluster if e]
    if len(runs) < MIN_CLUSTERS_FOR_INTERVAL:
        return None
    rng = np.random.default_rng(seed)
    sums = np.array([r.sum() for r in runs])
    counts = np.array([r.size for r in runs], dtype=float)
    picks = rng.integers(0, len(runs), size=(draws, len(runs)))
    means = 100.0 * sums[picks].sum(axis=1) / counts[picks].sum(axis=1)
    lo, hi = np.percentile(means, [2.5, 97.5])
    return [round(float(lo), 1), round(float(hi), 1)]


def spread(names: list[str], k: int) -> list[str]:
    """``k`` names evenly spaced over the sorted list (all when there are fewer)."""
    if len(names) <= k:
        return names
    return [names[round(i * (len(names) - 1) / (k - 1))] for i in range(k)] if k > 1 else names[:1]


class _Job:
    """What every group's held-out scoring reads; module-level so forked workers inherit it."""

    cat: Catalog
    runs: list[EvaluationRun]
    prepared: dict[str, Any]
    by_name: dict[str, EvaluationRun]
    args: argparse.Namespace
    cache: ClassVar[dict[tuple[str, str], dict[str, list[float]]]] = {}  # (run, calibration) -> errors per metric


def _point_ratios(names: list[str], cal_of: Any) -> dict[str, list[tuple[str, float]]]:
    """(run, predicted / measured) of every point of ``names``, per metric: the signed held-out error."""
    out: dict[str, list[tuple[str, float]]] = {m: [] for m in METRICS}
    for n in names:
        _run, scen, dep, cases = _Job.prepared[n]
        cal = cal_of(scen, dep)
        key = (n, json.dumps(cal.as_dict(), sort_keys=True))
        if key not in _Job.cache:
            ev = evaluate(scen, cases, cal, METRICS, _Job.cat, model=dep.model, hardware=dep.hardware)
            _Job.cache[key] = {m: [p / q for p, q in zip(ev.predicted[m], ev.measured[m], strict=True)] for m in METRICS}
        for m in METRICS:
            out[m] += [(n, r) for r in _Job.cache[key][m]]
    return out


def _point_errors(names: list[str], cal_of: Any) -> dict[str, list[float]]:
    """|predicted − measured| / measured of every point, per metric."""
    return {m: [abs(r - 1.0) for _, r in v] for m, v in _point_ratios(names, cal_of).items()}


def _shipped_errors(name: str) -> tuple[tuple[str, str], dict[str, list[float]]]:
    """One run as shipped (the calibration most groups use), for the parent's cache."""
    _run, _scen, dep, _cases = _Job.prepared[name]
    _point_errors([name], lambda scen, dep: dep.calibration)
    key = (name, json.dumps(dep.calibration.as_dict(), sort_keys=True))
    return key, _Job.cache[key]


def _nim(cal: Calibration, scen: Any) -> Calibration:  # NIM's prebuilt engines launch no iteration kernel by kernel
    return cal.with_factors({"eager_layer_s": 0.0}) if scen.engine.id.lower() == "nim" else cal


def _held_out(group: tuple[tuple[str, str], set[str]]) -> dict[str, Any]:
    """The row of one group: its points predicted with the constants a fit without it gives."""
    (dim, value), names = group
    a, cat, prepared, by_name = _Job.args, _Job.cat, _Job.prepared, _Job.by_name
    how, train = plan_for(names, _Job.runs)
    members = sorted(names)
    t_group = time.monotonic()
    fitted: dict[str, float] | None = None
    cal_of: Callable[[Any, Any], Calibration]
    if how == "shipped":

        def cal_of(scen: Any, dep: Any) -> Calibration:
            return dep.calibration

        label = "as shipped (the group takes no part in either fit)"
    elif how == "trt-emptied":
        emptied = {k: getattr(Calibration(), k) for k in TRT_FIT}

        def cal_of(scen: Any, dep: Any) -> Calibration:
            return dep.calibration.with_factors(emptied)

        label = "GPU defaults as shipped, TensorRT-LLM factors emptied"
    elif how == "trt-refit":
        cal, _ = fit_factors([prepared[n] for n in train], cat, TRT_FIT, Calibration(), a.max_evaluations)
        fitted = {k: float(f"{getattr(cal, k):.4g}") for k in TRT_FIT}

        trt = fitted

        def cal_of(scen: Any, dep: Any) -> Calibration:
            return dep.calibration.with_factors(trt) if normalize_engine(scen.engine.id) in ("trt-llm", "nim") else dep.calibration

        label = f"TensorRT-LLM factors refitted on {len(train)} remaining runs"
    elif how == "refit":
        used = spread(train, a.train_runs)
        cal, _ = fit_factors([prepared[n] for n in used], cat, FIT, A_PRIORI, a.max_evaluations)
        fitted = {k: float(f"{getattr(cal, k):.4g}") for k in FIT}

        def cal_of(scen: Any, dep: Any) -> Calibration:
            return _nim(cal, scen)

        train = used
        label = f"GPU defaults refitted on {len(used)} runs outside the group ({sum(len(by_name[n].points) for n in used)} points)"
    else:

        def cal_of(scen: Any, dep: Any) -> Calibration:
            return _nim(A_PRIORI, scen)

        label = "a priori (no run outside the group to fit on)"
    # each deployment's errors, its runs together (the interval redraws them whole), and the group's all of them
    runs_of: dict[str, list[str]] = defaultdict(list)
    for n in members:
        runs_of[by_name[n].scenario].append(n)
    scenarios = sorted(runs_of)
    ratios_by_scenario = [_point_ratios(runs_of[sc], cal_of) for sc in scenarios]
    by_scenario = [{m: [abs(r - 1.0) for _, r in v] for m, v in rs.items()} for rs in ratios_by_scenario]
    errs = {m: [e for r in by_scenario for e in r[m]] for m in METRICS}
    points = max(len(v) for v in errs.values())
    exact = {m: 100 * float(np.mean(v)) for m, v in errs.items() if v}
    mape = {m: round(x, 1) for m, x in exact.items()}
    # (held against the unrounded error: 30.03 % misses a 30 % goal although it prints as 30.0)
    misses = [m for m, goal in GOALS.items() if m in exact and exact[m] > goal] if points >= MIN_POINTS else []
    interval = {m: cluster_bootstrap_interval([r[m] for r in by_scenario]) for m in exact}
    return {
        "dimension": dim,
        "group": value,
        "runs": len(names),
        "points": points,
        "how": label,
        "training_runs": train,
        "fitted": fitted,
        "mape": mape,
        "mape_unrounded": exact,
        "scenarios": len(scenarios),
        "mape_ci95_by_scenario": interval,
        "misses_goal": misses,
        # every point's signed held-out error, predicted / measured, with its run: what
        # benchmarks/prediction_intervals.py builds the shipped intervals and their coverage from
        "ratios": {m: [[n, round(r, 6)] for rs in ratios_by_scenario for n, r in rs[m]] for m in METRICS},
        "seconds": round(time.monotonic() - t_group, 1),
    }


def _interval(row: dict[str, Any], metric: str) -> str:
    ci = row.get("mape_ci95_by_scenario", {}).get(metric)
    return f" [{ci[0]:.1f}-{ci[1]:.1f}]" if ci else ""


def _print_row(row: dict[str, Any]) -> None:
    mape, misses = row["mape"], row["misses_goal"]
    print(
        f"{row['dimension']:<20} {row['group']:<24} {row['points']:>4} pts  "
        + "  ".join(f"{m} {mape.get(m, float('nan')):5.1f}%{_interval(row, m)}" for m in METRICS)
        + f"  [{row['how']}]"
        + (f"  MISSES {', '.join(misses)}" if misses else ""),
        flush=True,
    )


def markdown(doc: dict[str, Any]) -> str:
    """The leave-one-group-out table of a results file, as benchmarks/README.md shows it: MAPE per
    metric (its 95 % interval over the group's scenarios), a miss in bold (goals: ``goals_pct``)."""
    goals = doc["goals_pct"]
    lines = ["| dimension held out | group | points | TTFT MAPE | ITL MAPE | output tok/s MAPE |", "| --- | --- | ---: | --- | --- | --- |"]
    for row in doc["groups"]:
        cells = []
        for m in METRICS:
            v = row["mape"].get(m)
            text = "-" if v is None else f"{v:.1f} %{_interval(row, m)}"
            cells.append(f"**{text}**" if m in row["misses_goal"] else text)
        lines.append(f"| {row['dimension']} | {row['group']} | {row['points']} | " + " | ".join(cells) + " |")
    lines.append(
        f"| goal | every group with {doc['min_points_for_goal']}+ points | | < {goals['ttft_ms']:g} % | < {goals['itl_ms']:g} % | < {goals['output_tokens_per_sec']:g} % |"
    )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--markdown", action="store_true", help="print the table of the --out results file (as benchmarks/README.md shows it) and stop")
    ap.add_argument("--train-runs", type=int, default=5, help="runs outside a group a refit uses at most (spread by name)")
    ap.add_argument("--max-evaluations", type=int, default=20, help="least-squares evaluations per refit")
    ap.add_argument("--workers", type=int, default=1, help="forked processes (groups are independent; the figures do not depend on it)")
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown(json.loads(a.out.read_text(encoding="utf-8"))))
        return 0
    t0 = time.monotonic()
    root = packaged_root() / "validation"
    cat = Catalog.load([root])
    runs = [load_document(p, EvaluationRun) for p in sorted((root / "runs").glob("*.yaml"))]
    dims = {r.name: dimensions(r, cat) for r in runs}
    groups: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, d in dims.items():
        for dim, value in d.items():
            groups[(dim, value)].add(name)

    _Job.cat, _Job.runs, _Job.args = cat, runs, a
    _Job.prepared = {p[0].name: p for p in prepare(cat, runs)}
    _Job.by_name = {r.name: r for r in runs}
    jobs = sorted(groups.items())
    rows: list[dict[str, Any]] = []
    if a.workers <= 1:
        for job in jobs:
            rows.append(_held_out(job))
            _print_row(rows[-1])
    else:
        ctx = multiprocessing.get_context("fork")
        # Every run as shipped first (most groups use nothing else), so the group workers
        # forked next inherit those predictions instead of each making its own.
        with ctx.Pool(a.workers) as pool:
            _Job.cache.update(pool.imap_unordered(_shipped_errors, sorted(_Job.prepared)))
        with ctx.Pool(a.workers) as pool:
            # the refits are the slow groups: start them first, print in the usual order
            order = sorted(range(len(jobs)), key=lambda i: plan_for(jobs[i][1], runs)[0] == "shipped")
            done = dict(zip(order, pool.imap(_held_out, [jobs[i] for i in order]), strict=True))
        rows = [done[i] for i in range(len(jobs))]
        for row in rows:
            _print_row(row)
    doc = {
        "what": "leave-one-group-out MAPE on the public validation set (benchmarks/predict_logo.py)",
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "elapsed_s": round(time.monotonic() - t0, 1),
        "goals_pct": GOALS,
        "min_points_for_goal": MIN_POINTS,
        "a_priori": {k: getattr(A_PRIORI, k) for k in FIT},
        "runs": {n: d for n, d in sorted(dims.items())},
        "groups": rows,
    }
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(json.dumps(doc, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {a.out} ({doc['elapsed_s']} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
