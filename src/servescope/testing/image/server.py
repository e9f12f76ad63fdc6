"""A small OpenAI-images server backed by the tiny offline pipeline (``pipeline``):
the image counterpart of the embedded llama.cpp engine, for tests and the demo.

Routes (the OpenAI images API, ``response_format: b64_json`` only):

- ``GET /v1/models``: ``tiny-diffusion`` (listed first: the default) and
  ``tiny-text-render`` (the test render mode: draws the prompt's quoted text);
- ``POST /v1/images/generations`` (JSON): ``prompt``, ``model``, ``n``, ``size``
  (``WxH``, multiples of 8), ``response_format``, and the extension fields vLLM-Omni
  uses: ``seed``, ``num_inference_steps``, ``guidance_scale`` (null or absent: the
  lane's default, 3.0); ``background: "transparent"`` (text render mode: RGBA);
- ``POST /v1/images/edits`` (multipart): the same fields as form fields plus
  ``image`` (or ``image[]``) files; the first image conditions the render (img2img).

The answer carries the renders as base64 PNG, ``timing.total_ms`` (the time the
pipeline took for the whole request, as a lane reports its own inference time;
left out with ``--no-timing``) and ``params`` (the effective steps, guidance and
seed, so a client can record what ``guidance: null`` meant). Renders run one at a
time on one thread, in arrival order. Bad input gets HTTP 400 with an OpenAI-style
``{"error": {...}}`` body; an unknown model 404.

``--extra-latency-ms`` (test only) waits that long before each render, outside
``timing.total_ms``: the wall clock then exceeds the lane's own time, which is how
a test tells which of the two a client used. ``--fault`` (test only) answers HTTP 200
with what is not a render: ``not-image`` (``b64_json`` holding text) or ``no-data``
(no ``data[]``); ``inflated-timing`` renders but claims a minute more in
``timing.total_ms`` than it took — so a client's handling of a broken lane can be tested.
A started server changes these three on ``POST /_servescope/behaviour`` (test only;
``with srv.behaving(fault="no-data"): ...``), so one server plays every lane a test needs.

Run: ``python -m servescope.testing.image.server --port 8000`` (prints
``READY <port>``), or in tests ``with ImageServer() as srv: srv.base_url``.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import io
import json
import selectors
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from aiohttp import BodyPartReader, web

from servescope.testing.image.pipeline import (
    DEFAULT_GUIDANCE,
    DEFAULT_STEPS,
    DIFFUSION_MODEL,
    MODELS,
    TEXT_RENDER_MODEL,
    RenderSpec,
    TinyDiffusion,
    check_size,
    render_text,
)
from servescope.testing.serve_app import serve_until_signal, stop_server_process

MAX_N = 4
FAULTS = ("not-image", "no-data", "inflated-timing")
# Test only (ImageServer.behaving): where a test changes the answers' behaviour of a started server.
BEHAVIOUR_PATH = "/_servescope/behaviour"
MAX_STEPS = 200


class BadRequest(Exception):
    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def _error(message: str, status: int = 400) -> web.Response:
    kind = "invalid_request_error" if status == 400 else "not_found_error"
    return web.json_response({"error": {"message": message, "type": kind, "code": status}}, status=status)


def _int(fields: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = fields.get(name)
    if value is None or value == "":
        return default
    try:
        number = int(value)
    except (TypeError, ValueError):
        raise BadRequest(f"{name}: {value!r} is not an integer") from None
    if (isinstance(value, float) and value != number) or isinstance(value, bool):
        raise BadRequest(f"{name}: {value!r} is not an integer")
    if not low <= number <= high:
        raise BadRequest(f"{name}: {number} is outside {low}..{high}")
    return number


def _size(value: Any) -> tuple[int, int]:
    if value is None or value == "":
        return 64, 64
    try:
        w, h = (int(x) for x in str(value).lower().split("x"))
    except ValueError:
        raise BadRequest(f"size: {value!r} is not WIDTHxHEIGHT") from None
    why = check_size(w, h)
    if why is not None:
        raise BadRequest(why)
    return w, h


def _guidance(value: Any) -> float:
    if value is None or value == "":
        return DEFAULT_GUIDANCE
    try:
        g = float(value)
    except (TypeError, ValueError):
        raise BadRequest(f"guidance_scale: {value!r} is not a number") from None
    if not 0.0 <= g <= 30.0:
        raise BadRequest(f"guidance_scale: {g} is outside 0..30")
    return g


class ImageApp:
    def __init__(self, *, timing: bool = True, extra_latency_ms: float = 0.0, fault: str | None = None) -> None:
        self.timing = timing
        self.fault = fault
        self.extra_latency_s = extra_latency_ms / 1000.0
        self.pipeline = TinyDiffusion()
        self.executor = ThreadPoolExecutor(max_workers=1)  # one render at a time, in order
        self.app = web.Application(client_max_size=64 << 20)
        self.app.router.add_get("/v1/models", self.models)
        self.app.router.add_post("/v1/images/generations", self.generations)
        self.app.router.add_post("/v1/images/edits", self.edits)
        self.app.router.add_post(BEHAVIOUR_PATH, self.behaviour)

    async def behaviour(self, request: web.Request) -> web.Response:
        """Test only: change how the server answers from now on (what --no-timing,
        --extra-latency-ms and --fault set at start), so one started server (torch and diffusers
        take seconds to import) plays each lane a test needs."""
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _error("the body is not JSON")
        if not isinstance(body, dict) or set(body) - {"timing", "extra_latency_ms", "fault"}:
            return _error("give a JSON object of timing, extra_latency_ms and fault")
        fault = body.get("fault")
        if fault is not None and fault not in FAULTS:
            return _error(f"fault {fault!r}: one of {', '.join(FAULTS)}")
        latency = body.get("extra_latency_ms", 0.0)
        if isinstance(latency, bool) or not isinstance(latency, (int, float)) or not 0 <= latency <= 60_000:
            return _error("extra_latency_ms: a number of ms from 0 to 60000")
        self.timing = bool(body.get("timing", True))
        self.fault = fault
        self.extra_latency_s = latency / 1000.0
        return web.json_response({"timing": self.timing, "extra_latency_ms": latency, "fault": self.fault})

    async def models(self, _request: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": m, "object": "model", "owned_by": "servescope-testing"} for m in MODELS]})

    async def generations(self, request: web.Request) -> web.Response:
        try:
            body = await request.json()
        except (ValueError, UnicodeDecodeError):
            return _error("the body is not JSON")
        if not isinstance(body, dict):
            return _error("the body must be a JSON object")
        return await self._answer(body, [])

    async def edits(self, request: web.Request) -> web.Response:
        from PIL import Image, UnidentifiedImageError

        if not request.content_type.startswith("multipart/"):
            return _error("/v1/images/edits takes multipart/form-data")
        fields: dict[str, Any] = {}
        refs: list[Any] = []
        reader = await request.multipart()
        async for part in reader:
            if not isinstance(part, BodyPartReader) or part.name is None:
                continue
            if part.name in ("image", "image[]"):
                data = await part.read()
                try:
                    refs.append(Image.open(io.BytesIO(bytes(data))).convert("RGB"))
                except (UnidentifiedImageError, OSError):
                    return _error(f"{part.name}: not an image PNG/JPEG/WebP can be read from")
            else:
                fields[part.name] = await part.text()
        if not refs:
            return _error("an edit needs at least one image (form field image or image[])")
        return await self._answer(fields, refs)

    async def _answer(self, fields: dict[str, Any], refs: list[Any]) -> web.Response:
        try:
            prompt = fields.get("prompt")
            if not isinstance(prompt, str) or not prompt.strip():
                raise BadRequest("prompt: required, a non-empty string")
            model = fields.get("model") or DIFFUSION_MODEL
            if model not in MODELS:
                raise BadRequest(f"model {model!r} is not served here (models: {', '.join(MODELS)})", status=404)
            fmt = fields.get("response_format") or "b64_json"
            if fmt != "b64_json":
                raise BadRequest(f"response_format {fmt!r}: only b64_json is served")
            n = _int(fields, "n", 1, 1, MAX_N)
            width, height = _size(fields.get("size"))
            steps = _int(fields, "num_inference_steps", DEFAULT_STEPS, 1, MAX_STEPS)
            seed = _int(fields, "seed", 0, 0, 2**63 - 1)
            guidance = _guidance(fields.get("guidance_scale"))
            background = fields.get("background")
            if background not in (None, "", "auto", "opaque", "transparent"):
                raise BadRequest(f"background {background!r}: use auto, opaque or transparent")
        except BadRequest as exc:
            return _error(str(exc), exc.status)
        if self.extra_latency_s:
            await asyncio.sleep(self.extra_latency_s)
        if self.fault == "no-data":
            return web.json_response({"created": int(time.time()), "result": "done"})
        if self.fault == "not-image":
            return web.json_response({"created": int(time.time()), "data": [{"b64_json": base64.b64encode(b"not a picture").decode()}]})
        specs = [RenderSpec(prompt, width, height, steps, seed + i, guidance, background or None) for i in range(n)]
        ref = refs[0] if refs else None
        loop = asyncio.get_running_loop()
        pngs, total_ms = await loop.run_in_executor(self.executor, self._render_all, model, specs, ref)
        out: dict[str, Any] = {
            "created": int(time.time()),
            "data": [{"b64_json": base64.b64encode(p).decode("ascii"), "revised_prompt": None} for p in pngs],
            "params": {"model": model, "num_inference_steps": steps, "guidance_scale": guidance, "seed": seed, "size": f"{width}x{height}"},
        }
        if self.timing:
            out["timing"] = {"total_ms": total_ms + (60_000.0 if self.fault == "inflated-timing" else 0.0)}
        return web.json_response(out)

    def _render_all(self, model: str, specs: list[RenderSpec], ref: Any) -> tuple[list[bytes], float]:
        t0 = time.perf_counter()
        pngs = []
        for spec in specs:
            image = render_text(spec, ref) if model == TEXT_RENDER_MODEL else self.pipeline.render(spec, ref)
            buf = io.BytesIO()
            image.save(buf, format="PNG")
            pngs.append(buf.getvalue())
        return pngs, (time.perf_counter() - t0) * 1000.0


async def serve(app: ImageApp, host: str, port: int, ready: Any = None) -> None:
    try:
        await serve_until_signal(app.app, host, port, ready)
    finally:
        app.executor.shutdown(wait=False, cancel_futures=True)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m servescope.testing.image.server", description="A tiny OpenAI-images server (offline diffusers pipeline).")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8000, help="0: any free port (printed as READY <port>)")
    p.add_argument("--no-timing", action="store_true", help="leave timing.total_ms out of the answers (a lane that does not report its time)")
    p.add_argument("--extra-latency-ms", type=float, default=0.0, help="test only: wait this long before each render, outside timing.total_ms")
    p.add_argument(
        "--fault",
        choices=FAULTS,
        default=None,
        help="test only: not-image (b64_json of text), no-data (no data[]), inflated-timing (timing.total_ms a minute too long)",
    )
    return p


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    try:
        import diffusers  # noqa: F401
        import torch  # noqa: F401
    except ImportError as exc:
        print(f"error: the tiny image engine needs {exc.name}, which is not installed: pip install 'servescope[image]'", file=sys.stderr)
        return 2
    app = ImageApp(timing=not a.no_timing, extra_latency_ms=a.extra_latency_ms, fault=a.fault)

    def ready(port: int) -> None:
        print(f"READY {port}", flush=True)

    asyncio.run(serve(app, a.host, a.port, ready))
    return 0


class ImageServer:
    """The image server in a subprocess on a free loopback port:
    ``with ImageServer() as srv: srv.base_url``."""

    def __init__(
        self, *, timing: bool = True, extra_latency_ms: float = 0.0, fault: str | None = None, host: str = "127.0.0.1", start_timeout_s: float = 120.0
    ) -> None:
        self.timing = timing
        self.fault = fault
        self.extra_latency_ms = extra_latency_ms
        self.host = host
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen[str] | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("image server not started")
        return f"http://{self.host}:{self.port}"

    def command(self) -> list[str]:
        cmd = [sys.executable, "-m", "servescope.testing.image.server", "--host", self.host, "--port", "0"]
        if not self.timing:
            cmd.append("--no-timing")
        if self.extra_latency_ms:
            cmd += ["--extra-latency-ms", repr(self.extra_latency_ms)]
        if self.fault:
            cmd += ["--fault", self.fault]
        return cmd

    def start(self) -> ImageServer:
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        line = ""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if sel.select(timeout=self.start_timeout_s):
                line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"image server did not start (got {line!r})")
        self.port = int(line.split()[1])
        return self

    def stop(self) -> None:
        stop_server_process(self.proc)
        self.proc = None

    def __enter__(self) -> ImageServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @contextlib.contextmanager
    def behaving(self, *, timing: bool = True, extra_latency_ms: float = 0.0, fault: str | None = None) -> Iterator[ImageServer]:
        """This started server answers as ``ImageServer(timing=..., extra_latency_ms=..., fault=...)``
        would inside the block, and as it was started outside it."""
        self.post(BEHAVIOUR_PATH, {"timing": timing, "extra_latency_ms": extra_latency_ms, "fault": fault})
        try:
            yield self
        finally:
            self.post(BEHAVIOUR_PATH, {"timing": self.timing, "extra_latency_ms": self.extra_latency_ms, "fault": self.fault})

    def post(self, path: str, body: dict[str, Any], timeout_s: float = 60.0) -> Any:
        import urllib.request

        req = urllib.request.Request(self.base_url + path, data=json.dumps(body).encode(), headers={"Content-Type": "application/json"})
        with urllib.request.urlopen(req, timeout=timeout_s) as r:  # noqa: S310 - loopback only
            return json.loads(r.read())


if __name__ == "__main__":
    raise SystemExit(main())
