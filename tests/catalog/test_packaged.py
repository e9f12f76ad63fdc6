"""The packaged catalog: complete, locked, reproducible, and planned as workloads.txt says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from servescope.catalog.lock import changed_fields, read_lock
from servescope.catalog.store import Catalog, packaged_root
from servescope.workload.plan import plan

ROOT = Path(__file__).resolve().parents[2]
REQUIRED_WORKLOADS = {
    "serve-single-i256-o256-v1": (1, 50),
    "serve-short-c16-i128-o128-v1": (16, 320),
    "serve-chat-c8-i1k-o256-v1": (8, 200),
    "serve-chat-c32-i1k-o256-v1": (32, 400),
    "serve-chat-c64-i1k-o256-v1": (64, 640),
    "serve-long-c4-i8k-o512-v1": (4, 40),
    "serve-code-c8-i2k-o1k-v1": (8, 160),
    "serve-prefix-c16-v1": (16, 200),
    "prefill-8k-v1": (1, 10),
    "prefill-32k-v1": (1, 10),
    "prefill-128k-v1": (1, 10),
    "longctx-needle-32k-v1": (1, 6),
    "longctx-needle-128k-v1": (1, 6),
}
REQUIRED_SWEEPS = ("sweep-parallel-1-32-i512-o256-v1", "sweep-parallel-1-64-i1k-o256-v1", "sweep-parallel-1-256-i512-o256-v1")


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.load([])


def test_required_workloads_have_their_shapes(catalog: Catalog) -> None:
    for wid, (conc, n) in REQUIRED_WORKLOADS.items():
        w = catalog.workload(wid)
        assert (w.params.concurrency, w.params.num_requests) == (conc, n), wid
    for wid in REQUIRED_SWEEPS:
        assert catalog.workload(wid).kind == "sweep"
    assert catalog.workload("longctx-depth-sweep-v1").sweep.values[0] == 1024  # type: ignore[union-attr]
    assert catalog.workload("longctx-depth-sweep-v1").sweep.values[-1] == 262144  # type: ignore[union-attr]


def test_small_model_sweep_sends_2112_requests(catalog: Catalog) -> None:
    w = catalog.workload("sweep-parallel-1-256-i512-o256-v1")
    assert sum(w.requests_per_point(c) for c in w.sweep.values) == 2112  # type: ignore[union-attr]
    points = plan(w, catalog.dataset_rows(w.dataset_id))
    assert sum(p.measured for p in points) == 2112
    assert [p.concurrency for p in points] == [1, 2, 4, 8, 16, 32, 64, 128, 256]


def test_every_packaged_entry_is_locked_and_unchanged(catalog: Catalog) -> None:
    lock = read_lock(packaged_root() / "catalog.lock.json")
    for section in ("workloads", "datasets"):
        assert set(lock[section]) == set(catalog.ids(section))
        for key in catalog.ids(section):
            assert changed_fields(catalog.entries[section][key].document, lock[section][key]) is None, key


def test_datasets_regenerate_byte_for_byte(tmp_path: Path) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "build_datasets.py"), "--out", str(tmp_path)], check=True, timeout=120)
    shipped = packaged_root() / "datasets"
    for made in sorted(tmp_path.glob("*.json*")):
        assert made.read_bytes() == (shipped / made.name).read_bytes(), made.name


def test_prefix_workload_groups_back_to_back(catalog: Catalog) -> None:
    w = catalog.workload("serve-prefix-c16-v1")
    [point] = plan(w, catalog.dataset_rows(w.dataset_id))
    groups = [r.group for r in point.requests]
    # each group appears as one contiguous run, in file order
    runs = [g for i, g in enumerate(groups) if i == 0 or groups[i - 1] != g]
    assert runs == sorted(set(groups)) and len(runs) == 10
    assert len(point.requests) == 200
    warm = [r for r in point.requests if r.phase == "warmup"]
    assert len(warm) == 10 and all(r.request_id.endswith("-000") for r in warm)


def test_longctx_plan_carries_needles(catalog: Catalog) -> None:
    w = catalog.workload("longctx-needle-32k-v1")
    [point] = plan(w, catalog.dataset_rows(w.dataset_id))
    assert point.context_tokens == 32768 and point.measured == 6
    for req in point.requests:
        assert req.expected and req.expected in req.prompt
        assert 0.8 * 32768 <= (req.input_tokens_nominal or 0) <= 1.1 * 32768


def test_serving_plan_is_deterministic_and_excludes_warmup(catalog: Catalog) -> None:
    w = catalog.workload("serve-chat-c8-i1k-o256-v1")
    rows = catalog.dataset_rows(w.dataset_id)
    a, b = plan(w, rows), plan(w, rows)
    assert [r.prompt_id for r in a[0].requests] == [r.prompt_id for r in b[0].requests]
    assert a[0].measured == 200
    assert sum(1 for r in a[0].requests if r.phase == "warmup") == (w.params.warmup_requests or 0)
    assert all(r.max_tokens == 256 for r in a[0].requests)
