#!/usr/bin/env python
"""How time to first token falls with tensor parallelism, measured and predicted.

For every InferenceX deployment family (model, engine, GPU, ISL:OSL) measured at two
or more tp sizes, the TTFT at the lowest concurrency is fitted by least squares as

    TTFT(tp) = a + b / tp

for the measured points and for the predicted ones (``predict_accuracy.py``'s results
file). ``b`` is the part that tensor parallelism divides (the GEMMs and attention of
the prompt), ``a`` the part it does not (all-reduces, the host launch floor, anything
replicated on every rank). A measured ``a`` well above the predicted one says the
model is missing a cost that does not shrink with tp; a measured ``b`` below the
predicted one says the divided work is costed too high.

Reads only the accuracy file: no simulation.

    .venv/bin/python benchmarks/tp_scaling.py [--accuracy benchmarks/results/predict_accuracy.json]
"""

from __future__ import annotations

import argparse
import json
import re
from collections import defaultdict
from pathlib import Path

import numpy as np

ACCURACY = Path(__file__).parent / "results" / "predict_accuracy.json"
#: ix-<engine>-<model>-<gpu>-tp<N>-i<ISL>-o<OSL>
NAME = re.compile(r"^ix-(?P<engine>vllm|trt-llm)-(?P<model>.+)-(?P<gpu>h100|h200|b200)-tp(?P<tp>\d+)-(?P<lengths>i\d+-o\d+)$")


def fit(tps: list[int], ttft: list[float]) -> tuple[float, float]:
    """(a, b) of ttft = a + b / tp, least squares."""
    x = np.column_stack([np.ones(len(tps)), 1.0 / np.asarray(tps, dtype=float)])
    (a, b), *_ = np.linalg.lstsq(x, np.asarray(ttft, dtype=float), rcond=None)
    return float(a), float(b)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--accuracy", type=Path, default=ACCURACY, help="a predict_accuracy.py results file")
    args = ap.parse_args(argv)
    doc = json.loads(args.accuracy.read_text(encoding="utf-8"))
    families: dict[tuple[str, str, str, str], dict[int, tuple[float, float]]] = defaultdict(dict)
    for row in doc["public"]:
        m = NAME.match(row["run"])
        ttft = row["detail"].get("ttft_ms")
        if not m or not ttft or not ttft["measured"]:
            continue
        # the lowest concurrency: the least queueing, the closest to one prompt's own prefill
        families[(m["model"], m["engine"], m["gpu"], m["lengths"])][int(m["tp"])] = (ttft["predicted"][0], ttft["measured"][0])
    print(f"{'model':<26} {'engine':<8} {'gpu':<5} {'lengths':<11} {'tp':<9} {'measured a':>10} {'b':>7}   {'predicted a':>11} {'b':>7}  (ms)")
    for key in sorted(families):
        by_tp = families[key]
        if len(by_tp) < 2:
            continue
        tps = sorted(by_tp)
        am, bm = fit(tps, [by_tp[t][1] for t in tps])
        ap_, bp = fit(tps, [by_tp[t][0] for t in tps])
        model, engine, gpu, lengths = key
        print(f"{model:<26} {engine:<8} {gpu:<5} {lengths:<11} {','.join(map(str, tps)):<9} {am:>10.0f} {bm:>7.0f}   {ap_:>11.0f} {bp:>7.0f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
