#!/usr/bin/env python
"""A sweep's run-level prefix-cache hit rate on a real engine: Σhits / Σqueries of its points' windows.

Runs ``servescope run`` over a prompt file whose 24 prompts share a ~600-word prefix, at
concurrency 1 and 4 (12 requests each, 8 tokens out), against the embedded llama.cpp engine or an
endpoint, and prints what each point's window said (``point_done``: its hit rate and the prompt
tokens the cache was asked for), the Result's run-level figure, Σhits / Σqueries, the plain mean
of the points, and the run-level figure of the Result rebuilt from records.jsonl. The run-level
figure should equal Σhits / Σqueries and the rebuilt one (issue 32's grader review, F7).

    .venv/bin/python benchmarks/sweep_hit_rate.py                      # the embedded engine, ~15 s
    .venv/bin/python benchmarks/sweep_hit_rate.py --out DIR -- --endpoint http://127.0.0.1:8765/v1 --model M --engine vllm
    # (benchmarks/real_vllm_loads.sh runs it against its vLLM)
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
WORDS = [
    "alpha",
    "beta",
    "gamma",
    "delta",
    "epsilon",
    "zeta",
    "eta",
    "theta",
    "iota",
    "kappa",
    "lambda",
    "mu",
    "nu",
    "xi",
    "omicron",
    "pi",
    "rho",
    "sigma",
    "tau",
    "upsilon",
]


def write_prompts(path: Path, seed: int = 1) -> None:
    rng = random.Random(seed)
    shared = " ".join(rng.choice(WORDS) for _ in range(600))
    with path.open("w", encoding="utf-8") as fh:
        for i in range(24):
            tail = " ".join(rng.choice(WORDS) for _ in range(40))
            fh.write(json.dumps({"prompt": f"{shared} question {i}: {tail}"}) + "\n")


def check(run_dir: Path) -> dict[str, Any]:
    from servescope.bench.recover import result_from_records

    [result_path] = sorted(run_dir.glob("*/result.json"))
    result = json.loads(result_path.read_text(encoding="utf-8"))
    records = result_path.parent / "records.jsonl"
    done = [json.loads(line)["point_done"] for line in records.read_text(encoding="utf-8").splitlines() if line.startswith('{"point_done"')]
    rates = [d["prefix_cache_hit_rate"] for d in done]
    queries = [d.get("prefix_cache_queries") for d in done]
    known = None not in rates and all(queries)
    return {
        "points": [p["metrics"]["prefix_cache_hit_rate"] for p in result["points"]],
        "point_done_queries": queries,
        "run_level": result["metrics"]["prefix_cache_hit_rate"],
        "sum_hits_over_sum_queries": sum(r * q for r, q in zip(rates, queries, strict=True)) / sum(queries) if known else None,
        "plain_mean": sum(rates) / len(rates) if None not in rates and rates else None,
        "rebuilt_from_records": result_from_records(records).metrics.prefix_cache_hit_rate,
        "kv_run": result["metrics"]["kv_utilization"],
        "kv_points": [p["metrics"]["kv_utilization"] for p in result["points"]],
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--out", type=Path, default=None, help="folder for the prompts and the run (default: a temporary one)")
    ap.add_argument("servescope_args", nargs="*", help="after --: more `servescope run` options (--endpoint, --model, --engine, --extra-body)")
    a = ap.parse_args(argv)
    out = a.out or Path(tempfile.mkdtemp(prefix="sweep-hit-rate-"))
    out.mkdir(parents=True, exist_ok=True)
    write_prompts(out / "prompts.jsonl")
    cmd = [str(REPO / ".venv" / "bin" / "servescope"), "run", "--input-file", str(out / "prompts.jsonl"), "--osl", "8",
           "--concurrency", "1,4", "--num-requests", "12", *a.servescope_args, "--out", str(out / "sweep")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        print(done.stdout + done.stderr, file=sys.stderr)
        return done.returncode
    print(json.dumps(check(out / "sweep"), indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
