#!/usr/bin/env python
"""Write the DataCrunch part of the predictor's validation set.

Input: ``scripts/validation_sources/datacrunch_h200_sglang.json`` — every line of
``sglang/outputs/llama_3_3_70b_offline_output.jsonl``, ``llama_3_3_70b_online_output.jsonl`` and
``llama_405b_online_output.jsonl`` in the public repository
datacrunch-research/h200-benchmarks (commit c091ef530a525d2e788bc41c39a4450b09c9f2ad):
SGLang serving Llama 3.3 70B Instruct bf16 on 4 x H200 (tp 4) and Llama 3.1 405B Instruct bf16
on 8 x H200 (tp 8, online runs only), offline
``sglang.bench_serving`` runs at request rate inf, and online ones at request rates
1-16/s (Poisson arrivals, no concurrency limit). The files publish *median* TTFT
and *median* ITL only.

Output (``src/servescope/data/validation``): one Scenario per deployment and one EvaluationRun per
line. An offline point is a burst: concurrency = the number of requests (all
sent at t = 0); an online one has its ``request_rate`` (concurrency = the requests sent); ttft_p50_ms = median TTFT, itl_p50_ms = median ITL (said in the notes);
mean_isl/mean_osl = total tokens / completed, rounded (the one arithmetic step).
Re-running rewrites the same files.

    .venv/bin/python scripts/build_validation_datacrunch.py
"""

from __future__ import annotations

import json
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
SOURCE = ROOT / "scripts" / "validation_sources" / "datacrunch_h200_sglang.json"
OUT = ROOT / "src" / "servescope" / "data" / "validation"
SCENARIO = "dc-sglang-llama-3.3-70b-bf16-h200-tp4"
SCENARIO_405B = "dc-sglang-llama-3.1-405b-bf16-h200-tp8"


def _dump(path: Path, doc: dict[str, object]) -> None:
    path.write_text(yaml.safe_dump(doc, sort_keys=False, width=120, allow_unicode=True), encoding="utf-8")


def main() -> None:
    source = json.loads(SOURCE.read_text(encoding="utf-8"))
    about = source["_about"]
    _dump(
        OUT / "scenarios" / f"{SCENARIO}.yaml",
        {
            "kind": "Scenario",
            "name": SCENARIO,
            "description": "Llama 3.3 70B Instruct in bf16 on 4 x H200 with tensor parallelism 4, served by SGLang (version not "
            "stated), as benchmarked by DataCrunch (datacrunch-research/h200-benchmarks).",
            "model": "llama-3.3-70b",
            "hardware": "h200",
            "count": 4,
            "tp": 4,
            "engine": {
                "id": "sglang",
                "version": "unstated",
                "args": {"--tp-size": 4, "--disable-radix-cache": True, "--enable-torch-compile": True},
                "enable_prefix_caching": False,
            },
            "weight_dtype": "bf16",
            "kv_dtype": "auto",
            "notes": (
                f"Server: {about['server']}. Source script: {about['script']}. Not stated, engine defaults assumed: "
                "mem_fraction_static, max_running_requests, chunked prefill size, the H200 form factor (SXM 141 GB, "
                "as the repository's README says '4 x H200 141GB'). The version: the publisher's own issue "
                "https://github.com/sgl-project/sglang/issues/2450 (antferdom, 2024-12-11, Llama 3.3 70B) says "
                "'lmsysorg/sglang:latest with SGLang v0.4'; the simulator applies its SGLang defaults (0.5.x), which differ "
                "from v0.4.0-0.4.1's (python/sglang/srt/server_args.py of those wheels: mem_fraction_static 0.85 at tp 4, "
                "CUDA graphs up to 160 sequences and larger decode batches eager, chunked prefill 8192): not modelled by version."
            ),
        },
    )
    _dump(
        OUT / "scenarios" / f"{SCENARIO_405B}.yaml",
        {
            "kind": "Scenario",
            "name": SCENARIO_405B,
            "description": "Llama 3.1 405B Instruct in bf16 on 8 x H200 with tensor parallelism 8, served by SGLang (version not "
            "stated), as benchmarked by DataCrunch (datacrunch-research/h200-benchmarks).",
            "model": "llama-3.1-405b",
            "hardware": "h200",
            "count": 8,
            "tp": 8,
            "engine": {
                "id": "sglang",
                "version": "unstated",
                "args": {"--tp-size": 8, "--disable-radix-cache": True, "--enable-torch-compile": True},
                "enable_prefix_caching": False,
            },
            "weight_dtype": "bf16",
            "kv_dtype": "auto",
            "notes": (
                f"Server: {about['server_405b']}. Source script: {about['script_405b']}. Not stated, engine defaults assumed: "
                "mem_fraction_static, max_running_requests, chunked prefill size, the H200 form factor (SXM 141 GB, as for the "
                "repository's 70B runs). The version is not stated; the same repository's 70B runs used 'lmsysorg/sglang:latest "
                "with SGLang v0.4' (https://github.com/sgl-project/sglang/issues/2450), whose defaults differ from the 0.5.x ones "
                "the simulator applies (v0.4.0-0.4.1: mem_fraction_static 0.81 at tp 8, CUDA graphs up to 160 sequences): not "
                "modelled by version."
            ),
        },
    )
    seen: dict[str, int] = {}
    for line in source["lines"]:
        base = f"{SCENARIO}-{_case(line)}-burst-n{line['completed']}"
        seen[base] = seen.get(base, 0) + 1
        name = base if seen[base] == 1 else f"{base}-repeat{seen[base]}"
        n = line["completed"]
        source_note = f"Source: DataCrunch, {about['output_file']} (the line with dataset {line['dataset_name']}, " + (
            f"random_input_len {line['random_input_len']}, random_output_len {line['random_output_len']}, completed "
            f"{n}, duration {line['duration']} s)" + (" - the second of two runs of this command in the file." if seen[base] > 1 else ".")
        )
        load_note = (
            f"Offline burst: sglang.bench_serving --num-prompt {n} at request rate inf, no max concurrency (the "
            f"file's 'max_concurrency': null): all {n} requests sent at t = 0; concurrency here is that number."
        )
        _run(name, line, source_note, load_note, {}, SCENARIO)
    for scenario, lines, file, same in (
        (SCENARIO, source["online_lines"], about["online_output_file"], "the same script and server as the offline runs"),
        (SCENARIO_405B, source["online_lines_405b"], about["online_output_file_405b"], f"server and client commands from {about['script_405b']}"),
    ):
        for line in lines:
            n, rate = line["completed"], line["request_rate"]
            source_note = (
                f"Source: DataCrunch, {file} (the line with dataset {line['dataset_name']}, request_rate "
                f"{rate}, completed {n}, duration {line['duration']} s); {same}."
            )
            load_note = (
                f"Open loop: sglang.bench_serving --num-prompt {n} --request-rate {rate:g}, no max concurrency (the file's "
                "'max_concurrency': null): Poisson arrivals at that mean rate; concurrency here is the number of requests "
                "sent (no limit was set)."
            )
            _run(f"{scenario}-{_case(line)}-rate{rate:g}-n{n}", line, source_note, load_note, {"request_rate": rate}, scenario)
    total = len(source["lines"]) + len(source["online_lines"]) + len(source["online_lines_405b"])
    print(f"{total} runs, 2 scenarios written to {OUT}")


def _case(line: dict) -> str:
    return "sharegpt" if line["dataset_name"] == "sharegpt" else f"random-i{line['random_input_len']}-o{line['random_output_len']}"


def _run(name: str, line: dict, source_note: str, load_note: str, extra: dict[str, object], scenario: str) -> None:
    """One EvaluationRun of one output line: medians as published, the lengths from its totals."""
    n = line["completed"]
    random = line["dataset_name"] != "sharegpt"
    dataset = (
        f"random --random-input {line['random_input_len']} --random-output {line['random_output_len']}, range ratio 0.0 (lengths uniform in [1, L])"
        if random
        else "ShareGPT"
    )
    _dump(
        OUT / "runs" / f"{name}.yaml",
        {
            "kind": "EvaluationRun",
            "name": name,
            "scenario": scenario,
            "harness": "sglang-bench-serving",
            "engine_version": "unstated",
            "dataset": line["dataset_name"],  # the output line's own field: "sharegpt" or "random"
            # the client's --random-range-ratio, left at its default 0.0 (the measured means, about L / 2, show it)
            **({"random_range_ratio": 0.0} if random else {}),
            "notes": [
                source_note,
                f"{load_note} Dataset: {dataset}.",
                "Columns: ttft_p50_ms = median_ttft_ms and itl_p50_ms = median_itl_ms (medians: the file has no means; "
                "scored against the predicted medians), "
                f"output_tokens_per_sec = output_throughput; mean E2E latency {line['mean_e2e_latency_ms']} ms.",
                f"mean_isl/mean_osl = total_input_tokens {line['total_input_tokens']} / total_output_tokens "
                f"{line['total_output_tokens']} divided by the {n} completed requests, rounded.",
            ],
            "points": [
                {
                    "concurrency": n,
                    "completed_requests": n,
                    **extra,
                    "output_tokens_per_sec": round(line["output_throughput"], 3),
                    "ttft_p50_ms": round(line["median_ttft_ms"], 3),
                    "itl_p50_ms": round(line["median_itl_ms"], 3),
                    "mean_isl": round(line["total_input_tokens"] / n),
                    "mean_osl": round(line["total_output_tokens"] / n),
                }
            ],
        },
    )


if __name__ == "__main__":
    main()
