"""Each catalog rule (issue 2 §6, workloads.txt checklist): a failing document and a passing one."""

from __future__ import annotations

import json
from pathlib import Path

from servescope.catalog.store import Catalog
from servescope.catalog.summary import lock_root
from servescope.catalog.validate import validate_paths
from tests.catalog.conftest import TinyCatalog, workload_doc


def issues_of(tiny: TinyCatalog, path: Path) -> list[tuple[str, str, str]]:
    report = validate_paths([path], Catalog.load([tiny.root]))
    return [(i.level, i.path, i.message) for _, i in report.issues()]


def errors_at(tiny: TinyCatalog, path: Path) -> dict[str, str]:
    return {p: m for level, p, m in issues_of(tiny, path) if level == "error"}


def test_valid_workload_passes(tiny: TinyCatalog) -> None:
    assert issues_of(tiny, tiny.write_workload(workload_doc())) == []


def test_id_must_match_pattern(tiny: TinyCatalog) -> None:
    doc = workload_doc(id="serve-tiny-c2")
    assert "does not match <kind>-<shape>-vN" in errors_at(tiny, tiny.write_workload(doc))["id"]


def test_filename_must_equal_id(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc(), name="serve-other-v1.json")
    assert "must equal the file name" in errors_at(tiny, path)["id"]


def test_workload_file_must_be_json(tiny: TinyCatalog) -> None:
    path = tiny.root / "workloads" / "serve-tiny-c2-v1.yaml"
    path.write_text(json.dumps(workload_doc()), encoding="utf-8")
    assert "name it serve-tiny-c2-v1.json" in errors_at(tiny, path)[""]


def test_dataset_id_must_exist(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc(dataset_id="prompts-missing-v1"))
    assert "does not exist" in errors_at(tiny, path)["dataset_id"]


def test_metrics_required_must_be_fillable(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc(metrics_required=["ttft_ms.p50", "accuracy"]))
    errs = errors_at(tiny, path)
    assert list(errs) == ["metrics_required[1]"]
    assert "'accuracy' is not a metric a serving runner fills" in errs["metrics_required[1]"]


def test_metrics_required_eval_names_pass(tiny: TinyCatalog) -> None:
    doc = workload_doc(
        id="eval-tiny-v1",
        kind="eval",
        eval={"scorer": "exact"},
        metrics_required=["accuracy", "success_rate", "avg_latency_ms"],
    )
    assert issues_of(tiny, tiny.write_workload(doc)) == []


def test_immutable_must_be_true(tiny: TinyCatalog) -> None:
    assert "immutable: true" in errors_at(tiny, tiny.write_workload(workload_doc(immutable=False)))["immutable"]


def test_created_must_be_iso_date(tiny: TinyCatalog) -> None:
    for bad in ("30/11/2026", "2026-02-30", "yesterday"):
        assert "created" in errors_at(tiny, tiny.write_workload(workload_doc(created=bad)))


def test_supersedes_null_on_v1(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc(supersedes="serve-tiny-c2-v0"))
    assert "must be null on a -v1" in errors_at(tiny, path)["supersedes"]


def test_v2_must_name_what_it_supersedes(tiny: TinyCatalog) -> None:
    tiny.write_workload(workload_doc())
    path = tiny.write_workload(workload_doc(id="serve-tiny-c2-v2"))
    assert "must name the version it supersedes" in errors_at(tiny, path)["supersedes"]


def test_v2_supersedes_must_be_lower_version_of_same_base(tiny: TinyCatalog) -> None:
    tiny.write_workload(workload_doc())
    for wrong in ("serve-tiny-c2-v3", "serve-other-c2-v1"):
        path = tiny.write_workload(workload_doc(id="serve-tiny-c2-v2", supersedes=wrong))
        assert "is not a lower version" in errors_at(tiny, path)["supersedes"]


def test_v2_supersedes_must_exist(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc(id="serve-tiny-c2-v2", supersedes="serve-tiny-c2-v1"))
    assert "does not exist in the catalog" in errors_at(tiny, path)["supersedes"]


def test_v2_supersedes_existing_v1_passes(tiny: TinyCatalog) -> None:
    tiny.write_workload(workload_doc())
    path = tiny.write_workload(workload_doc(id="serve-tiny-c2-v2", supersedes="serve-tiny-c2-v1"))
    assert issues_of(tiny, path) == []


def test_locked_workload_runnable_change_fails(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc())
    added, problems = lock_root(tiny.root)
    assert problems == [] and sorted(added) == ["prompts-tiny-v1", "serve-tiny-c2-v1"]
    changed = workload_doc()
    changed["params"]["concurrency"] = 4
    tiny.write_workload(changed)
    errs = errors_at(tiny, path)
    assert "params" in errs
    assert "publish serve-tiny-c2-v2 with supersedes: serve-tiny-c2-v1" in errs["params"]


def test_locked_workload_prose_change_passes(tiny: TinyCatalog) -> None:
    path = tiny.write_workload(workload_doc())
    lock_root(tiny.root)
    tiny.write_workload(workload_doc(name="Renamed", description="Better words.", notes="A note."))
    assert issues_of(tiny, path) == []


def test_lock_never_rewrites_an_entry(tiny: TinyCatalog) -> None:
    tiny.write_workload(workload_doc())
    lock_root(tiny.root)
    before = (tiny.root / "catalog.lock.json").read_text()
    changed = workload_doc()
    changed["params"]["num_requests"] = 9
    tiny.write_workload(changed)
    added, problems = lock_root(tiny.root)
    assert added == [] and len(problems) == 1 and "(not locked)" in problems[0]
    assert (tiny.root / "catalog.lock.json").read_text() == before


def test_locked_dataset_rows_change_fails(tiny: TinyCatalog) -> None:
    lock_root(tiny.root)
    path = tiny.write_dataset(rows=[{"id": "r1", "text": "A different prompt now."}])
    errs = errors_at(tiny, path)
    assert "publish prompts-tiny-v2" in errs["row_count"] or "publish prompts-tiny-v2" in errs["rows_sha256"]


def test_dataset_digest_must_match_rows(tiny: TinyCatalog) -> None:
    path = tiny.write_dataset(rows_sha256="0" * 64)
    assert "the manifest pins" in errors_at(tiny, path)["rows_sha256"]


def test_dataset_row_count_must_match(tiny: TinyCatalog) -> None:
    path = tiny.write_dataset(row_count=3)
    assert "has 2" in errors_at(tiny, path)["row_count"]


def test_dataset_rows_must_validate(tiny: TinyCatalog) -> None:
    path = tiny.write_dataset(rows=[{"id": "r1", "text": "ok"}, {"id": "r1", "text": "dup"}, {"id": "r3"}])
    messages = [m for level, p, m in issues_of(tiny, path) if p == "rows_file"]
    assert any("duplicate row id 'r1'" in m for m in messages)
    assert any("line 3: text: Field required" in m for m in messages)


def test_valid_dataset_passes(tiny: TinyCatalog) -> None:
    assert issues_of(tiny, tiny.root / "datasets" / "prompts-tiny-v1.json") == []
