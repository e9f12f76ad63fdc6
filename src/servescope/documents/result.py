"""``Result``: one execution of one workload on one configuration.

Measured (``timing_mode: explicit``) and simulated (``simulated``) runs share
this schema (shared/seeds/metrics-contract.txt); a field that is not meaningful
in a mode is null, never invented. Every metric is nullable: a metric not
measured is null. Failures are results: each failed request is counted in
``blocked_by_reason_code`` and summarised in ``failures[]``.

The metrics-contract fields are mapped to serving (shared/DESIGN.md):
``throughput`` = completed requests, ``p50/p95_turnaround_s`` from E2E,
``on_time_rate`` and ``violations_by_invariant_id`` from SLOs.
"""

from __future__ import annotations

import itertools
from typing import Any, Literal

from pydantic import Field

from servescope import limits
from servescope.documents.base import (
    Document,
    Issue,
    NonEmptyStr,
    NonNegFloat,
    NonNegInt,
    StrictModel,
    UnitFloat,
    error,
    warning,
)
from servescope.documents.config_id import config_id as compute_config_id
from servescope.documents.config_id import legacy_config_id
from servescope.documents.scenario import FlagValue

TimingMode = Literal["explicit", "simulated"]
PipelineMode = Literal["deterministic", "llm_offline", "llm_live"]
TokenCountSource = Literal["server-usage", "tokenize-endpoint", "stream-count", "simulated", "mixed"]
FailureCategory = Literal[
    "timeout",
    "http-error",
    "connection",
    "context-overflow",
    "malformed-output",
    "stream-error",
    "cancelled",
    "rejected",
    "unsupported",  # the endpoint cannot take what the request needs (tools, images): not sent, or refused for it
    "worker-lost",  # a client worker of a split run (run --workers) died before the request finished
    "other",
]
FailureStage = Literal["connect", "send", "first-token", "stream", "score", "admission"]

PERCENTILE_ORDER = ("min", "p50", "p90", "p95", "p99", "max")
DISTRIBUTION_FIELDS = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "s_per_image")


class Distribution(StrictModel):
    """Summary of a sample; percentiles by linear interpolation between closest ranks."""

    count: NonNegInt | None = None
    mean: float | None = None
    p50: float | None = None
    p90: float | None = None
    p95: float | None = None
    p99: float | None = None
    min: float | None = None
    max: float | None = None
    std: NonNegFloat | None = None

    def check(self) -> list[Issue]:
        issues = []
        present = [(k, getattr(self, k)) for k in PERCENTILE_ORDER if getattr(self, k) is not None]
        for (ka, va), (kb, vb) in itertools.pairwise(present):
            if va > vb + 1e-9 * max(1.0, abs(vb)):
                issues.append(error(kb, f"percentiles out of order: {ka}={va} > {kb}={vb}"))
        if self.mean is not None and self.min is not None and self.max is not None and not (self.min - 1e-9 <= self.mean <= self.max + 1e-9):
            issues.append(error("mean", f"mean {self.mean} lies outside [min {self.min}, max {self.max}]"))
        return issues


class GpuStats(StrictModel):
    """One GPU over a measured window, from a DCGM exporter's samples (``run --gpu-metrics-url``).
    A statistic whose metric the exporter did not publish is null."""

    gpu: str = Field(description="The exporter's gpu label (device index on its host).")
    uuid: str | None = None
    model_name: str | None = None
    hostname: str | None = None
    samples: NonNegInt = Field(description="Scrapes of the window that carried this GPU.")
    power_w_mean: NonNegFloat | None = Field(default=None, description="Mean of DCGM_FI_DEV_POWER_USAGE samples (W).")
    power_w_max: NonNegFloat | None = None
    utilization_pct_mean: float | None = Field(default=None, ge=0.0, le=100.0, description="Mean of DCGM_FI_DEV_GPU_UTIL samples (%).")
    memory_used_mib_max: NonNegFloat | None = Field(default=None, description="Largest DCGM_FI_DEV_FB_USED sample (MiB).")
    sm_clock_mhz_mean: NonNegFloat | None = Field(default=None, description="Mean of DCGM_FI_DEV_SM_CLOCK samples (MHz).")
    temperature_c_max: float | None = Field(default=None, description="Largest DCGM_FI_DEV_GPU_TEMP sample (C).")
    energy_j: NonNegFloat | None = Field(default=None, description="Energy over the window (J).")
    energy_source: Literal["energy-counter", "power-integral"] | None = Field(
        default=None,
        description="energy-counter: the delta of DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION (preferred); power-integral: the power samples "
        "integrated over time (trapezoids), when the counter is missing or went backwards.",
    )


class GpuTelemetry(StrictModel):
    """The GPUs while a run (or one point) was measured: scraped from a DCGM exporter
    off the event loop that stamps tokens, between a snapshot taken before the
    measured load and one taken after it."""

    source: str = Field(description="The exporter URL scraped (no credentials).")
    window_s: NonNegFloat = Field(description="From the first to the last scrape of the window.")
    scrapes: NonNegInt
    gpus: list[GpuStats] = Field(default_factory=list)
    energy_j: NonNegFloat | None = Field(default=None, description="Sum over the GPUs (null unless every GPU has an energy).")
    energy_per_output_token_j: NonNegFloat | None = Field(
        default=None, description="energy_j / output_tokens_total of the same window (J per output token); null without either."
    )


class Metrics(StrictModel):
    """Counts, throughputs and latency distributions of a run (or one point)."""

    total_requests: NonNegInt | None = None
    completed_requests: NonNegInt | None = None
    failed_requests: NonNegInt | None = None
    success_rate: UnitFloat | None = None
    duration_s: NonNegFloat | None = Field(default=None, description="Wall time of the measured window.")
    input_tokens_total: NonNegInt | None = Field(default=None, description="Real prompt tokens (not nominal).")
    output_tokens_total: NonNegInt | None = None
    token_count_source: TokenCountSource | None = None
    output_tokens_per_sec: NonNegFloat | None = None
    input_tokens_per_sec: NonNegFloat | None = None
    requests_per_sec: NonNegFloat | None = None
    requested_rate: NonNegFloat | None = Field(default=None, description="Open loop: the requested arrival rate.")
    achieved_rate: NonNegFloat | None = Field(default=None, description="Open loop: the rate actually sent.")
    ttft_ms: Distribution | None = None
    itl_ms: Distribution | None = Field(default=None, description="Pooled gaps between content chunks.")
    tpot_ms: Distribution | None = Field(default=None, description="Per request (E2E - TTFT)/(tokens - 1).")
    e2e_ms: Distribution | None = None
    s_per_image: Distribution | None = None
    mean_isl: float | None = None
    mean_osl: float | None = None
    kv_utilization: UnitFloat | None = None
    prefix_cache_hit_rate: UnitFloat | None = None
    preemptions: NonNegInt | None = None
    goodput_requests_per_sec: NonNegFloat | None = Field(
        default=None,
        description="Requests that completed within every SLO, per second of the measured window (DistServe; vllm bench serve --goodput). "
        "Null when no SLO was given.",
    )
    resends: NonNegInt | None = Field(
        default=None,
        description="Sends repeated because the previous send never reached the server (a pooled connection it had "
        "closed); the time they took stays inside each request's latency. Null when not counted.",
    )
    resent_requests: NonNegInt | None = Field(default=None, description="Requests sent more than once (see resends).")
    gpu_telemetry: GpuTelemetry | None = Field(default=None, description="The GPUs during the window (run --gpu-metrics-url); null when not scraped.")
    # Simulated only (metrics-contract.txt): null in explicit mode.
    device_utilization: list[UnitFloat] | None = None
    device_queue_length_mean: list[NonNegFloat] | None = None
    device_queue_length_max: list[NonNegInt] | None = None

    def check(self) -> list[Issue]:
        issues: list[Issue] = []
        for name in DISTRIBUTION_FIELDS:
            dist = getattr(self, name)
            if dist is not None:
                issues.extend(Issue(i.level, f"{name}.{i.path}", i.message) for i in dist.check())
        t, c, f = self.total_requests, self.completed_requests, self.failed_requests
        if t is not None and c is not None and f is not None and c + f != t:
            issues.append(error("total_requests", f"completed ({c}) + failed ({f}) != total ({t})"))
        if t and c is not None and self.success_rate is not None and abs(self.success_rate - c / t) > 1e-6:
            issues.append(error("success_rate", f"{self.success_rate} != completed/total = {c / t:.6f}"))
        g, rps = self.goodput_requests_per_sec, self.requests_per_sec
        if g is not None and rps is not None and g > rps * (1 + 1e-9) + 1e-12:
            issues.append(error("goodput_requests_per_sec", f"{g} exceeds requests_per_sec {rps}: requests within every SLO are completed requests"))
        return issues


class Failure(StrictModel):
    """A category of failed requests, with a sample to look at."""

    stage: FailureStage
    category: FailureCategory
    count: int = Field(ge=1)
    message: str
    sample_request_id: str | None = None
    http_status: int | None = None
    concurrency: int | None = Field(default=None, ge=1, le=limits.MAX_CONCURRENCY, description="Sweep point it happened at, if any.")


class ResultPoint(StrictModel):
    """One point of a sweep (a concurrency, or a context length)."""

    concurrency: int = Field(ge=1, le=limits.MAX_CONCURRENCY)
    context_tokens: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS)
    requested_requests: int | None = Field(default=None, ge=0)
    metrics: Metrics
    status: Literal["ok", "failed", "partial", "skipped"] = "ok"
    note: str | None = None


class ScoreItem(StrictModel):
    id: NonEmptyStr
    correct: bool | None = None
    score: float | None = None
    strict: bool | None = Field(default=None, description="Also given in the asked-for form (null: the scorer has no strict form).")
    predicted: str | None = Field(default=None, description="What was read from the answer, at most 500 characters.")
    expected: str | None = None
    latency_ms: NonNegFloat | None = None
    category: str | None = None
    difficulty: str | None = None
    scorer: str | None = None
    detail: str | None = None
    confidence: UnitFloat | None = Field(default=None, description="The confidence the answer stated (0..1); null when it gave none.")


class RateWithInterval(StrictModel):
    accuracy: UnitFloat | None = None
    n: NonNegInt
    ci_low: UnitFloat | None = None
    ci_high: UnitFloat | None = None


class ConfidenceBin(StrictModel):
    lower: UnitFloat
    upper: UnitFloat
    count: NonNegInt
    accuracy: UnitFloat | None = None
    mean_confidence: UnitFloat | None = None


class ConfidenceCalibration(StrictModel):
    """Stated confidence against being right (analysis.stats.calibration_error): 10
    equal-width bins (lo, hi]; ECE = sum of n_bin/N * |acc - conf|, MCE = the largest
    gap. ``ece``/``mce`` are null when no answer stated a confidence."""

    ece: UnitFloat | None = None
    mce: UnitFloat | None = None
    bins: list[ConfidenceBin] = Field(default_factory=list)
    answered_with_confidence: NonNegInt = Field(description="Items whose answer stated a readable confidence (the N of ECE).")


class Scores(StrictModel):
    """Eval scores: the three names workloads.txt requires for kind: eval.

    ``accuracy`` counts a failed request as a wrong item; ``success_rate`` is the
    share that completed at all, right or wrong. Both are over the rows sent: an
    ``unsupported`` row is counted in ``unsupported_count`` instead (accuracy is null
    when every row is). Intervals are Wilson 95 %."""

    accuracy: UnitFloat | None = None
    accuracy_ci_low: UnitFloat | None = None
    accuracy_ci_high: UnitFloat | None = None
    strict_accuracy: UnitFloat | None = None
    success_rate: UnitFloat | None = None
    avg_latency_ms: NonNegFloat | None = None
    scorer: str | None = None
    correct_count: NonNegInt | None = None
    item_count: NonNegInt | None = Field(default=None, description="Items sent (accuracy's denominator); unsupported rows are not among them.")
    unsupported_count: NonNegInt | None = Field(
        default=None,
        description="Rows the endpoint cannot take (tools on a template without them, images without vision): failures of category "
        "'unsupported', left out of accuracy and success_rate rather than counted wrong.",
    )
    by_category: dict[str, UnitFloat] | None = None
    by_difficulty: dict[str, UnitFloat] | None = None
    by_category_detail: dict[str, RateWithInterval] | None = None
    instruction_accuracy: UnitFloat | None = Field(
        default=None,
        description="Instruction suites: instructions kept (flexibly) over instructions given, every row's (IFEval's instruction level; "
        "a failed request keeps none). accuracy is the prompt level.",
    )
    instruction_strict_accuracy: UnitFloat | None = Field(default=None, description="The same, each instruction kept strictly.")
    abstention: UnitFloat | None = Field(default=None, description="Unanswerable items where the model said so.")
    false_abstention: UnitFloat | None = Field(default=None, description="Answerable items where it abstained anyway.")
    note: str | None = None
    calibration: ConfidenceCalibration | None = Field(default=None, description="Only for suites that ask for a confidence (eval.confidence).")
    items: list[ScoreItem] | None = None


class Slo(StrictModel):
    """One threshold, e.g. ttft_ms <= 500 (per request)."""

    id: NonEmptyStr = Field(description="The invariant id counted in violations_by_invariant_id.")
    metric: Literal["ttft_ms", "itl_ms", "tpot_ms", "e2e_ms"]
    op: Literal["<=", "<"] = "<="
    threshold: float = Field(ge=0.0)


class LlmEconomics(StrictModel):
    """The metrics-contract ``llm`` block: calls, tokens, latency, errors, cost."""

    call_count: NonNegInt
    total_tokens: NonNegInt
    tokens_per_step: NonNegFloat | None = None
    mean_latency_ms: NonNegFloat | None = None
    p95_latency_ms: NonNegFloat | None = None
    error_rate: UnitFloat
    invalid_output_rate: UnitFloat
    estimated_cost_usd: NonNegFloat | None = None


class Identity(StrictModel):
    id: NonEmptyStr
    version: str | None = None


class ModelIdentity(StrictModel):
    id: NonEmptyStr
    dtype: str | None = None
    kv_dtype: str | None = None
    quantization: str | None = None


class HardwareIdentity(StrictModel):
    id: NonEmptyStr
    count: int = Field(default=1, ge=1)


class EngineScrape(StrictModel):
    """What reading the engine's ``/metrics`` cost during a run (explicit timing only).

    The sampler runs in its own thread, off the event loop that stamps tokens; these
    figures show what it cost and whether it backed off."""

    in_thread: bool = True
    interval_s: NonNegFloat = Field(description="The first interval between scrapes.")
    final_interval_s: NonNegFloat = Field(description="The interval at the end (doubled after each slow scrape).")
    scrapes: NonNegInt
    failed: NonNegInt = 0
    fetch_ms_mean: NonNegFloat | None = None
    fetch_ms_max: NonNegFloat | None = None
    parse_ms_mean: NonNegFloat | None = Field(default=None, description="Filtering and parsing the needed families.")
    parse_ms_max: NonNegFloat | None = None
    page_bytes_max: NonNegInt = 0
    note: str | None = Field(default=None, description="Why scraping stopped or never started, if it did.")


class Metadata(StrictModel):
    pipeline_mode: PipelineMode
    non_deterministic: bool
    llm_backend_id: str | None = None
    allow_network: bool | None = None
    run_duration_wall_s: NonNegFloat | None = None
    run_duration_episodes_per_s: NonNegFloat | None = None
    python_version: str | None = None
    platform: str | None = None
    servescope_version: str | None = None
    git_commit: str | None = None
    harness: str = "servescope"
    harness_version: str | None = None
    started_at: str | None = None
    finished_at: str | None = None
    records_file: str | None = Field(default=None, description="Per-request JSONL records, relative to the result.")
    seed: int | None = None
    step_timing: dict[str, float] | None = None
    engine_scrape: EngineScrape | None = None
    gpu_scrape: EngineScrape | None = Field(
        default=None, description="What reading the DCGM exporter (run --gpu-metrics-url) cost, and why it stopped if it did; null when not read."
    )


class Result(Document):
    kind: Literal["Result"] = "Result"
    schema_version: Literal["0.2", "0.3"] = "0.3"
    run_id: NonEmptyStr
    workload_id: NonEmptyStr
    scenario: str | None = None
    config_id: str = Field(pattern=r"^[0-9a-f]{16}$")
    timing_mode: TimingMode
    endpoint: str | None = Field(default=None, description="Base URL measured (no credentials).")
    engine: Identity
    model: ModelIdentity
    hardware: HardwareIdentity | None = None
    args: dict[str, FlagValue] = Field(default_factory=dict)
    resolved_params: dict[str, Any] = Field(default_factory=dict)
    metrics: Metrics
    points: list[ResultPoint] | None = None
    scores: Scores | None = None
    failures: list[Failure] = Field(default_factory=list)
    throughput: NonNegInt | None = Field(default=None, description="Completed requests (metrics contract).")
    p50_turnaround_s: NonNegFloat | None = None
    p95_turnaround_s: NonNegFloat | None = None
    p95_turnaround_s_note: str | None = None
    slos: list[Slo] = Field(default_factory=list)
    on_time_rate: UnitFloat | None = None
    violations_by_invariant_id: dict[str, NonNegInt] = Field(default_factory=dict)
    blocked_by_reason_code: dict[str, NonNegInt] = Field(default_factory=dict)
    llm: LlmEconomics | None = None
    metadata: Metadata

    def expected_config_id(self) -> str:
        return compute_config_id(
            self.engine.id,
            self.engine.version or "",
            self.args,
            dtype=self.model.dtype,
            kv_dtype=self.model.kv_dtype,
            quantization=self.model.quantization,
        )

    def _legacy_config_id(self) -> str | None:
        try:
            m = self.model
            return legacy_config_id(self.engine.id, self.engine.version or "", self.args, m.dtype, m.kv_dtype, m.quantization)
        except ValueError:
            return None

    def check(self) -> list[Issue]:
        issues: list[Issue] = []
        try:
            expected = self.expected_config_id()
        except ValueError as exc:
            issues.append(error("args", str(exc)))
        else:
            if expected != self.config_id and self._legacy_config_id() == self.config_id:
                issues.append(
                    warning(
                        "config_id",
                        f"{self.config_id} was computed by an earlier rule (before --no-X flags, credentials and "
                        f"TensorRT-LLM's nested keys were normalised); today's rule gives {expected}, which results written now carry",
                    )
                )
            elif expected != self.config_id:
                issues.append(
                    error(
                        "config_id",
                        f"{self.config_id} does not match engine/version/args/dtypes, which give {expected}",
                    )
                )
        issues.extend(Issue(i.level, f"metrics.{i.path}", i.message) for i in self.metrics.check())
        simulated_only = ("device_utilization", "device_queue_length_mean", "device_queue_length_max")
        if self.timing_mode == "explicit":
            for name in simulated_only:
                if getattr(self.metrics, name) is not None:
                    issues.append(error(f"metrics.{name}", "only meaningful in simulated timing mode; must be null"))
        for pi, point in enumerate(self.points or []):
            issues.extend(Issue(i.level, f"points[{pi}].metrics.{i.path}", i.message) for i in point.metrics.check())
        c = self.metrics.completed_requests
        if self.throughput is not None and c is not None and self.throughput != c:
            issues.append(error("throughput", f"throughput ({self.throughput}) must equal completed_requests ({c})"))
        failed = self.metrics.failed_requests
        by_failure = sum(f.count for f in self.failures)
        if failed is not None and by_failure != failed:
            issues.append(error("failures", f"failures[] counts {by_failure}, metrics.failed_requests is {failed}"))
        per_category: dict[str, int] = {}
        for failure in self.failures:
            per_category[failure.category] = per_category.get(failure.category, 0) + failure.count
        for category in sorted(set(per_category) | set(self.blocked_by_reason_code)):
            listed, counted = per_category.get(category, 0), self.blocked_by_reason_code.get(category, 0)
            if listed != counted:
                issues.append(error(f"blocked_by_reason_code.{category}", f"counts {counted}, failures[] lists {listed} for {category!r}"))
        slo_ids = {s.id for s in self.slos}
        for key in self.violations_by_invariant_id:
            if key not in slo_ids:
                issues.append(error(f"violations_by_invariant_id.{key}", "names no SLO in slos[]"))
        if self.on_time_rate is not None and not self.slos:
            issues.append(error("on_time_rate", "needs slos[] (it is the share of requests within every SLO)"))
        if self.p50_turnaround_s is not None and self.p95_turnaround_s is not None and self.p50_turnaround_s > self.p95_turnaround_s + 1e-9:
            issues.append(error("p95_turnaround_s", "p50_turnaround_s exceeds p95_turnaround_s"))
        return issues
