"""A real llama.cpp server on loopback, and a small user catalog of test-sized
workloads that draw from the packaged datasets."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig, find_llama_server
from servescope.catalog.store import Catalog
from servescope.errors import EngineError

BASE = {"immutable": True, "created": "2026-11-30", "supersedes": None, "description": "integration test workload"}

WORKLOADS: list[dict[str, Any]] = [
    {
        "id": "serve-itest-c4-v1",
        "kind": "serving",
        "name": "itest serving",
        "dataset_id": "prompts-mixed-v1",
        "params": {
            "concurrency": 4,
            "num_requests": 12,
            "output_tokens": 16,
            "warmup_requests": 2,
            "seed": 0,
            "temperature": 0.0,
            "timeout_s": 60,
            "dataset_buckets": ["xs", "s"],
        },
        "metrics_required": ["ttft_ms.p50", "itl_ms.p50", "tpot_ms.p50", "e2e_ms.p50", "output_tokens_per_sec"],
    },
    {
        "id": "sweep-itest-1-4-v1",
        "kind": "sweep",
        "name": "itest sweep",
        "dataset_id": "prompts-mixed-v1",
        "params": {
            "concurrency": 1,
            "num_requests": 3,
            "requests_per_concurrency": 2,
            "output_tokens": 8,
            "warmup_requests": 1,
            "seed": 0,
            "timeout_s": 60,
            "dataset_buckets": ["xs"],
        },
        "sweep": {"axis": "concurrency", "values": [1, 2, 4]},
        "metrics_required": ["ttft_ms.p50", "output_tokens_per_sec"],
    },
    {
        "id": "serve-itest-prefix-v1",
        "kind": "serving",
        "name": "itest prefix",
        "dataset_id": "prompts-shared-prefix-v1",
        "params": {
            "concurrency": 2,
            "num_requests": 12,
            "output_tokens": 4,
            "seed": 0,
            "timeout_s": 60,
            "group_by": "prefix_id",
            "shuffle": False,
            "warmup_per_group": 1,
        },
        "metrics_required": ["ttft_ms.p50"],
    },
    {
        "id": "longctx-itest-v1",
        "kind": "longctx",
        "name": "itest longctx",
        "dataset_id": "haystack-v1",
        "params": {
            "concurrency": 1,
            "num_requests": 2,
            "output_tokens": 8,
            "seed": 0,
            "timeout_s": 60,
            "needle_check": True,
            "needle_depth": 0.5,
            "dataset_categories": ["passage", "needle"],
        },
        "sweep": {"axis": "context_tokens", "values": [512, 4096]},
        "metrics_required": ["total_requests"],
    },
    {
        "id": "serve-itest-eos-v1",
        "kind": "serving",
        "name": "itest ignore_eos",
        "dataset_id": "prompts-mixed-v1",
        "params": {"concurrency": 2, "num_requests": 6, "output_tokens": 16, "seed": 0, "timeout_s": 60, "dataset_buckets": ["xs"], "ignore_eos": True},
        "metrics_required": [],
    },
    {
        "id": "serve-itest-eos-control-v1",
        "kind": "serving",
        "name": "itest without ignore_eos",
        "dataset_id": "prompts-mixed-v1",
        "params": {"concurrency": 2, "num_requests": 6, "output_tokens": 16, "seed": 0, "timeout_s": 60, "dataset_buckets": ["xs"]},
        "metrics_required": [],
    },
    {
        "id": "serve-itest-min-tokens-v1",
        "kind": "serving",
        "name": "itest min_tokens",
        "dataset_id": "prompts-mixed-v1",
        "params": {"concurrency": 2, "num_requests": 6, "output_tokens": 16, "seed": 0, "timeout_s": 60, "dataset_buckets": ["xs"], "min_tokens": 8},
        "metrics_required": [],
    },
    {
        "id": "serve-itest-long-c2-v1",
        "kind": "serving",
        "name": "itest long",
        "dataset_id": "prompts-mixed-v1",
        "params": {"concurrency": 2, "num_requests": 24, "output_tokens": 200, "seed": 0, "timeout_s": 60, "dataset_buckets": ["xs"]},
        "metrics_required": [],
    },
]

SLOT_CTX = 2048  # tokens per slot: the 4096-token longctx point must overflow


@pytest.fixture(scope="session")
def itest_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("itest-catalog")
    (root / "workloads").mkdir()
    for w in WORKLOADS:
        (root / "workloads" / f"{w['id']}.json").write_text(json.dumps(BASE | w, indent=2), encoding="utf-8")
    return Catalog.load([root])


@pytest.fixture(scope="session")
def engine_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("itest-engine-cache")


@pytest.fixture(scope="session")
def llama(engine_cache: Path) -> Iterator[LlamaServer]:
    try:
        find_llama_server(engine_cache)
    except EngineError as exc:  # make test installs the engine extra; this only helps partial installs
        pytest.skip(str(exc))
    with LlamaServer(ServerConfig(parallel=4, ctx_per_slot=SLOT_CTX, cache_dir=engine_cache)) as server:
        yield server
