#!/usr/bin/env python
"""Write the GPUStack part of the predictor's validation set.

Input: ``scripts/validation_sources/gpustack_performance_lab.json`` — every
``vllm bench serve`` result block of four GPUStack "Performance Lab" pages
(gpustack/gpustack docs/performance-lab/{qwen3-32b,qwen3-235b-a22b,gpt-oss-120b}/h100.md and qwen3-32b/a100.md),
copied as printed: Qwen3-32B (bf16, fp8) on one H100 and (bf16, fp8, AWQ int4) on one A100 80GB under vLLM
0.11.0, SGLang 0.5.5.post1 and TensorRT-LLM 1.2.0rc1; Qwen3-235B-A22B-Instruct-2507 (bf16, fp8) on
4-8 H100 under vLLM 0.11.0 and SGLang 0.5.5.post1, with and without expert
parallelism; gpt-oss-120b on 1-4 H100 under vLLM 0.10.2, SGLang 0.5.3rc0 and
TensorRT-LLM 1.0.0.

Almost every block is an *offline burst*: no --request-rate (vLLM's default inf) and
no --max-concurrency, so all N prompts are sent at t = 0 and the engine's own
limits decide how many run at once. Such a point is stored at concurrency = the
measured "Peak concurrent requests" where the block prints it, else N; its run name
carries ``-burst-nN``. The two "ShareGPT batch size 4" blocks are closed loops at
--max-concurrency 4 (``-c4``).

Output (``src/servescope/data/validation``): one Scenario per deployment and one
EvaluationRun per result block. ttft_ms = Mean TTFT, itl_ms = Mean ITL,
output_tokens_per_sec as printed; mean_isl/mean_osl = the block's total input /
generated tokens divided by its successful requests (rounded), the one arithmetic
done on the numbers. Re-running rewrites the same files.

    .venv/bin/python scripts/build_validation_gpustack.py
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "scripts" / "validation_sources" / "gpustack_performance_lab.json"
OUT = ROOT / "src" / "servescope" / "data" / "validation"
ENGINE_WORDS = {"vllm": "vLLM", "sglang": "SGLang", "trt-llm": "TensorRT-LLM"}
MODEL_WORDS = {"qwen3-32b": "Qwen3-32B", "qwen3-235b-a22b": "Qwen3-235B-A22B-Instruct-2507", "gpt-oss-120b": "gpt-oss-120b"}
CHECKPOINT = {  # what each page serves; the catalog model holds the architecture
    ("qwen3-32b", "bf16"): "Qwen/Qwen3-32B",
    ("qwen3-32b", "fp8"): "Qwen/Qwen3-32B-FP8",
    ("qwen3-235b-a22b", "bf16"): "Qwen/Qwen3-235B-A22B-Instruct-2507",
    ("qwen3-235b-a22b", "fp8"): "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8",
    ("gpt-oss-120b", "bf16"): "openai/gpt-oss-120b",
}


def _dump(path: Path, doc: dict[str, object]) -> None:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")


HARDWARE_WORDS = {"h100-sxm": "H100", "h100-pcie": "H100", "a100-80gb": "A100 80GB"}


def _scenario(name: str, d: dict, about: dict) -> dict[str, object]:
    count = d["tp"] * d["pp"]
    hardware = d.get("hardware", "h100-sxm")
    checkpoint = d.get("checkpoint") or CHECKPOINT[(d["model"], d["weight_dtype"])]
    not_stated = about["not_stated_on_any_page"]
    if hardware == "h100-pcie":  # inferred from the page's A100 twins (the note says how)
        not_stated = not_stated.replace("H100 form factor (SXM assumed)", "H100 form factor (PCIe inferred, below)") + " " + about["form_factor_inferred"]
    elif hardware != "h100-sxm":  # the A100 page names the device and its count
        not_stated = not_stated.replace(
            "the number of GPUs where no -tp/-pp flag is given (1 assumed: the engines' default), H100 form factor (SXM assumed), ", ""
        )
    engine: dict[str, object] = {"id": d["engine"], "version": d["version"], "args": d["args"]}
    for key in ("max_model_len", "max_num_batched_tokens"):
        if key in d:
            engine[key] = d[key]
    if d.get("chunked"):
        engine["enable_chunked_prefill"] = True
    model_note = ""
    if d["model"] == "qwen3-235b-a22b":
        model_note = (
            " The page serves the Instruct-2507 release; the catalog model qwen3-235b-a22b has the same layer "
            "shapes (the 2507 config.json differs in max_position_embeddings, 262144)."
        )
    if d["model"] == "gpt-oss-120b":
        model_note = " MoE expert weights in the checkpoint's mxfp4, the rest bf16 (the catalog model's quantization)."
    ep = " Expert parallelism on (--enable-expert-parallel): EP size = tp." if d["args"].get("--enable-expert-parallel") else ""
    return {
        "kind": "Scenario",
        "name": name,
        "description": f"{MODEL_WORDS[d['model']]} in {d['weight_dtype']} on {count} x {HARDWARE_WORDS[hardware]} (tp {d['tp']}, pp {d['pp']}) "
        f"served by {ENGINE_WORDS[d['engine']]} {d['version']}, as benchmarked by GPUStack's Performance Lab.",
        "model": d["model"],
        "hardware": hardware,
        "count": count,
        "tp": d["tp"],
        "pp": d["pp"],
        "engine": engine,
        "weight_dtype": d["weight_dtype"],
        "kv_dtype": "auto",
        **({"quantization": d["quantization"]} if "quantization" in d else {}),
        "notes": (
            f"Source: {about['pages'][d['page']]} - serving command `{d['command']}` (checkpoint {checkpoint}), "
            "engine versions from the page's 'Engine Version' list, hardware "
            f"{about['hardware_stated'].get(d['page'], about['hardware_stated']['default'])}."
            f"{model_note}{ep}{' ' + d['extra_note'] if 'extra_note' in d else ''} Not stated on the page: {not_stated}"
        ),
    }


def main() -> None:
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    about, deployments = source["_about"], source["deployments"]
    for name, d in deployments.items():
        _dump(OUT / "scenarios" / f"{name}.yaml", _scenario(name, d, about))
    for r in source["results"]:
        d = deployments[r["deployment"]]
        n = r["successful"]
        burst = r["max_concurrency"] is None
        concurrency = r["max_concurrency"] or r["peak_concurrent"] or n
        mean_isl, mean_osl = round(r["total_input"] / n), round(r["total_generated"] / n)
        suffix = f"burst-n{n}" if burst else f"c{concurrency}"
        name = f"{r['deployment']}-{r['case']}-{suffix}".replace("-sharegpt-c4-c4", "-sharegpt-c4")
        dataset = (
            "ShareGPT (ShareGPT_V3_unfiltered_cleaned_split.json)"
            if r["case"].startswith("sharegpt")
            else "random --random-input-len {} --random-output-len {} --seed 42".format(*r["case"].split("-")[1:])
        )
        mode = (
            f"Offline burst: no --request-rate (vLLM's default, inf) and no --max-concurrency, so all {n} requests "
            "were sent at t = 0; concurrency here is "
            + (
                f"the block's measured 'Peak concurrent requests: {r['peak_concurrent']}'."
                if r["peak_concurrent"]
                else f"the number of requests ({n}); this vLLM release prints no peak-concurrency line."
            )
            if burst
            else f"Closed loop: --max-concurrency {concurrency}, {n} requests."
        )
        _dump(
            OUT / "runs" / f"{name}.yaml",
            {
                "kind": "EvaluationRun",
                "name": name,
                "scenario": r["deployment"],
                "harness": "vllm-bench-serve",
                "engine_version": d["version"],
                # the block's command line names it: --dataset-name sharegpt / random
                "dataset": "sharegpt" if r["case"].startswith("sharegpt") else "random",
                # --backend openai-chat: /v1/chat/completions, whose role chunk vllm bench serve times too
                "endpoint": "chat",
                "notes": [
                    f"Source: GPUStack Performance Lab, {about['pages'][d['page']]}, section '{r['section']}', the "
                    f"'Serving Benchmark Result' block; client vllm bench serve --backend openai-chat, dataset {dataset}, "
                    "no --ignore-eos. The page states no date.",
                    mode,
                    f"Numbers as printed: ttft_ms = Mean TTFT (median {r['ttft'][1]}, p99 {r['ttft'][2]}), itl_ms = Mean ITL "
                    f"(Mean TPOT {r['tpot_mean']}), output_tokens_per_sec = Output token throughput; benchmark duration "
                    f"{r['duration_s']} s.",
                    f"mean_isl/mean_osl = Total input tokens {r['total_input']} / Total generated tokens {r['total_generated']} "
                    f"divided by the {n} successful requests, rounded (a division, the only arithmetic here).",
                ],
                "points": [
                    {
                        "concurrency": concurrency,
                        "completed_requests": n,
                        "output_tokens_per_sec": r["output_tps"],
                        "ttft_ms": r["ttft"][0],
                        "itl_ms": r["itl_mean"],
                        "mean_isl": mean_isl,
                        "mean_osl": mean_osl,
                    }
                ],
            },
        )
    print(f"{len(source['results'])} runs, {len(deployments)} scenarios written to {OUT}")


if __name__ == "__main__":
    main()
