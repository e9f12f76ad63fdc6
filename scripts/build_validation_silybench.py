#!/usr/bin/env python
"""Write the silybench part of the predictor's validation set.

Input: ``scripts/validation_sources/silybench_qwen3_8b.json`` — the rows of
``derived/csv/perf_points.csv`` in the public repository tgarg01/silybench-data
(commit 93e4887353137e64bd5605fa3d1f4529da0a1dc5) for its two Qwen3-8B runs on one
H100 80GB under vLLM 0.30.0 (bf16 and fp8), the columns named in the file's
``_about``, unrounded. Each published figure is the median over 3 repeats of
``vllm bench serve`` at a fixed ``--max-concurrency`` (random dataset, range ratio
0, ``--ignore-eos``); the source publishes median ITL, output tok/s and TTFT
p95/p99, but no mean or median TTFT and no mean TPOT.

Output (``src/servescope/data/validation``): one Scenario per dtype and one
EvaluationRun per (dtype, workload); ``itl_p50_ms`` is the published *median* ITL,
``ttft_ms`` is null (not published). Re-running rewrites the same files.

    .venv/bin/python scripts/build_validation_silybench.py
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "scripts" / "validation_sources" / "silybench_qwen3_8b.json"
OUT = ROOT / "src" / "servescope" / "data" / "validation"
CSV_URL = "https://github.com/tgarg01/silybench-data/blob/93e4887353137e64bd5605fa3d1f4529da0a1dc5/derived/csv/perf_points.csv"
RUN_URL = "https://github.com/tgarg01/silybench-data/blob/893db45107f431f132318c8e70e0de2fb01d3c83/runs/{run_id}/result.json"
CLIENT_URL = "https://github.com/tgarg01/silybench-bench/blob/5c24413982a6c02841c587df20257e863d04e4c6/gpubench/perf.py"
EXPERIMENT_URL = (
    "https://github.com/tgarg01/silybench-data/blob/893db45107f431f132318c8e70e0de2fb01d3c83/experiments/2026-09-24-qwen3-8b-pipeline/experiment.yaml"
)


def _dump(path: Path, doc: dict[str, object]) -> None:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")


def main() -> None:
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    n_runs = n_points = 0
    for dtype, run in source["runs"].items():
        scenario = f"sb-vllm-0.30.0-qwen3-8b-{dtype}-h100-tp1"
        dtype_words = (
            "bf16 (--dtype bfloat16)"
            if dtype == "bf16"
            else "fp8 weights quantized online by vLLM from the bf16 checkpoint (--quantization fp8), bf16 KV cache"
        )
        _dump(
            OUT / "scenarios" / f"{scenario}.yaml",
            {
                "kind": "Scenario",
                "name": scenario,
                "description": f"Qwen3-8B in {dtype} on one H100 80GB served by vLLM 0.30.0, as measured by silybench (tgarg01/silybench-data).",
                "model": "qwen3-8b",
                "hardware": "h100-sxm",
                "count": 1,
                "tp": 1,
                "engine": {
                    "id": "vllm",
                    "version": "0.30.0",
                    "args": {
                        "--max-model-len": 16384,
                        "--gpu-memory-utilization": 0.9,
                        **({"--dtype": "bfloat16"} if dtype == "bf16" else {"--quantization": "fp8"}),
                    },
                    "gpu_memory_utilization": 0.9,
                    "max_model_len": 16384,
                },
                "weight_dtype": dtype,
                "kv_dtype": "bf16",
                "notes": (
                    f"From {RUN_URL.format(run_id=run['run_id'])}: 1 x H100-80GB on GCP a3-highgpu-1g (an H100 SXM "
                    "machine type), tp 1, vllm/vllm-openai:v0.30.0, Qwen/Qwen3-8B at revision "
                    f"b968826d9c46, {dtype_words}, flags: {run['serving_args']}. vLLM logged "
                    f"{run['kv_cache_tokens']} KV-cache tokens at start-up (result.json kv_cache_tokens). Not stated, "
                    "engine defaults assumed: max_num_seqs, max_num_batched_tokens, prefix caching (vLLM's default, on; "
                    "the random prompts share no prefix), chunked prefill, block size; the KV-cache dtype (no "
                    "--kv-cache-dtype flag: auto, i.e. bf16)."
                ),
            },
        )
        for workload, rows in run["workloads"].items():
            isl, osl = (int(x) for x in workload.rsplit("-", 2)[1:])
            name = f"sb-vllm-0.30.0-qwen3-8b-{dtype}-h100-tp1-i{isl}-o{osl}"
            _dump(
                OUT / "runs" / f"{name}.yaml",
                {
                    "kind": "EvaluationRun",
                    "name": name,
                    "scenario": scenario,
                    "harness": "vllm-bench-serve",
                    "engine_version": "0.30.0",
                    "date": run["date"],
                    "dataset": "random",  # its client line: vllm bench serve --dataset-name random
                    "notes": [
                        f"Source: silybench, run {run['run_id']}, workload {workload}: {CSV_URL} (same rows in "
                        f"{RUN_URL.format(run_id=run['run_id'])}). Its experiment file ({EXPERIMENT_URL}) says 'Pipeline "
                        "validation, not a published result. Kept (with every raw file) for transparency.'",
                        f"Client ({CLIENT_URL}): vllm bench serve --dataset-name random --random-input-len {isl} "
                        f"--random-output-len {osl} --random-range-ratio 0 --ignore-eos --max-concurrency C --request-rate "
                        "inf, num_prompts = completed_requests (5 x C, at least 50), warm-up requests before the first of 3 "
                        "repeats; every figure is the per-field median of the 3 repeats.",
                        "Columns: itl_p50_ms = the published median ITL (itl_median_ms; vLLM's pooled inter-token gaps; "
                        "scored against the predicted median); output_tokens_per_sec = output_throughput; ttft_ms is null: the source publishes only TTFT "
                        "p95/p99 (kept in scripts/validation_sources/silybench_qwen3_8b.json), no mean or median.",
                        f"mean_isl/mean_osl are the configured lengths {isl}/{osl} (range ratio 0, --ignore-eos), not measured means.",
                    ],
                    "points": [
                        {
                            "concurrency": c,
                            "completed_requests": completed,
                            "output_tokens_per_sec": round(out_tps, 3),
                            "itl_p50_ms": round(itl, 4),
                            "mean_isl": isl,
                            "mean_osl": osl,
                        }
                        for c, completed, itl, out_tps, _p95, _p99 in rows
                    ],
                },
            )
            n_runs += 1
            n_points += len(rows)
    print(f"{n_runs} runs, {n_points} points, {len(source['runs'])} scenarios written to {OUT}")


if __name__ == "__main__":
    main()
