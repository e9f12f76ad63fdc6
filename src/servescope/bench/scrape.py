"""Engine metrics from a Prometheus ``/metrics`` endpoint, sampled during a run.

Parsing is pure (exposition text in, numbers out; tested on real text); the
sampler that owns the polling is separate. What each engine exposes:

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

Why the sampler runs in its own thread and parses only what it needs: the client
stamps each token with ``perf_counter_ns`` on the event loop, so anything that
holds the loop delays every token that arrives meanwhile and bunches their
stamps. A real vLLM page is ~50 KB (GPU builds more); parsing it in full takes
10-20 ms idle and hundreds under load. The sampler fetches the page with the
standard library's HTTP client in a thread (socket reads release the GIL), keeps
only the lines of the families above (~0.2 ms for 50 KB) and parses those
(~0.15 ms), so the loop that stamps tokens never waits on a scrape for more than
a fraction of a millisecond. Pages are bounded in size, and the interval doubles
whenever a scrape takes more than a tenth of it (a server slow to render its page
is disturbed by every scrape too). Every scrape's cost is kept and reported in
the Result (``metadata.engine_scrape``).

The same machinery reads other pages through two hooks (``_parse``, ``_summarize``):
``bench.gpu_telemetry.GpuSampler`` reads a DCGM exporter. ``PointSamplers`` starts
and stops both around a point.
"""

from __future__ import annotations

import asyncio
import http.client
import threading
import time
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

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

# Metric-name prefixes whose lines are kept before parsing; llama.cpp's page is a
# dozen lines, so all of it is kept (its deltas go into EngineWindow.raw_delta).
WANTED_PREFIXES: tuple[str, ...] = (*KV_GAUGES, *HIT_RATE_GAUGES, *PREFIX_HITS, *PREFIX_QUERIES, *PREEMPTIONS, "llamacpp:")

DEFAULT_INTERVAL_S = 0.5
MAX_INTERVAL_S = 8.0
# The largest page read; past it scraping stops for the run (and says so).
MAX_PAGE_BYTES = 8 * 1024 * 1024
# A scrape that takes longer than this fraction of the interval doubles the interval.
SLOW_FRACTION = 0.1
_FETCH_TIMEOUT_S = 5.0


def _type_lines(prefixes: tuple[str, ...]) -> tuple[str, ...]:
    return tuple("# TYPE " + p for p in prefixes)


_WANTED_TYPES = _type_lines(WANTED_PREFIXES)


def filter_exposition(text: str, prefixes: tuple[str, ...] = WANTED_PREFIXES) -> str:
    """The sample and ``# TYPE`` lines of the metric families named by ``prefixes``."""
    types = _WANTED_TYPES if prefixes is WANTED_PREFIXES else _type_lines(prefixes)
    kept = [line for line in text.splitlines() if line.startswith(prefixes) or line.startswith(types)]
    return "\n".join(kept) + "\n" if kept else ""


def parse_exposition(text: str, prefixes: tuple[str, ...] | None = None) -> dict[str, float]:
    """One number per metric name, labels folded away: counters are summed over
    label sets (and keep their base name without ``_total``); gauges are averaged
    (two data-parallel engines at 0.2 and 0.6 KV usage are 0.4, not 0.8). With
    ``prefixes``, only those families are parsed (see :func:`filter_exposition`)."""
    if prefixes is not None:
        text = filter_exposition(text, prefixes)
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
        out.prefix_cache_queries = q1 - q0  # type: ignore[operator]
    elif LLAMACPP_CACHED in first and LLAMACPP_CACHED in last and LLAMACPP_PROMPT in last:
        cached = last[LLAMACPP_CACHED] - first[LLAMACPP_CACHED]
        computed = last[LLAMACPP_PROMPT] - first.get(LLAMACPP_PROMPT, 0.0)
        if cached + computed > 0:
            out.prefix_cache_hit_rate = min(1.0, max(0.0, cached / (cached + computed)))
            out.prefix_cache_queries = cached + computed
    else:
        rates = [v for s in snapshots if (v := _first(s.values, HIT_RATE_GAUGES)) is not None]
        if rates:
            out.prefix_cache_hit_rate = min(1.0, max(0.0, rates[-1]))
    p0, p1 = _first(first, PREEMPTIONS), _first(last, PREEMPTIONS)
    if p0 is not None and p1 is not None:
        out.preemptions = max(0, round(p1 - p0))
    out.raw_delta = {k: last[k] - first[k] for k in last if k in first and k.startswith(("llamacpp:", "vllm:", "sglang:"))}
    return out


@dataclass
class ScrapeStats:
    """What scraping cost over a run (all points), for the Result's metadata."""

    interval_s: float
    final_interval_s: float
    scrapes: int = 0
    failed: int = 0
    fetch_ms: list[float] = field(default_factory=list)
    parse_ms: list[float] = field(default_factory=list)
    page_bytes_max: int = 0
    note: str | None = None

    def as_metadata(self) -> dict[str, Any]:
        def mean(v: list[float]) -> float | None:
            return sum(v) / len(v) if v else None

        return {
            "in_thread": True,
            "interval_s": self.interval_s,
            "final_interval_s": self.final_interval_s,
            "scrapes": self.scrapes,
            "failed": self.failed,
            "fetch_ms_mean": mean(self.fetch_ms),
            "fetch_ms_max": max(self.fetch_ms, default=None),
            "parse_ms_mean": mean(self.parse_ms),
            "parse_ms_max": max(self.parse_ms, default=None),
            "page_bytes_max": self.page_bytes_max,
            "note": self.note,
        }


class _PageTooLarge(Exception):
    pass


class MetricsSampler:
    """Polls ``{base_url}/metrics`` every ``interval_s`` while a point runs, in its own
    thread with its own connection (never on the event loop that stamps tokens).

    ``start()`` takes the baseline snapshot before the measured load begins and starts
    the thread; ``stop()`` joins it after the load and takes the closing snapshot.
    Both are awaitable so the loop is free while they wait.
    """

    def __init__(
        self,
        base_url: str,
        interval_s: float = DEFAULT_INTERVAL_S,
        *,
        headers: dict[str, str] | None = None,
        max_page_bytes: int = MAX_PAGE_BYTES,
        max_interval_s: float = MAX_INTERVAL_S,
        path: str = "/metrics",
    ) -> None:
        if interval_s <= 0:
            raise ValueError("scrape interval must be > 0 seconds")
        parts = urlsplit(base_url)
        self.url = f"{base_url}{path}"
        self._https = parts.scheme == "https"
        self._host = parts.hostname or "127.0.0.1"
        self._port = parts.port
        self._path = (parts.path.rstrip("/") or "") + path
        self._headers = {"Accept": "text/plain", **(headers or {})}
        self.max_page_bytes = max_page_bytes
        self.max_interval_s = max(interval_s, max_interval_s)
        self.interval_s = interval_s
        self.stats = ScrapeStats(interval_s=interval_s, final_interval_s=interval_s)
        self.snapshots: list[EngineSnapshot] = []
        self.available: bool | None = None
        self._conn: http.client.HTTPConnection | None = None
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- one scrape (runs in a worker thread) ------------------------------------------

    def _connection(self) -> http.client.HTTPConnection:
        if self._conn is None:
            cls = http.client.HTTPSConnection if self._https else http.client.HTTPConnection
            self._conn = cls(self._host, self._port, timeout=_FETCH_TIMEOUT_S)
        return self._conn

    def _drop_connection(self) -> None:
        if self._conn is not None:
            self._conn.close()
            self._conn = None

    def _fetch(self) -> bytes | None:
        conn = self._connection()
        try:
            conn.request("GET", self._path, headers=self._headers)
            resp = conn.getresponse()
            body = resp.read(self.max_page_bytes + 1)
            if len(body) > self.max_page_bytes:
                self._drop_connection()  # the rest of the page is still on the socket
                raise _PageTooLarge
            if resp.will_close:
                self._drop_connection()
        except (OSError, http.client.HTTPException):
            self._drop_connection()
            raise
        if resp.status != 200:
            self.stats.note = f"{self.url} answered HTTP {resp.status}"
            return None
        return body

    def sample(self) -> None:
        """Take one snapshot (blocking: call it from a worker thread, never the loop)."""
        t0 = time.perf_counter()
        try:
            body = self._fetch()
        except _PageTooLarge:
            self.available = False
            self.stats.note = f"{self.url} is larger than {self.max_page_bytes} bytes; scraping stopped"
            self.stats.failed += 1
            return
        except (OSError, http.client.HTTPException) as exc:
            if self.available is None:  # the first read failed; a later one failing keeps what was read
                self.available = False
            self.stats.failed += 1
            self.stats.note = f"{self.url}: {type(exc).__name__}: {exc}"
            return
        t1 = time.perf_counter()
        if body is None:
            self.available = False
            self.stats.failed += 1
            return
        try:
            values = self._parse(body.decode("utf-8", errors="replace"))
        except ValueError as exc:
            self.available = False
            self.stats.failed += 1
            self.stats.note = f"{self.url} is not Prometheus text: {exc}"
            return
        t2 = time.perf_counter()
        self.available = True
        self.stats.scrapes += 1
        self.stats.fetch_ms.append((t1 - t0) * 1e3)
        self.stats.parse_ms.append((t2 - t1) * 1e3)
        self.stats.page_bytes_max = max(self.stats.page_bytes_max, len(body))
        self.snapshots.append(EngineSnapshot(time.perf_counter_ns(), values))
        if (t2 - t0) > SLOW_FRACTION * self.interval_s and self.interval_s < self.max_interval_s:
            self.interval_s = min(self.max_interval_s, self.interval_s * 2)
            self.stats.final_interval_s = self.interval_s

    def _parse(self, text: str) -> dict[str, float]:
        """The numbers a snapshot keeps (a subclass reads other families)."""
        return parse_exposition(text, WANTED_PREFIXES)

    def _summarize(self) -> Any:
        """What the window's snapshots say (a subclass summarises its own families)."""
        return summarize_window(self.snapshots)

    def _loop(self) -> None:
        while not self._stop.wait(self.interval_s):
            if self.available is False:
                return
            self.sample()

    # -- around a point (awaited on the loop, which stays free) -----------------------

    async def start(self) -> None:
        self.snapshots = []
        self._stop.clear()
        await asyncio.to_thread(self.sample)
        if self.available:
            self._thread = threading.Thread(target=self._loop, name="servescope-metrics", daemon=True)
            self._thread.start()

    async def stop(self) -> Any:
        """The window's summary (``EngineWindow`` for an engine's page)."""
        self._stop.set()
        thread, self._thread = self._thread, None
        if thread is not None:
            await asyncio.to_thread(thread.join, _FETCH_TIMEOUT_S + 1.0)
        if self.available:
            await asyncio.to_thread(self.sample)
        self._drop_connection()  # one connection per point: nothing held open between points
        return self._summarize()

    def close(self) -> None:
        self._stop.set()
        self._drop_connection()


class PointSamplers:
    """What is sampled while a point's measured load runs, each in its own thread:
    the engine's ``/metrics`` and, with ``run --gpu-metrics-url``, the GPUs (a
    ``bench.gpu_telemetry.GpuSampler``). ``stop()`` gives the engine's window with
    the GPUs' summary in ``EngineWindow.gpu``."""

    def __init__(self, engine: MetricsSampler | None = None, gpu: MetricsSampler | None = None) -> None:
        self.engine = engine
        self.gpu = gpu

    async def start(self) -> None:
        await asyncio.gather(*(s.start() for s in (self.engine, self.gpu) if s is not None))

    async def stop(self) -> EngineWindow:
        window = EngineWindow()
        engine_window, gpu_window = await asyncio.gather(
            self.engine.stop() if self.engine is not None else _none(),
            self.gpu.stop() if self.gpu is not None else _none(),
        )
        if engine_window is not None:
            window = engine_window
        window.gpu = gpu_window
        return window

    def close(self) -> None:
        for s in (self.engine, self.gpu):
            if s is not None:
                s.close()


async def _none() -> None:
    return None
