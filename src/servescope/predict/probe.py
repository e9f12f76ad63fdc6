"""``servescope probe``: measure this machine's achievable memory bandwidth and
matrix-multiply rate with numpy and describe it as a ``Hardware`` entry
(``figures: measured``, so the step-time model applies no efficiency factor).

- Bandwidth: ``numpy.copyto`` of a float32 array far larger than the last-level
  cache; a copy reads and writes every byte, so bytes moved = 2 x size. Best of
  ``repeats`` (the machine's ceiling, not its average).
- Matmul: float32 ``a @ b`` of ``n x n`` matrices for n in 256, 512, 1024,
  2n^3 FLOPs, best of ``repeats`` over all sizes, with numpy's BLAS and its
  default thread count (BLAS threading makes single sizes erratic on small VMs).
"""

from __future__ import annotations

import os
import platform
import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from servescope.documents import Hardware
from servescope.documents.hardware import Source


@dataclass(frozen=True)
class ProbeResult:
    bandwidth_gb_s: float
    fp32_tflops: float
    memory_gb: float
    cores: int
    cpu_name: str
    bytes_copied: int
    matmul_n: int


def _cpu_name() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="utf-8", errors="replace").splitlines():
            if line.lower().startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown CPU"


def _memory_gb() -> float:
    try:
        for line in Path("/proc/meminfo").read_text(encoding="utf-8").splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024 / 1e9
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES") / 1e9
    except (ValueError, OSError, AttributeError):
        return 1.0


def measure_bandwidth(size_mb: int = 256, repeats: int = 5) -> tuple[float, int]:
    """Best copy bandwidth in GB/s (read + write) and the bytes per copy."""
    n = size_mb * 1024 * 1024 // 4
    src = np.ones(n, dtype=np.float32)
    dst = np.empty_like(src)
    np.copyto(dst, src)  # fault the pages in
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        np.copyto(dst, src)
        best = min(best, time.perf_counter() - t0)
    return 2 * src.nbytes / best / 1e9, 2 * src.nbytes


def measure_matmul(n: int = 1024, repeats: int = 5) -> float:
    """Best float32 matmul rate, TFLOP/s."""
    rng = np.random.default_rng(0)
    a = rng.standard_normal((n, n), dtype=np.float32)
    b = rng.standard_normal((n, n), dtype=np.float32)
    a @ b  # warm up BLAS threads
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        a @ b
        best = min(best, time.perf_counter() - t0)
    return 2 * n**3 / best / 1e12


def probe(size_mb: int = 256, sizes: tuple[int, ...] = (256, 512, 1024), repeats: int = 10) -> ProbeResult:
    bw, moved = measure_bandwidth(size_mb, repeats)
    rates = {n: measure_matmul(n, repeats) for n in sizes}
    best_n = max(rates, key=lambda n: rates[n])
    return ProbeResult(bw, rates[best_n], _memory_gb(), os.cpu_count() or 1, _cpu_name(), moved, best_n)


def hardware_id(result: ProbeResult) -> str:
    base = re.sub(r"[^a-z0-9]+", "-", result.cpu_name.lower()).strip("-")[:40].strip("-") or "cpu"
    return f"probed-{base}-{result.cores}c"


def to_hardware(result: ProbeResult, *, hw_id: str | None = None, date: str | None = None) -> Hardware:
    """The probe as a Hardware document (device_type cpu, figures measured)."""
    when = f" on {date}" if date else ""
    how = (
        f"servescope probe{when}: numpy copy of {result.bytes_copied // 2 // (1024 * 1024)} MiB float32 "
        f"(best of 10, read+write counted); float32 matmul, best over n = 256/512/1024 (here n = {result.matmul_n}), "
        f"numpy {np.__version__}, {result.cores} CPUs"
    )
    return Hardware(
        id=hw_id or hardware_id(result),
        name=f"{result.cpu_name} ({result.cores} CPUs, measured)",
        vendor=result.cpu_name.split()[0] if result.cpu_name else "unknown",
        device_type="cpu",
        memory_gb=round(result.memory_gb, 1),
        memory_bandwidth_gb_s=round(result.bandwidth_gb_s, 1),
        peak_tflops={"fp32": round(result.fp32_tflops, 4)},
        figures="measured",
        cores=result.cores,
        sources=[
            Source(field="memory_bandwidth_gb_s, peak_tflops", source=how),
            Source(field="memory_gb", source="MemTotal of /proc/meminfo"),
        ],
        notes="Achievable rates of this machine, not datasheet peaks; rerun `servescope probe` on the machine you predict.",
    )
