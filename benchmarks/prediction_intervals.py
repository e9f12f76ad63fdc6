#!/usr/bin/env python
"""Build the shipped prediction intervals from held-out error, and measure their coverage held out.

Reads ``benchmarks/results/predict_logo.json`` (``predict_logo.py`` keeps every point's signed
held-out error, predicted / measured, per group) and writes:

- ``src/servescope/data/prediction_intervals.json``: per dimension and group, the quantiles of
  measured / predicted over the group's held-out points (at ``LEVELS``; the product mixes the
  deployment's groups through them), the 10th-90th percentile range (an 80 % range, for
  reading), its point counts, and the fallback for a deployment whose engine or hardware
  generation has no validated group: as wide as the widest validated group's range on each
  side. Generated; never edited by hand. ``servescope.predict.intervals`` reads it.
- ``benchmarks/results/prediction_intervals.json``: the intervals' coverage, held out. For each
  group, the table is rebuilt without that group's points (every dimension's groups lose them,
  and so does the fallback), each of the group's points gets the interval the product's rule
  (``intervals.interval_for_groups``) gives its labels, and we count the share of its held-out
  measurements inside. Goal (issue 36): 75-85 % inside the 80 % interval. With
  ``--alternatives`` also the rules and fallbacks tried and not shipped, and the coverage when
  the rule is chosen, per group, on the other groups' coverage alone.

    .venv/bin/python benchmarks/prediction_intervals.py            # ~4 s, after predict_logo.py
    .venv/bin/python benchmarks/prediction_intervals.py --markdown # the per-group table of the results file
"""

from __future__ import annotations

import argparse
import json
import re
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from servescope.predict.groups import SCENARIO_DIMENSIONS
from servescope.predict.intervals import REQUIRED_DIMENSIONS, interval_for_groups

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
    fallback: dict[str, list[float] | None] = {}
    for m in METRICS:
        spans = [g[m] for g in validated if g[m] is not None]
        fallback[m] = [min(s[0] for s in spans), max(s[1] for s in spans)] if spans else None
    return {
        "coverage": COVERAGE,
        "min_points": MIN_POINTS,
        "metrics": list(METRICS),
        "levels": [round(float(x), 4) for x in LEVELS],
        "groups": {d: dict(sorted(g.items())) for d, g in sorted(groups.items())},
        "fallback": fallback,
        "fallback_rule": "as wide as the widest validated group's held-out 80 % range on each side (never narrower than a validated deployment's)",
    }


Factors = dict[str, tuple[float, float]]
#: A rule: a deployment's groups (dimension -> group) and a table -> its factors per metric.
Rule = Callable[[dict[str, str], dict[str, Any]], Factors]


def shipped_rule(groups: dict[str, str], table: dict[str, Any]) -> Factors:
    return interval_for_groups(groups, table).factors


def coverage(rows: list[dict[str, Any]], labels: dict[str, dict[str, str]], rule: Rule = shipped_rule, tables: Tables | None = None) -> list[dict[str, Any]]:
    """Per group: the share of its held-out measurements inside the interval a table without it gives."""
    tables = tables or Tables(rows)
    out = []
    for row in rows:
        table = tables.without(row_runs(row))
        result: dict[str, Any] = {"dimension": row["dimension"], "group": row["group"], "points": 0}
        factors: dict[tuple[str, ...], Factors] = {}  # per deployment (its labels): many points share one
        for m in METRICS:
            inside = total = 0
            for run, r in row["ratios"][m]:
                if r <= 0:
                    continue
                key = tuple(labels[run][d] for d in SCENARIO_DIMENSIONS)
                if key not in factors:
                    factors[key] = rule(dict(zip(SCENARIO_DIMENSIONS, key, strict=True)), table)
                lo, hi = factors[key][m]
                total += 1
                inside += lo <= 1.0 / r <= hi
            result[m] = round(inside / total, 3) if total else None
            result[f"{m}_points"] = total
            result[f"{m}_band"] = band_verdict(inside, total)
            result["points"] = max(result["points"], total)
        out.append(result)
    return out


def band_verdict(inside: int, total: int, goal: tuple[float, float] = (0.75, 0.85), alpha: float = 0.05) -> str | None:
    """Whether a group's coverage is in the goal's band, off it by no more than its sample explains, or off it.
    "noise": a binomial test against the band's nearer edge does not reject it at ``alpha`` (few points: 14 of
    20 inside is 70 %, and a true 75 % gives 14 or fewer one time in three). The points of one group share
    deployments, so they are not independent: the test is lenient, if anything, to a group off the band."""
    if total < MIN_POINTS:
        return None
    share = inside / total
    if goal[0] <= share <= goal[1]:
        return "in"
    from scipy.stats import binomtest

    edge = goal[0] if share < goal[0] else goal[1]
    return "noise" if binomtest(inside, total, edge).pvalue >= alpha else "off"


def band_counts(cov: list[dict[str, Any]]) -> dict[str, int]:
    """Group-metric cells with 10+ points: in the band, off it within sampling noise, off it beyond noise."""
    counts = {"in": 0, "noise": 0, "off": 0}
    for r in cov:
        for m in METRICS:
            if (v := r.get(f"{m}_band")) is not None:
                counts[v] += 1
    return counts


def row_runs(row: dict[str, Any]) -> frozenset[str]:
    return frozenset(run for m in METRICS for run, _ in row["ratios"][m])


class Tables:
    """``build`` without some runs, each set built once (the alternatives below score the same tables)."""

    def __init__(self, rows: list[dict[str, Any]], fallback: Callable[[frozenset[str]], dict[str, list[float]]] | None = None) -> None:
        self.rows, self.fallback = rows, fallback
        self.built: dict[frozenset[str], dict[str, Any]] = {}

    def without(self, runs: frozenset[str]) -> dict[str, Any]:
        if runs not in self.built:
            table = build(self.rows, drop_runs=runs)
            self.built[runs] = {**table, "fallback": self.fallback(runs)} if self.fallback else table
        return self.built[runs]


def pooled_by_dimension(cov: list[dict[str, Any]], skip: str | None = None) -> dict[str, dict[str, float]]:
    """Each dimension's share inside, every point once (the groups of ``skip``, "dimension/group", left out)."""
    pooled = {}
    for dim in sorted({r["dimension"] for r in cov}):
        rs = [r for r in cov if r["dimension"] == dim and f"{dim}/{r['group']}" != skip]
        pooled[dim] = {
            m: round(sum(r[m] * r[f"{m}_points"] for r in rs if r[m] is not None) / max(1, sum(r[f"{m}_points"] for r in rs if r[m] is not None)), 3)
            for m in METRICS
        }
    return pooled


# --- Rules tried and not shipped (their held-out coverage is in the results file, under "alternatives") ---


def _validated_ranges(groups: dict[str, str], table: dict[str, Any], metric: str) -> list[list[float]] | None:
    """The 80 % ranges of the deployment's validated groups, or None where the fallback applies."""
    found = {d: table["groups"].get(d, {}).get(v) for d, v in groups.items()}
    usable = {d: g for d, g in found.items() if g is not None and g["points"] >= table["min_points"]}
    if any(d not in usable for d in REQUIRED_DIMENSIONS):
        return None
    return [g[metric] for g in usable.values() if g[metric] is not None] or None


def widest_rule(groups: dict[str, str], table: dict[str, Any]) -> Factors:
    """Until 2026-12-06: the widest of the deployment's groups' ranges."""
    out = {}
    for m in METRICS:
        spans = _validated_ranges(groups, table, m) or [table["fallback"][m]]
        out[m] = (min(s[0] for s in spans), max(s[1] for s in spans))
    return out


def geometric_mean_rule(groups: dict[str, str], table: dict[str, Any]) -> Factors:
    """The geometric mean of the deployment's groups' lower bounds, and of their upper bounds."""
    out = {}
    for m in METRICS:
        spans = _validated_ranges(groups, table, m) or [table["fallback"][m]]
        lo, hi = (float(np.exp(np.mean(np.log([s[i] for s in spans])))) for i in (0, 1))
        out[m] = (lo, hi)
    return out


def union_rule(groups: dict[str, str], table: dict[str, Any]) -> Factors:
    """The union of its validated groups' points, without the groups of a dimension it is new along."""
    known = {d: v for d, v in groups.items() if table["groups"].get(d, {}).get(v, {}).get("points", 0) >= table["min_points"]}
    return interval_for_groups(known, table).factors if all(d in known for d in REQUIRED_DIMENSIONS if d in groups) else shipped_rule(groups, table)


RULES: dict[str, Rule] = {
    "widest of its groups' ranges (until 2026-12-06)": widest_rule,
    "geometric mean of its groups' bounds": geometric_mean_rule,
    "union of its groups' points": union_rule,
    "union of its groups' points, and of a dimension it is new along (shipped)": shipped_rule,
}
SHIPPED_RULE = "union of its groups' points, and of a dimension it is new along (shipped)"


def pooled_error_fallback(rows: list[dict[str, Any]], widen: float | dict[str, float], lo_q: float) -> Callable[[frozenset[str]], dict[str, list[float]]]:
    """The pooled held-out error (each point once, as held out by its publisher), its ``lo_q``-``1 - lo_q``
    range widened ``widen`` times each way (``widen`` may vary per metric: a dict)."""

    def fallback(drop: frozenset[str]) -> dict[str, list[float]]:
        out = {}
        for m in METRICS:
            v = [1.0 / r for row in rows if row["dimension"] == "publisher" for run, r in row["ratios"][m] if run not in drop and r > 0] or [1.0]
            k = widen[m] if isinstance(widen, dict) else widen
            out[m] = [float(np.quantile(v, lo_q)) / k, float(np.quantile(v, 1 - lo_q)) * k]
        return out

    return fallback


def nested_widening(rows: list[dict[str, Any]], drop: frozenset[str]) -> dict[str, float]:
    """Per metric, the least widening of the pooled 10th-90th percentile range that holds 80 % of the
    engine and hardware-generation groups' points (all but ``drop``), each group scored against the
    pooled error of a table without it: what an unseen engine or GPU generation needed here."""
    inside: dict[str, list[float]] = {m: [] for m in METRICS}  # per point, the widening it needs (log)
    for row in rows:
        members = row_runs(row)
        if row["dimension"] not in REQUIRED_DIMENSIONS or members <= drop:
            continue
        base = pooled_error_fallback(rows, 1.0, 0.1)(drop | members)
        for m in METRICS:
            lo, hi = base[m]
            inside[m] += [max(0.0, np.log(lo * r), np.log(1.0 / (r * hi))) for run, r in row["ratios"][m] if run not in drop and r > 0]
    return {m: round(float(np.exp(np.quantile(v, COVERAGE))), 3) if v else 1.0 for m, v in inside.items()}


def alternatives(rows: list[dict[str, Any]], labels: dict[str, dict[str, str]], shipped: list[dict[str, Any]]) -> dict[str, Any]:
    """The rules tried (each group held out as above), and the figure if the rule were chosen per
    group held out: the rule whose coverage over the *other* groups is nearest the goal."""
    tables = Tables(rows)
    by_rule = {name: shipped if name == SHIPPED_RULE else coverage(rows, labels, rule, tables) for name, rule in RULES.items()}
    chosen, nested = [], []
    for i, row in enumerate(rows):
        skip = f"{row['dimension']}/{row['group']}"
        miss = {n: sum(abs(v - COVERAGE) for p in pooled_by_dimension(cov, skip).values() for v in p.values()) for n, cov in by_rule.items()}
        best = min(miss, key=miss.__getitem__)
        chosen.append({"held out": skip, "rule": best})
        nested.append(by_rule[best][i])
    fallbacks = {
        "pooled 5th-95th percentile widened 1.5x (until 2026-12-06)": pooled_error_fallback(rows, 1.5, 0.05),
        "pooled 10th-90th percentile widened by a nested leave-one-group-out factor": lambda drop: pooled_error_fallback(
            rows, nested_widening(rows, drop), 0.1
        )(drop),
    }
    return {
        "rules": {name: pooled_by_dimension(cov) for name, cov in by_rule.items()},
        "rule_chosen_without_the_group_scored": {"pooled_by_dimension": pooled_by_dimension(nested), "choices": chosen},
        "fallbacks": {
            name: {"pooled_by_dimension": pooled_by_dimension(coverage(rows, labels, shipped_rule, Tables(rows, fb))), "factors": fb(frozenset())}
            for name, fb in fallbacks.items()
        },
        "nested_widening_all_groups": nested_widening(rows, frozenset()),
    }


def markdown(result: dict[str, Any]) -> str:
    """The per-group coverage table of a results file, as benchmarks/README.md shows it: each cell
    the share inside, of how many held-out points, and its band (``group_cells_by_band``)."""
    band = {"in": "in", "noise": "noise", "off": "**off**", None: "< 10 points"}
    lines = ["| dimension held out | group | TTFT | ITL | output tok/s |", "| --- | --- | --- | --- | --- |"]
    for r in result["groups"]:
        cells = ["-" if r[m] is None else f"{100 * r[m]:.0f} % of {r[f'{m}_points']} ({band[r.get(f'{m}_band')]})" for m in METRICS]
        lines.append(f"| {r['dimension']} | {r['group']} | " + " | ".join(cells) + " |")
    for d, p in result["pooled_by_dimension"].items():
        lines.append(f"| {d} | **pooled** | " + " | ".join(f"{100 * v:.0f} %" for v in p.values()) + " |")
    return "\n".join(lines)


def compact_lists(text: str) -> str:
    """``json.dumps(indent=1)`` with every list of numbers on one line (the quantiles stay readable)."""
    return re.sub(r"\[\s*(-?[\d.e+-]+(?:,\s*-?[\d.e+-]+)*)\s*\]", lambda m: "[" + ", ".join(x.strip() for x in m.group(1).split(",")) + "]", text)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--logo", type=Path, default=LOGO)
    ap.add_argument("--shipped", type=Path, default=SHIPPED)
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--alternatives", action="store_true", help="also score the rules and fallbacks tried and not shipped (~1 min)")
    ap.add_argument("--markdown", action="store_true", help="print the per-group table of --out (as benchmarks/README.md shows it) and stop")
    a = ap.parse_args(argv)
    if a.markdown:
        print(markdown(json.loads(a.out.read_text(encoding="utf-8"))))
        return 0
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
    pooled = pooled_by_dimension(cov)
    for dim, by_metric in pooled.items():
        print(f"pooled by {dim:<20} " + "  ".join(f"{m} {100 * v:.0f} %" for m, v in by_metric.items()))
    bands = band_counts(cov)
    print(
        f"group-metric cells with {MIN_POINTS}+ points: {bands['in']} in 75-85 %, {bands['noise']} off it within sampling noise, {bands['off']} off it beyond noise"
    )
    result: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "goal": [0.75, 0.85],
        "groups": cov,
        "pooled_by_dimension": pooled,
        "group_cells_by_band": bands,
    }
    if a.alternatives:
        result["alternatives"] = alt = alternatives(rows, logo["runs"], cov)
        for kind in ("rules", "fallbacks"):
            for name, figures in alt[kind].items():
                figures = figures.get("pooled_by_dimension", figures)
                print(f"{kind[:-1]} {name}: " + "; ".join(f"{d} " + "/".join(f"{100 * v:.0f}" for v in p.values()) for d, p in figures.items()))
        print(
            "rule chosen without the group scored: "
            + "; ".join(
                f"{d} " + "/".join(f"{100 * v:.0f}" for v in p.values()) for d, p in alt["rule_chosen_without_the_group_scored"]["pooled_by_dimension"].items()
            )
        )
    a.out.write_text(json.dumps(result, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {a.shipped} and {a.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
