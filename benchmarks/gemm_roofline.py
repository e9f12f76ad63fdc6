#!/usr/bin/env python
"""How a GEMM's compute and memory times combine: the shape behind ``step_time.GEMM_ROOFLINE_P``.

A roofline says a GEMM takes ``max(compute, memory)``: ``2 M N K / (peak * e_c)`` or the bytes it
streams over ``bandwidth * e_m``. Measured kernels take longer than both near the ridge point,
where neither the tensor cores nor the memory system is saturated. This script fits
``(compute^p + memory^p)^(1/p)`` (``max`` is p -> infinity) to Vidur's per-operator profiles of
Llama-2-70B's four projection GEMMs in bf16 (cuBLAS; tp 1, 2, 4, 8; 1 to 4,096 tokens; vendored
in ``benchmarks/vidur_gemm_profiles.json`` with their sources). It fits on each device,
on both together, and once with ``max``. Then it takes p from one device and fits only e_c and
e_m on the other. That last check shows whether p is a property of GEMM kernels in general
rather than of one device.

    .venv/bin/python benchmarks/gemm_roofline.py      # < 1 s

Results: benchmarks/results/gemm_roofline.json and a table on stdout. Error is the mean absolute
percentage error of the fitted time over the 4 GEMMs x 4 tp sizes x 17 token counts of a device,
fitted in log space (each GEMM's relative error counts the same).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import least_squares

HERE = Path(__file__).resolve().parent
PROFILES = HERE / "vidur_gemm_profiles.json"
OUT = HERE / "results" / "gemm_roofline.json"
#: The boards the profiles are taken to be (``vidur_gemm_profiles.json`` 'not_stated'): bf16 dense peak, HBM bandwidth.
DEVICES = {"h100": (989e12, 3350e9), "a100": (312e12, 2039e9)}
#: Llama-2-70B: hidden 8192, 64 query heads and 8 KV heads of 128, gated MLP of 28,672.
HIDDEN, HEADS, KV_HEADS, HEAD_DIM, INTERMEDIATE = 8192, 64, 8, 128, 28672
MAX = float("inf")


def shapes(tp: int) -> list[tuple[int, int]]:
    """(K, N) per device of QKV, attention output, gate+up and down under tensor parallelism ``tp``."""
    return [
        (HIDDEN, (HEADS + 2 * KV_HEADS) * HEAD_DIM // tp),
        (HIDDEN // tp, HIDDEN),
        (HIDDEN, 2 * INTERMEDIATE // tp),
        (INTERMEDIATE // tp, HIDDEN),
    ]


def load() -> list[tuple[str, int, int, float, float, float]]:
    """(device, tp, tokens, flops, bytes, seconds) per GEMM: bf16 weights, inputs and outputs streamed once."""
    out = []
    for device, tp, tokens, *times_ms in json.loads(PROFILES.read_text())["rows"]:
        for (k, n), ms in zip(shapes(tp), times_ms, strict=True):
            flops = 2.0 * tokens * n * k
            nbytes = 2.0 * (k * n + tokens * k + tokens * n)
            out.append((device, tp, tokens, flops, nbytes, ms * 1e-3))
    return out


def predicted(e_c: float, e_m: float, p: float, device: str, flops: float, nbytes: float) -> float:
    peak, bandwidth = DEVICES[device]
    compute, memory = flops / (e_c * peak), nbytes / (e_m * bandwidth)
    return max(compute, memory) if p == MAX else float((compute**p + memory**p) ** (1.0 / p))


def fit(data: list[Any], devices: tuple[str, ...], p: float | None = None) -> dict[str, Any]:
    """Least squares in log time over ``devices``: e_c, e_m and (``p`` None) the exponent."""
    sel = [d for d in data if d[0] in devices]

    def residuals(x: np.ndarray) -> list[float]:
        exponent = x[2] if p is None else p
        return [float(np.log(predicted(x[0], x[1], exponent, d[0], d[3], d[4]) / d[5])) for d in sel]

    x0, lo, hi = [0.7, 0.8], [0.05, 0.05], [1.0, 1.0]
    if p is None:
        x0, lo, hi = x0 + [2.0], lo + [1.0], hi + [50.0]
    sol = least_squares(residuals, x0, bounds=(lo, hi))
    err = np.abs(np.expm1(np.array(residuals(sol.x))))
    exponent = float(sol.x[2]) if p is None else p
    ratio_by_tokens: dict[int, float] = {}
    for tokens in sorted({d[2] for d in sel}):
        at = [d for d in sel if d[2] == tokens]
        ratio_by_tokens[tokens] = round(float(np.mean([predicted(sol.x[0], sol.x[1], exponent, d[0], d[3], d[4]) / d[5] for d in at])), 3)
    return {
        "devices": list(devices),
        "p": "max" if exponent == MAX else round(exponent, 3),
        "e_compute": round(float(sol.x[0]), 3),
        "e_memory": round(float(sol.x[1]), 3),
        "mape_pct": round(100 * float(err.mean()), 1),
        "gemms": len(sel),
        "predicted_over_measured_by_tokens": ratio_by_tokens,
    }


def main() -> None:
    data = load()
    fits = [fit(data, devs, p) for devs in (("h100",), ("a100",), ("h100", "a100")) for p in (None, MAX)]
    transfer = []
    for source, target in (("h100", "a100"), ("a100", "h100")):
        p = next(f["p"] for f in fits if f["devices"] == [source] and f["p"] != "max")
        transfer.append({"p_from": source, **fit(data, (target,), p)})
    print(f"{'devices':<12} {'p':>6} {'e_compute':>9} {'e_memory':>8} {'error %':>8}")
    for f in fits + transfer:
        label = "+".join(f["devices"]) + (f" (p from {f['p_from']})" if "p_from" in f else "")
        print(f"{label:<12} {f['p']!s:>6} {f['e_compute']:>9} {f['e_memory']:>8} {f['mape_pct']:>8}")
    print("predicted / measured by token count (mean over tp and GEMMs), both devices, free p vs max:")
    free = next(f for f in fits if f["devices"] == ["h100", "a100"] and f["p"] != "max")
    plain = next(f for f in fits if f["devices"] == ["h100", "a100"] and f["p"] == "max")
    for tokens, r in free["predicted_over_measured_by_tokens"].items():
        print(f"  {tokens:>5} tokens  p {free['p']}: {r:.2f}   max: {plain['predicted_over_measured_by_tokens'][tokens]:.2f}")
    OUT.write_text(json.dumps({"what": __doc__.splitlines()[0], "source": str(PROFILES.name), "fits": fits, "transfer": transfer}, indent=1) + "\n")
    print(f"results: {OUT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
