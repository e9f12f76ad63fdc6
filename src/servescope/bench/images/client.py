"""Send one render to an image lane and read its answer into a record.

The renders are decoded in memory and never written anywhere: no file holds a
generated image at any moment, so nothing can be left on disk by a run that is
interrupted, fails, or is killed (SIGKILL included). What a render is timed by goes
in ``record.raw["payload"]``: ``timing_source`` is ``lane`` when the answer carried
the lane's own inference time (``timing.total_ms``), which is then used, else
``wall`` (request sent -> answer read; also when the lane claims more time than the
request took, with a ``timing_note``); ``s_per_image`` is that time over the images
of the request.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import io
import json
import time
from typing import Any

import aiohttp

from servescope.bench.endpoint import Endpoint
from servescope.bench.images.lane import ImageAsk, Lane
from servescope.documents.failures import classify_http_error
from servescope.documents.record import RequestRecord
from servescope.redaction import redact

ERROR_TEXT_LIMIT = 300
WALL_SLACK_MS = 1.0  # clocks of two processes: a lane's own time may read a hair over the client's


def _fail(record: RequestRecord, stage: str, category: str, message: str, t0_ns: int) -> None:
    record.ok = False
    record.stage = stage
    record.category = category
    record.error = redact(message)[:ERROR_TEXT_LIMIT]
    if record.end_ns is None:
        record.end_ns = time.perf_counter_ns() - t0_ns


def images_url(endpoint: Endpoint, edit: bool) -> str:
    return f"{endpoint.base_url}/v1/images/{'edits' if edit else 'generations'}"


def _form(fields: dict[str, Any], refs: list[bytes]) -> aiohttp.FormData:
    form = aiohttp.FormData()
    for key, value in fields.items():
        form.add_field(key, value if isinstance(value, str) else json.dumps(value))
    name = "image" if len(refs) == 1 else "image[]"
    for i, ref in enumerate(refs):
        form.add_field(name, ref, filename=f"reference-{i}.png", content_type="image/png")
    return form


def decode_image(b64: str) -> tuple[bytes, Any] | str:
    """(bytes, PIL image) of one base64 render, in memory; or why it is not an image."""
    from PIL import Image, UnidentifiedImageError

    try:
        data = base64.b64decode(b64, validate=True)
    except (binascii.Error, ValueError):
        return "b64_json is not base64"
    try:
        image = Image.open(io.BytesIO(data))
        image.load()
    except (UnidentifiedImageError, OSError, ValueError, SyntaxError, Image.DecompressionBombError) as exc:
        return f"b64_json is not an image ({type(exc).__name__})"
    return data, image


async def render(
    session: aiohttp.ClientSession,
    endpoint: Endpoint,
    lane: Lane,
    ask: ImageAsk,
    refs: list[bytes],
    record: RequestRecord,
    *,
    t0_ns: int,
    timeout_s: float,
    extra: dict[str, Any] | None = None,
) -> list[tuple[bytes, Any]]:
    """Send one render; fill ``record``; return its images as (PNG bytes, PIL image), in
    memory, [] on failure."""
    fields = {**lane.fields(ask), **(extra or {})}  # --extra-body: checked not to touch the pinned fields (runners.check_image_options)
    url = images_url(endpoint, bool(refs))
    record.sent_ns = time.perf_counter_ns() - t0_ns
    sent = time.perf_counter_ns()
    try:
        async with asyncio.timeout(timeout_s):
            kwargs: dict[str, Any] = {"data": _form(fields, refs)} if refs else {"json": fields}
            async with session.post(url, headers=endpoint.auth_headers(), **kwargs) as resp:
                record.http_status = resp.status
                body = await resp.read()
    except TimeoutError:
        _fail(record, "stream", "timeout", f"no answer within {timeout_s:g} s", t0_ns)
        return []
    except asyncio.CancelledError:
        _fail(record, "stream", "cancelled", "cancelled (run interrupted)", t0_ns)
        raise
    except (aiohttp.ClientError, OSError) as exc:
        _fail(record, "connect", "connection", " ".join(str(exc).split()) or type(exc).__name__, t0_ns)
        return []
    wall_ms = (time.perf_counter_ns() - sent) / 1e6
    record.end_ns = time.perf_counter_ns() - t0_ns
    text = body.decode("utf-8", errors="replace")
    if record.http_status != 200:
        status = record.http_status or 0
        _fail(record, "stream", classify_http_error(status, text), f"HTTP {status}: {' '.join(text.split())}", t0_ns)
        return []
    try:
        payload = json.loads(body)
    except ValueError:
        _fail(record, "stream", "malformed-output", f"the answer is not JSON: {' '.join(text.split())[:120]}", t0_ns)
        return []
    answer = lane.read(payload)
    if answer.problem is not None:
        _fail(record, "stream", "malformed-output", answer.problem, t0_ns)
        return []
    images = []
    for i, b64 in enumerate(answer.images_b64):
        decoded = decode_image(b64)
        if isinstance(decoded, str):
            _fail(record, "stream", "malformed-output", f"data[{i}]: {decoded}", t0_ns)
            return []
        images.append(decoded)
    if len(images) != ask.n:
        _fail(record, "stream", "malformed-output", f"asked for {ask.n} image(s), the answer has {len(images)}", t0_ns)
        return []
    # The lane's own time, unless it claims more than the request took end to end (then it is not its inference time).
    lane_ms = answer.total_ms if answer.total_ms is not None and answer.total_ms <= wall_ms + WALL_SLACK_MS else None
    seconds = (lane_ms if lane_ms is not None else wall_ms) / 1000.0
    record.raw = {
        "payload": {
            "timing_source": "lane" if lane_ms is not None else "wall",
            "lane_total_ms": answer.total_ms,
            "wall_ms": wall_ms,
            "images": len(images),
            "s_per_image": seconds / len(images),
            "size": list(images[0][1].size),
            "guidance": answer.guidance,
        }
    }
    if answer.total_ms is not None and lane_ms is None:
        record.raw["payload"]["timing_note"] = "the lane's timing.total_ms exceeds the wall clock of the request: not used"
    return images
