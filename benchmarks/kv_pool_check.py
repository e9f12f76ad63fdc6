#!/usr/bin/env python
"""The KV pool servescope predicts for a deployment, held against what the engine
logged at start-up (``benchmarks/kv_pool_sources.json``: public logs of vLLM, SGLang
and TensorRT-LLM, each with its deployment and source).

For every configuration whose model and hardware the catalog holds, the deployment is
built as a Scenario (engine, version, tp, dtypes, the memory and length knobs the
source gives) and ``predict.deploy`` sizes the pool (``predict/kv_capacity.py``). A
configuration the engine refused to start must be refused or warned about.

    .venv/bin/python benchmarks/kv_pool_check.py        # a second or two

Prints a table; ``--json`` writes it to benchmarks/results/kv_pool_check.json.
The same rows are checked by tests/predict/test_kv_pool_sources.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.errors import CatalogError
from servescope.predict.deployment import deploy

HERE = Path(__file__).resolve().parent
SOURCES = HERE / "kv_pool_sources.json"
OUT = HERE / "results" / "kv_pool_check.json"

#: Knobs of the sources file -> engine flags of a Scenario (canonical names).
KNOBS = {
    "gpu_memory_utilization": "gpu-memory-utilization",
    "mem_fraction_static": "mem-fraction-static",
    "free_gpu_memory_fraction": "free-gpu-memory-fraction",
    "max_tokens": "max-tokens",
    "max_model_len": "max-model-len",
    "context_length": "context-length",
    "max_seq_len": "max-seq-len",
    "max_num_seqs": "max-num-seqs",
    "max_num_batched_tokens": "max-num-batched-tokens",
    "block_size": "block-size",
    "tokens_per_block": "block-size",
}
#: Where a source states no engine version, the release its date and log format place it at
#: (from each entry's ``not_stated``); the check says it assumed it.
ASSUMED_VERSION = {"vllm": "0.10.0", "sglang": "0.4.9", "trt-llm": "1.0.0"}


def assumed_version(entry: dict[str, Any]) -> str:
    if entry.get("engine_version"):
        return str(entry["engine_version"])
    if entry["engine"] == "vllm" and "-v0-" in entry["id"]:  # its log lines are V0's (# CPU blocks; about 0.6.4)
        return "0.6.4"
    return ASSUMED_VERSION.get(entry["engine"], "unstated")


def scenario_of(entry: dict[str, Any]) -> Scenario:
    args = {
        flag: entry["knobs"][knob]
        for knob, flag in KNOBS.items()
        if isinstance(entry.get("knobs", {}).get(knob), (int, float)) and not isinstance(entry["knobs"][knob], bool)
    }
    return Scenario.model_validate(
        {
            "kind": "Scenario",
            "name": entry["id"],
            "model": entry["model"],
            "hardware": entry["hardware"],
            "count": entry["tp"] * entry.get("pp", 1),
            "tp": entry["tp"],
            "pp": entry.get("pp", 1),
            "engine": {"id": entry["engine"], "version": assumed_version(entry), "args": args},
            "weight_dtype": entry["weight_dtype"],
            "kv_dtype": entry["kv_dtype"],
        }
    )


def check(catalog: Catalog | None = None, sources: Path = SOURCES) -> list[dict[str, Any]]:
    cat = catalog or Catalog.load([])
    rows = []
    for entry in json.loads(sources.read_text(encoding="utf-8"))["configurations"]:
        row: dict[str, Any] = {
            "id": entry["id"],
            "engine": entry["engine"],
            "started": entry["started"],
            "logged_tokens": entry["logged"].get("kv_cache_tokens"),
            "source": entry["source"],
        }
        missing = [
            what
            for what, key, kind in (("model", "model", "models"), ("hardware", "hardware", "hardware"))
            if not entry.get(key) or entry[key] not in cat.ids(kind)
        ]
        if missing:
            row["skipped"] = f"the catalog has no {' or '.join(missing)} for it ({entry.get('model')}, {entry.get('hardware')})"
            rows.append(row)
            continue
        scen = scenario_of(entry)
        row["version_used"] = scen.engine.version + ("" if entry.get("engine_version") else " (assumed)")
        try:
            dep = deploy(scen, catalog=cat)
        except CatalogError as e:
            row.update(predicted_tokens=None, refused=str(e))
            rows.append(row)
            continue
        kv = dep.kv
        row.update(
            predicted_tokens=kv.tokens,
            refused=None,
            warned=[w for w in dep.warnings if "refuse to start" in w],
            breakdown_gib={
                "device": round(kv.device_memory_bytes / 2**30, 2),
                "usable": round(kv.usable_bytes / 2**30, 2),
                "weights": round(kv.weight_bytes / 2**30, 2),
                "activations": round(kv.activation_bytes / 2**30, 2),
                "reserve": round(kv.reserve_bytes / 2**30, 2),
                "kv_pool": round(kv.kv_pool_bytes / 2**30, 2),
            },
        )
        if row["logged_tokens"]:
            row["error_pct"] = round(100 * (kv.tokens - row["logged_tokens"]) / row["logged_tokens"], 1)
        # what vLLM logs beside the pool: "Model loading took X GiB" and "Available KV cache memory: X GiB"
        logged = entry["logged"]
        if logged.get("weights_gib") is not None:
            row["logged_weights_gib"] = logged["weights_gib"]
            row["weights_error_pct"] = round(100 * (kv.weight_bytes / 2**30 - logged["weights_gib"]) / logged["weights_gib"], 1)
        if logged.get("kv_cache_gib") is not None and entry["engine"] == "vllm":
            row["logged_kv_gib"] = logged["kv_cache_gib"]
            # (before the pool is floored at zero: a negative logged figure is a refusal's margin)
            row["predicted_kv_gib"] = round((kv.usable_bytes - kv.weight_bytes - kv.activation_bytes - kv.reserve_bytes) / 2**30, 2)
        rows.append(row)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--json", action="store_true", help=f"also write {OUT}")
    a = ap.parse_args(argv)
    rows = check()
    for r in rows:
        if "skipped" in r:
            print(f"{r['id']:<58} skipped: {r['skipped']}")
            continue
        extra = ""
        if "logged_weights_gib" in r:
            extra += f"  weights {r['breakdown_gib']['weights']:.2f} GiB vs logged {r['logged_weights_gib']:.2f} ({r['weights_error_pct']:+.1f} %)"
        if "logged_kv_gib" in r and "predicted_kv_gib" in r:
            extra += f"  KV memory {r['predicted_kv_gib']:.2f} GiB vs logged {r['logged_kv_gib']:.2f}"
        outcome = (
            ("refused: " + r["refused"][:90])
            if r["refused"]
            else (
                f"predicted {r['predicted_tokens']:>9,} "
                + (f"logged {r['logged_tokens']:>9,} ({r['error_pct']:+.1f} %)" if r["logged_tokens"] else "(no token count logged)")
                + ("  warned: may refuse to start" if r["warned"] else "")
            )
        )
        print(f"{r['id']:<58} {'started' if r['started'] else 'REFUSED':<8} {outcome}{extra}")
    if a.json:
        OUT.parent.mkdir(parents=True, exist_ok=True)
        OUT.write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
        print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
