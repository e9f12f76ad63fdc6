#!/usr/bin/env python
"""Write the gpt-oss-120b part of the InferenceX validation runs.

Input: ``scripts/validation_sources/inferencex_gpt_oss_120b.json`` — the 36 entries of
``testdata/blis/measurements/inferencex_absolutes.json`` in inference-sim/inference-sim
(commit 129e0b823a5a36f7ef8bf1bda8ded5395c3a0ca8) whose scenario is gpt-oss-120b:
SemiAnalysis InferenceX closed-loop measurements (mean TTFT and mean TPOT in µs per
concurrency) of gpt-oss-120b under vLLM on H100/H200/B200 and TensorRT-LLM on
H200/B200, tp 1-8. Same source as ``build_validation_inferencex.py`` (Llama 3.1 70B).

Output (``src/servescope/data/validation``): one Scenario per deployment and one
EvaluationRun per (deployment, workload label); numbers converted µs → ms only.
Re-running rewrites the same files.

    .venv/bin/python scripts/build_validation_inferencex_gptoss.py
"""

from __future__ import annotations

import json
import re

# Same source file, layout and YAML writer as the Llama 3.1 70B builder beside this one.
from build_validation_inferencex import COMMIT, ENGINES, HARDWARE, LABELS, OUT, ROOT, SOURCE_URL, _dump, points_of

SOURCE = ROOT / "scripts" / "validation_sources" / "inferencex_gpt_oss_120b.json"
VLLM_SCRIPT = "SemiAnalysisAI/InferenceX benchmarks/gptoss_fp4_h100.sh@1fc5d73cdd31"
TRT_SCRIPT = "SemiAnalysisAI/InferenceX benchmarks/gptoss_fp4_h200_trt.sh@111f0312c13b"


def _engine(engine: str, max_concurrency: int) -> tuple[dict[str, object], str]:
    if engine == "vllm":
        return (
            {
                "args": {"--async-scheduling": True, "--max-cudagraph-capture-size": 2048},
                "max_num_seqs": max_concurrency,
                "max_num_batched_tokens": 8192,
                "gpu_memory_utilization": 0.9,
                "enable_prefix_caching": False,
                "max_model_len": 10240,
            },
            f"flags as {VLLM_SCRIPT} sets them (async scheduling, prefix caching off, max-num-batched-tokens 8192, "
            "max-model-len 10240, max-cudagraph-capture-size 2048, gpu-memory-utilization 0.9, max-num-seqs = the "
            "concurrency (here: the largest level), VLLM_MXFP4_USE_MARLIN=1); the H200 and B200 scripts were not "
            "checked and are assumed the same",
        )
    return (
        {
            "args": {"--max_num_tokens": 20000, "free_gpu_memory_fraction": 0.85, "enable_block_reuse": False, "moe_backend": "TRITON", "stream_interval": 20},
            "max_num_seqs": max_concurrency,
            "enable_prefix_caching": False,
        },
        f"flags as {TRT_SCRIPT} sets them (--max_num_tokens 20000, --max_batch_size = the concurrency, kv_cache_config "
        "free_gpu_memory_fraction 0.85 / enable_block_reuse false / dtype auto, moe backend TRITON, stream_interval 20, "
        "cuda graphs with padding); its ep_size and enable_attention_dp come from the run's config and are not "
        "stated; the B200 script was not checked and is assumed the same",
    )


def main() -> None:
    entries = json.loads(SOURCE.read_text(encoding="utf-8"))["anchors"]
    top_level: dict[str, int] = {}
    for e in entries:
        top_level[e["scenario"]] = max([top_level.get(e["scenario"], 1)] + [int(c) for c in e["absolute_ttft_us"]])
    written: set[str] = set()
    for e in sorted(entries, key=lambda x: (x["scenario"], x["label"])):
        m = re.fullmatch(r"gpt-oss-120b-(h100|h200|b200)-fp4-(vllm|trt)-tp(\d+)\.yaml", e["scenario"])
        if not m:
            raise SystemExit(f"{SOURCE}: unexpected scenario {e['scenario']!r}")
        gpu, framework, tp = m.group(1), m.group(2), int(m.group(3))
        engine = ENGINES[framework]
        scen_name = f"ix-{engine}-gpt-oss-120b-mxfp4-{gpu}-tp{tp}"
        knobs, flags_note = _engine(engine, top_level[e["scenario"]])
        if scen_name not in written:
            _dump(
                OUT / "scenarios" / f"{scen_name}.yaml",
                {
                    "kind": "Scenario",
                    "name": scen_name,
                    "description": f"gpt-oss-120b (mxfp4 MoE experts) on {tp} x {gpu.upper()} with tensor parallelism {tp}, served "
                    f"by {'vLLM' if engine == 'vllm' else 'TensorRT-LLM'}, as measured by SemiAnalysis InferenceX.",
                    "model": "gpt-oss-120b",
                    "hardware": HARDWARE[gpu],
                    "count": tp,
                    "tp": tp,
                    "engine": {"id": engine, "version": "unstated", **knobs},
                    "weight_dtype": "bf16",
                    "kv_dtype": "auto",
                    "notes": (
                        f"From the deployment name {e['scenario']} in NVIDIA's AISimulate accuracy artifact as vendored in "
                        f"inference-sim/inference-sim@{COMMIT[:12]}: GPU, 'fp4' (the checkpoint's mxfp4 MoE experts; "
                        "attention and the rest bf16, the catalog model's quantization), engine, tp. The engine version is "
                        f"not stated. Which script version ran each point is not stated; {flags_note}. KV cache: the "
                        "engine default (bf16). " + ("H100 SXM assumed." if gpu == "h100" else "")
                    ).strip(),
                },
            )
            written.add(scen_name)
        isl, osl = LABELS[e["label"]]
        mean_isl, mean_osl = round((int(0.8 * isl) + isl) / 2), round((int(0.8 * osl) + osl) / 2)
        ttft, tpot = e["absolute_ttft_us"], e["absolute_tpot_us"]
        run = {
            "kind": "EvaluationRun",
            "name": f"{scen_name}-i{isl}-o{osl}",
            "scenario": scen_name,
            "harness": "inferencex",
            "engine_version": "unstated",
            "date": e["source_run_date"],
            "dataset": "random",
            "notes": [
                "Source: SemiAnalysis InferenceX (https://github.com/SemiAnalysisAI/InferenceX-app/releases/tag/db-dump/"
                "2026-09-28), as recorded by NVIDIA's AISimulate e2e accuracy artifact and vendored in "
                f"{SOURCE_URL} - entry scenario {e['scenario']}, label {e['label']}, source_config_id "
                f"{e['source_config_id']}, run {e['source_run_date']}.",
                "Numbers: absolute_ttft_us -> ttft_ms and absolute_tpot_us -> itl_ms, divided by 1000, nothing else (TPOT "
                "stored as itl_ms, as for the Llama 3.1 70B InferenceX runs).",
                f"Lengths: label {e['label']} = ISL:OSL {isl}:{osl}; the client (benchmark_serving.py, --max-concurrency C, "
                "10 x C prompts, --random-range-ratio $RANDOM_RANGE_RATIO per the launch scripts) is assumed to draw from "
                f"[int(0.8 L), L] as for the Llama runs, so mean_isl/mean_osl = {mean_isl}/{mean_osl} are expected means, "
                "not measured ones (the range ratio of these runs is not stated).",
                "Dataset: random - the launch scripts call run_benchmark_serving, whose command is 'benchmark_serving.py ... "
                "--dataset-name random --random-input-len ... --random-range-ratio ...' (SemiAnalysisAI/InferenceX "
                "benchmarks/benchmark_lib.sh@df64f87f).",
            ],
            "points": points_of(ttft, tpot, sorted(int(k) for k in ttft), mean_isl, mean_osl),
        }
        _dump(OUT / "runs" / f"{run['name']}.yaml", run)
    print(f"{len(entries)} runs, {len(written)} scenarios written to {OUT}")


if __name__ == "__main__":
    main()
