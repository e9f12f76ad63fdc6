"""The plan of an eval workload: one request per row, carrying the row."""

from __future__ import annotations

from servescope.catalog.store import Catalog
from servescope.workload.plan import plan


def test_eval_plan_is_one_request_per_row_in_file_order_with_the_row() -> None:
    cat = Catalog.load()
    workload = cat.workload("eval-tools-small-v1")
    rows = cat.dataset_rows(workload.dataset_id)
    points = plan(workload, rows)
    assert len(points) == 1 and points[0].concurrency == 4
    reqs = points[0].requests
    assert [r.prompt_id for r in reqs] == [r.id for r in rows][: workload.params.num_requests]
    assert all(r.row is not None and r.phase == "measured" for r in reqs)
    assert any(r.row.messages for r in reqs if r.row is not None)  # multi-turn rows keep their messages


def test_every_packaged_eval_workload_plans_and_names_known_scorers() -> None:
    from servescope.scoring import known

    cat = Catalog.load()
    evals = [w for w in (cat.workload(k) for k in cat.entries["workloads"]) if w.kind == "eval"]
    assert len(evals) >= 15
    for w in evals:
        (point,) = plan(w, cat.dataset_rows(w.dataset_id))
        assert point.requests and all(known(r.row.scorer or w.eval.scorer) for r in point.requests if r.row and w.eval)
        if w.renders_images:  # scored image suites: renders run one at a time, and no model reasons (workloads.txt)
            assert w.params.concurrency == 1 and w.params.reasoning is None
            continue
        assert w.params.concurrency == (1 if w.id in ("eval-longctx-v1", "eval-longgen-integrity-v1", "eval-longgen-integrity-v2") else 4)
        assert w.params.reasoning == "default"
