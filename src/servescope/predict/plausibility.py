"""Physics checks of a measurement (``validate`` on a Result or EvaluationRun
whose scenario is known): the step-time model's floor, used the other way round.

- **Decode faster than memory allows** (error): every decode iteration streams
  the active weights of each device at least once, so one request cannot
  produce tokens faster than ``(k + 1) * bandwidth /
  active weight bytes per device`` (k draft tokens per step, from ``speculative_tokens``
  or the engine's flags; datasheet bandwidth, no efficiency factor),
  and a measurement above ``headroom`` times that is impossible. Checked on TPOT
  (per token) where the document has it, else on ITL; skipped when the weights
  are small enough to stay in on-chip cache (``CACHE_RESIDENT_BYTES``).
- **Weights larger than the device** (error): weights per device (tp and pp split
  them) above the device's memory.
- **Implausibly slow decode** (warning): TPOT/ITL more than ``slow_factor`` times the
  floor of an iteration at that concurrency (weights once, plus every running
  sequence's KV), a hint of CPU offload, swapping or a misconfigured engine.
- **Impossible times** (error, whatever the scenario; Predictions too): a latency
  (``*_ms``, ``*_s`` per request) that is negative, not finite or longer than
  ``MAX_LATENCY_S`` (a week: ``run --timeout``'s maximum, so no request of a run
  lasts longer), and a run or window duration longer than ``MAX_DURATION_S``
  (four weeks: a week of arrivals, ``workload.arrivals.MAX_SCHEDULE_S``, per point of a
  sweep is already far past any benchmark). Such a number is an overflowed clock or
  a broken importer, never a measurement (``run --rate 1e-300`` once wrote a TTFT of
  9.2e12 ms).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from servescope.catalog.store import Catalog
from servescope.documents import EvaluationRun, Issue, Prediction, Result, Scenario
from servescope.documents.base import error, warning
from servescope.errors import ServescopeError
from servescope.predict.architecture import architecture
from servescope.predict.calibration import Calibration
from servescope.predict.deployment import resolve_model
from servescope.predict.dtypes import from_torch_dtype, kv_dtype_for
from servescope.predict.engine_flags import kv_dtype_flag, normalized
from servescope.predict.speculative import stated_tokens
from servescope.predict.step_time import StepTimeModel

DEFAULT_HEADROOM = 1.25
DEFAULT_SLOW_FACTOR = 50.0
#: Below this many weight bytes per device the weights may sit in on-chip cache
#: (H100 L2 50 MB, MI300X Infinity Cache 256 MB, server CPUs' L3 tens of MB), so
#: DRAM bandwidth is no bound and the "faster than memory" error is not raised.
CACHE_RESIDENT_BYTES = 256 * 1024**2
MAX_LATENCY_S = 7 * 24 * 3600.0
MAX_DURATION_S = 4 * 7 * 24 * 3600.0
# Fields that hold how long a run or a window lasted (seconds); every other time is one request's.
_DURATIONS = frozenset({"duration_s", "run_duration_wall_s"})
# Free-form or not measured by the run: a workload's options, an engine's flags.
_NOT_MEASURED = frozenset({"resolved_params", "args", "engine_args", "params"})
_NOT_TIMES = frozenset({"count", "std"})  # a Distribution's sample size and spread


def _unit_s(key: str) -> float | None:
    """Seconds per unit of a field named like a time (``ttft_ms``, ``fetch_ms_mean``,
    ``p95_turnaround_s``, ``s_per_image``), or None for any other field."""
    if "per_s" in key or key.endswith("_per_sec"):
        return None  # a rate
    if key.endswith("_ms") or "_ms_" in key:
        return 1e-3
    if key.endswith("_s") or key.startswith("s_per_"):
        return 1.0
    return None


def _time_issues(value: Any, path: str, unit: float | None, bound: float, out: list[Issue]) -> None:
    if isinstance(value, dict):
        for key, item in value.items():
            if key in _NOT_MEASURED or (unit is not None and key in _NOT_TIMES):
                continue
            sub = _unit_s(str(key))
            limit = (MAX_DURATION_S if key in _DURATIONS else MAX_LATENCY_S) if sub is not None else bound
            _time_issues(item, f"{path}.{key}" if path else str(key), sub if sub is not None else unit, limit, out)
    elif isinstance(value, list):
        for i, item in enumerate(value):
            _time_issues(item, f"{path}[{i}]", unit, bound, out)
    elif unit is not None and isinstance(value, int | float) and not isinstance(value, bool):
        seconds = float(value) * unit
        if not math.isfinite(seconds) or seconds < 0:
            out.append(error(path, f"{value!r} is not a time: a latency or duration is a finite number >= 0"))
        elif seconds > bound:
            what = "run or window duration" if bound == MAX_DURATION_S else "latency"
            out.append(
                error(
                    path,
                    f"{value:.4g} is {seconds / 86400:.3g} days, longer than any {what} servescope measures or simulates "
                    f"({bound / 86400:g} days): an overflowed clock or a broken source, not a measurement",
                )
            )


def time_issues(doc: Result | EvaluationRun | Prediction) -> list[Issue]:
    """Every time in a measurement or prediction that cannot be one (negative, not
    finite, longer than ``MAX_LATENCY_S`` / ``MAX_DURATION_S``); needs no scenario."""
    issues: list[Issue] = []
    _time_issues(doc.model_dump(mode="python"), "", None, MAX_LATENCY_S, issues)
    return issues


@dataclass(frozen=True)
class DecodeFloor:
    """The fastest one decode iteration can be for this deployment."""

    weight_seconds: float
    kv_seconds_per_token: float
    tokens_per_iteration: int
    weight_bytes_per_device: float
    memory_bytes: float

    def iteration_s(self, concurrency: int, context: float) -> float:
        return self.weight_seconds + concurrency * context * self.kv_seconds_per_token

    @property
    def max_tokens_per_s(self) -> float:
        return self.tokens_per_iteration / self.weight_seconds


def decode_floor(scenario: Scenario, catalog: Catalog) -> DecodeFloor:
    model = resolve_model(scenario, catalog)
    hw = catalog.hardware(scenario.hardware)
    arch = architecture(model)
    weight = scenario.weight_dtype if scenario.weight_dtype != "auto" else (from_torch_dtype(model.torch_dtype) or "bf16")
    kv_flag = kv_dtype_flag(scenario.engine.id, normalized(scenario.engine.id, scenario.engine.args))
    kv_asked = scenario.kv_dtype if scenario.kv_dtype != "auto" or kv_flag is None else kv_flag[1]
    kv = kv_dtype_for(kv_asked, weight, from_torch_dtype(model.torch_dtype))
    quant = (scenario.quantization or model.quantization or "").lower()
    expert = "mxfp4" if quant == "mxfp4" and arch.experts else None
    ideal = Calibration(memory_bw_eff=1.0, gemm_eff=1.0, gemm_eff_16bit=1.0, attn_eff=1.0, comm_bw_eff=1.0)
    step = StepTimeModel(arch, hw, ideal, tp=scenario.tp, pp=scenario.pp, weight_dtype=weight, kv_dtype=kv, expert_dtype=expert)
    bw = hw.memory_bandwidth_gb_s * 1e9
    active = (arch.dense_linear_params + arch.lm_head_params) * step.weight_bytes
    active += arch.experts_per_tok * arch.expert_params * arch.moe_layers * step.expert_bytes
    per_device = active / (scenario.tp * scenario.pp)
    return DecodeFloor(
        weight_seconds=per_device / bw * scenario.pp,
        kv_seconds_per_token=step.kv_bytes_per_token_per_device / bw,
        tokens_per_iteration=(stated_tokens(scenario) or 0) + 1,  # (fields or engine flags)
        weight_bytes_per_device=step.weight_bytes_per_device,
        memory_bytes=hw.device_memory_bytes,
    )


@dataclass
class _Row:
    path: str
    concurrency: int
    per_token_ms: float | None
    kind: str
    context: float


def _rows(doc: Result | EvaluationRun) -> list[_Row]:
    rows: list[_Row] = []
    if isinstance(doc, EvaluationRun):
        for i, p in enumerate(doc.points):
            ctx = float((p.mean_isl or 0) + (p.mean_osl or 0) / 2)
            rows.append(_Row(f"points[{i}].itl_ms", p.concurrency, p.itl_ms, "ITL", ctx))
        return rows
    blocks = [(f"points[{i}].metrics", p.concurrency, p.metrics) for i, p in enumerate(doc.points or [])]
    if not blocks:
        conc = doc.resolved_params.get("concurrency")
        conc = conc[0] if isinstance(conc, list) and conc else conc
        single = int(conc) if isinstance(conc, int | float) and not isinstance(conc, bool) else 1
        blocks = [("metrics", single, doc.metrics)]
    for prefix, conc, m in blocks:
        ctx = float((m.mean_isl or 0) + (m.mean_osl or 0) / 2)
        if m.tpot_ms is not None and m.tpot_ms.mean is not None:
            rows.append(_Row(f"{prefix}.tpot_ms.mean", conc, m.tpot_ms.mean, "TPOT", ctx))
        elif m.itl_ms is not None and m.itl_ms.mean is not None:
            rows.append(_Row(f"{prefix}.itl_ms.mean", conc, m.itl_ms.mean, "ITL", ctx))
    return rows


def plausibility_issues(
    doc: Result | EvaluationRun | Prediction,
    scenario: Scenario | str | None = None,
    *,
    catalog: Catalog | None = None,
    headroom: float = DEFAULT_HEADROOM,
    slow_factor: float = DEFAULT_SLOW_FACTOR,
) -> list[Issue]:
    """Impossible times (``time_issues``, always), then the issues of a measurement
    against the physics of its scenario — none when the scenario (or its model or
    hardware) is not known, since nothing of that can be judged."""
    times = time_issues(doc)
    if isinstance(doc, Prediction):
        return times  # the simulator's own output: its physics is the model itself
    cat = catalog or Catalog.load()
    name = scenario if isinstance(scenario, str) else (scenario.name if scenario else doc.scenario)
    try:
        scen = scenario if isinstance(scenario, Scenario) else cat.scenario(name or "")
        floor = decode_floor(scen, cat)
    except (ServescopeError, ValueError):
        return times
    issues: list[Issue] = times
    if floor.weight_bytes_per_device > floor.memory_bytes:
        issues.append(
            error(
                "scenario" if isinstance(doc, EvaluationRun) else "hardware",
                f"scenario {scen.name}: {floor.weight_bytes_per_device / 1e9:.1f} GB of weights per device exceed the "
                f"device's {floor.memory_bytes / 1e9:.0f} GB; this deployment cannot have run as described",
            )
        )
    fastest_ms = 1000.0 / floor.max_tokens_per_s
    drafts = stated_tokens(scen)
    spec = f" with {drafts} speculative tokens" if drafts else ""
    for row in _rows(doc):
        if row.per_token_ms is None or row.per_token_ms <= 0:
            continue
        if row.per_token_ms * headroom < fastest_ms and floor.weight_bytes_per_device > CACHE_RESIDENT_BYTES:
            issues.append(
                error(
                    row.path,
                    f"{row.kind} {row.per_token_ms:.3g} ms is {1000 / row.per_token_ms:.0f} tokens/s per request; memory "
                    f"bandwidth allows at most {floor.max_tokens_per_s:.0f}{spec} (active weights "
                    f"{floor.weight_seconds * 1e3:.3g} ms per iteration on {scen.hardware}), {headroom:g}x headroom included",
                )
            )
            continue
        slow = floor.iteration_s(row.concurrency, row.context) * 1000.0 * slow_factor
        if row.per_token_ms > slow:
            issues.append(
                warning(
                    row.path,
                    f"{row.kind} {row.per_token_ms:.4g} ms at concurrency {row.concurrency} is over {slow_factor:g}x the "
                    f"memory-bandwidth floor of an iteration ({slow / slow_factor:.3g} ms): CPU offload, swapping or a "
                    "misconfigured engine?",
                )
            )
    return issues
