"""``servescope regress``: the baseline regression guard (metrics-contract.txt).

Only deterministic runs are compared (simulated runs are; live measurements are
not, and are skipped with a note), and only integers and structs — completed
and failed requests, token counts, preemptions, failures by category, SLO
violations by id — so float noise across platforms never fails the guard.
Results are keyed by identifiers (workload, config, scenario, seed, load point —
``analysis.summarize.load_point``: two runs at two concurrencies are two
results), never by their position in a folder; points by concurrency and
context length.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from servescope.analysis.summarize import load_point
from servescope.documents import Result, load
from servescope.documents.walk import walk

INTEGER_FIELDS: tuple[str, ...] = (
    "total_requests",
    "completed_requests",
    "failed_requests",
    "input_tokens_total",
    "output_tokens_total",
    "preemptions",
)

Key = tuple[str, str, str, str, str]


def result_key(r: Result) -> Key:
    return (r.workload_id, r.config_id, r.scenario or "", str(r.metadata.seed if r.metadata.seed is not None else ""), load_point(r))


def guarded_values(r: Result) -> dict[str, Any]:
    """The integers and structs the guard compares, flattened to dotted names."""
    out: dict[str, Any] = {"throughput": r.throughput}
    out |= {f"metrics.{f}": getattr(r.metrics, f) for f in INTEGER_FIELDS}
    out["blocked_by_reason_code"] = dict(sorted(r.blocked_by_reason_code.items()))
    out["violations_by_invariant_id"] = dict(sorted(r.violations_by_invariant_id.items()))
    for p in r.points or []:
        tag = f"points[c={p.concurrency}" + (f",ctx={p.context_tokens}" if p.context_tokens else "") + "]"
        out |= {f"{tag}.{f}": getattr(p.metrics, f) for f in INTEGER_FIELDS}
    return out


@dataclass
class RegressReport:
    compared: int = 0
    differences: list[str] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No difference, and something was compared: a guard that compared nothing (a wrong
        path, an empty folder, only live runs) must not pass."""
        return not self.differences and self.compared > 0


def load_results(folder: Path) -> tuple[dict[Key, Result], list[str]]:
    results: dict[Key, Result] = {}
    notes = []
    walked = walk(folder, lambda p: p.suffix == ".json")
    notes.extend(walked.skipped_lines())
    for path in walked.files:
        loaded = load(path)
        if not isinstance(loaded.document, Result):
            continue
        r = loaded.document
        if r.metadata.non_deterministic:
            notes.append(f"{path}: non-deterministic run (timing_mode {r.timing_mode}); not guarded")
            continue
        key = result_key(r)
        if key in results:
            notes.append(f"{path}: a second result for {key}; the guard needs one per key")
            continue
        results[key] = r
    return results, notes


def regress(baseline: Path, current: Path) -> RegressReport:
    base, notes_b = load_results(baseline)
    cur, notes_c = load_results(current)
    report = RegressReport(skipped=notes_b + notes_c)
    for key in sorted(set(base) | set(cur)):
        name = "/".join(k for k in key if k)
        if key not in cur:
            report.differences.append(f"{name}: in the baseline, missing from the results")
            continue
        if key not in base:
            report.differences.append(f"{name}: new result, not in the baseline (add it to the baseline deliberately)")
            continue
        report.compared += 1
        b, c = guarded_values(base[key]), guarded_values(cur[key])
        for field_name in sorted(set(b) | set(c)):
            if b.get(field_name) != c.get(field_name):
                report.differences.append(f"{name}: {field_name}: baseline {json.dumps(b.get(field_name))} != result {json.dumps(c.get(field_name))}")
    return report
