#!/usr/bin/env python
"""CPU per streamed token: servescope's client versus a bare asyncio Protocol (the floor).

Same truth server and load for each variant (256 streams, ITL 25 ms ± 12.5 ms,
48 tokens per request, 1,024 requests), each variant in a fresh process, CPU
from getrusage. The bare client stamps and parses each read inside
``Protocol.data_received`` (no task wake-up per chunk) and opens a new
connection per request, so it is a conservative floor. Run on both event
loops (uvloop when ``--uvloop-path`` points at a folder holding it).

    .venv/bin/python benchmarks/client_floor.py --uvloop-path /tmp/uvloop-only
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from servescope.testing.truth.server import TruthServer, raise_nofile_limit

HERE = Path(__file__).resolve().parent


class _Bare(asyncio.Protocol):
    def __init__(self, done: asyncio.Future[None]) -> None:
        self.done = done
        self.stamps: list[int] = []

    def data_received(self, data: bytes) -> None:
        now = time.perf_counter_ns()
        for part in data.split(b"\n\n"):
            i = part.find(b"data: {")
            if i >= 0:
                json.loads(part[i + 6 :])
                self.stamps.append(now)
        if b"0\r\n\r\n" in data and not self.done.done():
            self.done.set_result(None)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.done.done():
            self.done.set_result(None)


async def _bare_load(port: int, conc: int, n: int, tokens: int) -> None:
    loop = asyncio.get_running_loop()
    body = json.dumps({"max_tokens": tokens, "stream": True, "messages": [{"role": "user", "content": "hi"}]}).encode()
    req = b"POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    left = [n]

    async def worker() -> None:
        while left[0] > 0:
            left[0] -= 1
            done: asyncio.Future[None] = loop.create_future()
            tr, _ = await loop.create_connection(lambda done=done: _Bare(done), "127.0.0.1", port)
            tr.write(req)
            await done
            tr.close()

    await asyncio.gather(*(worker() for _ in range(conc)))


def bare_main(spec: dict[str, Any]) -> int:
    raise_nofile_limit()
    if spec["loop"] == "uvloop":
        import uvloop

        asyncio.set_event_loop_policy(uvloop.EventLoopPolicy())
    r0 = resource.getrusage(resource.RUSAGE_SELF)
    asyncio.run(_bare_load(spec["port"], spec["concurrency"], spec["requests"], spec["max_tokens"]))
    r1 = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({"cpu_s": r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime}))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bare-spec", help=argparse.SUPPRESS)
    ap.add_argument("--uvloop-path", default=None)
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", type=Path, default=HERE / "results" / "client_floor.json")
    a = ap.parse_args(argv)
    if a.bare_spec:
        return bare_main(json.loads(a.bare_spec))
    conc, n, tokens = 256, 1024, 48
    loops = ["asyncio"] + (["uvloop"] if a.uvloop_path else [])
    env = dict(os.environ)
    if a.uvloop_path:
        env["PYTHONPATH"] = os.pathsep.join(p for p in (a.uvloop_path, env.get("PYTHONPATH")) if p)
    res: dict[str, list[float]] = {}
    with TruthServer(ttft_ms=20, itl_ms=25, jitter_ms=12.5, seed=7) as srv:
        assert srv.port is not None
        for rep in range(a.repeats):
            for loop in loops:
                for kind in ("servescope", "bare"):
                    if kind == "servescope":
                        spec = {
                            "url": srv.base_url,
                            "concurrency": conc,
                            "requests": n,
                            "warmup": 0,
                            "max_tokens": tokens,
                            "id_prefix": f"f{rep}{loop}",
                            "out": f"/tmp/client-floor-{os.getpid()}.jsonl",
                            "timeout_s": 60,
                            "time_limit_s": 120,
                            "loop": loop,
                        }
                        cmd = [sys.executable, str(HERE / "client_timing.py"), "--client-spec", json.dumps(spec)]
                    else:
                        spec = {"port": srv.port, "concurrency": conc, "requests": n, "max_tokens": tokens, "loop": loop}
                        cmd = [sys.executable, __file__, "--bare-spec", json.dumps(spec)]
                    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300, check=True)
                    with_out = Path(f"/tmp/client-floor-{os.getpid()}.jsonl")
                    with_out.unlink(missing_ok=True)
                    us = json.loads(r.stdout.strip().splitlines()[-1])["cpu_s"] / (n * tokens) * 1e6
                    res.setdefault(f"{kind}/{loop}", []).append(round(us, 1))
                    print(f"{kind:10} {loop:7} {us:6.1f} us CPU per token", flush=True)
    summary = {k: {"runs_us": v, "mean_us": sum(v) / len(v)} for k, v in res.items()}
    a.out.parent.mkdir(parents=True, exist_ok=True)
    a.out.write_text(
        json.dumps({"load": {"streams": conc, "requests": n, "tokens": tokens, "itl_ms": 25, "jitter_ms": 12.5}, "cpu_us_per_token": summary}, indent=1) + "\n"
    )
    for k, v in summary.items():
        print(f"{k:20} mean {v['mean_us']:6.1f} us/token  {v['runs_us']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
