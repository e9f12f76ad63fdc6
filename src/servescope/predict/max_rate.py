"""``predict --max-rate --slo 'p99_ttft_ms<=2000,p99_tpot_ms<=100'``: the highest
Poisson rate whose point meets every latency limit (MLPerf Server's question).

The search is a bounded bisection, every probe a full simulation:

1. **Capacity.** ``num_requests`` requests sent at t = 0 (the offline point,
   ``--max-throughput``) give the deployment's request capacity ``C`` (completed
   requests over the window). No Poisson rate above it can be served for long, so
   the search runs over ``(0, C]``.
2. **The top.** A probe at ``C``: if it meets the limits, the answer is ``C`` (the
   deployment runs out of throughput before it runs out of latency budget).
3. **Bisection** between the highest rate that met the limits (0 at first) and the
   lowest that did not, until the interval is narrower than ``tolerance`` x C
   (default 2 %): at most ``ceil(log2(1 / tolerance))`` = 6 probes more, so at
   most 8 simulations in all.

Every probe sends the same ``num_requests`` with the same seed, so probes differ
only in their rate (with one seed, a Poisson schedule at rate R is the schedule at
rate 1 scaled by 1/R). By default that is a minute of arrivals at capacity
(``MAX_RATE_SECONDS``), at least 1000: near capacity a queue builds for as long as
arrivals last, so a short probe would pass rates a longer run fails (MLPerf
Server runs at least 10 minutes; ``--num-requests`` sets the count). A probe fails
on any failed request too.
The answer is the highest rate that met every limit; if none did down to
``tolerance`` x C, ``NoRateError`` says what the lowest probe measured.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from servescope.catalog.store import Catalog
from servescope.documents import Scenario
from servescope.documents.slo import SloSpec
from servescope.errors import NoRateError
from servescope.predict.api import (
    CalibrationInput,
    PredictionRun,
    prepare,
    resolve_deployment,
    run_simulation,
    simulate,
)
from servescope.predict.deployment import Deployment
from servescope.predict.outputs import fast_stats
from servescope.predict.search import statistic
from servescope.predict.workload_input import SyntheticWorkload

MAX_RATE_REQUESTS = 1000
MAX_RATE_SECONDS = 60.0
MAX_RATE_TOLERANCE = 0.02


@dataclass
class Probe:
    rate: float
    ok: bool
    values: dict[str, float | None]
    failed: int

    def as_dict(self) -> dict[str, object]:
        return {"rate": round(self.rate, 6), "meets": self.ok, "failed": self.failed,
                **{k: (None if v is None else round(v, 3)) for k, v in self.values.items()}}  # fmt: skip


@dataclass
class MaxRateOutcome:
    rate: float
    capacity_rps: float
    probes: list[Probe] = field(default_factory=list)
    tolerance: float = MAX_RATE_TOLERANCE
    num_requests: int = MAX_RATE_REQUESTS

    @property
    def at_capacity(self) -> bool:
        return bool(self.probes) and self.probes[0].ok and self.rate == self.capacity_rps

    def as_dict(self) -> dict[str, object]:
        return {
            "rate": round(self.rate, 6),
            "capacity_rps": round(self.capacity_rps, 6),
            "tolerance": self.tolerance,
            "num_requests": self.num_requests,
            "probes": [p.as_dict() for p in self.probes],
        }


def _check(slos: list[SloSpec], percentile: float | None, spec: SyntheticWorkload, dep: Deployment, arrival: str,
           seed: int, router: str) -> Probe:  # fmt: skip
    assert spec.rate is not None
    out = run_simulation(prepare(spec, arrival=arrival, seed=seed), dep, router=router)
    fs = fast_stats(out, 0)
    values = {s.name: statistic(fs, s.metric, s.percentile(percentile)) for s in slos}
    ok = not fs.failed and all(s.ok(values[s.name]) for s in slos)
    return Probe(spec.rate, ok, values, fs.failed)


def max_rate(
    dep: Deployment,
    isl: int,
    osl: int,
    slos: list[SloSpec],
    *,
    num_requests: int | None = None,
    tolerance: float = MAX_RATE_TOLERANCE,
    percentile: float | None = 99.0,
    harness: str = "steady",
    range_ratio: float | None = None,
    arrival: str = "poisson",
    seed: int = 0,
    router: str = "round-robin",
) -> MaxRateOutcome:
    """The highest Poisson rate at which ``dep`` serves ``isl``/``osl`` requests within
    ``slos`` (an SLO without a statistic prefix is checked on ``percentile``, p99)."""
    if not slos:
        raise ValueError("--max-rate needs --slo, e.g. 'p99_ttft_ms<=2000,p99_tpot_ms<=100'")
    if not 0 < tolerance < 1:
        raise ValueError(f"tolerance {tolerance}: give a fraction in (0, 1)")
    offline = SyntheticWorkload((), isl, osl, num_requests=num_requests or MAX_RATE_REQUESTS, offline=True,
                                harness=harness, range_ratio=range_ratio)  # fmt: skip
    cap_out = run_simulation(prepare(offline, seed=seed), dep, router=router)
    cap_stats = fast_stats(cap_out, 0)
    done = len(cap_stats.ttft_ms)
    if not done or cap_stats.window_s <= 0:
        raise NoRateError(f"no request of {isl}+{osl} tokens completes on {dep.scenario.name}; nothing to search")
    capacity = done / cap_stats.window_s
    n = num_requests or max(MAX_RATE_REQUESTS, math.ceil(MAX_RATE_SECONDS * capacity))

    def probe(rate: float) -> Probe:
        spec = SyntheticWorkload((), isl, osl, num_requests=n, rate=rate, harness=harness, range_ratio=range_ratio)
        return _check(slos, percentile, spec, dep, arrival, seed, router)

    outcome = MaxRateOutcome(0.0, capacity, tolerance=tolerance, num_requests=n)
    top = probe(capacity)
    outcome.probes.append(top)
    if top.ok:
        outcome.rate = capacity
        return outcome
    lo, hi = 0.0, capacity
    best: Probe | None = None
    for _ in range(math.ceil(math.log2(1.0 / tolerance))):
        mid = (lo + hi) / 2
        p = probe(mid)
        outcome.probes.append(p)
        if p.ok:
            lo, best = mid, p
        else:
            hi = mid
        if hi - lo <= tolerance * capacity:
            break
    if best is None:
        low = outcome.probes[-1]
        seen = ", ".join(f"{k} {v:.1f}" for k, v in low.values.items() if v is not None)
        raise NoRateError(
            f"no Poisson rate meets {', '.join(str(s) for s in slos)} on {dep.scenario.name}: even at "
            f"{low.rate:.3g} req/s ({100 * low.rate / capacity:.1f} % of the {capacity:.3g} req/s capacity) "
            f"the simulation gives {seen or 'no value'}" + (f" and {low.failed} failed requests" if low.failed else "")
        )
    outcome.rate = lo
    return outcome


def predict_max_rate(
    scenario: Scenario | str,
    isl: int,
    osl: int,
    slos: list[SloSpec],
    *,
    catalog: Catalog | None = None,
    calibration: CalibrationInput = None,
    model_config: str | None = None,
    num_requests: int | None = None,
    tolerance: float = MAX_RATE_TOLERANCE,
    percentile: float | None = 99.0,
    harness: str = "steady",
    range_ratio: float | None = None,
    arrival: str = "poisson",
    seed: int = 0,
    router: str = "round-robin",
    name: str | None = None,
    date: str | None = None,
) -> tuple[PredictionRun, MaxRateOutcome]:
    """``max_rate``, then the documents of the point at the rate found (its probes
    in the Result's ``resolved_params.max_rate``)."""
    cat = catalog or Catalog.load()
    dep = resolve_deployment(scenario, catalog=cat, calibration=calibration, model_config=model_config)
    found = max_rate(dep, isl, osl, slos, num_requests=num_requests, tolerance=tolerance, percentile=percentile,
                     harness=harness, range_ratio=range_ratio, arrival=arrival, seed=seed, router=router)  # fmt: skip
    spec = SyntheticWorkload((), isl, osl, num_requests=found.num_requests, rate=found.rate, harness=harness,
                             range_ratio=range_ratio)  # fmt: skip
    extra = {"max_rate": {**found.as_dict(), "slos": [str(s) for s in slos], "default_percentile": percentile}}
    run = simulate(prepare(spec, catalog=cat, arrival=arrival, seed=seed), dep, router=router, name=name, date=date,
                   resolved_extra=extra)  # fmt: skip
    return run, found
