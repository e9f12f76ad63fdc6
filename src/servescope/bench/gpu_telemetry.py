"""GPU telemetry from an NVIDIA DCGM exporter (``run --gpu-metrics-url``), per GPU, per point.

The exporter publishes Prometheus text, one series per GPU (labels ``gpu``, ``UUID``,
``device``, ``modelName``, ``Hostname``, ...). Read here:

- ``DCGM_FI_DEV_POWER_USAGE`` (W, gauge), ``DCGM_FI_DEV_GPU_UTIL`` (%, gauge),
  ``DCGM_FI_DEV_FB_USED`` (MiB, gauge), ``DCGM_FI_DEV_SM_CLOCK`` (MHz, gauge),
  ``DCGM_FI_DEV_GPU_TEMP`` (C, gauge);
- ``DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION`` (mJ since boot, counter).

A GPU is its ``UUID`` on its ``Hostname`` (the ``gpu`` index when there is no UUID).
A MIG-partitioned GPU is published once per GPU instance (``GPU_I_ID``) with the
same device-level values; it is one GPU here, its first series kept, so its power
and energy are never counted once per instance.

Over a point's window (a snapshot before the measured load, the sampler's snapshots
during it, one after): mean and max power, mean utilisation, max memory used, mean
SM clock, max temperature; energy from the counter's delta (preferred: the GPU
integrates it itself) or, when the counter is missing or went backwards (a reset),
from the power samples integrated over time — and so when the counter did not move
at all while the GPU drew power (the exporter did not refresh it within the window:
its collection interval, ``dcgm-exporter -c``, is longer). Energy per output token is the
builder's (``analysis.metrics.energy_per_output_token``): it needs the tokens.

Parsing and summarising are pure (text in, numbers out); ``GpuSampler`` reuses
the engine scraper's thread (``bench.scrape.MetricsSampler``): the loop that stamps
tokens never waits on the exporter.
"""

from __future__ import annotations

import base64
import http.client
import itertools
import math
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

from prometheus_client.parser import text_string_to_metric_families

from servescope.bench.scrape import EngineSnapshot, MetricsSampler, filter_exposition
from servescope.errors import UsageError
from servescope.redaction import redact

POWER = "DCGM_FI_DEV_POWER_USAGE"
UTIL = "DCGM_FI_DEV_GPU_UTIL"
FB_USED = "DCGM_FI_DEV_FB_USED"
SM_CLOCK = "DCGM_FI_DEV_SM_CLOCK"
TEMP = "DCGM_FI_DEV_GPU_TEMP"
ENERGY = "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION"
DCGM_FIELDS: tuple[str, ...] = (POWER, UTIL, FB_USED, SM_CLOCK, TEMP, ENERGY)
_SEP = "\x1f"  # between a GPU's key and a field name in a snapshot's flat mapping


@dataclass(frozen=True)
class GpuIdentity:
    gpu: str
    uuid: str | None = None
    model_name: str | None = None
    hostname: str | None = None

    @property
    def key(self) -> str:
        return f"{self.hostname or ''}/{self.uuid or 'gpu' + self.gpu}"


def parse_dcgm(text: str) -> tuple[dict[str, float], dict[str, GpuIdentity]]:
    """One number per (GPU, field): ``{"<gpu key>\\x1f<field>": value}``, and who each
    GPU is. Non-finite samples are skipped; a MIG instance repeating its GPU's
    device-level series is skipped too (the first series of a GPU is kept)."""
    values: dict[str, float] = {}
    gpus: dict[str, GpuIdentity] = {}
    for family in text_string_to_metric_families(filter_exposition(text, DCGM_FIELDS)):
        for sample in family.samples:
            name = sample.name[: -len("_total")] if sample.name.endswith("_total") else sample.name
            if name not in DCGM_FIELDS or "gpu" not in sample.labels:
                continue
            value = float(sample.value)
            if not math.isfinite(value):
                continue
            labels = sample.labels
            ident = GpuIdentity(labels["gpu"], labels.get("UUID") or None, labels.get("modelName") or None, labels.get("Hostname") or None)
            gpus.setdefault(ident.key, ident)
            values.setdefault(ident.key + _SEP + name, value)
    return values, gpus


def _mean(v: list[float]) -> float | None:
    return sum(v) / len(v) if v else None


def _power_integral_j(points: list[tuple[int, float]]) -> float | None:
    if len(points) < 2:
        return None
    return sum((t1 - t0) / 1e9 * (p0 + p1) / 2 for (t0, p0), (t1, p1) in itertools.pairwise(points))


def _finite(block: dict[str, Any]) -> dict[str, Any]:
    """The block with every figure that overflowed (absurd values on a page) as null: a
    Result holds finite numbers only."""
    return {k: None if isinstance(v, float) and not math.isfinite(v) else v for k, v in block.items()}


def gpu_stats(ident: GpuIdentity, snapshots: list[EngineSnapshot]) -> dict[str, Any]:
    """The ``GpuStats`` block of one GPU over a window's snapshots."""
    prefix = ident.key + _SEP

    def series(field: str, low: float = 0.0, high: float = math.inf) -> list[tuple[int, float]]:
        """The readings of ``field`` that a GPU can report: one out of range (a utilisation of
        -5 %, a NaN power) is left out, never clamped into a plausible 0."""
        got = [(s.t_ns, s.values[prefix + field]) for s in snapshots if prefix + field in s.values]
        return [(t, v) for t, v in got if low <= v <= high]  # (NaN fails both)

    power = series(POWER)
    energy = series(ENERGY)
    energy_j, source = None, None
    delta = energy[-1][1] - energy[0][1] if len(energy) >= 2 else None
    # A counter that did not move while the GPU drew power was not refreshed in the
    # window (the exporter's collection interval is longer): it says nothing about it.
    stale = delta == 0 and any(v > 0 for _, v in power)
    if delta is not None and delta >= 0 and not stale:
        energy_j, source = delta / 1000.0, "energy-counter"
    elif (integral := _power_integral_j(power)) is not None:
        energy_j, source = integral, "power-integral"
    if energy_j is not None and not math.isfinite(energy_j):
        energy_j, source = None, None
    util = [v for _, v in series(UTIL, 0.0, 100.0)]
    fb = [v for _, v in series(FB_USED)]
    temp = [v for _, v in series(TEMP, -60.0, 200.0)]
    return _finite(
        {
            "gpu": ident.gpu,
            "uuid": ident.uuid,
            "model_name": ident.model_name,
            "hostname": ident.hostname,
            "samples": sum(1 for s in snapshots if any(k.startswith(prefix) for k in s.values)),
            "power_w_mean": _mean([v for _, v in power]),
            "power_w_max": max((v for _, v in power), default=None),
            "utilization_pct_mean": _mean(util),
            "memory_used_mib_max": max(fb, default=None),
            "sm_clock_mhz_mean": _mean([v for _, v in series(SM_CLOCK)]),
            "temperature_c_max": max(temp, default=None),
            "energy_j": None if energy_j is None else max(0.0, energy_j),
            "energy_source": source,
        }
    )


def summarize_gpus(source: str, snapshots: list[EngineSnapshot], gpus: dict[str, GpuIdentity]) -> dict[str, Any] | None:
    """The ``GpuTelemetry`` block of a window (without energy per token: the builder
    adds it), or None when no scrape of the window succeeded."""
    if not snapshots:
        return None
    present = {key.split(_SEP, 1)[0] for s in snapshots for key in s.values}
    seen = [gpus[k] for k in sorted(present, key=lambda k: (gpus[k].hostname or "", _index(gpus[k].gpu), k))]
    stats = [gpu_stats(g, snapshots) for g in seen]
    energies = [s["energy_j"] for s in stats]
    return _finite(
        {
            "source": redact(source),
            "window_s": max(0.0, (snapshots[-1].t_ns - snapshots[0].t_ns) / 1e9),
            "scrapes": len(snapshots),
            "gpus": stats,
            "energy_j": sum(energies) if energies and all(e is not None for e in energies) else None,
        }
    )


def _weighted(blocks: list[dict[str, Any]], name: str) -> float | None:
    pairs = [(b[name], b["samples"]) for b in blocks if b.get(name) is not None and b.get("samples")]
    total = sum(w for _, w in pairs)
    return sum(v * w for v, w in pairs) / total if total else None


def _largest(blocks: list[dict[str, Any]], name: str) -> float | None:
    return max((b[name] for b in blocks if b.get(name) is not None), default=None)


def merge_gpu_windows(windows: list[dict[str, Any] | None]) -> dict[str, Any] | None:
    """A run's GPU block from its points' blocks: per GPU, means weighted by samples,
    maxima of maxima, energies added. Energy stays null unless every point has it
    (a run's energy per token divides by every point's tokens)."""
    present = [w for w in windows if w is not None]
    if not present:
        return None
    complete = len(present) == len(windows)
    per_gpu: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for w in present:
        for g in w["gpus"]:
            per_gpu.setdefault((g.get("hostname") or "", g.get("uuid") or "gpu" + g["gpu"]), []).append(g)
    gpus = []
    for blocks in per_gpu.values():
        energies = [b.get("energy_j") for b in blocks]
        has_energy = complete and len(blocks) == len(present) and all(e is not None for e in energies)
        sources = {b.get("energy_source") for b in blocks}
        first = blocks[0]
        gpus.append(
            _finite(
                {
                    "gpu": first["gpu"],
                    "uuid": first.get("uuid"),
                    "model_name": first.get("model_name"),
                    "hostname": first.get("hostname"),
                    "samples": sum(b.get("samples", 0) for b in blocks),
                    "power_w_mean": _weighted(blocks, "power_w_mean"),
                    "power_w_max": _largest(blocks, "power_w_max"),
                    "utilization_pct_mean": _weighted(blocks, "utilization_pct_mean"),
                    "memory_used_mib_max": _largest(blocks, "memory_used_mib_max"),
                    "sm_clock_mhz_mean": _weighted(blocks, "sm_clock_mhz_mean"),
                    "temperature_c_max": _largest(blocks, "temperature_c_max"),
                    "energy_j": sum(e for e in energies if e is not None) if has_energy else None,
                    "energy_source": (sources.pop() if len(sources) == 1 else "power-integral") if has_energy else None,
                }
            )
        )
    energies = [g["energy_j"] for g in gpus]
    return _finite(
        {
            "source": present[0]["source"],
            "window_s": sum(w["window_s"] for w in present),
            "scrapes": sum(w["scrapes"] for w in present),
            "gpus": gpus,
            "energy_j": sum(energies) if energies and all(e is not None for e in energies) else None,
        }
    )


def _index(gpu: str) -> tuple[int, str]:
    return (int(gpu), "") if gpu.isdigit() else (1 << 30, gpu)


class GpuSampler(MetricsSampler):
    """Polls a DCGM exporter's page while a point runs, on the engine scraper's
    machinery (its own thread and connection, back-off when slow)."""

    def __init__(self, url: str, interval_s: float = 1.0, **kwargs: Any) -> None:
        parts = urlsplit(url)
        path = (parts.path or "/metrics") + (f"?{parts.query}" if parts.query else "")
        super().__init__(f"{parts.scheme}://{parts.netloc}", interval_s, path=path, headers=_auth_headers(url), **kwargs)
        self.url = redact(url)  # what notes and the Result name: never its credentials
        self.gpus: dict[str, GpuIdentity] = {}

    def _parse(self, text: str) -> dict[str, float]:
        values, gpus = parse_dcgm(text)
        for key, ident in gpus.items():
            self.gpus.setdefault(key, ident)
        return values

    def _summarize(self) -> Any:
        return summarize_gpus(self.url, self.snapshots, self.gpus)


def _auth_headers(url: str) -> dict[str, str]:
    """HTTP basic auth from the URL's ``user:password@``, as a browser would send it."""
    parts = urlsplit(url)
    if parts.username is None:
        return {}
    token = base64.b64encode(f"{unquote(parts.username)}:{unquote(parts.password or '')}".encode()).decode("ascii")
    return {"Authorization": f"Basic {token}"}


def check_gpu_metrics_url(url: str, timeout_s: float = 5.0) -> int:
    """Before a run: the URL answers with a DCGM exporter page that has at least one
    of the GPU series read here; how many GPUs it lists. Anything else is one line."""
    shown = redact(url)
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise UsageError(f"--gpu-metrics-url {shown}: give the exporter's http(s) URL, e.g. http://gpu-node:9400/metrics")
    sampler = GpuSampler(url, max_page_bytes=16 * 1024 * 1024)
    try:
        cls = http.client.HTTPSConnection if parts.scheme == "https" else http.client.HTTPConnection
        conn = cls(parts.hostname, parts.port, timeout=timeout_s)
        try:
            conn.request("GET", sampler._path, headers={"Accept": "text/plain", **_auth_headers(url)})
            resp = conn.getresponse()
            body = resp.read(sampler.max_page_bytes + 1)
        finally:
            conn.close()
    except (OSError, http.client.HTTPException) as exc:
        raise UsageError(f"--gpu-metrics-url {shown}: cannot read it ({type(exc).__name__}: {exc}); is the DCGM exporter running there?") from None
    if resp.status != 200:
        raise UsageError(f"--gpu-metrics-url {shown}: answered HTTP {resp.status}; give the DCGM exporter's /metrics URL")
    if len(body) > sampler.max_page_bytes:
        raise UsageError(f"--gpu-metrics-url {shown}: the page is larger than {sampler.max_page_bytes} bytes; is it a DCGM exporter?")
    try:
        values, gpus = parse_dcgm(body.decode("utf-8", errors="replace"))
    except ValueError as exc:
        raise UsageError(f"--gpu-metrics-url {shown}: not Prometheus text ({exc})") from None
    if not values:
        raise UsageError(f"--gpu-metrics-url {shown}: no DCGM GPU series on the page ({', '.join(DCGM_FIELDS)}); is it a DCGM exporter?")
    return len(gpus)


__all__ = [
    "DCGM_FIELDS",
    "GpuIdentity",
    "GpuSampler",
    "check_gpu_metrics_url",
    "gpu_stats",
    "merge_gpu_windows",
    "parse_dcgm",
    "summarize_gpus",
]
