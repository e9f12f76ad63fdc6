"""Predictions paired with the measurements they predict: same workload, same
model x hardware x engine cell, and the same scenario when both name one. The
errors are ``analysis.compare``'s (prediction - measurement) / measurement, on
the compact tables' means, point by point at matching concurrencies."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from servescope.analysis.compare import Comparison, compare
from servescope.errors import CompareRefused
from servescope.report.evidence import Run


@dataclass
class Pairing:
    predicted: Run
    measured: Run
    comparison: Comparison

    def point_errors(self, concurrency: int) -> dict[str, float]:
        return {p.metric: p.error_pct for p in self.comparison.pairs if p.concurrency == concurrency and p.error_pct is not None}

    def point_inside(self, concurrency: int) -> dict[str, bool]:
        """Per metric, whether the measurement lies in the prediction's own interval of the point (where it has one)."""
        return {p.metric: p.inside_interval for p in self.comparison.pairs if p.concurrency == concurrency and p.inside_interval is not None}


def pair_runs(runs: list[Run]) -> list[Pairing]:
    by_place: dict[tuple[str | None, object], list[Run]] = defaultdict(list)
    for run in runs:
        by_place[(run.workload_id, run.cell)].append(run)
    out = []
    for group in by_place.values():
        predicted = [r for r in group if r.evidence == "predicted"]
        measured = [r for r in group if r.evidence != "predicted"]
        for p in predicted:
            for m in measured:
                if p.scenario and m.scenario and p.scenario != m.scenario:
                    continue
                try:
                    c = compare(p.doc, m.doc)
                except CompareRefused:
                    continue
                if c.pairs:
                    out.append(Pairing(p, m, c))
    return out
