#!/usr/bin/env python
"""Write the InferenceX part of the predictor's validation set.

Input: ``scripts/validation_sources/inferencex_llama70b.json`` — every entry of
``testdata/blis/measurements/inferencex_absolutes.json`` in the public repository
inference-sim/inference-sim (commit 129e0b823a5a36f7ef8bf1bda8ded5395c3a0ca8)
whose scenario is Llama 3.1 70B Instruct (81 of its 204 anchors), copied unchanged,
with the file's own header fields. That file vendors SemiAnalysis InferenceX
measurements (db-dump 2026-09-28) as NVIDIA's AISimulate accuracy artifact records
them: client-observed mean TTFT and mean TPOT in microseconds per concurrency
level, per deployment (GPU, fp4/fp8, engine, tp) and workload label.

Output (``src/servescope/data/validation``): one Scenario per deployment and one
EvaluationRun per (deployment, workload label); numbers converted µs → ms only.
Re-running rewrites the same files byte for byte.

    .venv/bin/python scripts/build_validation_inferencex.py
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "scripts" / "validation_sources" / "inferencex_llama70b.json"
OUT = ROOT / "src" / "servescope" / "data" / "validation"
COMMIT = "129e0b823a5a36f7ef8bf1bda8ded5395c3a0ca8"
SOURCE_URL = f"https://github.com/inference-sim/inference-sim/blob/{COMMIT}/testdata/blis/measurements/inferencex_absolutes.json"
# The artifact names 1k1k = 1024:1024 and 1k8k = 1024:8192; 8k1k = 8192:1024 follows the same naming.
LABELS = {"1k1k": (1024, 1024), "1k8k": (1024, 8192), "8k1k": (8192, 1024)}
HARDWARE = {"h100": "h100-sxm", "h200": "h200", "b200": "b200"}
ENGINES = {"vllm": "vllm", "trt": "trt-llm"}


def points_of(ttft_us: dict[str, float], tpot_us: dict[str, float], levels: list[int], mean_isl: int, mean_osl: int) -> list[dict[str, object]]:
    """One point per concurrency: the artifact's µs divided by 1000 (TPOT stored as itl_ms), nothing else."""
    return [
        {"concurrency": c, "ttft_ms": round(ttft_us[str(c)] / 1000, 3), "itl_ms": round(tpot_us[str(c)] / 1000, 3), "mean_isl": mean_isl, "mean_osl": mean_osl}
        for c in levels
    ]


def _dump(path: Path, doc: dict[str, object]) -> None:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")


def _engine_knobs(engine: str, max_concurrency: int, isl: int, osl: int, tp: int) -> dict[str, object]:
    """What InferenceX's launch scripts set (SemiAnalysisAI/InferenceX benchmarks/70b_*_slurm.sh)."""
    if engine == "vllm":  # --max-num-seqs=$CONC, max-num-batched-tokens 8192, no prefix caching, --gpu-memory-utilization=0.9
        return {"max_num_seqs": max_concurrency, "max_num_batched_tokens": 8192, "gpu_memory_utilization": 0.9, "enable_prefix_caching": False}
    # trtllm-serve --max_num_tokens $MAX_MODEL_LEN, kv_cache_config.enable_block_reuse false, and for 1k1k
    # below TP 8: batch_wait_timeout_iters 20, batch_wait_max_tokens_ratio 0.9
    args: dict[str, object] = {"--max_num_tokens": isl + osl + 200}
    if (isl, osl) == (1024, 1024) and tp < 8:
        args |= {"batch_wait_timeout_iters": 20, "batch_wait_max_tokens_ratio": 0.9}
    return {"args": args, "enable_prefix_caching": False}


def main() -> None:
    entries = json.loads(SOURCE.read_text(encoding="utf-8"))["anchors"]
    written: set[str] = set()
    top_level: dict[str, int] = {}
    for e in entries:
        top_level[e["scenario"]] = max([top_level.get(e["scenario"], 1)] + [int(c) for c in e["absolute_ttft_us"]])
    for e in sorted(entries, key=lambda x: (x["scenario"], x["label"])):
        m = re.fullmatch(r"llama-3\.1-70b-instruct-(h100|h200|b200)-(fp4|fp8)-(vllm|trt)-tp(\d+)\.yaml", e["scenario"])
        if not m:
            raise SystemExit(f"{SOURCE}: unexpected scenario {e['scenario']!r}")
        gpu, dtype, framework, tp = m.group(1), m.group(2), m.group(3), int(m.group(4))
        engine = ENGINES[framework]
        deployment = f"ix-{engine}-llama-3.1-70b-{dtype}-{gpu}-tp{tp}"
        scen_name = deployment
        isl, osl = LABELS[e["label"]]
        if engine == "trt-llm":  # its flags depend on the lengths: one scenario per workload label
            scen_name += f"-i{isl}-o{osl}"
        if scen_name not in written:
            _dump(
                OUT / "scenarios" / f"{scen_name}.yaml",
                {
                    "kind": "Scenario",
                    "name": scen_name,
                    "description": f"Llama 3.1 70B Instruct in {dtype} on {tp} x {gpu.upper()} with tensor parallelism {tp}, served by "
                    f"{'vLLM' if engine == 'vllm' else 'TensorRT-LLM'}, as measured by SemiAnalysis InferenceX.",
                    "model": "llama-3.1-70b",
                    "hardware": HARDWARE[gpu],
                    "count": tp,
                    "tp": tp,
                    "engine": {"id": engine, "version": "unstated", **_engine_knobs(engine, top_level[e["scenario"]], isl, osl, tp)},
                    "weight_dtype": dtype,
                    "kv_dtype": "fp8",
                    "notes": (
                        f"From the deployment name {e['scenario']} in NVIDIA's AISimulate accuracy artifact as vendored in "
                        f"inference-sim/inference-sim@{COMMIT[:12]}: GPU, {dtype} weights, engine, tp. The engine version is not "
                        "stated. Flags as InferenceX's launch scripts set them (SemiAnalysisAI/InferenceX benchmarks/70b_*_slurm.sh; "
                        "which script version ran each point is not stated): "
                        + (
                            "fp8 KV cache, prefix caching off, max_num_batched_tokens 8192, max_num_seqs = the concurrency "
                            "(here: the largest level), gpu_memory_utilization 0.9"
                            if engine == "vllm"
                            else "fp8 KV cache, block reuse off, --max_num_tokens $MAX_MODEL_LEN (its value for these runs is "
                            "not stated; assumed ISL + OSL + 200 as InferenceX's scripts for other models compute it), and "
                            "for 1k1k below TP 8 batch_wait_timeout_iters 20 / batch_wait_max_tokens_ratio 0.9 (modelled); "
                            "not modelled: stream_interval 10"
                        )
                        + (", H100 SXM assumed." if gpu == "h100" else ".")
                    ),
                },
            )
            written.add(scen_name)
        # the client draws lengths uniformly from [int(0.8 L), L] (see predict.calibrate.HARNESS_REPLAYS)
        mean_isl, mean_osl = round((int(0.8 * isl) + isl) / 2), round((int(0.8 * osl) + osl) / 2)
        ttft, tpot = e["absolute_ttft_us"], e["absolute_tpot_us"]
        levels = sorted(int(c) for c in ttft)
        run = {
            "kind": "EvaluationRun",
            "name": f"{deployment}-i{isl}-o{osl}",
            "scenario": scen_name,
            "harness": "inferencex",
            "engine_version": "unstated",
            "date": e["source_run_date"],
            "dataset": "random",
            "notes": [
                f"Source: SemiAnalysis InferenceX (https://github.com/SemiAnalysisAI/InferenceX-app/releases/tag/db-dump/2026-09-28), "
                f"as recorded by NVIDIA's AISimulate e2e accuracy artifact and vendored in {SOURCE_URL} - entry scenario "
                f"{e['scenario']}, label {e['label']}, source_config_id {e['source_config_id']}, run {e['source_run_date']}. "
                "The file says: 'mean_tpot and mean_ttft, the fields NVIDIA's artifact normalises'.",
                "Numbers: absolute_ttft_us -> ttft_ms and absolute_tpot_us -> itl_ms, divided by 1000, nothing else. The source "
                "gives TPOT (per request (E2E - TTFT)/(output tokens - 1)), stored as itl_ms: with fixed output lengths the "
                "mean TPOT and the mean pooled ITL differ only by how requests are weighted.",
                f"Lengths: the label {e['label']} is ISL:OSL {isl}:{osl}; InferenceX's client (vLLM benchmark_serving.py "
                "--random-range-ratio 0.8 --ignore-eos, per its launch scripts in SemiAnalysisAI/InferenceX) draws each "
                f"request's lengths uniformly from [int(0.8 L), L], so mean_isl/mean_osl = {mean_isl}/{mean_osl} are the "
                "expected means of that draw, not measured ones.",
                "Dataset: random, as the launch scripts call the client: 'python3 bench_serving/benchmark_serving.py ... "
                "--dataset-name=random --random-input-len=$ISL --random-output-len=$OSL --random-range-ratio="
                "$RANDOM_RANGE_RATIO' (SemiAnalysisAI/InferenceX benchmarks/70b_fp8_h100_slurm.sh@2a205bb3).",
            ],
            "points": points_of(ttft, tpot, levels, mean_isl, mean_osl),
        }
        _dump(OUT / "runs" / f"{run['name']}.yaml", run)
    print(f"{len(entries)} runs, {len(written)} scenarios written to {OUT}")


if __name__ == "__main__":
    main()
