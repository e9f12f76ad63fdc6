"""``servescope calibrate SCENARIO --from MEASURED``: fit a few step-time factors
to a measured ``EvaluationRun`` or ``Result`` and report the error before and after.

The fit minimises, by least squares (``scipy.optimize.least_squares``, trust
region), the log-ratio ``log(predicted / measured)`` of every chosen metric at
every measured point, over the logarithms of the chosen factors (so they stay
positive and efficiencies and seconds are fitted on the same footing). Each
evaluation is a full simulation of the measured workload. The error reported
is MAPE per metric, percent: mean over points of ``|predicted - measured| / measured``.

The workload simulated is the measured run's own (``workload``/``workload_id``)
at its concurrencies when the catalog knows it; otherwise each point is a
synthetic workload of its ``mean_isl``/``mean_osl`` - replayed as servescope's
harness runs it for servescope measurements, as InferenceX's client and
``vllm bench serve`` run it for their points, and by the steady-state rule for
other harnesses (``HARNESS_REPLAYS``, ``predict.replay``).

Efficiencies are bounded to (0.02, 1.0] of datasheet peaks (a fit may not make
a device faster than its datasheet) and (0.02, 1.5] of measured figures
(``servescope probe`` measures one kernel; an engine's can be better). A factor
that ends on a bound is a warning (``bound_warnings``): the measurement asked for
more than the model allows, so the fit is not the measurement's.

A measurement taken on other hardware than the scenario's (another device or
device count) is refused before any fit; one that does not say is a warning
(``predict.measured_hardware``).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

import numpy as np

from servescope import __version__
from servescope.analysis.tables import result_points
from servescope.catalog.store import Catalog
from servescope.documents import EvaluationPoint, EvaluationRun, Result, Scenario
from servescope.documents.prediction import Calibration as CalibrationDocument
from servescope.errors import CatalogError
from servescope.predict.api import Prepared, prepare, simulate
from servescope.predict.calibration import DEFAULT_FIT, FACTOR_NAMES, Calibration, default_fit_for
from servescope.predict.dataset_lengths import SHAREGPT_FILTERS
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.measured_hardware import check_measured_hardware
from servescope.predict.replay import REPLAYS, Replay
from servescope.predict.stream_chunks import TIMES_EVERY_CHUNK
from servescope.predict.workload_input import SyntheticWorkload
from servescope.workload.load import Load
from servescope.workload.load_build import ResolvedLoad

METRICS: tuple[str, ...] = ("ttft_ms", "itl_ms", "e2e_ms", "output_tokens_per_sec")
DEFAULT_METRICS: tuple[str, ...] = ("ttft_ms", "itl_ms", "output_tokens_per_sec")
_EFFICIENCY_BOUNDS = (0.02, 1.0)
_MEASURED_EFFICIENCY_BOUNDS = (0.02, 1.5)
_SECONDS_BOUNDS = (1e-8, 1.0)


def rows_from_result(result: Result) -> list[EvaluationPoint]:
    """A Result's points as EvaluationRun rows (the same table compare uses)."""
    return result_points(result)[0]


@dataclass
class Measured:
    name: str
    workload: str | None
    points: list[EvaluationPoint]
    harness: str = "servescope"
    dataset: str | None = None
    """``EvaluationRun.dataset``: ``sharegpt`` points are replayed with ShareGPT lengths."""
    random_range_ratio: float | None = None
    """``EvaluationRun.random_range_ratio``: the random dataset's length spread, in the client's meaning."""
    endpoint: str | None = None
    """``EvaluationRun.endpoint``: the API the client called (None: its default)."""
    load: dict[str, Any] | None = None
    """A Result's load description (``resolved_params.load_description``, ``workload.load.Load.record``)."""


def measured_of(doc: EvaluationRun | Result) -> Measured:
    if isinstance(doc, Result):
        load = doc.resolved_params.get("load_description")
        return Measured(doc.run_id, doc.workload_id, rows_from_result(doc), doc.metadata.harness, load=load if isinstance(load, dict) else None)
    return Measured(doc.name, doc.workload, list(doc.points), doc.harness, doc.dataset, doc.random_range_ratio, doc.endpoint)


def random_spread(harness: str, range_ratio: float, mean_isl: int, mean_osl: int) -> float:
    """The symmetric ratio (lengths uniform in [m (1 - s), m (1 + s)] around the measured mean m) of a
    random-dataset point drawn with the client's ``--random-range-ratio`` r:

    - ``sglang.bench_serving`` (``sample_random_requests``: ``randint(max(int(L r), 1), L + 1)``,
      sgl-project/sglang python/sglang/bench_serving.py): [r L, L] around m = L (1 + r) / 2, so
      s = (1 - r) / (1 + r), held under (m - 1) / m so no length falls below 1;
    - ``vllm bench serve`` (``RandomDataset``: [L (1 - r), L (1 + r)], vllm/benchmarks/datasets.py): s = r.

    One ratio serves prompt and output (the smaller cap of the two); another client is refused."""
    client = harness.lower()
    if client == "sglang-bench-serving":
        cap = min((m - 1) / m for m in (max(mean_isl, 1), max(mean_osl, 1))) if min(mean_isl, mean_osl) > 1 else 0.0
        return min((1.0 - range_ratio) / (1.0 + range_ratio), cap)
    if client == "vllm-bench-serve":
        return range_ratio
    raise CatalogError(
        f"random_range_ratio {range_ratio:g} from harness {harness!r}: how that client spreads random lengths is not known "
        "here (known: sglang-bench-serving, vllm-bench-serve); leave random_range_ratio out to replay the mean lengths"
    )


#: Harnesses whose documented client is replayed as it runs (``predict.replay``);
#: a run from any other harness, whose settings are unknown, is replayed in steady
#: state (``replay.REPLAYS["steady"]``): perf_analyzer, genai-perf and AIPerf report
#: windows after the start-up burst.
#:
#: ``vllm bench serve --max-concurrency C --request-rate inf`` sends its prompts behind a
#: semaphore of C from a burst start, measures every one of them and runs no warm-up in the
#: measured window (``--num-warmups`` 0; warm-ups, when asked for, are a burst of their own
#: before it): vllm-project/vllm vllm/benchmarks/serve.py, main as stored 2026. Its
#: request count is the point's (``completed_requests``, the ``--num-prompts`` that finished),
#: its lengths the random dataset's at ``--random-range-ratio 0`` (exact), the setting
#: silybench states. With exact lengths and ``--ignore-eos`` the C clients stay in waves, as
#: the measured median ITL shows (at c = 128, 128:128 tokens, it is a decode-only iteration's,
#: 9.3 ms, where a desynchronised loop would put a prefill in nearly every iteration).
HARNESS_REPLAYS: dict[str, Replay] = {"inferencex": REPLAYS["inferencex"], "vllm-bench-serve": REPLAYS["vllm"]}

#: Replays whose request count is the measured point's own, not a per-concurrency rule.
_COUNT_OF_POINT = ("vllm",)


@dataclass
class FitCase:
    """One simulation and the measured points it answers."""

    prepared: Prepared
    points: list[EvaluationPoint]


def fit_cases(measured: Measured, scenario: Scenario, catalog: Catalog, template_tokens: int) -> list[FitCase]:
    levels = sorted(p.concurrency for p in measured.points)
    if measured.workload and measured.workload in catalog.entries["workloads"]:
        prepared = prepare(measured.workload, catalog=catalog, concurrency=levels)
        by_conc = {p.concurrency: p for p in measured.points}
        return [FitCase(prepared, [by_conc[c] for c in levels])]
    if measured.load is not None and measured.load.get("sessions") is not None:
        # multi-turn sessions (run --sessions): the same sessions simulated (predict.sessions), not a loop of their mean lengths
        load = Load.model_validate({k: v for k, v in measured.load.items() if k != "label"})
        return [FitCase(prepare(ResolvedLoad(load), seed=load.seed), list(measured.points))]
    cases = []
    # A ShareGPT point's requests had ShareGPT's spread of lengths, not its means: drawn per request
    # from an exponential law whose means after the client's own ShareGPT filter are the measured ones
    # (predict.dataset_lengths, with the filters' sources); max_tokens = the drawn output, which is what
    # TensorRT-LLM's GUARANTEED_NO_EVICT reserves. A client whose filter is not known is refused.
    client = measured.harness.lower()
    sharegpt = client if measured.dataset == "sharegpt" else None
    if sharegpt is not None and sharegpt not in SHAREGPT_FILTERS:
        raise CatalogError(
            f"{measured.name}: dataset sharegpt from harness {measured.harness!r}: that client's ShareGPT length filter is "
            f"not known here (known: {', '.join(SHAREGPT_FILTERS)}); leave dataset out to replay the mean lengths"
        )
    # a client that times every stream chunk, text or not, counts the server's chunks without text in its ITL
    stream_client, endpoint = (client, measured.endpoint) if client in TIMES_EVERY_CHUNK else (None, None)
    rep = HARNESS_REPLAYS.get(client)
    counted = rep is not None and rep.name in _COUNT_OF_POINT
    for p in sorted(measured.points, key=lambda q: q.concurrency):
        if not p.mean_isl or not p.mean_osl:
            raise CatalogError(
                f"{measured.name}: point at concurrency {p.concurrency} has no mean_isl/mean_osl and the run names no "
                "catalog workload; cannot tell what to simulate"
            )
        isl = max(1, p.mean_isl - template_tokens)
        if measured.harness == "servescope":
            n = p.completed_requests or max(32, 4 * p.concurrency)
            spec = SyntheticWorkload((p.concurrency,), isl, p.mean_osl, num_requests=n, harness="burst")
            cases.append(FitCase(prepare(spec), [p]))
            continue
        # a random-dataset point whose client's range ratio is stated: its lengths' spread around the means
        spread = None
        if measured.dataset == "random" and measured.random_range_ratio is not None:
            spread = random_spread(measured.harness, measured.random_range_ratio, isl, p.mean_osl) or None
        # what every replay of this point shares: the client's lengths and its stream timing
        workload = partial(SyntheticWorkload, sharegpt_client=sharegpt, range_ratio=spread, stream_client=stream_client, endpoint=endpoint)
        if p.request_rate is not None:
            # an open-loop point: the client's requests arrived at this mean rate (Poisson), as many as it completed
            spec = workload((), isl, p.mean_osl, rate=p.request_rate, num_requests=p.completed_requests or None)
        elif p.completed_requests and p.completed_requests <= p.concurrency and (rep is None or counted):
            # every request was in flight at once (an offline burst: `vllm bench serve` with no --max-concurrency
            # and rate inf, or a loop that sent each client one request): replayed as that burst, not a loop
            spec = workload((p.concurrency,), isl, p.mean_osl, num_requests=p.completed_requests, harness="burst")
        else:
            count = p.completed_requests if counted and p.completed_requests else None
            replay = rep or REPLAYS["steady"]
            lo, hi = replay.length_range
            # the point's means are the means of the client's draw: a replay whose lengths are
            # uniform in [lo L, hi L] is given L = mean / ((lo + hi) / 2) (InferenceX: [0.8 L, L],
            # measured mean 922 of L = 1024), never the mean itself as L (a stated spread is centred)
            centre = (lo + hi) / 2
            exact = sharegpt or spread is not None or centre == 1.0
            x_in, x_out = (isl, p.mean_osl) if exact else (round(isl / centre), round(p.mean_osl / centre))
            spec = workload((p.concurrency,), x_in, x_out, num_requests=count, harness=replay.name)
        cases.append(FitCase(prepare(spec), [p]))
    return cases


#: A source that publishes medians instead of means is compared median to median.
_MEDIAN_OF = {"ttft_ms": "ttft_p50_ms", "itl_ms": "itl_p50_ms"}


def _metric(point: Any, name: str) -> float | None:
    v = getattr(point, name, None)
    return float(v) if v is not None and math.isfinite(v) else None


def _statistic(measured: Any, name: str) -> str:
    """``name``, or its median where the measured point gives only the median."""
    median = _MEDIAN_OF.get(name)
    if median and _metric(measured, name) is None and _metric(measured, median) is not None:
        return median
    return name


@dataclass
class Evaluation:
    """Predicted and measured values per metric (lists aligned by point)."""

    predicted: dict[str, list[float]] = field(default_factory=dict)
    measured: dict[str, list[float]] = field(default_factory=dict)
    concurrency: list[int] = field(default_factory=list)

    def mape(self) -> dict[str, float]:
        out = {}
        for k, meas in self.measured.items():
            pred = self.predicted[k]
            if meas:
                out[k] = round(100.0 * float(np.mean([abs(p - m) / m for p, m in zip(pred, meas, strict=True)])), 3)
        return out


def evaluate(
    scenario: Scenario, cases: list[FitCase], cal: Calibration, metrics: Sequence[str], catalog: Catalog, *, model: Any = None, hardware: Any = None
) -> Evaluation:
    dep = deploy(scenario, catalog=catalog, model=model, hardware=hardware, calibration=cal.as_dict())
    ev = Evaluation({m: [] for m in metrics}, {m: [] for m in metrics})
    for case in cases:
        run = simulate(case.prepared, dep, documents=False)
        predicted = {p.concurrency: p for p in run.prediction.points}
        by_rate = {p.request_rate: p for p in run.prediction.points if p.request_rate is not None}
        for mp in case.points:
            # an open-loop point's row is labelled by its rate (its concurrency is the most simulated requests in flight)
            pp = by_rate.get(mp.request_rate) if mp.request_rate is not None else predicted.get(mp.concurrency)
            for m in metrics:
                stat = _statistic(mp, m)
                meas, pred = _metric(mp, stat), _metric(pp, stat) if pp is not None else None
                if meas is None or meas <= 0 or pred is None or pred <= 0:
                    continue
                ev.measured[m].append(meas)
                ev.predicted[m].append(pred)
            ev.concurrency.append(mp.concurrency)
    return ev


def _bounds(name: str, measured_figures: bool = False) -> tuple[float, float]:
    if name.endswith("_s"):
        return _SECONDS_BOUNDS
    return _MEASURED_EFFICIENCY_BOUNDS if measured_figures else _EFFICIENCY_BOUNDS


#: How close (relative) to a bound a fitted factor counts as on it: the trust-region fit
#: stays strictly inside the box, so a pinned factor ends a hair away from its bound.
_ON_BOUND = 1e-3


def bound_warnings(values: dict[str, float], measured_figures: bool = False) -> list[str]:
    """One line per fitted factor that ended on a bound of the fit (module docstring)."""
    lines = []
    for name, value in values.items():
        lo, hi = _bounds(name, measured_figures)
        if name.endswith("_s"):
            what = "seconds"
        elif measured_figures:
            what = "of the hardware's measured figures"
        else:
            what = "of the datasheet peak"
        if value >= hi * (1 - _ON_BOUND):
            side, wants = f"upper bound {hi:g} ({what})", "more"
        elif value <= lo * (1 + _ON_BOUND):
            side, wants = f"lower bound {lo:g} ({what})", "less"
        else:
            continue
        lines.append(
            f"factor {name} ended on its {side}: the fit wanted {wants} than the model allows, so it may stand for "
            "another cost; check that the scenario describes what was measured (hardware, engine flags), or fit other factors (--factors)"
        )
    return lines


@dataclass
class CalibrationOutcome:
    document: CalibrationDocument
    before: Evaluation
    after: Evaluation
    evaluations: int
    warnings: list[str] = field(default_factory=list)
    """A measurement that does not say its hardware; what the simulator warns of the deployment
    (``Deployment.warnings``: what it approximates or does not model, which the fitted factors
    then absorb); each fitted factor that ended on a bound (``bound_warnings``)."""


def calibrate(
    scenario: Scenario | str,
    measured: EvaluationRun | Result,
    *,
    catalog: Catalog | None = None,
    factors: Sequence[str] = DEFAULT_FIT,
    metrics: Sequence[str] = DEFAULT_METRICS,
    name: str | None = None,
    fitted_from: str | None = None,
    max_evaluations: int = 80,
    date: str | None = None,
) -> CalibrationOutcome:
    """Fit ``factors`` so the simulated ``metrics`` match ``measured``."""
    unknown = [f for f in factors if f not in FACTOR_NAMES]
    if unknown:
        raise ValueError(f"unknown factor(s) {', '.join(unknown)}; known: {', '.join(FACTOR_NAMES)}")
    bad = [m for m in metrics if m not in METRICS]
    if bad:
        raise ValueError(f"unknown metric(s) {', '.join(bad)}; known: {', '.join(METRICS)}")
    cat = catalog or Catalog.load()
    scen = cat.scenario(scenario) if isinstance(scenario, str) else scenario
    hardware_warnings = check_measured_hardware(measured, scen, cat, fitted_from or measured_of(measured).name)
    base_dep = deploy(scen, catalog=cat)
    model, hardware = base_dep.model, base_dep.hardware
    base = base_dep.calibration
    if tuple(factors) == DEFAULT_FIT:
        # the default fit's GEMM efficiency is the one this deployment's dense GEMMs use
        factors = default_fit_for(base_dep.step_model.weight_dtype, overlap_host=base_dep.step_model.overlap_host)
    meas = measured_of(measured)
    cases = fit_cases(meas, scen, cat, base_dep.template_tokens)
    before = evaluate(scen, cases, base, metrics, cat, model=model, hardware=hardware)
    if not any(before.measured.values()):
        raise CatalogError(f"{meas.name}: no point carries any of {', '.join(metrics)}; nothing to fit")
    mf = hardware.figures == "measured"
    lo = np.array([math.log(_bounds(f, mf)[0]) for f in factors])
    hi = np.array([math.log(_bounds(f, mf)[1]) for f in factors])
    # start just inside the box: least_squares needs a strictly feasible x0
    x0 = np.clip(np.array([math.log(max(getattr(base, f), 1e-12)) for f in factors]), lo + 1e-6, hi - 1e-6)
    count = 0

    def with_x(x: np.ndarray) -> Calibration:
        return base.with_factors({f: float(math.exp(v)) for f, v in zip(factors, x, strict=True)})

    def residuals(x: np.ndarray) -> np.ndarray:
        nonlocal count
        count += 1
        ev = evaluate(scen, cases, with_x(x), metrics, cat, model=model, hardware=hardware)
        res = []
        for m in metrics:
            for p, q in zip(ev.predicted[m], ev.measured[m], strict=True):
                res.append(math.log(p / q))
        return np.asarray(res, dtype=float)

    from scipy.optimize import least_squares  # here: scipy.optimize costs every CLI start ~0.3 s of imports

    fit = least_squares(residuals, x0, bounds=(lo, hi), method="trf", diff_step=0.05, max_nfev=max_evaluations, x_scale=1.0)
    best = with_x(fit.x)
    after = evaluate(scen, cases, best, metrics, cat, model=model, hardware=hardware)
    doc = CalibrationDocument(
        name=name or f"{scen.name}-calibration",
        scenario=scen.name,
        fitted_from=fitted_from or meas.name,
        # a fitted per-request cost is fitted beside the intake it ran with: recorded with it, so that the
        # document says so (and a later change of the intake's default does not add to it unseen)
        factors={f: float(f"{getattr(best, f):.6g}") for f in (*factors, *(("intake_request_s", "intake_token_s") if "request_overhead_s" in factors else ()))},
        metrics=list(metrics),
        mape_before=before.mape(),
        mape_after=after.mape(),
        points=len(meas.points),
        predictor_version=__version__,
        date=date or _dt.date.today().isoformat(),
        notes=f"least_squares on log(predicted/measured), {count} simulations; other factors keep their defaults "
        f"({', '.join(f'{k}={v:g}' for k, v in base.as_dict().items() if k not in factors)})",
    )
    fitted = {f: float(getattr(best, f)) for f in factors}
    cache_line = _unsimulated_cache_hits(meas, base_dep)
    return CalibrationOutcome(doc, before, after, count, [*hardware_warnings, *base_dep.warnings, *bound_warnings(fitted, mf),
                                                         *([cache_line] if cache_line else [])])  # fmt: skip


CACHE_HIT_WARNING = 0.1
"""Share of a point's prompt tokens served from the engine's prefix cache past which a fit on a deployment
without a simulated cache is said to absorb it (a chat template's few cached tokens are below it)."""


def _unsimulated_cache_hits(meas: Measured, dep: Deployment) -> str | None:
    """The measurement's engine served prompts from its prefix cache and this deployment simulates none
    (llama.cpp's prompt cache; ``predict.unsimulated_cache``): the fitted step times absorb what it saved."""
    if dep.engine.enable_prefix_caching:
        return None
    hits = [(p.concurrency, p.prefix_cache_hit_rate) for p in meas.points if (p.prefix_cache_hit_rate or 0.0) >= CACHE_HIT_WARNING]
    if not hits:
        return None
    conc, rate = max(hits, key=lambda h: h[1] or 0.0)
    return (
        f"{meas.name}: the engine served up to {rate or 0.0:.0%} of a point's prompt tokens from its prefix cache (c={conc}), "
        f"which scenario {dep.scenario.name} does not simulate: the fitted factors absorb the time the cache saved and read "
        "low for prompts it would not hold; fit on a run whose prompts share nothing, or simulate the cache "
        "(a Scenario with engine.enable_prefix_caching: true)"
    )
