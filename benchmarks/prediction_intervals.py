#!/usr/bin/env python
"""Build the shipped prediction intervals from held-out error, and measure their coverage held out.

Reads ``benchmarks/results/predict_logo.json`` (``predict_logo.py`` keeps every point's signed
held-out error, predicted / measured, per group) and writes:

- ``src/servescope/data/prediction_intervals.json``: per dimension and group, the 10th and
  90th percentiles of measured / predicted over the group's held-out points (an 80 % range),
  its point count, and the fallback for a deployment outside the validated groups: the pooled
  5th-95th percentile range (each point once, as held out by its publisher) widened 1.5x each
  way. Generated; never edited by hand. ``servescope.predict.intervals`` reads it.
- ``benchmarks/results/prediction_intervals.json``: the intervals' coverage, held out. For each
  group, the table is rebuilt without that group's points (every dimension's groups lose them,
  and so does the fallback), each of the group's points gets the interval the product's rule
  (``intervals.interval_for_groups``) gives its labels, and we count the share of its held-out
  measurements inside. Goal (issue 36): 75-85 % inside the 80 % interval.

    .venv/bin/python benchmarks/prediction_intervals.py            # ~1 s, after predict_logo.py
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np

from servescope.predict.groups import SCENARIO_DIMENSIONS
from servescope.predict.intervals import interval_for_groups

HERE = Path(__file__).resolve().parent
LOGO = HERE / "results" / "predict_logo.json"
SHIPPED = HERE.parent / "src" / "servescope" / "data" / "prediction_intervals.json"
OUT = HERE / "results" / "prediction_intervals.json"
METRICS = ("ttft_ms", "itl_ms", "output_tokens_per_sec")
COVERAGE = 0.8
MIN_POINTS = 10
#: the quantile levels shipped per group and metric (the product mixes groups' distributions through them)
LEVELS = np.linspace(0.0, 1.0, 41)


def build(rows: list[dict[str, Any]], drop_runs: frozenset[str] = frozenset()) -> dict[str, Any]:
    """The interval table from LOGO rows, leaving out the points of ``drop_runs``."""
    lo_q, hi_q = (1 - COVERAGE) / 2, 1 - (1 - COVERAGE) / 2
    groups: dict[str, dict[str, Any]] = defaultdict(dict)
    for row in rows:
        entry: dict[str, Any] = {"points": 0, "points_by_metric": {}, "quantiles": {}}
        for m in METRICS:
            ratios = [1.0 / r for run, r in row["ratios"][m] if run not in drop_runs and r > 0]
            entry["points"] = max(entry["points"], len(ratios))
            entry["points_by_metric"][m] = len(ratios)
            entry[m] = [round(float(np.quantile(ratios, lo_q)), 4), round(float(np.quantile(ratios, hi_q)), 4)] if ratios else None
            entry["quantiles"][m] = [round(float(x), 4) for x in np.quantile(ratios, LEVELS)] if ratios else None
        if entry["points"]:
            groups[row["dimension"]][row["group"]] = entry
    validated = [g for by_group in groups.values() for g in by_group.values() if g["points"] >= MIN_POINTS]
    fallback = {}
    for m in METRICS:
        spans = [g[m] for g in validated if g[m] is not None] or [[1.0, 1.0]]
        fallback[m] = [min(s[0] for s in spans), max(s[1] for s in spans)]
    return {
        "coverage": COVERAGE,
        "min_points": MIN_POINTS,
        "metrics": list(METRICS),
        "levels": [round(float(x), 4) for x in LEVELS],
        "groups": {d: dict(sorted(g.items())) for d, g in sorted(groups.items())},
        "fallback": fallback,
        "fallback_rule": "as wide as the widest validated group's held-out 80 % range on each side (never narrower than a validated deployment's)",
    }


def coverage(rows: list[dict[str, Any]], labels: dict[str, dict[str, str]]) -> list[dict[str, Any]]:
    """Per group: the share of its held-out measurements inside the interval a table without it gives."""
    out = []
    for row in rows:
        members = frozenset(run for m in METRICS for run, _ in row["ratios"][m])
        table = build(rows, drop_runs=members)
        result: dict[str, Any] = {"dimension": row["dimension"], "group": row["group"], "points": 0}
        for m in METRICS:
            inside = total = 0
            for run, r in row["ratios"][m]:
                if r <= 0:
                    continue
                groups = {d: labels[run][d] for d in SCENARIO_DIMENSIONS}
                lo, hi = interval_for_groups(groups, table).factors[m]
                total += 1
                inside += lo <= 1.0 / r <= hi
            result[m] = round(inside / total, 3) if total else None
            result[f"{m}_points"] = total
            result["points"] = max(result["points"], total)
        out.append(result)
    return out


def compact_lists(text: str) -> str:
    """``json.dumps(indent=1)`` with every list of numbers on one line (the quantiles stay readable)."""
    return re.sub(r"\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]", lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logo", type=Path, default=LOGO)
    ap.add_argument("--shipped", type=Path, default=SHIPPED)
    ap.add_argument("--out", type=Path, default=OUT)
    a = ap.parse_args(argv)
    logo = json.loads(a.logo.read_text(encoding="utf-8"))
    rows = logo["groups"]
    if not rows or "ratios" not in rows[0]:
        raise SystemExit(f"{a.logo} has no per-point ratios: rerun benchmarks/predict_logo.py")
    table = {
        "what": "80 % prediction intervals per group from held-out error (generated by benchmarks/prediction_intervals.py; do not edit)",
        "source": f"benchmarks/results/predict_logo.json of {logo.get('date')}",
        **build(rows),
    }
    a.shipped.write_text(compact_lists(json.dumps(table, indent=1)) + "\n", encoding="utf-8")
    cov = coverage(rows, logo["runs"])
    print(f"{'dimension':<20} {'group':<26} {'pts':>4}  " + "  ".join(f"{m:>22}" for m in METRICS))
    for r in cov:
        print(f"{r['dimension']:<20} {r['group']:<26} {r['points']:>4}  " + "  ".join(f"{'-' if r[m] is None else f'{100 * r[m]:.0f} %':>22}" for m in METRICS))
    pooled = {}
    for dim in sorted({r["dimension"] for r in cov}):
        rs = [r for r in cov if r["dimension"] == dim]
        pooled[dim] = {
            m: round(sum(r[m] * r[f"{m}_points"] for r in rs if r[m] is not None) / max(1, sum(r[f"{m}_points"] for r in rs if r[m] is not None)), 3)
            for m in METRICS
        }
        print(f"pooled by {dim:<20} " + "  ".join(f"{m} {100 * v:.0f} %" for m, v in pooled[dim].items()))
    a.out.write_text(
        json.dumps({"date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "goal": [0.75, 0.85], "groups": cov, "pooled_by_dimension": pooled}, indent=1)
        + "\n",
        encoding="utf-8",
    )
    print(f"wrote {a.shipped} and {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
