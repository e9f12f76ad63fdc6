"""Engine metrics from a Prometheus ``/metrics`` endpoint, sampled during a run.

Parsing is pure (exposition text in, numbers out; tested on real text); the
sampler that owns the HTTP polling is separate. What each engine exposes:

- vLLM: ``vllm:kv_cache_usage_perc`` (older ``vllm:gpu_cache_usage_perc``) gauge in
  [0, 1]; ``vllm:prefix_cache_hits`` / ``vllm:prefix_cache_queries`` counters (token
  counts); ``vllm:num_preemptions`` counter.
- SGLang: ``sglang:token_usage`` gauge in [0, 1]; ``sglang:cache_hit_rate`` gauge.
- llama.cpp: ``llamacpp:`` counters (prompt tokens computed, prompt tokens cached,
  predicted tokens, decode calls, requests processing/deferred) but no KV-usage
  gauge and no preemption counter: those stay null, never invented. Its prefix hit
  rate is Δcached / (Δcached + Δcomputed) prompt tokens.

Over a measured window: kv_utilization = mean of the gauge samples;
prefix_cache_hit_rate = Δhits / Δqueries; preemptions = Δcounter.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field

import aiohttp
from prometheus_client.parser import text_string_to_metric_families

from servescope.bench.outcome import EngineWindow

KV_GAUGES = ("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage")
HIT_RATE_GAUGES = ("sglang:cache_hit_rate",)
PREFIX_HITS = ("vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits")
PREFIX_QUERIES = ("vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries")
PREEMPTIONS = ("vllm:num_preemptions",)
# llama.cpp: prompt tokens computed vs taken from the cache (advance when a request finishes).
LLAMACPP_PROMPT = "llamacpp:prompt_tokens"
LLAMACPP_CACHED = "llamacpp:prompt_tokens_cached"


def parse_exposition(text: str) -> dict[str, float]:
    """One number per metric name, labels folded away: counters are summed over
    label sets (and keep their base name without ``_total``); gauges are averaged
    (two data-parallel engines at 0.2 and 0.6 KV usage are 0.4, not 0.8)."""
    sums: dict[str, float] = {}
    counts: dict[str, int] = {}
    gauges: set[str] = set()
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            name = sample.name
            if name.endswith("_created"):
                continue
            if name.endswith("_total"):
                name = name[: -len("_total")]
            sums[name] = sums.get(name, 0.0) + float(sample.value)
            counts[name] = counts.get(name, 0) + 1
            if family.type == "gauge":
                gauges.add(name)
    return {k: (v / counts[k] if k in gauges else v) for k, v in sums.items()}


def _first(values: dict[str, float], names: tuple[str, ...]) -> float | None:
    for n in names:
        if n in values:
            return values[n]
    return None


@dataclass
class EngineSnapshot:
    t_ns: int
    values: dict[str, float]


def summarize_window(snapshots: list[EngineSnapshot]) -> EngineWindow:
    if not snapshots:
        return EngineWindow()
    first, last = snapshots[0].values, snapshots[-1].values
    kv = [v for s in snapshots if (v := _first(s.values, KV_GAUGES)) is not None]
    out = EngineWindow()
    if kv:
        out.kv_utilization = min(1.0, max(0.0, sum(kv) / len(kv)))
    h0, h1 = _first(first, PREFIX_HITS), _first(last, PREFIX_HITS)
    q0, q1 = _first(first, PREFIX_QUERIES), _first(last, PREFIX_QUERIES)
    if None not in (h0, h1, q0, q1) and q1 - q0 > 0:  # type: ignore[operator]
        out.prefix_cache_hit_rate = min(1.0, max(0.0, (h1 - h0) / (q1 - q0)))  # type: ignore[operator]
    elif LLAMACPP_CACHED in first and LLAMACPP_CACHED in last and LLAMACPP_PROMPT in last:
        cached = last[LLAMACPP_CACHED] - first[LLAMACPP_CACHED]
        computed = last[LLAMACPP_PROMPT] - first.get(LLAMACPP_PROMPT, 0.0)
        if cached + computed > 0:
            out.prefix_cache_hit_rate = min(1.0, max(0.0, cached / (cached + computed)))
    else:
        rates = [v for s in snapshots if (v := _first(s.values, HIT_RATE_GAUGES)) is not None]
        if rates:
            out.prefix_cache_hit_rate = min(1.0, max(0.0, rates[-1]))
    p0, p1 = _first(first, PREEMPTIONS), _first(last, PREEMPTIONS)
    if p0 is not None and p1 is not None:
        out.preemptions = max(0, int(round(p1 - p0)))
    out.raw_delta = {k: last[k] - first[k] for k in last if k in first and k.startswith(("llamacpp:", "vllm:", "sglang:"))}
    return out


class MetricsSampler:
    """Polls ``/metrics`` every ``interval_s`` while a point runs."""

    def __init__(self, session: aiohttp.ClientSession, base_url: str, interval_s: float = 0.5) -> None:
        self.session = session
        self.url = f"{base_url}/metrics"
        self.interval_s = interval_s
        self.snapshots: list[EngineSnapshot] = []
        self.available: bool | None = None
        self._task: asyncio.Task[None] | None = None

    async def sample(self) -> None:
        try:
            async with self.session.get(self.url, timeout=aiohttp.ClientTimeout(total=5)) as resp:
                if resp.status != 200:
                    self.available = False
                    return
                text = await resp.text()
        except (aiohttp.ClientError, TimeoutError, OSError):
            self.available = False
            return
        try:
            values = parse_exposition(text)
        except ValueError:
            self.available = False
            return
        self.available = True
        self.snapshots.append(EngineSnapshot(time.perf_counter_ns(), values))

    async def _loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            await self.sample()

    async def start(self) -> None:
        self.snapshots = []
        await self.sample()
        if self.available:
            self._task = asyncio.create_task(self._loop())

    async def stop(self) -> EngineWindow:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass
            self._task = None
        if self.available:
            await self.sample()
        return summarize_window(self.snapshots)
