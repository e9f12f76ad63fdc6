"""``Hardware``: the catalog facts of one accelerator (or CPU) that the predictor
and the plausibility checks need. Every number should name its public source."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from servescope.documents.base import Document, Issue, NonEmptyStr, StrictModel, error

DeviceType = Literal["gpu", "cpu", "apu", "npu"]
ComputeDtype = Literal["fp32", "tf32", "bf16", "fp16", "fp8", "fp4", "int8", "int4"]


class Interconnect(StrictModel):
    name: NonEmptyStr = Field(description="e.g. NVLink 4, PCIe 5.0 x16, Infinity Fabric.")
    bandwidth_gb_s: float = Field(gt=0.0, description="Per-device unidirectional bandwidth, GB/s.")
    latency_us: float = Field(ge=0.0, description="One-way small-message latency, microseconds.")


class Source(StrictModel):
    field: NonEmptyStr = Field(description="Which field(s) this source supports.")
    source: NonEmptyStr = Field(description="Public document, e.g. a datasheet title and URL.")


class Hardware(Document):
    kind: Literal["Hardware"] = "Hardware"
    id: NonEmptyStr = Field(pattern=r"^[a-z0-9]+(?:[-.][a-z0-9]+)*$")
    name: NonEmptyStr
    vendor: NonEmptyStr
    device_type: DeviceType
    memory_gb: float = Field(
        gt=0.0,
        description="Device memory capacity as the datasheet states it. For GPUs the datasheet's 'GB' of HBM/GDDR "
        "are binary (an '80GB' H100 carries 80 GiB), so it is read as GiB unless device_memory_mib is given; "
        "for CPUs, GB (1e9 bytes).",
    )
    device_memory_mib: int | None = Field(
        default=None,
        gt=0,
        le=16 * 1024 * 1024,
        description="Total memory the driver reports (nvidia-smi memory.total, torch.cuda.mem_get_info()[1]), MiB: "
        "what an engine's memory fraction (vLLM --gpu-memory-utilization, SGLang --mem-fraction-static) is taken of.",
    )
    memory_bandwidth_gb_s: float = Field(gt=0.0, description="Peak memory bandwidth, GB/s.")
    peak_tflops: dict[ComputeDtype, float] = Field(description="Peak dense (no sparsity) throughput per dtype, TFLOP/s (TOP/s for ints).")
    figures: Literal["datasheet", "measured"] = Field(
        default="datasheet",
        description="datasheet: peak numbers as published; measured: achievable numbers from servescope probe "
        "(the step-time model then applies no efficiency factor to them).",
    )
    cores: int | None = Field(default=None, ge=1, description="CPUs: cores (threads) the figures were measured with.")
    interconnect: Interconnect | None = None
    tdp_w: float | None = Field(default=None, gt=0.0)
    sources: list[Source] = Field(default_factory=list)
    notes: str | None = None

    @property
    def device_memory_bytes(self) -> float:
        """The memory an engine sizes itself against: the driver's total when known, else the datasheet figure
        (GiB for accelerators, 1e9 bytes for CPUs)."""
        if self.device_memory_mib is not None:
            return self.device_memory_mib * 1024.0**2
        return self.memory_gb * (1e9 if self.device_type == "cpu" else 1024.0**3)

    def check(self) -> list[Issue]:
        issues = []
        for dtype, value in self.peak_tflops.items():
            if value <= 0:
                issues.append(error(f"peak_tflops.{dtype}", "must be positive"))
        if not self.peak_tflops:
            issues.append(error("peak_tflops", "needs at least one dtype"))
        return issues
