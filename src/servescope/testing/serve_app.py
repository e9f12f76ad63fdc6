"""Serve an aiohttp application on loopback until SIGTERM or SIGINT: the one serving loop
of the test servers (timing truth, the tiny image engine). It learns the bound port (for
port 0), tells the caller through ``ready``, and cleans the runner up on the way out.
:func:`stop_server_process` is the other end: how the parent stops such a server."""

from __future__ import annotations

import asyncio
import contextlib
import signal
import subprocess
from typing import Any

from aiohttp import web


async def serve_until_signal(app: web.Application, host: str, port: int, ready: Any = None, **site_options: Any) -> None:
    """Run ``app`` on ``host:port`` (``site_options``: aiohttp's TCPSite options, e.g. backlog)."""
    runner = web.AppRunner(app, access_log=None, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, host, port, **site_options)
    await site.start()
    server = site._server  # noqa: SLF001 - the only way to learn the bound port when port == 0
    sockets = getattr(server, "sockets", None)  # asyncio.Server's; the AbstractServer type has none
    bound = sockets[0].getsockname()[1] if sockets else port
    if ready is not None:
        ready(bound)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        with contextlib.suppress(NotImplementedError, RuntimeError):
            loop.add_signal_handler(sig, stop.set)
    try:
        await stop.wait()
    finally:
        await runner.cleanup()


__all__ = ["serve_until_signal", "stop_server_process"]


def stop_server_process(proc: subprocess.Popen[Any] | None, timeout_s: float = 15.0) -> None:
    """SIGTERM (the serving loop above then cleans up), SIGKILL after ``timeout_s``, and close its pipe."""
    if proc is None:
        return
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stdout:
        proc.stdout.close()
