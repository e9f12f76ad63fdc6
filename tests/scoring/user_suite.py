"""A user's one-row scored suite in a catalog of their own, run against an endpoint where
nothing listens: for tests that a malformed row is refused before anything is sent."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from servescope.catalog.store import packaged_root


def run_one_row_suite(tmp_path: Path, row: dict[str, Any], like_workload: str) -> tuple[subprocess.CompletedProcess[str], Path]:
    """``servescope run eval-mine-v1`` where eval-mine-v1 is ``like_workload``'s workload over a
    dataset of ``row`` alone (on SERVESCOPE_CATALOG_PATH); the finished process and its --out folder."""
    catalog = tmp_path / "catalog"
    (catalog / "workloads").mkdir(parents=True)
    (catalog / "datasets").mkdir()
    blob = (json.dumps(row) + "\n").encode()
    (catalog / "datasets" / "eval-mine-v1.jsonl").write_bytes(blob)
    manifest = {
        "kind": "Dataset",
        "id": "eval-mine-v1",
        "name": "mine",
        "description": "mine",
        "rows_file": "eval-mine-v1.jsonl",
        "rows_sha256": hashlib.sha256(blob).hexdigest(),
        "row_count": 1,
        "license": "CC0-1.0",
        "immutable": True,
        "created": "2026-12-06",
        "supersedes": None,
    }
    (catalog / "datasets" / "eval-mine-v1.json").write_text(json.dumps(manifest))
    workload = json.loads((packaged_root() / "workloads" / f"{like_workload}.json").read_text())
    workload.update(id="eval-mine-v1", dataset_id="eval-mine-v1", supersedes=None)
    workload["params"]["num_requests"] = 1
    (catalog / "workloads" / "eval-mine-v1.json").write_text(json.dumps(workload))
    out = tmp_path / "out"
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog)}
    argv = [sys.executable, "-m", "servescope", "run", "eval-mine-v1", "--endpoint", "http://127.0.0.1:9/v1", "--out", str(out)]
    return subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120), out
