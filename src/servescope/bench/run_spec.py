"""What one ``servescope run`` is asked (``RunOptions``: the command line, as the
library takes it) and what it is (``RunSpec``) — its identity, its load, its SLOs
and its resolved parameters — as one typed value.

It is written as the header line of ``records.jsonl`` (``{"header": {...}}``)
before the first request is sent, and read back by recovery, so a run that never
wrote ``result.json`` (killed, interrupted, still going) is rebuilt with the same
SLOs and requested rate as the finished run. Headers written before a field was
recorded still read: every field a header may lack has a default, and keys this
version does not know are ignored (a newer writer's header still reads).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from servescope.bench.endpoint import Api
from servescope.documents.result import Slo
from servescope.errors import DocumentError
from servescope.workload.load_build import ResolvedLoad


@dataclass
class RunOptions:
    workload_id: str
    endpoint: str | None = None
    model: str | None = None
    api: Api = "chat"
    api_key_env: str | None = None
    scenario: str | None = None
    out_dir: Path = Path("runs")
    engine_id: str | None = None
    engine_version: str | None = None
    # The engine's flags or its pasted command line (words, or one string); see documents.engine_command.
    engine_args: list[str] = field(default_factory=list)
    rate: float | None = None
    arrival: str = "poisson"
    gamma_shape: float = 1.0
    concurrency: list[int] | None = None
    timeout_s: float | None = None
    slos: list[Slo] = field(default_factory=list)
    embedded_parallel: int | None = None
    embedded_ctx_per_slot: int = 4096
    unsafe_code_exec: bool = False  # eval code-exec without a sandbox (scoring.sandbox.UnsafeRunner)
    engine_model: str | None = None  # embedded engine only: a name of bench.engine.models (default: the tiny model)
    scrape_metrics: bool = True
    scrape_interval_s: float = 0.5  # first interval; doubles while a scrape takes > 10 % of it
    gpu_metrics_url: str | None = None  # a DCGM exporter's page, scraped per point like /metrics (bench.gpu_telemetry)
    run_id: str | None = None
    extra_body: dict[str, Any] | None = None  # merged into every request, recorded in args (bench.request_fields)
    fail_fast: bool = True  # stop sending when the first requests all fail the same way (bench.fail_fast)
    reference_bundle: Path | None = None  # fidelity image suites: the t2i-reference bundle (bench.images.reference)
    # what is sent (workload.load): a catalog id, a Workload file or an ad-hoc load; None: ``workload_id`` from the catalog
    load: ResolvedLoad | None = None
    tokenizer: Path | None = None  # ad-hoc prompts cut by this tokenizer.json when the endpoint has no /tokenize
    workers: int = 1  # client processes the load is split over (bench.workers); 1: this process alone
    ray_address: str | None = None  # place the workers on this Ray cluster ("auto": the one `ray start` left here)


class EngineIdent(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str | None = None
    version: str | None = None


class RunSpec(BaseModel):
    model_config = ConfigDict(extra="ignore")

    run_id: str
    workload_id: str
    started_at: str = ""
    endpoint: str | None = None
    model: str | None = None
    engine: EngineIdent = Field(default_factory=EngineIdent)
    args: dict[str, Any] = Field(default_factory=dict)
    scenario: str | None = None
    resolved_params: dict[str, Any] = Field(default_factory=dict)
    # None in headers written before it was recorded: unknown, not "no network"
    allow_network: bool | None = None
    engine_command: dict[str, Any] | None = None
    slos: list[Slo] = Field(default_factory=list)
    # open loop: the requested arrival rate per second; None = closed loop
    requested_rate: float | None = None
    # the load description whole (workload.load.Load.record); None in headers written before it was recorded
    load: dict[str, Any] | None = None

    def header(self) -> dict[str, Any]:
        """The header line's payload (``engine_command`` only when there is one)."""
        data = self.model_dump(mode="json")
        if data["engine_command"] is None:
            del data["engine_command"]
        if data["load"] is None:
            del data["load"]
        return data

    @classmethod
    def from_header(cls, source: str, header: dict[str, Any]) -> RunSpec:
        """The spec a header line gives, or one clear line naming the file and field."""
        try:
            spec = cls.model_validate(header)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "header"
            raise DocumentError(source, f"run header: {where}: {first['msg']}") from None
        if spec.requested_rate is None and isinstance(spec.resolved_params.get("rate"), int | float):
            # headers written before requested_rate was its own field kept it here
            spec.requested_rate = float(spec.resolved_params["rate"])
        return spec
