#!/usr/bin/env python
"""How a GEMM's compute and memory times combine: the shape behind ``step_time.GEMM_ROOFLINE_P``.

A roofline says a GEMM takes ``max(compute, memory)``: ``2 M N K / (peak * e_c)`` or the bytes it
streams over ``bandwidth * e_m``. Measured kernels take longer than both near the ridge point,
where neither the tensor cores nor the memory system is saturated. This script fits
``(compute^p + memory^p)^(1/p)`` (``max`` is p -> infinity) to Vidur's per-operator profiles of
Llama-2-70B's four projection GEMMs in bf16 (cuBLAS; tp 1, 2, 4, 8; 1 to 4,096 tokens; vendored
in ``benchmarks/vidur_gemm_profiles.json`` with their sources). It fits on each device,
on both together, and once with ``max``. Then it takes p from one device and fits only e_c and
e_m on the other. That check shows whether p is a property of GEMM kernels in general rather
than of one device. Last, the constants fitted on Llama-2-70B (both devices) predict the
projections of five models no fit saw (Llama-2-7B, CodeLlama-34B and Qwen-72B on H100,
Llama-3-8B and Llama-3-70B on A100): other widths, head counts and MLP sizes.

    .venv/bin/python benchmarks/gemm_roofline.py      # a few seconds

Results: benchmarks/results/gemm_roofline.json and a table on stdout. Error is the mean absolute
percentage error of the fitted time over every GEMM of the rows scored, fitted in log space (each
GEMM's relative error counts the same).
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
#: The model every fit is made on (the others are held out).
FIT_MODEL = "Llama-2-70b-hf"
MAX = float("inf")
Row = tuple[str, str, int, int, float, float, float]  # model, device, tp, tokens, flops, bytes, seconds


def shapes(tp: int, heads: int, kv_heads: int, hidden: int, intermediate: int, gated: bool) -> list[tuple[int, int]]:
    """(K, N) per device of QKV, attention output, (gate+)up and down under tensor parallelism ``tp``."""
    head_dim = hidden // heads
    return [
        (hidden, (heads + 2 * kv_heads) * head_dim // tp),
        (hidden // tp, hidden),
        (hidden, (2 if gated else 1) * intermediate // tp),
        (intermediate // tp, hidden),
    ]


def load() -> list[Row]:
    """One row per GEMM: bf16 weights, inputs and outputs streamed once."""
    out = []
    for model, device, tp, tokens, *rest in json.loads(PROFILES.read_text())["rows"]:
        times_ms, (heads, kv_heads, hidden, intermediate, gated) = rest[:4], rest[4:]
        for (k, n), ms in zip(shapes(tp, heads, kv_heads, hidden, intermediate, gated), times_ms, strict=True):
            flops = 2.0 * tokens * n * k
            nbytes = 2.0 * (k * n + tokens * k + tokens * n)
            out.append((model, device, tp, tokens, flops, nbytes, ms * 1e-3))
    return out


def predicted(e_c: float, e_m: float, p: float, device: str, flops: float, nbytes: float) -> float:
    peak, bandwidth = DEVICES[device]
    compute, memory = flops / (e_c * peak), nbytes / (e_m * bandwidth)
    return max(compute, memory) if p == MAX else float((compute**p + memory**p) ** (1.0 / p))


def fit(data: list[Row], devices: tuple[str, ...], p: float | None = None) -> dict[str, Any]:
    """Least squares in log time over ``FIT_MODEL``'s rows on ``devices``: e_c, e_m and (``p`` None) the exponent."""
    sel = [d[1:] for d in data if d[0] == FIT_MODEL and d[1] in devices]

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


def held_out(data: list[Row], fitted: dict[str, Any]) -> dict[str, float]:
    """Mean error per model outside the fit, with ``fitted``'s constants unchanged."""
    p = MAX if fitted["p"] == "max" else float(fitted["p"])
    out: dict[str, float] = {}
    for model in sorted({d[0] for d in data} - {FIT_MODEL}):
        rows = [d for d in data if d[0] == model]
        errs = [abs(predicted(fitted["e_compute"], fitted["e_memory"], p, d[1], d[4], d[5]) / d[6] - 1) for d in rows]
        out[f"{model} ({rows[0][1]})"] = round(100 * float(np.mean(errs)), 1)
    return out


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
    unseen = {"p": held_out(data, free), "max": held_out(data, plain)}
    print(f"models no fit saw, constants of the {FIT_MODEL} fit on both devices (mean error %):")
    for model, err in unseen["p"].items():
        print(f"  {model:<34} p {free['p']}: {err:5.1f}   max: {unseen['max'][model]:5.1f}")
    report = {"what": __doc__.splitlines()[0], "source": str(PROFILES.name), "fits": fits, "transfer": transfer, "held_out_models": unseen}
    OUT.write_text(json.dumps(report, indent=1) + "\n")
    print(f"results: {OUT.relative_to(HERE.parent)}")


if __name__ == "__main__":
    main()
