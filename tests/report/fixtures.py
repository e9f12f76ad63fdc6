"""A fixture set of documents for the report, built with the project's own
document models (each one valid per ``servescope validate``):

- cell A (servescope-tiny-llama, generic-cpu, llama.cpp): measured on the v1
  workload (stale: superseded) and on its v2, and predicted on the v2 (paired);
- cell B (llama-3.1-8b, h100-sxm, vllm 0.29.0): a Prediction only;
- cell C (qwen2.5-7b, h200, sglang): an EvaluationRun imported from aiperf;
- cell D (llama-3.1-8b, a100-80gb, vllm 0.27.0): measured, stale by engine
  (two minor versions behind 0.29.0);
- an eval Result whose scores give Wilson intervals;
- text with ``<script>`` in a model id, a point note and a failure message.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from servescope.documents import (
    Distribution,
    EvaluationPoint,
    EvaluationRun,
    Failure,
    Metadata,
    Metrics,
    Prediction,
    PredictionPoint,
    Result,
    ResultPoint,
    Scenario,
    Workload,
    config_id,
)
from servescope.documents.result import (
    HardwareIdentity,
    Identity,
    ModelIdentity,
    ScoreItem,
    Scores,
)

V1 = "serve-report-c4-v1"
V2 = "serve-report-c4-v2"
EVIL = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'


def workload(wid: str, supersedes: str | None, num_requests: int) -> Workload:
    return Workload.model_validate(
        {
            "id": wid,
            "kind": "serving",
            "name": f"report fixture {wid}",
            "dataset_id": "prompts-mixed-v1",
            "params": {"concurrency": 4, "num_requests": num_requests, "output_tokens": 16, "seed": 0},
            "immutable": True,
            "created": "2026-12-01",
            "supersedes": supersedes,
        }
    )


def dist(p50: float, p99: float) -> Distribution:
    return Distribution(count=8, mean=(p50 + p99) / 2, p50=p50, p90=p99, p95=p99, p99=p99, min=p50 * 0.9, max=p99, std=1.0)


def point_metrics(c: int, tok_s: float, ttft: float, itl: float, failed: int = 0) -> Metrics:
    total = 8 * c
    return Metrics(
        total_requests=total,
        completed_requests=total - failed,
        failed_requests=failed,
        success_rate=(total - failed) / total,
        duration_s=2.0,
        output_tokens_total=16 * (total - failed),
        output_tokens_per_sec=tok_s,
        ttft_ms=dist(ttft, ttft * 3),
        itl_ms=dist(itl, itl * 2),
        e2e_ms=dist(ttft + 15 * itl, ttft * 3 + 30 * itl),
        tpot_ms=dist(itl, itl * 1.5),
    )


def result(
    run_id: str,
    wid: str,
    *,
    model: str,
    hardware: str,
    engine: str,
    version: str,
    scenario: str | None,
    points: list[tuple[int, float, float, float]],
    failures: list[Failure] | None = None,
    note: str | None = None,
    scores: Scores | None = None,
    started: str = "2026-12-01T10:00:00+00:00",
) -> Result:
    failures = failures or []
    failed_total = sum(f.count for f in failures)
    pts = []
    for i, (c, tok_s, ttft, itl) in enumerate(points):
        failed = failed_total if i == 0 else 0
        pts.append(ResultPoint(concurrency=c, metrics=point_metrics(c, tok_s, ttft, itl, failed), note=note if i == 0 else None))
    total = sum(p.metrics.total_requests or 0 for p in pts)
    completed = total - failed_total
    top = Metrics(total_requests=total, completed_requests=completed, failed_requests=failed_total, success_rate=completed / total)
    args: dict[str, Any] = {"--parallel": "8"}
    blocked: dict[str, int] = {}
    for f in failures:
        blocked[f.category] = blocked.get(f.category, 0) + f.count
    return Result(
        run_id=run_id,
        workload_id=wid,
        scenario=scenario,
        config_id=config_id(engine, version, args),
        timing_mode="explicit",
        engine=Identity(id=engine, version=version),
        model=ModelIdentity(id=model),
        hardware=HardwareIdentity(id=hardware),
        args=args,
        resolved_params={"concurrency": points[0][0]},
        metrics=top,
        points=pts,
        failures=failures,
        throughput=completed,
        blocked_by_reason_code=blocked,
        scores=scores,
        metadata=Metadata(
            pipeline_mode="llm_live", non_deterministic=True, harness="servescope", harness_version="0.1.0", servescope_version="0.1.0", started_at=started
        ),
    )


def documents() -> dict[str, Any]:
    """file name -> document."""
    sweep = [(1, 100.0, 20.0, 5.0), (2, 180.0, 25.0, 5.5), (4, 300.0, 40.0, 6.5)]
    tiny = {"model": "servescope-tiny-llama", "hardware": "generic-cpu", "engine": "llama.cpp", "version": "b4567", "scenario": "tiny-llama-on-cpu"}
    docs: dict[str, Any] = {
        f"{V1}.json": workload(V1, None, 32),
        f"{V2}.json": workload(V2, V1, 64),
        "qwen-on-h200.yaml": Scenario.model_validate(
            {"name": "qwen-on-h200", "model": "qwen2.5-7b", "hardware": "h200", "engine": {"id": "sglang", "version": "0.5.2"}}
        ),
        "a-v1.json": result("tiny-v1-run", V1, points=sweep, **tiny),
        "a-v2.json": result(
            "tiny-v2-run",
            V2,
            points=sweep,
            note=f"notes: {EVIL}",
            failures=[
                Failure(stage="first-token", category="timeout", count=2, message=f"timed out {EVIL}", concurrency=1),
                Failure(stage="send", category="http-error", count=1, message="HTTP 503", http_status=503),
            ],
            **tiny,
        ),
        "a-v2-prediction.json": Prediction(
            name="tiny-v2-prediction",
            scenario="tiny-llama-on-cpu",
            workload=V2,
            predictor="servescope-sim",
            predictor_version="0.1.0",
            engine_version="b4567",
            points=[PredictionPoint(concurrency=c, output_tokens_per_sec=t * 1.1, ttft_ms=f * 2 * 0.9, itl_ms=i * 1.5 * 1.05) for c, t, f, i in sweep],
        ),
        "b-prediction.json": Prediction(
            name="h100-v2-prediction",
            scenario="llama-3.1-8b-on-h100",
            workload=V2,
            predictor="servescope-sim",
            predictor_version="0.1.0",
            engine_version="0.29.0",
            points=[PredictionPoint(concurrency=c, output_tokens_per_sec=t * 20, ttft_ms=f, itl_ms=i) for c, t, f, i in sweep],
        ),
        "c-imported.json": EvaluationRun(
            name="qwen-aiperf",
            scenario="qwen-on-h200",
            harness="aiperf",
            engine_version="0.5.2",
            workload=V2,
            points=[EvaluationPoint(concurrency=c, output_tokens_per_sec=t * 15, ttft_ms=f, itl_ms=i) for c, t, f, i in sweep],
        ),
        "d-old-engine.json": result(
            "a100-old-vllm", V2, model="llama-3.1-8b", hardware="a100-80gb", engine="vllm", version="0.27.0", scenario=None, points=[(4, 900.0, 30.0, 8.0)]
        ),
        # the same engine, version and load points as tiny-v2-run (so the same config_id), another model:
        # a group of its own, and with its repeat the summary's one group of two episodes
        "e-evil-model.json": result(
            "evil-model-run", V2, model=f"evil {EVIL}", hardware="generic-cpu", engine="llama.cpp", version="b4567", scenario=None, points=sweep
        ),
        "e-evil-model-repeat.json": result(
            "evil-model-repeat", V2, model=f"evil {EVIL}", hardware="generic-cpu", engine="llama.cpp", version="b4567", scenario=None, points=sweep
        ),
        "f-eval.json": result(
            "eval-run",
            "eval-report-v1",
            model="servescope-tiny-llama",
            hardware="generic-cpu",
            engine="llama.cpp",
            version="b4567",
            scenario=None,
            points=[(4, 50.0, 30.0, 8.0)],
            scores=Scores(
                accuracy=0.75, success_rate=1.0, avg_latency_ms=120.0, scorer="exact", items=[ScoreItem(id=f"q{i}", correct=i % 4 != 0) for i in range(20)]
            ),
        ),
    }
    return docs


def write_fixture_set(folder: Path) -> Path:
    """Documents under folder/; the workloads and the scenario also form a catalog
    root (folder/workloads, folder/scenarios) for SERVESCOPE_CATALOG_PATH."""
    for sub in ("workloads", "scenarios", "runs"):
        (folder / sub).mkdir(parents=True, exist_ok=True)
    for name, doc in documents().items():
        data = doc.dump()
        sub = "workloads" if isinstance(doc, Workload) else "scenarios" if isinstance(doc, Scenario) else "runs"
        path = folder / sub / name
        if name.endswith(".yaml"):
            import yaml

            path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
        else:
            path.write_text(json.dumps(data, indent=2), encoding="utf-8")
    return folder
