#!/usr/bin/env python
"""The step-time model against one real GPU: matrix-multiply and copy ceilings,
then a random-weight Llama-3.1-8B (transformers, no weights downloaded) at a few
prefill and decode shapes, each beside ``StepTimeModel``'s prediction.

Measured (CUDA events after warm-ups, median of reps, each rep synchronised):
``ceilings``: GEMM TFLOP/s in bf16 (square 4096, 8192; serving shapes M = 16/256/2048
x K = N = 4096/8192) and fp8 (``torch._scaled_mm``, per-tensor scales); copy GB/s as
``copy_rw_gb_s`` (bytes read + written: the HBM traffic, the datasheet's and ``servescope
probe``'s convention) and ``copy_read_gb_s`` (read only, half); ``read_stream_gb_s``, a
read-only sum, as weight streaming reads. ``prefill``: ``model(ids[b, s], use_cache=False)``,
logits of the last token only. ``decode``: one token per sequence against a DynamicCache
filled with ``context`` random K/V per sequence (values do not change the time, so no
prefill); each step appends a token, so ``keys_per_seq`` is the median timed step's, its
own included. ``device_ms``: kernel time of one more, profiled rep, without host launch
gaps (eager HF decode at small batch is host-bound).

Predicted (tp 1, bf16 weights and KV): prefill b x s = ``step_time(prefill=[(s, 0)] * b,
logits=b)``, decode = ``step_time(b, b * keys_per_seq)``, under ``engine`` =
``default_calibration(h200, "vllm")`` (a serving engine's overheads, 0.625 ms per layer eager
prefill floor); ``device_only`` = its efficiencies with every overhead and eager_layer_s 0;
``ceilings`` = device_only with gemm_eff = best bf16 TFLOP/s / datasheet peak and
memory_bw_eff = copy_rw_gb_s / datasheet bandwidth. HF's DynamicCache concatenates each
layer's cache every step (a paged cache does not): ``kv_cat_ms`` is that read + write at
the measured copy rate.

On the device (H200, Python 3.12, torch and transformers, no pydantic, no network), from
the repository root. servescope needs pydantic: carry its wheels in ``.whl/`` (run
``echo /.whl/ >> .git/info/exclude`` once so they are never committed, and name ``.whl``
in the device tool's ``carry``), fetched here with::

    pip download --no-deps --only-binary=:all: --python-version 3.12 --platform manylinux2014_x86_64 \\
        --implementation cp -d .whl pydantic==2.14.4 pydantic-core==2.50.5 annotated-types==0.8.0 \\
        typing-inspection==0.4.5 typing-extensions==4.16.0

then one command (1-2 minutes; ``--budget-s`` skips model shapes left after that long;
without pip, unzipping each wheel into /tmp/site installs it as well)::

    python3 -m pip install -q --no-index --no-deps --target /tmp/site .whl/*.whl && PYTHONPATH=/tmp/site:src PYTHONUNBUFFERED=1 python3 benchmarks/gpu_check.py --out $OUT

``--smoke``: the same pipeline on CPU (servescope-tiny-llama in fp32, against
generic-cpu) in seconds. Results: ``OUT/gpu_check.json``, rewritten after every shape
(a run cut short keeps what it measured), and a table on stdout. A part that fails
(fp8, a shape out of memory, servescope missing) is recorded with its error; exit 0.
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import platform
import statistics
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

import torch

Row = dict[str, Any]


@dataclass(frozen=True)
class Plan:
    """What one run measures and predicts."""

    device: str
    dtype: str  # servescope's name of the weight, activation and KV dtype
    model_id: str  # catalog model whose shape is built and predicted
    hardware_id: str  # catalog hardware the prediction runs on
    shape: dict[str, int]  # LlamaConfig fields
    gemm: tuple[tuple[int, int, int], ...]  # (M, K, N)
    copy_mib: int
    prefill: tuple[tuple[int, int], ...]  # (batch, seq)
    decode: tuple[tuple[int, int], ...]  # (batch, context)
    warmup: int
    reps: int


LLAMA_31_8B = {
    "hidden_size": 4096,
    "num_hidden_layers": 32,
    "num_attention_heads": 32,
    "num_key_value_heads": 8,
    "head_dim": 128,
    "intermediate_size": 14336,
    "vocab_size": 128256,
}
TINY_LLAMA = {
    "hidden_size": 128,
    "num_hidden_layers": 4,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 32,
    "intermediate_size": 384,
    "vocab_size": 2048,
}
FULL = Plan(
    "cuda",
    "bf16",
    "llama-3.1-8b",
    "h200",
    LLAMA_31_8B,
    gemm=((4096, 4096, 4096), (8192, 8192, 8192)) + tuple((m, k, k) for k in (4096, 8192) for m in (16, 256, 2048)),
    copy_mib=2048,
    prefill=((1, 512), (1, 2048), (4, 2048), (1, 8192)),
    decode=tuple((b, ctx) for ctx in (512, 4096) for b in (1, 16, 64)),
    warmup=3,
    reps=10,
)
SMOKE = Plan(
    "cpu",
    "fp32",
    "servescope-tiny-llama",
    "generic-cpu",
    TINY_LLAMA,
    gemm=((256, 256, 256), (16, 128, 128)),
    copy_mib=16,
    prefill=((1, 16), (2, 32)),
    decode=((1, 16), (4, 64)),
    warmup=1,
    reps=3,
)
TORCH_DTYPES = {"bf16": torch.bfloat16, "fp32": torch.float32}
# Calibration factors a bare forward pass does not pay: an engine's scheduling and host launch costs.
ENGINE_OVERHEADS = ("step_overhead_s", "layer_overhead_s", "token_overhead_s", "output_token_overhead_s", "eager_layer_s")


def attempt(fn: Callable[[], Row]) -> Row:
    """``fn()``, or the error it raised: an optional part never stops the run."""
    try:
        return fn()
    except Exception as exc:  # noqa: BLE001 - OOM, a missing kernel, an API of another version: all recorded
        if torch.cuda.is_available():
            torch.cuda.empty_cache()
        return {"error": f"{type(exc).__name__}: {exc}"[:600]}


def median_s(plan: Plan, fn: Callable[[], object], inner: int = 1) -> float:
    """Median seconds of one call; ``inner`` calls per timed rep keep microsecond kernels
    back to back on the device, so their launch latency is not what is timed."""
    cuda = plan.device == "cuda"
    for _ in range(plan.warmup):
        fn()
    times: list[float] = []
    for _ in range(plan.reps):
        if cuda:
            torch.cuda.synchronize()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        t0 = time.perf_counter()
        for _ in range(inner):
            fn()
        if cuda:
            end.record()
            end.synchronize()
        times.append((start.elapsed_time(end) / 1e3 if cuda else time.perf_counter() - t0) / inner)
    return statistics.median(times)


def device_ms(plan: Plan, fn: Callable[[], object]) -> Row:
    """Kernel (and memcpy) time of one call: the device events only, as the profiler's own
    "Self CUDA time total" counts them (a CPU op's self device time repeats its kernels')."""
    if plan.device != "cuda":
        return {"device_ms": None}
    from torch.autograd import DeviceType
    from torch.profiler import ProfilerActivity, profile

    def profiled() -> Row:
        with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
            fn()
            torch.cuda.synchronize()
        events = [e for e in prof.key_averages() if e.device_type != DeviceType.CPU]
        name = "self_device_time_total" if hasattr(events[0], "self_device_time_total") else "self_cuda_time_total"
        return {"device_ms": sum(float(getattr(e, name)) for e in events) / 1e3}

    return attempt(profiled)


# --- ceilings -------------------------------------------------------------------
def gemm(plan: Plan, m: int, k: int, n: int, dtype: str) -> Row:
    dev = plan.device
    if dtype == "fp8":
        a = torch.randn(m, k, device=dev).to(torch.float8_e4m3fn)
        b = torch.randn(n, k, device=dev).to(torch.float8_e4m3fn).t()  # column-major, as _scaled_mm requires
        one = torch.ones((), device=dev)
        fn = partial(torch._scaled_mm, a, b, scale_a=one, scale_b=one, out_dtype=torch.bfloat16)
    else:
        a = torch.randn(m, k, device=dev, dtype=TORCH_DTYPES[dtype])
        b = torch.randn(k, n, device=dev, dtype=TORCH_DTYPES[dtype])
        fn = partial(torch.matmul, a, b)
    out_size = fn().element_size()
    s = median_s(plan, fn, inner=min(100, max(1, round(1e12 / (2 * m * k * n)))) if dev == "cuda" else 1)
    moved = (m * k + k * n) * a.element_size() + m * n * out_size
    return {"dtype": dtype, "m": m, "k": k, "n": n, "ms": s * 1e3, "tflops": 2 * m * k * n / s / 1e12, "gb_s": moved / s / 1e9}


def copy_ceiling(plan: Plan) -> Row:
    nbytes = plan.copy_mib * 2**20
    src = torch.ones(nbytes, dtype=torch.uint8, device=plan.device)
    dst = torch.empty_like(src)
    s = median_s(plan, lambda: dst.copy_(src))
    r = median_s(plan, lambda: src.view(torch.float32).sum())
    return {"bytes": nbytes, "copy_ms": s * 1e3, "copy_rw_gb_s": 2 * nbytes / s / 1e9, "copy_read_gb_s": nbytes / s / 1e9, "read_stream_gb_s": nbytes / r / 1e9}


def measure_ceilings(plan: Plan) -> Row:
    with torch.inference_mode():  # each attempt's lambda runs at once: the loop variables are current
        rows = [
            {"dtype": d, "shape": [m, k, n]} | attempt(lambda: gemm(plan, m, k, n, d))  # noqa: B023
            for d in (plan.dtype, "fp8")
            for m, k, n in plan.gemm
        ]
        return {"gemm": rows, "copy": attempt(lambda: copy_ceiling(plan))}


# --- the model ------------------------------------------------------------------
def build_model(plan: Plan) -> torch.nn.Module:
    """Random weights made directly on the device in the run's dtype (no fp32 copy, no download)."""
    from transformers import LlamaConfig, LlamaForCausalLM

    fields: dict[str, Any] = dict(plan.shape)
    config = LlamaConfig(**fields, max_position_embeddings=16384, tie_word_embeddings=False)
    previous = torch.get_default_dtype()
    torch.set_default_dtype(TORCH_DTYPES[plan.dtype])
    try:
        with torch.device(plan.device):
            model = LlamaForCausalLM(config)
    finally:
        torch.set_default_dtype(previous)
    return model.eval()


def filled_cache(plan: Plan, batch: int, context: int) -> Any:
    from transformers import DynamicCache

    s, dt = plan.shape, TORCH_DTYPES[plan.dtype]

    def layers() -> Any:  # one layer's tensors at a time, so the cache is never held twice
        for _ in range(s["num_hidden_layers"]):
            yield tuple(torch.randn(batch, s["num_key_value_heads"], context, s["head_dim"], dtype=dt, device=plan.device) for _ in range(2))

    try:
        cache = DynamicCache(layers())
    except Exception:  # noqa: BLE001 - a transformers whose constructor takes no per-layer tensors
        cache = DynamicCache()
        for i, (k, v) in enumerate(layers()):
            cache.update(k, v, i)
    if int(cache.get_seq_length()) != context:
        raise RuntimeError(f"cache holds {int(cache.get_seq_length())} tokens, not {context}")
    return cache


def measure_model(plan: Plan, deadline: float, rows: list[Row], save: Callable[[str], None]) -> Row:
    """The model's facts; each shape's row goes into ``rows`` (and to disk) as soon as it is measured."""
    import transformers

    t0 = time.perf_counter()
    model = build_model(plan)
    sync = torch.cuda.synchronize if plan.device == "cuda" else (lambda: None)
    params = inspect.signature(model.forward).parameters
    cache_kw = "cache" if "cache" in params else "past_key_values"  # renamed in later transformers 5 releases
    keep = {"logits_to_keep": 1} if "logits_to_keep" in params else {}
    sync()
    info: Row = {
        "transformers": transformers.__version__,
        "build_s": time.perf_counter() - t0,
        "hf_params": sum(p.numel() for p in model.parameters()),
        "cache_kwarg": cache_kw,
        "logits_to_keep": bool(keep),
        "attn_implementation": getattr(model.config, "_attn_implementation", None),
    }
    s, elem = plan.shape, torch.tensor([], dtype=TORCH_DTYPES[plan.dtype]).element_size()
    kv_per_token = 2 * s["num_hidden_layers"] * s["num_key_value_heads"] * s["head_dim"] * elem
    vocab = s["vocab_size"]

    def prefill(b: int, seq: int) -> Row:
        ids = torch.randint(0, vocab, (b, seq), device=plan.device)
        fn = partial(model, input_ids=ids, use_cache=False, **keep)
        return {"measured_ms": median_s(plan, fn) * 1e3} | device_ms(plan, fn)

    def decode(b: int, ctx: int) -> Row:
        cache = filled_cache(plan, b, ctx)
        tok = torch.randint(0, vocab, (b, 1), device=plan.device)
        fn = partial(model, input_ids=tok, use_cache=True, **{cache_kw: cache}, **keep)
        ms = median_s(plan, fn) * 1e3
        keys = ctx + plan.warmup + (plan.reps - 1) / 2 + 1  # of the median timed step, its own new token included
        return {"measured_ms": ms, "keys_per_seq": keys, "kv_cache_bytes": b * keys * kv_per_token} | device_ms(plan, fn)

    jobs = [("prefill", b, n, prefill) for b, n in plan.prefill] + [("decode", b, n, decode) for b, n in plan.decode]
    with torch.inference_mode():
        for kind, b, n, fn in jobs:
            row: Row = {"kind": kind, "batch": b, "len": n}
            if time.perf_counter() > deadline:
                rows.append(row | {"error": "skipped: --budget-s spent"})
                continue
            rows.append(row | attempt(lambda: fn(b, n)))  # noqa: B023 - runs at once
            sync()
            if plan.device == "cuda":
                torch.cuda.empty_cache()
            save(f"{kind} b={b} len={n}: {fmt(rows[-1].get('measured_ms'), '.2f')} ms {rows[-1].get('error', '')}")
    return info


# --- predictions ----------------------------------------------------------------
def mape(pairs: list[tuple[float, float]]) -> float | None:
    return 100 * statistics.fmean(abs(p - m) / m for p, m in pairs) if pairs else None


def predict(plan: Plan, ceilings: Row, info: Row, rows: list[Row]) -> Row:
    """Adds ``predicted_ms``, ratios and a breakdown to each measured row; returns the calibrations and MAPEs."""
    from servescope.catalog.store import Catalog
    from servescope.predict.architecture import architecture
    from servescope.predict.calibration import Calibration, default_calibration
    from servescope.predict.step_time import StepTimeModel, peak_flops

    catalog = Catalog.load()
    doc, hw = catalog.model(plan.model_id), catalog.hardware(plan.hardware_id)
    fields = {k: doc.resolved_head_dim if k == "head_dim" else getattr(doc, k) for k in plan.shape}
    arch = architecture(doc)
    engine = default_calibration(hw, "vllm")
    device_only = engine.with_factors({k: 0.0 for k in ENGINE_OVERHEADS})
    cals: dict[str, Calibration] = {"engine": engine, "device_only": device_only}
    best = max((g["tflops"] for g in ceilings["gemm"] if g.get("dtype") == plan.dtype and "tflops" in g), default=None)
    copy_gb_s = ceilings["copy"].get("copy_rw_gb_s")
    if best and copy_gb_s:
        cals["ceilings"] = device_only.with_factors(
            {"gemm_eff": best * 1e12 / peak_flops(hw, plan.dtype), "memory_bw_eff": copy_gb_s / hw.memory_bandwidth_gb_s}
        )
    models = {n: StepTimeModel(arch, hw, c, tp=1, weight_dtype=plan.dtype, kv_dtype=plan.dtype) for n, c in cals.items()}
    explain = models.get("ceilings", models["device_only"])
    for row in rows:
        if "measured_ms" not in row:
            continue
        b = row["batch"]
        step: Row = (
            {"prefill": [(row["len"], 0)] * b, "logits": b} if row["kind"] == "prefill" else {"decode_tokens": b, "decode_keys_full": b * row["keys_per_seq"]}
        )
        row["predicted_ms"] = {n: m.step_time(**step) * 1e3 for n, m in models.items()}
        row["ratio"] = {n: p / row["measured_ms"] for n, p in row["predicted_ms"].items()}
        if row.get("device_ms"):
            row["ratio_to_device"] = {n: p / row["device_ms"] for n, p in row["predicted_ms"].items()}
        row["breakdown_ms"] = {k: v * 1e3 for k, v in asdict(explain.breakdown(**step)).items()}
        if row["kind"] == "decode" and copy_gb_s:
            row["kv_cat_ms"] = 2 * row["kv_cache_bytes"] / (copy_gb_s * 1e9) * 1e3
    summary: Row = {}
    for kind in ("prefill", "decode"):
        done = [r for r in rows if r["kind"] == kind and "predicted_ms" in r]
        for n in models:
            summary[f"{kind}/{n}/mape_vs_measured_pct"] = mape([(r["predicted_ms"][n], r["measured_ms"]) for r in done])
            summary[f"{kind}/{n}/mape_vs_device_pct"] = mape([(r["predicted_ms"][n], r["device_ms"]) for r in done if r.get("device_ms")])
    return {
        "model_fields_match": fields == plan.shape,
        "catalog_fields": fields,
        "catalog_params": arch.total_params,
        "hf_params": info.get("hf_params"),
        "datasheet": {"peak_tflops": peak_flops(hw, plan.dtype) / 1e12, "bandwidth_gb_s": hw.memory_bandwidth_gb_s},
        "calibrations": {n: c.as_dict() for n, c in cals.items()},
        "summary": summary,
    }


# --- output ---------------------------------------------------------------------
def fmt(x: Any, spec: str = ".2f") -> str:
    width = spec.split(".")[0]
    return format(x, spec) if isinstance(x, (int, float)) else format("-", f">{width or 1}")


def format_report(report: Row) -> str:
    lines = []
    for g in report["ceilings"]["gemm"]:
        what = f"gemm {g['dtype']:>4} {'x'.join(map(str, g['shape'])):>16}"
        lines.append(f"{what}  {fmt(g.get('tflops'), '8.1f')} TFLOP/s {fmt(g.get('gb_s'), '8.0f')} GB/s  {g.get('error', '')}")
    c = report["ceilings"]["copy"]
    lines.append(
        f"copy {fmt(c.get('copy_rw_gb_s'), '.0f')} GB/s read+write ({fmt(c.get('copy_read_gb_s'), '.0f')} read only); "
        f"read stream {fmt(c.get('read_stream_gb_s'), '.0f')} GB/s  {c.get('error', '')}"
    )
    names = ("engine", "device_only", "ceilings")
    lines.append(f"\n{'kind':8}{'b':>4}{'len':>6}{'measured':>10}{'device':>9}" + "".join(f"{n:>13}" for n in names) + "  (ms)")
    for r in report.get("rows", []):
        pred = r.get("predicted_ms", {})
        lines.append(
            f"{r['kind']:8}{r['batch']:>4}{r['len']:>6}{fmt(r.get('measured_ms'), '10.2f')}{fmt(r.get('device_ms'), '9.2f')}"
            + "".join(f"{fmt(pred.get(n), '13.2f')}" for n in names)
            + f"  {r.get('error', '')}"
        )
    pred_info = report.get("prediction", {})
    lines.append(f"\n{'MAPE %':24}{'vs measured':>12}{'vs device':>12}")
    for kind in ("prefill", "decode"):
        for n in pred_info.get("calibrations", {}):
            got = [pred_info["summary"][f"{kind}/{n}/mape_vs_{vs}_pct"] for vs in ("measured", "device")]
            lines.append(f"{kind + ' ' + n:24}" + "".join(fmt(g, "12.1f") for g in got))
    if "error" in pred_info:
        lines.append(f"prediction: {pred_info['error']}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--out", default=os.environ.get("OUT") or "gpu_check_out", help="folder for gpu_check.json")
    parser.add_argument("--smoke", action="store_true", help="the whole pipeline on CPU with a tiny model, in seconds")
    parser.add_argument("--budget-s", type=float, default=200.0, help="skip the model shapes still left after this long")
    args = parser.parse_args(argv)
    plan = SMOKE if args.smoke else FULL
    if plan.device == "cuda" and not torch.cuda.is_available():
        parser.error("no CUDA device: run with --smoke off a GPU")
    started = time.perf_counter()
    out = Path(args.out) / "gpu_check.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    report: Row = {
        "started": datetime.now(UTC).isoformat(timespec="seconds"),
        "plan": asdict(plan),
        "env": {
            "python": platform.python_version(),
            "torch": torch.__version__,
            "cuda": torch.version.cuda,
            "device": torch.cuda.get_device_name() if plan.device == "cuda" else platform.machine(),
        },
    }

    def save(stage: str) -> None:
        report["elapsed_s"] = time.perf_counter() - started
        out.write_text(json.dumps(report, indent=1, default=str) + "\n", encoding="utf-8")
        print(f"[{report['elapsed_s']:6.1f} s] {stage} -> {out}", flush=True)

    report["ceilings"] = measure_ceilings(plan)
    save("ceilings")
    report["rows"] = []
    report["model"] = attempt(lambda: measure_model(plan, started + args.budget_s, report["rows"], save))
    save("model")
    report["prediction"] = attempt(lambda: predict(plan, report["ceilings"], report["model"], report["rows"]))
    save("prediction")
    print(format_report(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
