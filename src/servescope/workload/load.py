"""``Load``: what an ad-hoc run sends, as one typed value that ``run`` and ``predict``
share — a catalog workload by id, a Workload document's path, synthetic ``--isl/--osl``
lengths, a trace to replay (``--trace``) or a prompt file (``--input-file``).

It is recorded whole in the run spec and in ``resolved_params["load_description"]``, and it is
fingerprinted: a catalog workload keeps its id as its label, anything else is labelled
``adhoc-<digest>`` (the digest of what it sends, never a catalog id), so ``summarize``,
``report`` and ``compare`` group and pair by the same label on both sides.
"""

from __future__ import annotations

import hashlib
import json
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from servescope import limits
from servescope.documents.workload import SEED_MAX
from servescope.workload.jsonl_lines import shown

LoadSource = Literal["catalog", "workload-file", "synthetic", "trace", "prompts"]
Arrival = Literal["poisson", "gamma", "constant"]
Api = Literal["chat", "completions"]

#: Tokens of one shared prefix block in a Mooncake/aiperf trace (``hash_ids``).
TRACE_BLOCK_TOKENS = 512


class FileRef(BaseModel):
    """A file a load reads: its path as given and the sha256 of its bytes (the fingerprint's part)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    sha256: str
    requests: int = Field(ge=1, description="Requests the file holds (after any --num-requests cap).")
    format: str | None = Field(default=None, description="prompts: jsonl or sharegpt.")
    skipped: int = Field(default=0, ge=0, description="ShareGPT: conversations without a human turn, not sent.")


class Load(BaseModel):
    """One load description (see the module docstring). Fields that do not apply are None."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    source: LoadSource
    workload_id: str | None = Field(default=None, description="catalog / workload-file: the Workload's id.")
    workload_sha256: str | None = Field(default=None, description="workload-file: digest of the document's content.")
    isl: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS, description="synthetic: input tokens per request.")
    osl: int | None = Field(default=None, ge=1, le=limits.MAX_TOKENS, description="synthetic / prompts: output tokens per request.")
    range_ratio: float = Field(default=0.0, ge=0.0, lt=1.0, description="synthetic: lengths uniform in [L(1-r), L(1+r)].")
    num_requests: int | None = Field(default=None, ge=1, le=limits.MAX_REQUESTS, description="Measured requests per point.")
    warmup_requests: int | None = Field(default=None, ge=0, le=limits.MAX_REQUESTS, description="None: the runner's default.")
    concurrency: tuple[int, ...] | None = Field(default=None, description="Closed loop: requests kept in flight, per point.")
    rate: float | None = Field(default=None, gt=0.0, description="Open loop: requests per second.")
    arrival: Arrival = "poisson"
    gamma_shape: float = Field(default=1.0, gt=0.0)
    seed: int = Field(default=0, ge=0, le=SEED_MAX)
    trace: FileRef | None = None
    speedup: float = Field(default=1.0, gt=0.0, description="trace: timestamps divided by this.")
    prompts: FileRef | None = None
    sessions: int | None = Field(default=None, ge=1, le=limits.MAX_CONCURRENCY, description="Multi-turn: conversations run at once.")
    turns: int | None = Field(default=None, ge=1, le=10_000, description="Multi-turn: requests per conversation, each resending the history.")
    think_time_ms: float = Field(default=0.0, ge=0.0, le=3_600_000.0, description="Multi-turn: pause between an answer and the next turn.")
    system_prompt_tokens: int | None = Field(
        default=None,
        ge=1,
        le=limits.MAX_TOKENS,
        description="Multi-turn: a system message of this many tokens opens each session and is resent with every turn.",
    )
    api: Api = Field(
        default="chat",
        description="The API the requests go to: a chat request carries the chat template's tokens that a completion does not, so they are other loads.",
    )

    @property
    def adhoc(self) -> bool:
        return self.source != "catalog"

    def fingerprint(self) -> str:
        """sha256 of what is sent (paths left out: the same bytes elsewhere are the same load).

        Defaults are normalised first, so an option given at its default value labels the
        load as leaving it out does: ``warmup_requests`` 0 is the unset default (``run``
        sends none; ``predict``'s steady-state warm-up is the simulator's rule for reaching
        steady state, not part of the load), and the arrival process of a closed loop (or
        the gamma shape of other arrivals) sends nothing. ``api`` "chat" is the default
        (``predict`` simulates the chat API; labels made before the field existed stay)."""
        data = self.model_dump(mode="json")
        for ref in ("trace", "prompts"):
            if data[ref] is not None:
                data[ref].pop("path", None)
        if data["warmup_requests"] == 0:
            data["warmup_requests"] = None
        if data["api"] == "chat":
            del data["api"]
        if data["rate"] is None:
            data["arrival"], data["gamma_shape"] = "poisson", 1.0
        elif data["arrival"] != "gamma":
            data["gamma_shape"] = 1.0
        text = json.dumps(data, sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(text.encode("utf-8")).hexdigest()

    @property
    def label(self) -> str:
        """What results are grouped and paired by: the catalog id, else ``adhoc-<digest>``."""
        if self.source == "catalog":
            assert self.workload_id is not None
            return self.workload_id
        return f"adhoc-{self.fingerprint()[:12]}"

    @property
    def levels(self) -> tuple[int, ...]:
        """The points' concurrencies (open loop and trace: one point, labelled 1)."""
        return self.concurrency or (1,)

    def describe(self) -> str:
        """One line for a person: what this load sends."""
        if self.source == "synthetic" and self.sessions is not None:
            system = f", a {self.system_prompt_tokens}-token system prompt per session" if self.system_prompt_tokens else ""
            return (f"multi-turn: {self.sessions} sessions of {self.turns} turns, {self.isl} new tokens in / {self.osl} out per turn, "
                    f"{self.think_time_ms:g} ms think time{system}")  # fmt: skip
        if self.source == "synthetic":
            spread = f" ±{100 * self.range_ratio:g} %" if self.range_ratio else ""
            return f"synthetic: {self.isl} in / {self.osl} out tokens{spread}, {self.num_requests} requests" + self._shape()
        if self.source == "trace" and self.trace is not None:
            return f"trace {self.trace.path}: {self.trace.requests} requests at speedup {self.speedup:g}"
        if self.source == "prompts" and self.prompts is not None:
            return f"prompts {self.prompts.path} ({self.prompts.format}): {self.prompts.requests} requests" + self._shape()
        return f"workload {self.workload_id}"

    def _shape(self) -> str:
        if self.rate is not None:
            return f" at {self.rate:g} req/s ({self.arrival})"
        return f" at concurrency {','.join(str(c) for c in self.levels)}"

    def record(self) -> dict[str, Any]:
        """The load as recorded in ``resolved_params["load_description"]`` and the run header: its
        label, its source and every field that differs from its default (``Load.model_validate``
        of it, less the label, gives the same load back)."""
        return {"label": self.label, "source": self.source, **self.model_dump(mode="json", exclude_defaults=True)}


MAX_SPEEDUP = 1e6


def check_speedup(speedup: float) -> None:
    if not (math.isfinite(speedup) and speedup > 0):
        raise ValueError(f"--speedup {shown(speedup)}: give a finite number > 0, e.g. 2 (twice as fast as recorded)")
    if speedup > MAX_SPEEDUP:
        raise ValueError(f"--speedup {shown(speedup)} is above the limit of {MAX_SPEEDUP:g}")


__all__ = ["TRACE_BLOCK_TOKENS", "FileRef", "Load", "LoadSource", "check_speedup"]
