"""Scored suites on a real model: small subsets of the packaged eval datasets against
the embedded llama.cpp engine serving SmolLM2-135M-Instruct (fetched once into the
user's engine cache, sha256-checked)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig, find_llama_server
from servescope.bench.engine.models import ensure_engine_model
from servescope.bench.records import read_records
from servescope.bench.run import RunArtifacts, RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.catalog.validate import validate_paths
from servescope.errors import EngineError

pytestmark = pytest.mark.integration

BASE = {
    "kind": "eval",
    "immutable": True,
    "created": "2026-12-01",
    "supersedes": None,
    "description": "eval integration subset",
    "metrics_required": ["accuracy", "success_rate", "avg_latency_ms"],
}
SUBSETS = [
    {
        "id": "eval-itest-knowledge-v1",
        "name": "knowledge subset",
        "dataset_id": "eval-knowledge-v1",
        "eval": {"scorer": "exact"},
        "params": {"concurrency": 4, "num_requests": 4, "output_tokens": 16, "seed": 0, "temperature": 0.0, "timeout_s": 300, "reasoning": "default"},
    },
    {
        "id": "eval-itest-tools-v1",
        "name": "tools-small subset (multi-turn)",
        "dataset_id": "eval-tools-small-v1",
        "eval": {"scorer": "tool-call"},
        "params": {
            "concurrency": 4,
            "num_requests": 4,
            "output_tokens": 32,
            "seed": 0,
            "temperature": 0.0,
            "timeout_s": 300,
            "dataset_categories": ["chain", "revise", "use_result"],
            "shuffle": True,
        },
    },
    {
        "id": "eval-itest-rag-v1",
        "name": "grounded subset",
        "dataset_id": "eval-rag-grounded-v1",
        "eval": {"scorer": "contains"},
        "params": {"concurrency": 4, "num_requests": 4, "output_tokens": 24, "seed": 0, "temperature": 0.0, "timeout_s": 300},
    },
    {
        "id": "eval-itest-code-v1",
        "name": "code subset",
        "dataset_id": "eval-code-v1",
        "eval": {"scorer": "code-exec"},
        "params": {"concurrency": 2, "num_requests": 2, "output_tokens": 80, "seed": 0, "temperature": 0.0, "timeout_s": 300},
    },
    {
        "id": "eval-itest-cli-v1",
        "name": "one question through the CLI",
        "dataset_id": "eval-knowledge-v1",
        "eval": {"scorer": "exact"},
        "params": {"concurrency": 1, "num_requests": 1, "output_tokens": 12, "seed": 0, "temperature": 0.0, "timeout_s": 300, "reasoning": "default"},
    },
]
RUN_HERE = [w["id"] for w in SUBSETS if w["id"] != "eval-itest-cli-v1"]


@pytest.fixture(scope="module")
def eval_catalog(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    root = tmp_path_factory.mktemp("eval-catalog")
    (root / "workloads").mkdir()
    for w in SUBSETS:
        (root / "workloads" / f"{w['id']}.json").write_text(json.dumps(BASE | w, indent=2), encoding="utf-8")
    return Catalog.load([root])


@pytest.fixture(scope="module")
def smollm2() -> Iterator[LlamaServer]:
    try:
        find_llama_server()
        model = ensure_engine_model("smollm2-135m")  # the user's cache: fetched once per machine
    except EngineError as exc:
        pytest.fail(f"the real instruct model is needed here: {exc}")
    with LlamaServer(ServerConfig(model=model, alias="smollm2-135m", parallel=4, ctx_per_slot=2048, threads=2)) as server:
        yield server


@pytest.fixture(scope="module")
def runs(smollm2: LlamaServer, eval_catalog: Catalog, tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunArtifacts]:
    """Each subset once (the model is slow on 2 shared cores); the tests read the artifacts."""
    out = tmp_path_factory.mktemp("eval-runs")
    return {w: run_workload(RunOptions(workload_id=w, endpoint=smollm2.openai_base_url, out_dir=out), catalog=eval_catalog) for w in RUN_HERE}


@pytest.mark.parametrize("workload_id", RUN_HERE)
def test_eval_subset_writes_a_valid_result_with_scores(runs: dict[str, RunArtifacts], eval_catalog: Catalog, workload_id: str) -> None:
    art = runs[workload_id]
    scores = art.result.scores
    assert scores is not None and scores.item_count == art.result.metrics.total_requests
    assert scores.success_rate == art.result.metrics.success_rate
    assert scores.accuracy is not None and scores.accuracy_ci_low is not None and scores.accuracy_ci_high is not None
    assert scores.accuracy_ci_low <= scores.accuracy <= scores.accuracy_ci_high
    assert scores.correct_count == sum(1 for i in scores.items or [] if i.correct)
    assert all(len(i.predicted or "") <= 500 for i in scores.items or [])
    # Each record on disk carries its score (written as it finished), and agrees with the items.
    recs = [r for r in read_records(art.records_path) if r.ok]
    assert recs and all(r.score is not None for r in recs)
    by_prompt = {i.id: i.correct for i in scores.items or []}
    assert all(by_prompt[r.prompt_id] == r.score["correct"] for r in recs)  # type: ignore[index]
    report = validate_paths([art.result_path], catalog=eval_catalog)  # metrics_required checked against the scores block
    assert all(f.ok for f in report.files) and not [i for f in report.files for i in f.issues], [i for f in report.files for i in f.issues]


def test_grounded_subset_reports_abstention(runs: dict[str, RunArtifacts]) -> None:
    scores = runs["eval-itest-rag-v1"].result.scores
    assert scores is not None and scores.abstention is not None and scores.false_abstention is not None


def test_multi_turn_tool_rows_are_answered_not_refused(runs: dict[str, RunArtifacts]) -> None:
    """Rows with assistant tool_calls and tool results in their messages reach the model."""
    assert runs["eval-itest-tools-v1"].result.metrics.completed_requests == 4


def test_real_model_answers_a_knowledge_question(runs: dict[str, RunArtifacts]) -> None:
    """Not a score bar: proof that the model is real (the random tiny model never says Paris)."""
    art = runs["eval-itest-knowledge-v1"]
    first = next(i for i in art.result.scores.items or [] if i.id == "know1-000")  # type: ignore[union-attr]
    assert "paris" in (first.predicted or "").lower()


def _cli(*args: str, catalog: Catalog) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1])}
    return subprocess.run([sys.executable, "-m", "servescope", *args], env=env, capture_output=True, text=True, timeout=600, check=False)


def test_cli_run_with_engine_model_starts_the_real_model(smollm2: LlamaServer, eval_catalog: Catalog, tmp_path: Path) -> None:
    done = _cli("run", "eval-itest-cli-v1", "--engine-model", "smollm2-135m", "--out", str(tmp_path), catalog=eval_catalog)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "accuracy" in done.stdout
    result = json.loads(next(tmp_path.glob("*/result.json")).read_text())
    assert result["model"]["id"] == "smollm2-135m" and result["args"]["reasoning"] == "default"


def test_unknown_engine_model_is_one_clear_line(eval_catalog: Catalog, tmp_path: Path) -> None:
    done = _cli("run", "eval-itest-cli-v1", "--engine-model", "gpt-9", "--out", str(tmp_path), catalog=eval_catalog)
    assert done.returncode == 2
    lines = [ln for ln in done.stderr.strip().splitlines() if ln.strip()]
    assert len(lines) == 1 and "gpt-9" in lines[0] and "smollm2-135m" in lines[0], done.stderr
    assert "Traceback" not in done.stderr
