"""Catalog rules: what a document must satisfy given the catalog around it
(shared/seeds/workloads.txt's checklist, immutability, dataset digests, and a
Result carrying what its workload requires)."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from servescope.catalog.lock import LOCK_FILE_NAME, changed_fields, read_lock, sha256_file
from servescope.catalog.store import Catalog, packaged_root
from servescope.documents import Dataset, DatasetRow, Document, Issue, Result, Scenario, Workload
from servescope.documents.base import error, format_loc, warning
from servescope.documents.dataset import DATASET_ID_PATTERN
from servescope.documents.workload import ID_PATTERN
from servescope.errors import CatalogError

MAX_ROW_ISSUES = 5


def _lock_paths(path: Path) -> list[Path]:
    """The packaged lock, and a user lock at the root above ``workloads/``/``datasets/``."""
    paths = [packaged_root() / LOCK_FILE_NAME]
    for candidate in (path.parent / LOCK_FILE_NAME, path.parent.parent / LOCK_FILE_NAME):
        if candidate.is_file() and candidate.resolve() not in {p.resolve() for p in paths}:
            paths.append(candidate)
    return paths


def _immutability(doc: Workload | Dataset, path: Path, section: str) -> list[Issue]:
    issues = []
    for lock_path in _lock_paths(path):
        entry = read_lock(lock_path)[section].get(doc.id)
        if entry is None:
            continue
        changed = changed_fields(doc, entry)
        if changed:
            m = (ID_PATTERN if section == "workloads" else DATASET_ID_PATTERN).match(doc.id)
            next_id = f"{m.group('base')}-v{int(m.group('version')) + 1}" if m else f"{doc.id}-v2"
            issues.append(
                error(
                    changed[0] if changed[0] != "(content)" else "",
                    f"{doc.id} is published (locked in {lock_path}) and its runnable field(s) "
                    f"{', '.join(changed)} changed; published files are immutable: restore it and "
                    f"publish {next_id} with supersedes: {doc.id}",
                )
            )
    return issues


def _supersedes(doc: Workload | Dataset, pattern: re.Pattern[str], known: set[str]) -> list[Issue]:
    m = pattern.match(doc.id)
    if not m:
        return []  # the id rule already reported it
    version = int(m.group("version"))
    if version == 1:
        if doc.supersedes is not None:
            return [error("supersedes", f"must be null on a -v1, got {doc.supersedes!r}")]
        return []
    if doc.supersedes is None:
        return [error("supersedes", f"a -v{version} must name the version it supersedes (e.g. {m.group('base')}-v{version - 1})")]
    sm = pattern.match(doc.supersedes)
    if not sm or sm.group("base") != m.group("base") or int(sm.group("version")) >= version:
        return [error("supersedes", f"{doc.supersedes!r} is not a lower version of {m.group('base')}")]
    if doc.supersedes not in known:
        return [error("supersedes", f"{doc.supersedes!r} does not exist in the catalog")]
    return []


def _filename(doc_id: str, path: Path, what: str) -> list[Issue]:
    issues = []
    if path.stem != doc_id:
        issues.append(error("id", f"{what} id {doc_id!r} must equal the file name, which is {path.stem!r}"))
    if path.suffix != ".json":
        issues.append(error("", f"{what} files are JSON: name it {doc_id}.json"))
    return issues


def workload_issues(doc: Workload, path: Path, catalog: Catalog, extra_datasets: set[str]) -> list[Issue]:
    issues = _filename(doc.id, path, "workload")
    datasets = set(catalog.ids("datasets")) | extra_datasets
    if doc.dataset_id not in datasets:
        issues.append(error("dataset_id", f"dataset {doc.dataset_id!r} does not exist in the catalog"))
    issues += _supersedes(doc, ID_PATTERN, set(catalog.ids("workloads")))
    issues += _immutability(doc, path, "workloads")
    return issues


def dataset_issues(doc: Dataset, path: Path, catalog: Catalog) -> list[Issue]:
    issues = _filename(doc.id, path, "dataset")
    issues += _supersedes(doc, DATASET_ID_PATTERN, set(catalog.ids("datasets")))
    issues += _immutability(doc, path, "datasets")
    rows_path = path.parent / doc.rows_file
    if not rows_path.is_file():
        return issues + [error("rows_file", f"{rows_path} does not exist")]
    digest = sha256_file(rows_path)
    if digest != doc.rows_sha256:
        issues.append(error("rows_sha256", f"{doc.rows_file} has sha256 {digest}; the manifest pins {doc.rows_sha256}"))
    count, seen, row_issues = 0, set(), []
    with rows_path.open(encoding="utf-8", errors="replace") as fh:
        for lineno, line in enumerate(fh, start=1):
            if not line.strip():
                continue
            count += 1
            try:
                row = DatasetRow.model_validate(json.loads(line))
            except json.JSONDecodeError as exc:
                row_issues.append(error("rows_file", f"{doc.rows_file} line {lineno}: invalid JSON: {exc.msg}"))
                continue
            except ValidationError as exc:
                first = exc.errors(include_url=False)[0]
                row_issues.append(error("rows_file", f"{doc.rows_file} line {lineno}: {format_loc(first['loc'])}: {first['msg']}"))
                continue
            if row.id in seen:
                row_issues.append(error("rows_file", f"{doc.rows_file} line {lineno}: duplicate row id {row.id!r}"))
            seen.add(row.id)
    issues += row_issues[:MAX_ROW_ISSUES]
    if len(row_issues) > MAX_ROW_ISSUES:
        issues.append(error("rows_file", f"... and {len(row_issues) - MAX_ROW_ISSUES} more row problems"))
    if count != doc.row_count:
        issues.append(error("row_count", f"manifest says {doc.row_count} rows; {doc.rows_file} has {count}"))
    return issues


def _lookup(data: Any, dotted: str) -> Any:
    for part in dotted.split("."):
        if not isinstance(data, dict):
            return None
        data = data.get(part)
    return data


def result_issues(doc: Result, catalog: Catalog) -> list[Issue]:
    """A result must carry, non-null, every metric its workload requires."""
    try:
        workload = catalog.workload(doc.workload_id)
    except CatalogError:  # an unknown workload is a user's own, not ours to judge
        return []
    issues = []
    data = doc.model_dump(mode="json")
    block = "scores" if workload.kind == "eval" else "metrics"
    nothing_completed = not doc.metrics.completed_requests
    for name in workload.metrics_required:
        if _lookup(data.get(block) or {}, name) is None:
            make = warning if nothing_completed else error
            reason = " (the run completed no request)" if nothing_completed else ""
            issues.append(make(f"{block}.{name}", f"required by workload {workload.id} but null{reason}"))
    return issues


def scenario_issues(doc: Scenario, catalog: Catalog) -> list[Issue]:
    issues = []
    if doc.model not in catalog.entries["models"] and not doc.model.endswith(".json"):
        issues.append(warning("model", f"model {doc.model!r} is not in the catalog; predict will need --model-config"))
    if doc.hardware not in catalog.entries["hardware"]:
        issues.append(warning("hardware", f"hardware {doc.hardware!r} is not in the catalog"))
    return issues


def catalog_issues(doc: Document, path: Path, catalog: Catalog, extra_datasets: set[str] | None = None) -> list[Issue]:
    if isinstance(doc, Workload):
        return workload_issues(doc, path, catalog, extra_datasets or set())
    if isinstance(doc, Dataset):
        return dataset_issues(doc, path, catalog)
    if isinstance(doc, Result):
        return result_issues(doc, catalog)
    if isinstance(doc, Scenario):
        return scenario_issues(doc, catalog)
    return []
