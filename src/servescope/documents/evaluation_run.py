"""``EvaluationRun``: what a benchmark measured, one row per concurrency.

Follows shared/seeds/evaluation-run.txt exactly: every field is as measured,
nothing is derived, and the checks below are the seed's "A run is invalid if"
list plus its one warning.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field, ValidationInfo, field_validator

from servescope import limits
from servescope.documents.base import (
    Document,
    IsoDate,
    Issue,
    NonEmptyStr,
    StrictModel,
    UnitFloat,
    error,
    warning,
)


class EvaluationPoint(StrictModel):
    """One concurrency level, as measured."""

    concurrency: int = Field(ge=1, le=limits.MAX_CONCURRENCY, description="Simultaneous requests the harness kept in flight, at least 1.")
    completed_requests: int | None = Field(default=None, ge=0, description="Requests finished at this level.")
    output_tokens_per_sec: float | None = Field(default=None, ge=0.0, description="Output throughput, tokens/s.")
    input_tokens_per_sec: float | None = Field(default=None, description="Input throughput, tokens/s.")
    ttft_ms: float | None = Field(default=None, ge=0.0, description="Time to first token, ms.")
    itl_ms: float | None = Field(default=None, ge=0.0, description="Inter-token latency, ms (mean).")
    ttft_p50_ms: float | None = Field(default=None, ge=0.0, description="Median time to first token, ms (where a source gives medians).")
    itl_p50_ms: float | None = Field(default=None, ge=0.0, description="Median inter-token latency, ms (where a source gives medians).")
    e2e_ms: float | None = Field(default=None, description="End-to-end latency, ms.")
    mean_isl: int | None = Field(default=None, description="Mean input length actually served.")
    mean_osl: int | None = Field(default=None, description="Mean output length actually served.")
    kv_utilization: UnitFloat | None = Field(default=None, description="Fraction of the KV pool in use, [0, 1].")
    prefix_cache_hit_rate: UnitFloat | None = Field(default=None, description="Fraction of prompt tokens served from cache, [0, 1].")
    preemptions: int | None = Field(default=None, ge=0, description="Requests evicted and later recomputed.")
    request_rate: float | None = Field(
        default=None,
        gt=0.0,
        description="servescope extension: an open-loop point - the requests per second the client offered (Poisson "
        "arrivals at this mean rate, as sglang.bench_serving / vllm bench serve --request-rate send them); concurrency "
        "is then the client's concurrency limit, or the requests it sent where it set none. Null: a closed loop or a burst.",
    )

    def check(self) -> list[Issue]:
        latencies = (self.ttft_ms, self.itl_ms, self.ttft_p50_ms, self.itl_p50_ms)
        if self.output_tokens_per_sec is not None and all(v is None for v in latencies):
            return [
                warning(
                    "",
                    "has output_tokens_per_sec but neither ttft_ms nor itl_ms: no prediction can be compared with it",
                )
            ]
        return []


def check_points(points: list[EvaluationPoint]) -> list[Issue]:
    """Rules over the list of points shared by EvaluationRun and Prediction."""
    issues: list[Issue] = []
    if not points:
        issues.append(error("points", "needs at least one point"))
    first_at: dict[int, int] = {}
    for i, point in enumerate(points):
        if point.concurrency in first_at:
            issues.append(
                error(
                    f"points[{i}].concurrency",
                    f"concurrency {point.concurrency} already used by points[{first_at[point.concurrency]}]; each point needs a different concurrency",
                )
            )
        else:
            first_at[point.concurrency] = i
        for issue in point.check():
            issues.append(Issue(issue.level, f"points[{i}]" + (f".{issue.path}" if issue.path else ""), issue.message))
    return issues


#: What a benchmark client drew its prompts from: ``sharegpt`` = ShareGPT_V3_unfiltered_cleaned_split
#: (its first human turn as the prompt, the first answer's length as max_tokens), ``random`` = the
#: client's synthetic random-token prompts of configured lengths.
BenchmarkDataset = Literal["sharegpt", "random"]
DATASETS: tuple[str, ...] = ("sharegpt", "random")
ApiEndpoint = Literal["completions", "chat"]
API_ENDPOINTS: tuple[str, ...] = ("completions", "chat")


class EvaluationRun(Document):
    """The compact comparison table of one measured run."""

    kind: Literal["EvaluationRun"] = "EvaluationRun"
    name: NonEmptyStr = Field(description="The run's identity.")
    scenario: NonEmptyStr = Field(description="The scenario that was measured.")
    harness: NonEmptyStr = Field(description="The benchmark harness that produced the numbers.")
    harness_version: str | None = Field(default=None, description="Its version.")
    engine_version: NonEmptyStr = Field(description="The engine release the run exercised.")
    date: IsoDate | None = Field(default=None, description="When the measurement was taken, ISO 8601 date.")
    workload: str | None = Field(default=None, description="servescope extension: the workload id that was run, when known.")
    dataset: BenchmarkDataset | None = Field(
        default=None,
        description="servescope extension: the dataset the benchmark client drew its prompts from - 'sharegpt' "
        "(ShareGPT_V3_unfiltered_cleaned_split) or 'random' (synthetic prompts of configured lengths); null when the "
        "source does not state it. A sharegpt point is replayed with lengths drawn around its means (predict.dataset_lengths).",
    )
    random_range_ratio: float | None = Field(
        default=None,
        ge=0.0,
        le=1.0,
        description="servescope extension: the client's --random-range-ratio for dataset 'random', in that client's own "
        "meaning (sglang.bench_serving: lengths uniform in [max(1, int(r L)), L]; vllm bench serve: in [L (1 - r), "
        "L (1 + r)]); null when the source does not state it (the point is then replayed at its mean lengths, or as its harness's replay says).",
    )
    endpoint: ApiEndpoint | None = Field(
        default=None,
        description="servescope extension: the API the client called - 'completions' (/v1/completions) or 'chat' "
        "(/v1/chat/completions; vllm bench serve --backend openai-chat); null when the source does not say (the client's "
        "default). A client that times every stream chunk counts the chat stream's chunks without text (predict.stream_chunks).",
    )
    notes: list[str] | None = Field(
        default=None,
        description="servescope extension: metric-definition notes (e.g. how this harness computes ITL).",
    )
    points: list[EvaluationPoint] = Field(description="At least one point, each at a different concurrency.")

    @field_validator("dataset", "endpoint", mode="before")
    @classmethod
    def _one_of_the_known(cls, value: object, info: ValidationInfo) -> object:
        # one line that says what to write instead (pydantic's own says only which literals it takes)
        known = {"dataset": DATASETS, "endpoint": API_ENDPOINTS}[info.field_name or ""]
        if value is not None and value not in known:
            name = info.field_name
            raise ValueError(f"unknown {name} {value!r}; give one of {', '.join(known)}, or leave {name} out where the source does not state it")
        return value

    def check(self) -> list[Issue]:
        issues = check_points(self.points)
        if self.random_range_ratio is not None and self.dataset != "random":
            issues.append(error("random_range_ratio", "is the random dataset's setting: it needs dataset: random"))
        return issues
