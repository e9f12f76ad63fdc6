"""A tiny user catalog in a temp folder, built from plain dicts."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

ROWS = [
    {"id": "r1", "text": "Explain how a kettle knows when to switch off.", "bucket": "xs", "tokens_nominal": 12},
    {"id": "r2", "text": "Summarise the history of the printing press in three sentences.", "bucket": "xs", "tokens_nominal": 14},
]


def workload_doc(**over: Any) -> dict[str, Any]:
    doc = {
        "id": "serve-tiny-c2-v1",
        "kind": "serving",
        "name": "Tiny",
        "description": "Two short prompts at concurrency 2.",
        "dataset_id": "prompts-tiny-v1",
        "params": {"concurrency": 2, "num_requests": 4, "input_tokens": 16, "output_tokens": 8, "seed": 0},
        "metrics_required": ["ttft_ms.p50", "output_tokens_per_sec"],
        "immutable": True,
        "created": "2026-11-30",
        "supersedes": None,
    }
    doc.update(over)
    return doc


class TinyCatalog:
    def __init__(self, root: Path) -> None:
        self.root = root
        (root / "workloads").mkdir(parents=True)
        (root / "datasets").mkdir()
        self.write_dataset()

    def write_dataset(self, dataset_id: str = "prompts-tiny-v1", rows: list[dict[str, Any]] | None = None, **over: Any) -> Path:
        body = "".join(json.dumps(r, sort_keys=True) + "\n" for r in (rows or ROWS))
        (self.root / "datasets" / f"{dataset_id}.jsonl").write_text(body, encoding="utf-8")
        manifest = {
            "kind": "Dataset",
            "id": dataset_id,
            "name": "Tiny prompts",
            "rows_file": f"{dataset_id}.jsonl",
            "rows_sha256": hashlib.sha256(body.encode()).hexdigest(),
            "row_count": len(rows or ROWS),
            "immutable": True,
            "created": "2026-11-30",
            "supersedes": None,
        }
        manifest.update(over)
        path = self.root / "datasets" / f"{dataset_id}.json"
        path.write_text(json.dumps(manifest, indent=2), encoding="utf-8")
        return path

    def write_workload(self, doc: dict[str, Any], name: str | None = None) -> Path:
        path = self.root / "workloads" / (name or f"{doc['id']}.json")
        path.write_text(json.dumps(doc, indent=2), encoding="utf-8")
        return path


@pytest.fixture
def tiny(tmp_path: Path) -> TinyCatalog:
    return TinyCatalog(tmp_path / "catalog")
