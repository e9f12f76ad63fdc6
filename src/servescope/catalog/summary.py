"""Library functions behind ``servescope catalog ...``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from servescope.catalog.lock import LOCK_FILE_NAME, add_to_lock
from servescope.catalog.store import Catalog, document_walk
from servescope.catalog.validate import validate_paths
from servescope.documents import Dataset, Document, Workload


def workload_rows(catalog: Catalog | None = None) -> list[dict[str, Any]]:
    cat = catalog if catalog is not None else Catalog.load()
    return _rows(cat)


def _rows(cat: Catalog) -> list[dict[str, Any]]:
    rows = []
    for key in cat.ids("workloads"):
        w = cat.workload(key)
        conc: Any = w.params.concurrency
        requests: Any = w.params.num_requests
        if w.sweep is not None:
            conc = f"{w.sweep.values[0]}..{w.sweep.values[-1]}" if w.sweep.axis == "concurrency" else conc
            if w.sweep.axis == "concurrency":
                requests = sum(w.requests_per_point(c) for c in w.sweep.values)
            else:
                requests = (w.params.num_requests or 0) * len(w.sweep.values)
        rows.append(
            {
                "id": w.id,
                "kind": w.kind,
                "dataset": w.dataset_id,
                "concurrency": conc,
                "requests": requests,
                "input_tokens": w.params.input_tokens or w.params.context_tokens,
                "output_tokens": w.params.output_tokens,
            }
        )
    return rows


def lock_root(root: Path) -> tuple[list[str], list[str]]:
    """Lock the valid, unlocked workloads and datasets under ``root``."""
    walks = [document_walk(root / sub) for sub in ("workloads", "datasets") if (root / sub).is_dir()]
    files = [p for walked in walks for p in walked.files]
    report = validate_paths(files, Catalog.load([root]))
    docs: list[Document] = []
    problems = [f"{path}: {why} (not locked)" for walked in walks for path, why in walked.skipped]
    for loaded in report.files:
        errors = [i for i in loaded.issues if i.level == "error"]
        if errors:
            problems.append(errors[0].format(loaded.source) + " (not locked)")
        elif isinstance(loaded.document, (Workload, Dataset)):
            docs.append(loaded.document)
    return add_to_lock(root / LOCK_FILE_NAME, docs), problems
