"""`search` fanned out: configurations per second in one process, in local processes and
on a local Ray head, side by side on the same search, and whether the three outcomes are
identical (everything but the wall time, as JSON text).

The search: an 8B model on 8 x H100, three engines, two weight dtypes, every tp that
divides 8 and ``--seqs`` max_num_seqs choices (42 by default: 3 x 2 x 4 x 42 = 1,008
configurations), at three concurrency levels (8, 32, 128; 512 tokens in, 128 out). The Ray head is started here
(``ray.init(address="local", num_cpus=N)``, no dashboard); its start is timed apart.

    PYTHONPATH=src .venv/bin/python benchmarks/search_fanout.py --workers 2      # ~1-2 min on 2 cores
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import time
from typing import Any

from servescope.predict.search import SearchOutcome, search
from servescope.predict.workload_input import SyntheticWorkload


def document(outcome: SearchOutcome) -> str:
    """Everything a search says but its wall time, as JSON text."""
    whole = dataclasses.asdict(outcome)
    whole.pop("wall_s")
    whole["slos"] = [str(s) for s in outcome.slos]
    return json.dumps(whole, default=str)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--seqs", type=int, default=42, help="max_num_seqs choices (16, 28, 40, ...)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1, help="local processes, and the Ray head's CPUs")
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    seqs = tuple(16 + 12 * i for i in range(args.seqs))
    work = SyntheticWorkload((8, 32, 128), 512, 128)
    call: dict[str, Any] = {"engines": "vllm@0.11.0,sglang@0.5.2,trt-llm@1.0.0", "weight_dtypes": "bf16,fp8", "max_num_seqs": seqs}

    def timed(label: str, **how: Any) -> tuple[str, SearchOutcome]:
        outcome = search("llama-3.1-8b", "h100-sxm", 8, "ttft_ms<=500,itl_ms<=30", work, **call, **how)
        print(f"{label}: {outcome.configurations} configurations, {outcome.simulations} simulations in {outcome.wall_s:.2f} s "
              f"({outcome.configurations_per_s:.1f}/s)", flush=True)  # fmt: skip
        return label, outcome

    runs = [timed("one process", workers=1), timed(f"{args.workers} local processes", workers=args.workers)]
    ray_start_s = None
    if not args.no_ray:
        import ray

        t0 = time.perf_counter()
        ray.init(address="local", num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
        ray_start_s = time.perf_counter() - t0
        try:
            runs.append(timed(f"Ray, local head with {args.workers} CPUs", ray="auto"))
        finally:
            ray.shutdown()
    reference = document(runs[0][1])
    print(json.dumps({
        "configurations": runs[0][1].configurations,
        "load_avg_1m_at_end": os.getloadavg()[0],
        "ray_head_start_s": None if ray_start_s is None else round(ray_start_s, 2),
        "runs": [{"how": label, "wall_s": round(o.wall_s, 2), "configurations_per_s": round(o.configurations_per_s, 1),
                  "identical_to_one_process": document(o) == reference} for label, o in runs],
    }, indent=1))  # fmt: skip


if __name__ == "__main__":
    main()
