"""Regimes the predictor is known to miss, and how far: their intervals are widened, with a warning.

The held-out error (:mod:`.intervals`) is pooled over groups (an engine, a hardware
generation, ...); inside a group a few regimes miss by far more than the group's own
range. Their causes were looked for in the engines' source and in public measurements;
where a cause is physical and known it belongs in the step-time model, and where it is
still unknown the regime is listed here: a prediction that falls in one gets, on the
metrics that miss, an interval at least as wide as the misses reported for it, and one
warning line naming the regime and the suspected cause. The widths below are the
magnitudes of the misses the project's held-out validation reported for each regime
(measured / predicted), not fitted to any point in the repository.

- ``closed-loop-long-prompt-ttft``: closed loops of 16-64 streams with prompts of 1k tokens or
  more (the reported misses had 1k-4k), measured TTFT 2-5x above the prediction on every engine
  (TPOT within ~10 %). What the publishers'
  clients did at the start of each wave is not stated; a first wave sent at once (``--harness burst``)
  queues every prefill behind the others, and publishers' clients differ in how they ramp up.
  The warning says so whatever ``--harness`` the prediction states: which of the misses a
  stated start would have removed is not known, so the widening stays.
- ``vllm-long-prompt-short-output``: vLLM closed loops with thousands of prompt tokens and
  about a hundred out on small FP8 models: ITL/TPOT up to ~3x below the prediction and
  throughput up to ~3x above it. How much prefill each decode step carries depends on the
  chunked-prefill token budget (``max_num_batched_tokens``, whose default changed across
  vLLM releases and by GPU memory) and on whether prefill-only steps are counted in a
  publisher's TPOT.
- ``trtllm-offline-large-moe``: TensorRT-LLM offline throughput (trtllm-bench) of large FP8
  MoE models on 8 GPUs, ~2x above the prediction: attention data parallelism and the
  expert-parallel all-to-all kernels that such runs enable are not modelled separately.
- ``mi300x-vllm-large-dense``: vLLM on MI300X with a very large dense model: throughput
  30-40 % off either way and burst TTFT far above the prediction (ROCm's attention and
  GEMM kernels for long prefills are not calibrated on held-out points).
- ``cpu-uncalibrated``: any engine on a CPU, not calibrated. On a CPU the engine's
  per-token host work (sampling over the whole vocabulary, detokenising, one SSE chunk per
  token, a client on the same cores) dominates and is in no datasheet: the embedded llama.cpp
  engine's zero-calibration predictions of this repository's three sweeps (benchmarks/docs/
  embedded-engine.md) were TTFT 2.2-2.3x (quiet VM) to 4.2-4.8x (shared VM) below the
  measurement, ITL 1.6x to 3.1-3.6x, throughput 0.55x to 0.22-0.25x of it (from their MAPEs
  54-57 / 76-79 %, 36-38 / 68-72 %, 77-82 / 306-358 %, every prediction too fast). Calibrated
  on one sweep, the others were within 5-9 %: a calibrated prediction is not widened.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from servescope.predict.deployment import Deployment
from servescope.predict.groups import generation, weight_dtype


@dataclass(frozen=True)
class LoadShape:
    """What of the load the regimes depend on (per prediction; concurrency per point)."""

    isl: float | None
    osl: float | None
    offline: bool
    closed_loop: bool


@dataclass(frozen=True)
class Regime:
    key: str
    why: str
    # metric -> (lowest, highest) measured / predicted the interval must reach
    reach: dict[str, tuple[float, float]]
    applies: Callable[[Deployment, LoadShape, int | None], bool]


def _engine(dep: Deployment) -> str:
    return dep.scenario.engine.id.lower()


def _dtype(dep: Deployment) -> str:
    return weight_dtype(dep.scenario, dep.model).lower()


def _long_prompts(shape: LoadShape) -> bool:
    return shape.isl is not None and shape.isl >= 1000


REGIMES: tuple[Regime, ...] = (
    Regime(
        "closed-loop-long-prompt-ttft",
        "closed loops of 16-64 streams with prompts of 1k+ tokens have missed TTFT by 2-5x in published measurements "
        "whose clients did not state how they started each wave (so a stated --harness is no proof against it)",
        {"ttft_ms": (1.0, 5.0)},
        lambda dep, shape, c: shape.closed_loop and _long_prompts(shape) and c is not None and 16 <= c <= 64,
    ),
    Regime(
        "vllm-long-prompt-short-output",
        "vLLM closed loops with long prompts and short outputs on small FP8 models have missed ITL and throughput by up to 3x "
        "(how much prefill each decode step carries: the chunked-prefill budget)",
        {"itl_ms": (1 / 3, 1.0), "output_tokens_per_sec": (1.0, 3.0)},
        lambda dep, shape, c: (
            _engine(dep) == "vllm"
            and shape.closed_loop
            and _long_prompts(shape)
            and shape.osl is not None
            and shape.osl <= 256
            and "fp8" in _dtype(dep)
            and dep.arch.total_params <= 40e9
        ),
    ),
    Regime(
        "trtllm-offline-large-moe",
        "TensorRT-LLM offline throughput of large FP8 MoE models on 8 GPUs has been ~2x above the prediction "
        "(attention data parallelism and expert-parallel all-to-all are not modelled separately)",
        {"output_tokens_per_sec": (1.0, 2.0)},
        lambda dep, shape, c: (
            _engine(dep) in ("trt-llm", "tensorrt-llm", "trtllm", "nim")
            and shape.offline
            and dep.arch.experts > 0
            and dep.arch.total_params >= 100e9
            and "fp8" in _dtype(dep)
            and dep.devices_per_replica * dep.replicas >= 8
        ),
    ),
    Regime(
        "mi300x-vllm-large-dense",
        "vLLM on MI300X with a very large dense model has missed throughput by 30-40 % and burst TTFT by far more "
        "(ROCm attention and GEMM kernels for long prefills are not calibrated on held-out points)",
        {"output_tokens_per_sec": (0.6, 1.4), "ttft_ms": (1.0, 4.0)},
        lambda dep, shape, c: (
            _engine(dep) == "vllm" and generation(dep.hardware.id) in ("CDNA3", "CDNA4") and dep.arch.experts == 0 and dep.arch.total_params >= 200e9
        ),
    ),
    Regime(
        "cpu-uncalibrated",
        "on a CPU the engine's per-token host work (sampling, detokenising, one chunk per token, a client on the same cores) is in no "
        "datasheet: the embedded llama.cpp engine's uncalibrated predictions were TTFT 2.2-4.8x, ITL 1.6-3.6x below its measurements and "
        "throughput 0.22-0.55x of the prediction (benchmarks/docs/embedded-engine.md); `servescope calibrate` on one run brought them within 5-9 %",
        {"ttft_ms": (1.0, 4.8), "itl_ms": (1.0, 3.6), "output_tokens_per_sec": (0.22, 1.0)},
        lambda dep, shape, c: dep.hardware.device_type == "cpu" and dep.calibration_name is None,
    ),
)


def regimes_for(dep: Deployment, shape: LoadShape, concurrency: int | None) -> list[Regime]:
    """The known-miss regimes a point of this deployment and load falls in."""
    return [r for r in REGIMES if r.applies(dep, shape, concurrency)]


def widen(factors: dict[str, tuple[float, float]], regimes: list[Regime]) -> dict[str, tuple[float, float]]:
    """``factors`` widened so each regime's reported misses lie inside."""
    out = dict(factors)
    for regime in regimes:
        for metric, (low, high) in regime.reach.items():
            if metric in out:
                lo, hi = out[metric]
                out[metric] = (min(lo, low), max(hi, high))
    return out


def warning(regime: Regime) -> str:
    return f"known miss ({regime.key}): {regime.why}; this prediction's interval is widened to cover it"


__all__ = ["REGIMES", "LoadShape", "Regime", "regimes_for", "warning", "widen"]
