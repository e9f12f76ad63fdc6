"""The compact table (one row per concurrency) of any document that has one:
an EvaluationRun or Prediction as is, a Result by pooling its points."""

from __future__ import annotations

from typing import Any

from servescope.documents import EvaluationRun, Prediction, Result
from servescope.documents.evaluation_run import EvaluationPoint

DEFINITION_NOTES = [
    "servescope: ttft_ms, itl_ms and e2e_ms are means over measured requests; itl_ms pools the gaps between "
    "consecutive content chunks of every request (per-request TPOT is in the Result's tpot_ms); percentiles use "
    "linear interpolation between closest ranks.",
]


def _mean(dist: Any) -> float | None:
    return None if dist is None else dist.mean


def result_points(result: Result) -> tuple[list[EvaluationPoint], list[str]]:
    """One EvaluationPoint per concurrency (the first point of a concurrency is
    kept when several share it, e.g. a context-length sweep), and notes."""
    if result.points:
        blocks = [(p.concurrency, p.metrics) for p in result.points]
    else:
        conc = result.resolved_params.get("concurrency")
        conc = conc[0] if isinstance(conc, list) and conc else conc
        blocks = [(int(conc) if isinstance(conc, int | float) else 1, result.metrics)]
    imported = result.resolved_params.get("import")  # a Result made by servescope import: its harness's definitions
    imported_notes = imported.get("notes") if isinstance(imported, dict) else None
    notes = [str(n) for n in imported_notes] if isinstance(imported_notes, list) else list(DEFINITION_NOTES)
    concs = [c for c, _ in blocks]
    if len(set(concs)) != len(concs):
        notes.append("several points shared a concurrency (e.g. a context-length sweep); the row shows the first point")
    rows: dict[int, EvaluationPoint] = {}
    for conc, m in blocks:
        if conc in rows:
            continue
        rows[conc] = EvaluationPoint(
            concurrency=conc,
            completed_requests=m.completed_requests,
            output_tokens_per_sec=m.output_tokens_per_sec,
            input_tokens_per_sec=m.input_tokens_per_sec,
            ttft_ms=_mean(m.ttft_ms),
            itl_ms=_mean(m.itl_ms),
            e2e_ms=_mean(m.e2e_ms),
            mean_isl=round(m.mean_isl) if m.mean_isl is not None else None,
            mean_osl=round(m.mean_osl) if m.mean_osl is not None else None,
            kv_utilization=m.kv_utilization,
            prefix_cache_hit_rate=m.prefix_cache_hit_rate,
            preemptions=m.preemptions,
        )
    return list(rows.values()), notes


def table_of(doc: EvaluationRun | Prediction | Result) -> tuple[list[EvaluationPoint], dict[str, Any]]:
    """(rows, identity) where identity has scenario, workload, harness, notes."""
    if isinstance(doc, Result):
        rows, notes = result_points(doc)
        return rows, {"scenario": doc.scenario, "workload": doc.workload_id, "harness": doc.metadata.harness,
                      "notes": notes, "name": doc.run_id, "timing_mode": doc.timing_mode}
    if isinstance(doc, Prediction):
        return list(doc.points), {"scenario": doc.scenario, "workload": doc.workload, "harness": doc.predictor,
                                  "notes": [], "name": doc.name, "timing_mode": "simulated"}
    return list(doc.points), {"scenario": doc.scenario, "workload": doc.workload, "harness": doc.harness,
                              "notes": list(doc.notes or []), "name": doc.name, "timing_mode": "explicit"}
