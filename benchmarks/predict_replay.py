#!/usr/bin/env python
"""How the replay of a closed-loop point moves the prediction: the evidence behind
the steady-state rule (servescope/predict/replay.py).

For a few deployments and shapes, the predicted mean TTFT / TPOT / output tok/s of
one closed-loop point under

- ``burst``: c identical requests started together (the replay before the rule);
- the steady rule with the range ratio r in 0 .. 0.3 (warm-up and count as the rule);
- the steady rule with 1, 2, 4, 8 and 16 warm-up requests per client;
- the steady rule without the stationary start (first requests not cut), the
  same warm-ups: how slowly waves decay on their own;
- the steady rule with N = 8 c, 16 c and 32 c measured requests (the throughput
  formula's window bias, about c / (N + c));

each at two seeds. Usage::

    .venv/bin/python benchmarks/predict_replay.py     # ~1 min on 2 cores

Results: benchmarks/results/predict_replay.json and tables on stdout.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.predict import replay as replay_mod
from servescope.predict.api import predict
from servescope.predict.workload_input import SyntheticWorkload

OUT = Path(__file__).parent / "results" / "predict_replay.json"
CASES = [
    ("qwen3-32b", "h100-sxm", 2, 16, 1024, 1024),
    ("qwen3-32b", "h100-sxm", 2, 64, 1024, 128),
    ("qwen3-32b", "h100-sxm", 2, 16, 8192, 1024),
    ("llama-3.1-8b", "h100-sxm", 1, 64, 1024, 1024),
]


def point(scen: Scenario, cat: Catalog, spec: SyntheticWorkload, seed: int) -> dict[str, float]:
    p = predict(scen, spec, catalog=cat, seed=seed).prediction.points[0]
    assert p.ttft_ms is not None and p.tpot_ms is not None and p.output_tokens_per_sec is not None
    return {"ttft_ms": round(p.ttft_ms, 2), "tpot_ms": round(p.tpot_ms, 3), "output_tokens_per_sec": round(p.output_tokens_per_sec, 1)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=OUT)
    args = ap.parse_args()
    cat = Catalog.load([])
    report: dict[str, Any] = {"cases": []}
    steady = replay_mod.REPLAYS["steady"]
    for model, hw, tp, c, isl, osl in CASES:
        scen = Scenario(name=f"{model}-tp{tp}", model=model, hardware=hw, count=tp, tp=tp,
                        engine={"id": "vllm", "version": "0.11.0"})  # type: ignore[arg-type]  # fmt: skip
        label = f"{model} tp{tp} on {hw}, c{c}, {isl}:{osl}"
        rows: list[dict[str, Any]] = []

        def add(name: str, spec: SyntheticWorkload, row: list[dict[str, Any]] = rows, sc: Scenario = scen) -> None:
            for seed in (0, 1):
                row.append({"variant": name, "seed": seed, **point(sc, cat, spec, seed)})

        add("burst", SyntheticWorkload((c,), isl, osl, harness="burst"))
        for r in (0.0, 0.02, 0.05, 0.1, 0.2, 0.3):
            add(f"steady r={r:g}", SyntheticWorkload((c,), isl, osl, range_ratio=r))
        for w in (1, 2, 4, 8, 16):
            add(f"steady warm-up {w}c", SyntheticWorkload((c,), isl, osl, warmup_requests=w * c))
        # the same rule without the stationary start
        replay_mod.REPLAYS["steady-no-stationary"] = replace(steady, name="steady-no-stationary", stationary_start=False)
        try:
            for w in (1, 4, 16):
                add(f"no stationary start, warm-up {w}c",
                    SyntheticWorkload((c,), isl, osl, harness="steady-no-stationary", warmup_requests=w * c))  # fmt: skip
        finally:
            del replay_mod.REPLAYS["steady-no-stationary"]
        for n in (8, 16, 32):
            add(f"steady N={n}c", SyntheticWorkload((c,), isl, osl, requests_per_concurrency=n))
        report["cases"].append({"case": label, "rows": rows})
        print(f"## {label}")
        for i in range(0, len(rows), 2):
            a, b = rows[i], rows[i + 1]
            print(
                f"  {a['variant']:<36} TTFT {a['ttft_ms']:9.1f} / {b['ttft_ms']:9.1f}  TPOT {a['tpot_ms']:7.2f} / "
                f"{b['tpot_ms']:7.2f}  tok/s {a['output_tokens_per_sec']:9.1f} / {b['output_tokens_per_sec']:9.1f}"
            )
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps(report, indent=2) + "\n")
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
