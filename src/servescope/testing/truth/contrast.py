"""What servescope did before issue 10, kept only as a contrast for the timing
checks: the whole ``/metrics`` page fetched and parsed on the event loop that
stamps tokens. ``tests/bench/test_scrape_timing.py`` shows its timing check fails
with it; ``benchmarks/scrape_timing.py`` measures it beside the shipped sampler.
Never used by a run."""

from __future__ import annotations

import asyncio
import contextlib
import time

from servescope.bench.outcome import EngineWindow
from servescope.bench.scrape import EngineSnapshot, MetricsSampler, parse_exposition, summarize_window


class OnLoopSampler(MetricsSampler):
    """Fetch and parse the whole page on the loop every ``interval_s``."""

    _task: asyncio.Task[None]

    async def start(self) -> None:
        self.snapshots = []
        self.sample()
        self._task = asyncio.create_task(self._on_loop())

    async def _on_loop(self) -> None:
        while True:
            await asyncio.sleep(self.interval_s)
            t0 = time.perf_counter()
            body = self._fetch()
            t1 = time.perf_counter()
            if body is not None:
                values = parse_exposition(body.decode())
                self.stats.fetch_ms.append((t1 - t0) * 1e3)
                self.stats.parse_ms.append((time.perf_counter() - t1) * 1e3)
                self.stats.scrapes += 1
                self.snapshots.append(EngineSnapshot(time.perf_counter_ns(), values))

    async def stop(self) -> EngineWindow:
        self._task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await self._task
        self.close()
        return summarize_window(self.snapshots)
