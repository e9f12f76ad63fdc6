"""Documents that another document in the report already shows: counted once.

- a **copy**: the same document twice (a run folder given twice, or copied), by
  the digest of its content, whatever the files are named;
- an **EvaluationRun** that is the compact table of a Result shown (``servescope
  run`` and ``servescope import`` write both, the run named by the Result's run_id);
- a **Prediction** that is the compact table of a simulated Result shown
  (``servescope predict`` writes both): same scenario, workload and seed, the
  Result's run_id the Prediction's name and seed, and the same figures (requests,
  mean TTFT/ITL/E2E, throughputs) point by point. Two predictions of one name that differ (another calibration, another
  predictor version) keep both.

The Result is kept: it carries everything its compact table does, and more."""

from __future__ import annotations

import hashlib
import json

from servescope.analysis.tables import table_of
from servescope.documents import EvaluationRun, Prediction, Result
from servescope.report.evidence import Run

# The figures a Prediction's row and its Result's pooled row both carry (the Result has no
# published medians), rounded so that a float's last bits written by another code path do not count.
_FIGURES = ("completed_requests", "ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_sec", "input_tokens_per_sec")


def _digest(doc: Result | Prediction | EvaluationRun) -> str:
    text = json.dumps([type(doc).__name__, doc.dump()], sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _figures(doc: Result | Prediction) -> tuple[tuple[float | None, ...], ...]:
    rows, _ = table_of(doc)
    # the figures only, not the rows' labels: a Result's pooled rows carry no rate, and their
    # concurrency is the client's limit where the Prediction's is the most requests in flight
    figures = [tuple(_rounded(getattr(row, f, None)) for f in _FIGURES) for row in rows]
    return tuple(sorted(figures, key=repr))


def _rounded(value: float | None) -> float | None:
    return None if value is None else float(f"{value:.9g}")


def _prediction_key(doc: Result | Prediction) -> tuple[object, ...]:
    if isinstance(doc, Prediction):
        return (f"{doc.name}-seed{doc.seed}", doc.scenario, doc.workload, _figures(doc))
    return (doc.run_id, doc.scenario, doc.workload_id, _figures(doc))


def split_twins(runs: list[Run]) -> tuple[list[Run], list[Run]]:
    """(runs to show, runs left out as copies or compact tables of those shown), order kept."""
    seen: set[str] = set()
    kept: list[Run] = []
    twins: list[Run] = []
    for run in runs:
        digest = _digest(run.doc)
        (twins if digest in seen else kept).append(run)
        seen.add(digest)
    results = [r.doc for r in kept if isinstance(r.doc, Result)]
    measured = {(r.run_id, r.workload_id) for r in results}
    simulated = {_prediction_key(r) for r in results if r.timing_mode == "simulated"}

    def is_twin(run: Run) -> bool:
        if isinstance(run.doc, EvaluationRun):
            return (run.name, run.workload_id) in measured
        if isinstance(run.doc, Prediction):
            return run.doc.seed is not None and _prediction_key(run.doc) in simulated
        return False

    twins.extend(r for r in kept if is_twin(r))
    return [r for r in kept if not is_twin(r)], twins
