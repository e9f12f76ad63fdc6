"""A tiny DCGM exporter on loopback (aiohttp, in its own thread), for tests.

It serves ``fixtures/dcgm_exporter.txt`` with live values: each GPU draws a fixed
power (``power_w``), its energy counter advances by power x elapsed wall time (mJ),
its utilisation follows ``util_pct(t)`` and the other gauges stay as recorded.
What it served is kept (``served``), so a test can hold a summary against it.
"""

from __future__ import annotations

import asyncio
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path

from aiohttp import web

FIXTURE = Path(__file__).parent / "fixtures" / "dcgm_exporter.txt"
TEXT = FIXTURE.read_text(encoding="utf-8")
GPUS = ("0", "1", "2", "3")


def set_value(text: str, name: str, gpu: str, value: float | str) -> str:
    """The page with every sample of ``name`` for GPU ``gpu`` set to ``value`` (MIG instances too)."""
    pattern = re.compile(rf'^({re.escape(name)}\{{gpu="{gpu}",[^}}]*\}}) \S+$', re.MULTILINE)
    out, n = pattern.subn(lambda m: f"{m.group(1)} {value}", text)
    assert n >= 1, (name, gpu)
    return out


class DcgmServer:
    def __init__(
        self,
        power_w: dict[str, float],
        util_pct: Callable[[float], float] = lambda t: 50.0,
        status: int = 200,
        body: str | None = None,
        authorization: str | None = None,
    ) -> None:
        self.power_w = power_w
        self.authorization = authorization  # the Authorization header a request must carry (401 otherwise)
        self.util_pct = util_pct
        self.status = status
        self.body = body
        self.energy0_mj = {g: 1_000_000_000.0 * (int(g) + 1) for g in GPUS}
        self.t0 = 0.0
        self.served: list[tuple[float, str]] = []
        self.port = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._runner: web.AppRunner | None = None
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/metrics"

    def page(self, now: float) -> str:
        t = now - self.t0
        text = TEXT
        for g in GPUS:
            text = set_value(text, "DCGM_FI_DEV_POWER_USAGE", g, f"{self.power_w[g]:.6f}")
            text = set_value(text, "DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION", g, str(int(self.energy0_mj[g] + self.power_w[g] * t * 1000)))
            text = set_value(text, "DCGM_FI_DEV_GPU_UTIL", g, str(round(self.util_pct(t))))
        return text

    async def _metrics(self, request: web.Request) -> web.Response:
        if self.authorization is not None and request.headers.get("Authorization") != self.authorization:
            return web.Response(status=401, text="unauthorized")
        if self.body is not None:
            return web.Response(status=self.status, text=self.body, content_type="text/plain")
        now = time.monotonic()
        text = self.page(now)
        self.served.append((now, text))
        return web.Response(status=self.status, text=text, content_type="text/plain")

    def __enter__(self) -> DcgmServer:
        started = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            app = web.Application()
            app.router.add_get("/metrics", self._metrics)
            self._runner = web.AppRunner(app)
            loop.run_until_complete(self._runner.setup())
            site = web.TCPSite(self._runner, "127.0.0.1", 0)
            loop.run_until_complete(site.start())
            self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
            self.t0 = time.monotonic()
            started.set()
            loop.run_forever()
            loop.run_until_complete(self._runner.cleanup())
            loop.close()

        self._thread = threading.Thread(target=serve, name="dcgm-exporter", daemon=True)
        self._thread.start()
        assert started.wait(10), "the DCGM test server did not start"
        return self

    def __exit__(self, *exc: object) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)
