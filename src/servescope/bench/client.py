"""The streaming client: one request in, one ``RequestRecord`` out.

The per-chunk loop is the hot path: it stamps ``perf_counter_ns`` once per read
from the socket, feeds the SSE parser and parses each event — nothing else.
Every way a request can fail ends in the record with a stage and a category;
nothing raises out of ``send``.

Bounded whatever the server does (``servescope.limits``): an error answer is read up
to ``MAX_ERROR_BODY_BYTES``, a stream up to ``MAX_RESPONSE_BYTES``, and the SSE parser
refuses an endless line or event; each is a ``malformed-output`` failure, so a request's
memory is bounded by those limits. Every text a record keeps (error messages, server
bodies, output) passes ``redaction.redact`` with the API key, so a server that echoes
the ``Authorization`` header cannot put the key on disk.

What a server answers is checked before it becomes a number: bytes that are not HTTP
(a wrong port, a proxy speaking another protocol) and a ``usage`` block with counts
that cannot be true (negative, not integers, more completion tokens than
``max_tokens`` allows) are ``malformed-output`` failures of that request, so a record
on disk never carries an impossible count.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

import aiohttp

from servescope import limits
from servescope.bench.endpoint import Endpoint, classify_http_error
from servescope.bench.load import Gate, NotSent, StagedGate
from servescope.bench.openai_stream import parse_chunk
from servescope.bench.sse import SseLimitError, SseParser
from servescope.documents.record import RequestRecord
from servescope.redaction import redact

# Request bodies are sent as pre-encoded bytes so JSON encoding is not timed.
_json_dumps: Any
try:  # pragma: no cover - optional speed-up
    import orjson

    def _json_dumps(obj: Any) -> bytes:
        return orjson.dumps(obj)
except ImportError:  # pragma: no cover
    import json

    def _json_dumps(obj: Any) -> bytes:
        return json.dumps(obj, separators=(",", ":")).encode()


# Sends of a request that never reached the server (see _stream); each is counted in
# record.attempts and the Result's resends.
_SEND_ATTEMPTS = 4

# completion_tokens a server may report past the request's max_tokens: an engine may
# count its stop token, and a speculative step can overshoot by its draft length before
# the output is cut. More than this is a count the request cannot have produced.
USAGE_MAX_TOKENS_SLACK = 16


def _one_line(text: str, limit: int = 300) -> str:
    return " ".join(text.split())[:limit]


def _count_problem(usage: dict[str, Any], key: str, ceiling: int | None) -> str | None:
    value = usage.get(key)
    if value is None:
        return None
    if type(value) is not int:  # bool is an int to Python, never a count
        return f"usage.{key} is {value!r}, not a whole number"
    if value < 0:
        return f"usage.{key} is {value}, below 0"
    if value > limits.MAX_TOKENS:
        return f"usage.{key} is {value:,}, above {limits.MAX_TOKENS:,} (SERVESCOPE_MAX_TOKENS)"
    if ceiling is not None and value > ceiling:
        return f"usage.{key} is {value:,}, more than max_tokens {ceiling - USAGE_MAX_TOKENS_SLACK:,} allows"
    return None


def usage_problem(usage: dict[str, Any], max_tokens: Any) -> str | None:
    """Why a server's ``usage`` block cannot be true (one phrase), or None."""
    ceiling = max_tokens + USAGE_MAX_TOKENS_SLACK if type(max_tokens) is int and max_tokens > 0 else None
    for key, limit in (("prompt_tokens", None), ("completion_tokens", ceiling)):
        problem = _count_problem(usage, key, limit)
        if problem is not None:
            return problem
    details = usage.get("prompt_tokens_details")
    if isinstance(details, dict) and (cached := details.get("cached_tokens")) is not None:
        problem = _count_problem(details, "cached_tokens", None)
        if problem is not None:
            return problem.replace("usage.", "usage.prompt_tokens_details.")
        prompt = usage.get("prompt_tokens")
        if type(prompt) is int and cached > prompt:
            return f"usage.prompt_tokens_details.cached_tokens is {cached:,}, more than prompt_tokens {prompt:,}"
    return None


# aiohttp 3.12 writes a body through Payload.write_with_length and holds the headers back until the
# body's first bytes: the gate depends on both (pyproject requires aiohttp >= 3.12).
class _GatedBody(aiohttp.payload.BytesPayload):
    """A request body completed only once ``gate`` says so: the request is prepared ahead of
    its send (connection taken, headers built), its headers and all of its body but the last
    byte are written then, and the last byte at the gate. The server can act on a request only
    once its body is whole (Content-Length), so the request reaches it at its scheduled time;
    what the gate writes is one byte, whatever the prompt's size, so the sends due at one
    instant go out together rather than one body copy after another (a 500 KB prompt costs
    ~0.1 ms of loopback TCP work on the sender's CPU). ``record.sent_ns`` and
    ``record.attempts`` are stamped at the gate, when the request is completed on the
    connection. A gate that says ``False`` (the run stopped first) stamps nothing and never
    completes the request: a connection holding part of one is aborted, so the server
    discards it (:class:`NotSent`)."""

    def __init__(self, value: bytes, gate: Gate, record: RequestRecord, t0_ns: int, attempt: int) -> None:
        super().__init__(value, content_type="application/json")
        self._gate = gate
        self._record = record
        self._t0_ns = t0_ns
        self._attempt = attempt

    async def write_with_length(self, writer: Any, content_length: int | None) -> None:
        body = memoryview(self._value)
        if content_length is not None:
            body = body[:content_length]
        gate = self._gate
        rest: bytes | memoryview = body  # what is still to be written
        transport: asyncio.Transport | None = None
        fire: Callable[[], None] | None = None
        if not gate.done() and len(body) > 1:
            await writer.write(body[:-1])  # (aiohttp's held-back headers go with it)
            rest = bytes(body[-1:])
            transport = conn = getattr(writer, "transport", None)
            if isinstance(gate, StagedGate) and conn is not None and not gate.done():

                def fire() -> None:
                    # the opener's call at the scheduled time: the request completed there, no wake-up between
                    nonlocal rest
                    if conn.is_closing():
                        return  # (lost while staged: sent again by _stream, on a new connection)
                    self._stamp()
                    conn.write(rest)
                    rest = b""

                gate.on_open = fire
        try:
            go = await _go(gate)
        finally:
            if isinstance(gate, StagedGate) and fire is not None and gate.on_open is fire:
                gate.on_open = None  # (cancelled, or stopped: never called late)
        if not go:
            if transport is not None:
                transport.abort()  # part of a request on it: never reused, never completed
            raise NotSent  # aiohttp hands it back wrapped in a ClientConnectionError: see _stream
        if rest:  # (empty once the opener completed it)
            self._stamp()
            await writer.write(rest)

    def _stamp(self) -> None:
        self._record.sent_ns = time.perf_counter_ns() - self._t0_ns
        self._record.attempts = self._attempt  # None until then: a request stopped while staged was never sent


async def _go(gate: Gate) -> bool:
    """The gate's answer, waited for shielded: aiohttp cancels a body writer whose pooled connection
    was closed while it waited (a keep-alive timeout), and the gate must survive for the retry."""
    return gate.result() if gate.done() else await asyncio.shield(gate)


def make_session(max_connections: int = 0) -> aiohttp.ClientSession:
    """One session per run; unlimited connections unless asked (closed loop sets its own)."""
    # Idle connections are dropped after 4 s, before servers such as llama.cpp
    # (cpp-httplib: 5 s) close them under us.
    connector = aiohttp.TCPConnector(limit=max_connections, limit_per_host=0, force_close=False, enable_cleanup_closed=True, keepalive_timeout=4.0)
    return aiohttp.ClientSession(
        connector=connector,
        timeout=aiohttp.ClientTimeout(total=None),
        auto_decompress=False,
        cookie_jar=aiohttp.DummyCookieJar(),  # no cookie filtering per response
    )


async def send(
    session: aiohttp.ClientSession,
    endpoint: Endpoint,
    body: dict[str, Any],
    record: RequestRecord,
    *,
    t0_ns: int,
    timeout_s: float,
    keep_text: bool = False,
    gate: Gate | None = None,
) -> RequestRecord:
    """Send one streaming request and fill ``record`` (times relative to ``t0_ns``).
    With ``gate`` (an open loop's staged send, ``bench.load.open_loop``) the request is
    prepared now and its bytes written when the gate says ``True``; the timeout counts from
    now. When it says ``False`` nothing is written or stamped and :class:`NotSent` is raised."""
    payload = _json_dumps(body)
    max_tokens = body.get("max_tokens", body.get("max_completion_tokens"))
    try:
        async with asyncio.timeout(timeout_s):  # no extra task per request, unlike wait_for
            await _stream(session, endpoint, payload, record, t0_ns, keep_text, max_tokens, gate)
    except TimeoutError:
        _fail(record, "first-token" if record.first_token_ns is None else "stream", "timeout", f"no completion within {timeout_s:g} s", t0_ns)
    except asyncio.CancelledError:
        _fail(record, "stream", "cancelled", "cancelled (run interrupted)", t0_ns)
        raise
    finally:
        _redact(record, endpoint)
    return record


def _redact(record: RequestRecord, endpoint: Endpoint) -> None:
    secrets = (endpoint.api_key,)
    if record.error:
        record.error = redact(record.error, secrets)
    if record.output_text:
        record.output_text = redact(record.output_text, secrets)


async def _read_capped(resp: aiohttp.ClientResponse, cap: int) -> tuple[bytes, bool]:
    """At most ``cap`` bytes of the body; (bytes, whether there was more)."""
    parts: list[bytes] = []
    size = 0
    async for data in resp.content.iter_any():
        parts.append(data)
        size += len(data)
        if size > cap:
            return b"".join(parts)[:cap], True
    return b"".join(parts), False


def _fail(record: RequestRecord, stage: str, category: str, message: str, t0_ns: int) -> None:
    record.ok = False
    record.stage = stage
    record.category = category
    record.error = message
    if record.end_ns is None:
        record.end_ns = time.perf_counter_ns() - t0_ns


async def _stream(
    session: aiohttp.ClientSession,
    endpoint: Endpoint,
    payload: bytes,
    record: RequestRecord,
    t0_ns: int,
    keep_text: bool,
    max_tokens: Any = None,
    gate: Gate | None = None,
) -> None:
    perf = time.perf_counter_ns
    for attempt in range(_SEND_ATTEMPTS):
        data: bytes | _GatedBody
        if gate is None:
            record.sent_ns = perf() - t0_ns
            record.attempts = attempt + 1
            data = payload
        else:  # stamped when its bytes are written, at the gate
            data = _GatedBody(payload, gate, record, t0_ns, attempt + 1)
        try:
            try:
                resp = await session.post(endpoint.url, data=data, headers=endpoint.headers())
            except (aiohttp.ClientError, OSError):
                if gate is not None and record.attempts != attempt + 1:
                    # failed while staged (a connection refused): the failure is recorded at the
                    # request's time, as an unstaged send would have met it, never before;
                    # or the run stopped before that time: the request was never sent
                    if not await _go(gate):
                        raise NotSent from None
                    record.sent_ns = perf() - t0_ns
                    record.attempts = attempt + 1
                raise
        except aiohttp.ClientConnectorError as exc:  # refused, unreachable: nothing to retry
            _fail(record, "connect", "connection", f"{type(exc).__name__}: {exc}", t0_ns)
            return
        except (aiohttp.ServerDisconnectedError, aiohttp.ClientOSError) as exc:
            # The request never reached the server: a pooled keep-alive connection it had
            # closed, or a write refused before any response. Safe to send again (on another
            # connection); the time lost stays inside the measured latency.
            if attempt + 1 < _SEND_ATTEMPTS:
                await asyncio.sleep(0.005 * attempt)
                continue
            _fail(record, "connect", "connection", f"{type(exc).__name__}: {exc} (after {_SEND_ATTEMPTS} attempts)", t0_ns)
            return
        except (aiohttp.ClientConnectionError, OSError) as exc:
            _fail(record, "connect", "connection", f"{type(exc).__name__}: {exc}", t0_ns)
            return
        except aiohttp.ClientResponseError as exc:
            # aiohttp's parser refused the answer's status line or headers: the server (or
            # whatever listens on that port) does not speak HTTP/1.1.
            _fail(record, "send", "malformed-output", f"not an HTTP answer: {_one_line(exc.message)}", t0_ns)
            return
        except aiohttp.ClientError as exc:  # any other client failure: still a record, never a raise
            _fail(record, "send", "other", f"{type(exc).__name__}: {_one_line(str(exc))}", t0_ns)
            return
        break
    async with resp:
        record.http_status = resp.status
        if resp.status >= 400:
            try:
                raw, _ = await _read_capped(resp, limits.MAX_ERROR_BODY_BYTES)
            except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, OSError):
                raw = b""
            text = redact(raw.decode("utf-8", errors="replace"), (endpoint.api_key,))  # before it is cut
            _fail(record, "send", classify_http_error(resp.status, text), f"HTTP {resp.status}: {text[:300]}", t0_ns)
            return
        content_type = resp.headers.get("Content-Type", "")
        parser = SseParser()
        max_bytes = limits.MAX_RESPONSE_BYTES
        received = 0
        chunks = record.chunk_ns
        texts: list[str] = []
        calls: dict[int, dict[str, Any]] = {}  # tool-call fragments by index (kept with the text)
        n_token_chunks = 0
        usage: dict[str, Any] | None = None
        finished = False
        try:
            async for data in resp.content.iter_any():
                now = perf() - t0_ns
                received += len(data)
                if received > max_bytes:
                    _fail(record, "stream", "malformed-output", f"response passed {max_bytes:,} bytes (SERVESCOPE_MAX_RESPONSE_BYTES); stopped reading", t0_ns)
                    return
                for event in parser.feed(data):
                    info = parse_chunk(event.data)
                    if info.done:
                        finished = True
                        continue
                    if info.error is not None or event.event == "error":
                        msg = redact(info.error or event.data, (endpoint.api_key,))[:300]
                        cat = classify_http_error(info.error_code or 500, msg)
                        _fail(record, "stream", "context-overflow" if cat == "context-overflow" else "stream-error", msg, t0_ns)
                        record.end_ns = now
                        return
                    if info.content or info.reasoning or info.tool_calls:
                        if record.first_token_ns is None:
                            record.first_token_ns = now
                        chunks.append(now)
                        n_token_chunks += 1
                        if keep_text and info.content:
                            texts.append(info.content)
                        if keep_text and info.tool_calls:
                            _merge_tool_calls(calls, info.tool_calls)
                    if info.usage is not None:
                        usage = info.usage
                    if info.timings is not None:
                        record.server_timings = info.timings
                    if info.finish_reason is not None:
                        record.finish_reason = info.finish_reason
        except SseLimitError as exc:
            _fail(record, "stream", "malformed-output", f"stream refused: {exc}", t0_ns)
            return
        except (aiohttp.ClientPayloadError, aiohttp.ClientConnectionError, OSError) as exc:
            _fail(record, "stream", "connection", f"stream broken: {type(exc).__name__}: {exc}", t0_ns)
            return
        try:
            tail = parser.close()
        except SseLimitError as exc:
            _fail(record, "stream", "malformed-output", f"stream refused: {exc}", t0_ns)
            return
        for event in tail:
            info = parse_chunk(event.data)
            if info.done:
                finished = True
            elif info.usage is not None:
                usage = info.usage
        record.end_ns = perf() - t0_ns
    if keep_text:
        record.output_text = "".join(texts)
        if calls:
            record.tool_calls = [calls[i] for i in sorted(calls)]
    if usage and (problem := usage_problem(usage, max_tokens)) is not None:
        # Nothing of an impossible usage block is kept: the counts stay null.
        _fail(record, "stream", "malformed-output", f"impossible token counts: {problem}", t0_ns)
        return
    if usage:
        record.output_tokens = usage.get("completion_tokens")
        record.input_tokens = usage.get("prompt_tokens")
        details = usage.get("prompt_tokens_details")
        if isinstance(details, dict) and isinstance(details.get("cached_tokens"), int):
            record.cached_tokens = details["cached_tokens"]
        record.token_count_source = "server-usage"
    else:
        record.output_tokens = n_token_chunks
        record.token_count_source = "stream-count"
    if not (finished or record.finish_reason or usage) and not chunks and not content_type.lower().startswith("text/event-stream"):
        # e.g. one JSON answer from a server that ignores "stream": true: it answered, unreadably
        what = _one_line(content_type, 80) or "none"
        _fail(record, "stream", "malformed-output", f"answered HTTP {resp.status} with Content-Type {what}, not a stream of server-sent events", t0_ns)
    elif not (finished or record.finish_reason or usage):
        _fail(record, "stream", "connection", "stream ended before completion (no finish_reason, usage or [DONE])", t0_ns)
    elif record.first_token_ns is None:
        _fail(record, "first-token", "malformed-output", "stream completed without any token", t0_ns)


def _merge_tool_calls(calls: dict[int, dict[str, Any]], fragments: list[dict[str, Any]]) -> None:
    """Streamed tool calls arrive in pieces: the name once, the arguments string in parts."""
    for frag in fragments:
        index = frag.get("index", len(calls))
        slot = calls.setdefault(int(index) if isinstance(index, int) else len(calls), {"type": "function", "function": {"name": "", "arguments": ""}})
        if isinstance(frag.get("id"), str):
            slot["id"] = frag["id"]
        fn = frag.get("function")
        if isinstance(fn, dict):
            if isinstance(fn.get("name"), str):
                slot["function"]["name"] += fn["name"]
            if isinstance(fn.get("arguments"), str):
                slot["function"]["arguments"] += fn["arguments"]
