"""Regenerate the official baseline of simulated runs (deterministic: same code,
same seed → same integers). `servescope regress` guards them in the test suite.

    .venv/bin/python scripts/make_baseline.py [--out baselines/official/results]
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from servescope.predict.api import predict

# (scenario, workload, concurrency override) — small enough to simulate in a second.
CASES: list[tuple[str, str, list[int] | None]] = [
    ("llama-3.1-8b-on-h100", "serve-chat-c8-i1k-o256-v1", None),
    ("llama-3.1-8b-on-h100", "serve-prefix-c16-v1", None),
    ("llama-3.1-8b-on-h100", "sweep-parallel-1-32-i512-o256-v1", None),
    ("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", None),
]
DEFAULT_OUT = Path(__file__).resolve().parents[1] / "baselines" / "official" / "results"


def write_baseline(out: Path) -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    written = []
    for scenario, workload, levels in CASES:
        run = predict(scenario, workload, concurrency=levels, seed=0, date="2026-11-30")
        path = out / f"{scenario}--{workload}.json"
        path.write_text(json.dumps(run.result.dump(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        written.append(path)
    return written


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=DEFAULT_OUT)
    for p in write_baseline(ap.parse_args().out):
        print(p)


if __name__ == "__main__":
    main()
