"""``Workload``: the pinned question — what is sent, how many, at what concurrency.

Shape and rules follow shared/seeds/workloads.txt. A workload file's ``kind`` is
the workload kind (``serving``, ``sweep``, ...), as the seed writes it; that is
how the loader recognises a Workload document. ``params`` is the contract: a
runner reads only ``params``, never the prose.
"""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import Field

from servescope import limits
from servescope.documents.base import Document, IsoDate, Issue, NonEmptyStr, StrictModel, error

WorkloadKind = Literal["serving", "sweep", "prefill", "longctx", "eval", "image"]
WORKLOAD_KINDS: tuple[str, ...] = ("serving", "sweep", "prefill", "longctx", "eval", "image")

# The id starts with a short form of the kind: serve-chat-c8-i1k-o256-v1.
ID_PREFIX: dict[str, str] = {
    "serving": "serve",
    "sweep": "sweep",
    "prefill": "prefill",
    "longctx": "longctx",
    "eval": "eval",
    "image": "image",
}
ID_PATTERN = re.compile(r"^(?P<base>(?P<prefix>[a-z0-9]+)(?:-[a-z0-9]+)+)-v(?P<version>[1-9][0-9]*)$")

LENGTH_BUCKETS: tuple[str, ...] = ("xs", "s", "m", "l", "xl", "xxl")
LengthBucket = Literal["xs", "s", "m", "l", "xl", "xxl"]

SweepAxis = Literal["concurrency", "context_tokens", "input_tokens", "rate"]

# What the scorer of an eval workload is called (kebab-case vocabulary).
EvalScorer = Literal[
    "exact",
    "numeric",
    "mc",
    "contains",
    "json",
    "needle",
    "instruction",
    "code-exec",
    "tool-call",
    "token-integrity",
    "abstain",
    "ocr",
    "clip",
    "rgba",
    "fidelity",
]

# Scorers that read a render, not text: an eval suite that uses one renders images (workloads.txt).
IMAGE_EVAL_SCORERS: frozenset[str] = frozenset({"ocr", "clip", "rgba", "fidelity"})

_DISTRIBUTION_STATS = ("mean", "p50", "p90", "p95", "p99", "min", "max", "std")
_LATENCY_DISTRIBUTIONS = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")
_SERVING_SCALARS = (
    "completed_requests",
    "failed_requests",
    "total_requests",
    "success_rate",
    "duration_s",
    "input_tokens_total",
    "output_tokens_total",
    "output_tokens_per_sec",
    "input_tokens_per_sec",
    "requests_per_sec",
    "kv_utilization",
    "prefix_cache_hit_rate",
    "preemptions",
)


def _with_stats(names: tuple[str, ...]) -> set[str]:
    return set(names) | {f"{n}.{s}" for n in names for s in _DISTRIBUTION_STATS}


_SERVING_FILLABLE = frozenset(set(_SERVING_SCALARS) | _with_stats(_LATENCY_DISTRIBUTIONS))

# metrics_required may only name what the runner of that kind can fill.
FILLABLE_METRICS: dict[str, frozenset[str]] = {
    "serving": _SERVING_FILLABLE,
    "sweep": _SERVING_FILLABLE,
    "prefill": _SERVING_FILLABLE,
    "longctx": _SERVING_FILLABLE,
    "eval": frozenset({"accuracy", "success_rate", "avg_latency_ms"}),
    "image": frozenset({"completed_requests", "failed_requests", "total_requests", "success_rate", "duration_s"} | _with_stats(("s_per_image",))),
}
IMAGE_REQUIRED_PARAMS: tuple[str, ...] = ("width", "height", "steps", "seed", "images_per_request", "ref_images")


# The largest seed a request body can carry: vLLM and SGLang take a signed 64-bit integer
# (2**63 - 1), and the JSON encoder stops at 2**64 - 1. A larger one failed mid-run.
SEED_MAX = 2**63 - 1


class WorkloadParams(StrictModel):
    """Everything a runner needs. Nominal token counts pick prompts; the real
    counts are measured and recorded in the result."""

    concurrency: int | None = Field(default=None, ge=1, le=limits.MAX_CONCURRENCY, description="Requests kept in flight.")
    num_requests: int | None = Field(default=None, ge=1, le=limits.MAX_REQUESTS, description="Measured requests (per point for sweeps).")
    input_tokens: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS, description="Nominal prompt length, picks prompts.")
    output_tokens: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS, description="max_tokens sent with each request.")
    seed: int | None = Field(default=None, ge=0, le=SEED_MAX, description="Seed of the prompt picks and of each request's sampling.")
    warmup_requests: int | None = Field(default=None, ge=0, le=limits.MAX_REQUESTS, description="Sent first, excluded from metrics.")
    temperature: float | None = Field(default=None, ge=0.0)
    repeat: int | None = Field(default=None, ge=1, description="Times each prompt/render is repeated.")
    timeout_s: float | None = Field(default=None, gt=0.0, description="Per-request timeout.")
    dataset_buckets: list[LengthBucket] | None = Field(default=None, description="Length buckets of prompts-* rows.")
    dataset_categories: list[str] | None = None
    dataset_target_tokens: int | None = Field(default=None, ge=1)
    requests_per_concurrency: int | None = Field(
        default=None, ge=1, le=limits.MAX_REQUESTS, description="Sweeps: per point max(num_requests, concurrency * this)."
    )
    group_by: str | None = Field(default=None, description="Row field whose groups are sent back to back.")
    warmup_per_group: int | None = Field(default=None, ge=0)
    shuffle: bool | None = None
    ignore_eos: bool | None = Field(default=None, description="Keep generating past end-of-sequence up to output_tokens (sent to engines that accept it).")
    min_tokens: int | None = Field(default=None, ge=1, description="Generate at least this many tokens (sent to engines that accept it).")
    reasoning: str | None = Field(default=None, description='"default" leaves the engine default alone.')
    needle_check: bool | None = Field(default=None, description="longctx: check the needle answer.")
    needle_depth: float | None = Field(default=None, ge=0.0, le=1.0, description="Where the needle sits, 0..1.")
    context_tokens: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS, description="longctx: haystack length.")
    width: int | None = Field(default=None, ge=1)
    height: int | None = Field(default=None, ge=1)
    steps: int | None = Field(default=None, ge=1)
    images_per_request: int | None = Field(default=None, ge=1)
    ref_images: int | None = Field(default=None, ge=0)
    guidance: float | None = None


class Sweep(StrictModel):
    """Exactly one axis with its values."""

    axis: SweepAxis
    values: list[Annotated[int, Field(le=max(limits.MAX_CONCURRENCY, limits.MAX_TOKENS))]] = Field(min_length=1)

    def check(self) -> list[Issue]:
        issues = []
        if any(v < 1 for v in self.values):
            issues.append(error("values", "every sweep value must be at least 1"))
        if len(set(self.values)) != len(self.values):
            issues.append(error("values", "sweep values must be distinct"))
        if list(self.values) != sorted(self.values):
            issues.append(error("values", "sweep values must be in increasing order"))
        return issues


class EvalSpec(StrictModel):
    """How an eval workload scores its items."""

    scorer: EvalScorer
    pass_threshold: float | None = Field(default=None, ge=0.0, le=1.0)
    # None (not False) when unset, so workloads locked before this field existed keep their digests.
    confidence: bool | None = Field(
        default=None,
        description="true: the prompts ask for a 'Confidence: NN%' line; it is read, kept out of the answer, and scored for calibration (ECE/MCE).",
    )


class Workload(Document):
    """A pinned, immutable workload (id ``<kind>-<shape>-vN``)."""

    id: NonEmptyStr
    kind: WorkloadKind
    name: NonEmptyStr
    description: str = ""
    notes: str | None = None
    dataset_id: NonEmptyStr
    params: WorkloadParams
    sweep: Sweep | None = None
    eval: EvalSpec | None = None
    metrics_required: list[str] = Field(default_factory=list)
    immutable: bool
    created: IsoDate
    supersedes: str | None = None

    @property
    def renders_images(self) -> bool:
        """kind: image, or a scored image suite (kind: eval with an image scorer)."""
        return self.kind == "image" or (self.kind == "eval" and self.eval is not None and self.eval.scorer in IMAGE_EVAL_SCORERS)

    @property
    def version(self) -> int | None:
        m = ID_PATTERN.match(self.id)
        return int(m.group("version")) if m else None

    @property
    def base_id(self) -> str | None:
        m = ID_PATTERN.match(self.id)
        return m.group("base") if m else None

    def check(self) -> list[Issue]:
        issues: list[Issue] = []
        m = ID_PATTERN.match(self.id)
        if not m:
            issues.append(error("id", f"{self.id!r} does not match <kind>-<shape>-vN (lower-case kebab, e.g. serve-chat-c8-i1k-o256-v1)"))
        elif m.group("prefix") != ID_PREFIX[self.kind]:
            issues.append(error("id", f"a {self.kind} workload id must start with {ID_PREFIX[self.kind]!r}-, got {self.id!r}"))
        if self.immutable is not True:
            issues.append(error("immutable", "a published workload must say immutable: true"))
        if self.kind in ("sweep",) and self.sweep is None:
            issues.append(error("sweep", "a sweep workload needs a sweep block: {axis, values}"))
        if self.sweep is not None:
            issues.extend(Issue(i.level, f"sweep.{i.path}", i.message) for i in self.sweep.check())
            if self.kind == "sweep" and self.sweep.axis != "concurrency":
                issues.append(error("sweep.axis", "a sweep workload sweeps concurrency"))
        if self.kind == "eval" and self.eval is None:
            issues.append(error("eval", "an eval workload needs an eval block with its scorer"))
        if self.kind != "eval" and self.eval is not None:
            issues.append(error("eval", f"only eval workloads take an eval block, this one is {self.kind}"))
        if self.kind == "image":
            for name in IMAGE_REQUIRED_PARAMS:
                if getattr(self.params, name) is None:
                    issues.append(error(f"params.{name}", "required for image workloads"))
            if self.params.concurrency not in (None, 1):
                issues.append(error("params.concurrency", "image workloads run one at a time (concurrency 1)"))
        if self.kind in ("serving", "prefill", "longctx", "eval") and self.params.concurrency is None:
            issues.append(error("params.concurrency", f"required for {self.kind} workloads"))
        if self.kind != "image" and self.params.num_requests is None:
            issues.append(error("params.num_requests", f"required for {self.kind} workloads"))
        if self.kind in ("serving", "sweep", "prefill", "longctx") and self.params.output_tokens is None:
            issues.append(error("params.output_tokens", f"required for {self.kind} workloads"))
        fillable = FILLABLE_METRICS[self.kind]
        for i, path in enumerate(self.metrics_required):
            if path not in fillable:
                issues.append(
                    error(
                        f"metrics_required[{i}]",
                        f"{path!r} is not a metric {'an' if self.kind[0] in 'aeiou' else 'a'} {self.kind} runner fills; "
                        f"choose from: {', '.join(sorted(fillable)[:12])}, ...",
                    )
                )
        p = self.params
        if p.min_tokens is not None and p.output_tokens is not None and p.min_tokens > p.output_tokens:
            issues.append(error("params.min_tokens", f"{p.min_tokens} exceeds output_tokens ({p.output_tokens}), the most a request may generate"))
        if self.params.warmup_per_group is not None and self.params.group_by is None:
            issues.append(error("params.warmup_per_group", "needs params.group_by"))
        return issues

    def requests_per_point(self, concurrency: int) -> int:
        """Sweeps: max(num_requests, concurrency * requests_per_concurrency) (workloads.txt)."""
        n = self.params.num_requests or 0
        per = self.params.requests_per_concurrency or 0
        return max(n, concurrency * per)
