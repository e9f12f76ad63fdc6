"""A timing-truth server: an OpenAI-compatible streaming endpoint that emits each
token at a scheduled time and logs the moment it wrote it.

It exists to measure *clients* (servescope's own, aiperf, ...): a client's
receipt time for token k minus the server's logged write time for token k is the
client's timing error plus loopback latency. Times are ``time.perf_counter_ns()``,
which on Linux reads CLOCK_MONOTONIC — one clock shared by every process on the
machine, so a client's ``perf_counter_ns`` stamps compare directly.

Schedule of one request (all relative to the moment the handler starts, i.e. the
request's headers and body have arrived): token k (0-based) is due at
``ttft_ms + k * itl_ms`` plus, when ``jitter_ms`` > 0, a deterministic uniform
jitter in ±jitter_ms per gap drawn from ``(seed, request id)``. Every sleep aims
at an absolute deadline, so lateness never accumulates. ``max_tokens`` tokens
are sent (``default_max_tokens`` when the body has none). The truth logged for
each token is the ``perf_counter_ns()`` read just before its bytes are handed to
the socket (``transport.write``; on loopback the kernel takes them at once —
the log counts the writes that found the socket buffer full, ``backlogged``).

Fault injection (server options, or per request in the body's ``"truth"`` object):

- ``error_after=k``: after k tokens, a ``data: {"error": {...}}`` event, then the stream ends.
- ``drop_after=k``: after k tokens the TCP connection is aborted (no chunked terminator).
- ``omit_done``: no ``data: [DONE]`` at the end (finish_reason is still sent).
- ``usage``: true/false forces the usage chunk on/off; null follows
  ``stream_options.include_usage``.
- ``overflow`` (force) or ``context_size=M`` (when prompt tokens > M): HTTP 400 with
  llama.cpp's ``exceed_context_size_error`` body.
- ``status=S``: answer HTTP S with an error body (e.g. 503 to look overloaded).
- ``usage_fields={...}``: the usage chunk is sent (whatever ``usage`` says) with these
  values in place of the counted ones, as given — a server that reports impossible
  counts (``{"completion_tokens": -5}``, ``{"prompt_tokens": 1.5}``).

Request id (to match client records to log entries), first found of: header
``X-Request-ID``, body ``truth.id``, body ``user``, a ``[truth-id:ID]`` marker in
the prompt, else ``<pid>-<n>``. The id is echoed in the ``X-Truth-Id`` response header.

A recorded ``/metrics`` page (``--metrics-file``, e.g. a real vLLM or SGLang page)
is served as is at ``GET /metrics``, so a client's engine-metrics sampler runs
against realistic text while its token timing is held against the log.

The log: one entry per request (``recv_ns``, ``headers_ns``, ``token_ns[]``,
``end_ns``, ``outcome``, ...), kept in memory (``GET /truth/log``,
``GET /truth/log?id=X``, ``DELETE /truth/log``) and, with ``--log-dir``, appended
as JSONL to ``truth-<worker>.jsonl`` as each request ends (several worker
processes share one port with SO_REUSEPORT; each has its own file and memory).

Run: ``python -m servescope.testing.truth.server --port 8000 --itl-ms 10`` or, in
tests, ``with TruthServer(itl_ms=10) as srv: srv.base_url``.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import heapq
import json
import os
import random
import re
import resource
import selectors
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any

from aiohttp import web

from servescope.testing.serve_app import serve_until_signal, stop_server_process

_perf = time.perf_counter_ns
_ID_MARKER = re.compile(r"\[truth-id:([^\]\s]{1,128})\]")


@dataclass(frozen=True)
class Options:
    """One request's schedule and faults (server defaults, overridable per request)."""

    ttft_ms: float = 20.0
    itl_ms: float = 10.0
    jitter_ms: float = 0.0
    seed: int = 0
    default_max_tokens: int = 16
    error_after: int | None = None
    drop_after: int | None = None
    omit_done: bool = False
    usage: bool | None = None
    overflow: bool = False
    context_size: int | None = None
    status: int | None = None
    usage_fields: dict[str, Any] | None = None

    def merged(self, over: Any) -> Options:
        if not over:
            return self
        if not isinstance(over, dict):
            raise ValueError('"truth" must be an object')
        known = _OPTION_NAMES
        bad = sorted(k for k in over if k not in known and k != "id")
        if bad:
            raise ValueError(f"unknown truth option(s): {', '.join(bad)}; known: {', '.join(sorted(known))}")
        return replace(self, **{k: v for k, v in over.items() if k != "id"})

    def offsets_ns(self, n: int, request_id: str) -> list[int]:
        """Due time of each token, ns after the request arrived (deterministic)."""
        ttft = self.ttft_ms * 1e6
        itl = self.itl_ms * 1e6
        jit = self.jitter_ms * 1e6
        if jit <= 0:
            return [int(ttft + k * itl) for k in range(n)]
        rng = random.Random(f"{self.seed}:{request_id}")
        out: list[int] = []
        t = max(0.0, ttft + rng.uniform(-jit, jit))
        for _ in range(n):
            out.append(int(t))
            t += max(0.0, itl + rng.uniform(-jit, jit))
        return out


_OPTION_NAMES = frozenset(f.name for f in fields(Options))


def context_overflow_body(n_tokens: int, n_ctx: int) -> dict[str, Any]:
    """llama.cpp server's answer when a prompt does not fit."""
    return {
        "error": {
            "code": 400,
            "message": f"request ({n_tokens} tokens) exceeds the available context size ({n_ctx} tokens), try increasing it",
            "type": "exceed_context_size_error",
        }
    }


def _prompt_text(body: dict[str, Any]) -> str:
    if "messages" in body and isinstance(body["messages"], list):
        parts = []
        for m in body["messages"]:
            c = m.get("content") if isinstance(m, dict) else None
            if isinstance(c, str):
                parts.append(c)
            elif isinstance(c, list):
                parts.extend(p.get("text", "") for p in c if isinstance(p, dict) and isinstance(p.get("text"), str))
        return "\n".join(parts)
    p = body.get("prompt")
    if isinstance(p, list):
        return "\n".join(x for x in p if isinstance(x, str))
    return p if isinstance(p, str) else ""


def _frame(event: bytes) -> bytes:
    """One SSE event as one HTTP/1.1 chunk (chunked transfer encoding)."""
    return b"%x\r\n%s\r\n" % (len(event), event)


class _Chunks:
    """Pre-encoded, pre-framed bytes for one (api, model)."""

    def __init__(self, chat: bool, model: str, token_text: str) -> None:
        obj = "chat.completion.chunk" if chat else "text_completion"
        cid = "chatcmpl-truth" if chat else "cmpl-truth"
        self.chat = chat
        self.head = {"id": cid, "object": obj, "created": 0, "model": model}

        def choice(text: str | None, finish: str | None, first: bool = False) -> dict[str, Any]:
            if chat:
                delta: dict[str, Any] = {}
                if first:
                    delta["role"] = "assistant"
                if text is not None:
                    delta["content"] = text
                return {"index": 0, "delta": delta, "finish_reason": finish}
            return {"index": 0, "text": text or "", "logprobs": None, "finish_reason": finish}

        def event(d: dict[str, Any]) -> bytes:
            return b"data: " + json.dumps({**self.head, **d}, separators=(",", ":")).encode() + b"\n\n"

        self.first = _frame(event({"choices": [choice(token_text, None, first=True)]}))
        self.token = _frame(event({"choices": [choice(token_text, None)]}))
        self.finish = _frame(event({"choices": [choice(None if chat else "", "length")]}))
        self.done = _frame(b"data: [DONE]\n\n")
        self._event = event

    def usage(self, prompt_tokens: int, completion_tokens: int, fields: dict[str, Any] | None = None) -> bytes:
        u = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens, "total_tokens": prompt_tokens + completion_tokens}
        if fields:
            u.update(fields)
        return _frame(self._event({"choices": [], "usage": u}))

    def error(self, message: str) -> bytes:
        err = {"error": {"code": 500, "message": message, "type": "server_error"}}
        return _frame(b"data: " + json.dumps(err, separators=(",", ":")).encode() + b"\n\n")


class _Stream:
    """One streaming response as the emitter sees it."""

    __slots__ = ("transport", "recv", "offsets", "stop_at", "token_ns", "first", "token", "k", "gone", "backlogged", "done")

    def __init__(self, transport: Any, recv: int, offsets: list[int], stop_at: int, token_ns: list[int], first: bytes, token: bytes) -> None:
        self.transport = transport
        self.recv = recv
        self.offsets = offsets
        self.stop_at = stop_at
        self.token_ns = token_ns
        self.first = first
        self.token = token
        self.k = 0
        self.gone = False
        self.backlogged = 0
        self.done: asyncio.Future[None] | None = None


def _resolve(fut: asyncio.Future[None] | None) -> None:
    if fut is not None and not fut.done():  # a cancelled handler leaves a done future
        fut.set_result(None)


class _Emitter:
    """Writes every stream's tokens from one timer loop (per process).

    A heap of (due ns, seq, stream); the loop sleeps until the earliest due time,
    then writes every token that is due — reading ``perf_counter_ns()`` just
    before each write — and pushes each stream's next deadline. One timer for
    all streams instead of one coroutine wake-up per token keeps the server's
    CPU per token low, so it leaves the cores to the client being measured."""

    def __init__(self) -> None:
        self._heap: list[tuple[int, int, _Stream]] = []
        self._seq = 0
        self._wake: asyncio.Future[None] | None = None
        self._target: int | None = None
        self._task: asyncio.Task[None] | None = None

    async def run(self, st: _Stream) -> None:
        loop = asyncio.get_running_loop()
        st.done = loop.create_future()
        due = st.recv + st.offsets[0]
        self._seq += 1
        heapq.heappush(self._heap, (due, self._seq, st))
        if self._task is None or self._task.done():
            self._task = loop.create_task(self._loop())
        elif self._wake is not None and not self._wake.done() and (self._target is None or due < self._target):
            self._wake.set_result(None)
        await st.done

    def _set(self) -> None:
        if self._wake is not None and not self._wake.done():
            self._wake.set_result(None)

    async def _loop(self) -> None:
        loop = asyncio.get_running_loop()
        heap = self._heap
        perf = _perf
        pop, push = heapq.heappop, heapq.heappush
        while heap:
            now = perf()
            due = heap[0][0]
            if due > now:
                self._target = due
                self._wake = loop.create_future()
                handle = loop.call_later((due - now) / 1e9, self._set)
                await self._wake
                handle.cancel()
                self._target = None
                continue
            while heap and heap[0][0] <= now:
                _, _, st = pop(heap)
                tr = st.transport
                k = st.k
                if tr.is_closing():
                    st.gone = True
                    _resolve(st.done)
                    continue
                st.token_ns.append(perf())
                tr.write(st.first if k == 0 else st.token)
                if tr.get_write_buffer_size():
                    st.backlogged += 1
                k += 1
                st.k = k
                if k >= st.stop_at:
                    _resolve(st.done)
                else:
                    self._seq += 1
                    push(heap, (st.recv + st.offsets[k], self._seq, st))
                now = perf()


class TruthApp:
    """The aiohttp application and its log (one per worker process)."""

    def __init__(
        self,
        options: Options,
        *,
        model: str = "truth",
        token_text: str = " the",
        log_path: Path | None = None,
        worker: int = 0,
        metrics_text: bytes | None = None,
    ) -> None:
        self.options = options
        self.metrics_text = metrics_text
        self.metrics_served = 0
        self.model = model
        self.token_text = token_text
        self.worker = worker
        self.log: dict[str, dict[str, Any]] = {}
        self._chunks: dict[tuple[bool, str], _Chunks] = {}
        self._n = 0
        self.emitter = _Emitter()
        self._log_file = open(log_path, "a", encoding="utf-8") if log_path else None  # noqa: SIM115 - closed on cleanup
        self.app = web.Application(client_max_size=64 * 1024 * 1024)
        self.app.router.add_post("/v1/chat/completions", self._chat)
        self.app.router.add_post("/v1/completions", self._completions)
        self.app.router.add_get("/v1/models", self._models)
        self.app.router.add_get("/health", self._health)
        self.app.router.add_get("/metrics", self._metrics)
        self.app.router.add_get("/truth/log", self._get_log)
        self.app.router.add_delete("/truth/log", self._clear_log)
        self.app.on_cleanup.append(self._close)

    async def _close(self, _app: web.Application) -> None:
        if self._log_file:
            self._log_file.close()
            self._log_file = None

    def chunks(self, chat: bool, model: str) -> _Chunks:
        key = (chat, model)
        c = self._chunks.get(key)
        if c is None:
            c = self._chunks[key] = _Chunks(chat, model, self.token_text)
        return c

    async def _health(self, _r: web.Request) -> web.Response:
        return web.json_response({"status": "ok", "worker": self.worker, "pid": os.getpid()})

    async def _metrics(self, _r: web.Request) -> web.Response:
        if self.metrics_text is None:
            return web.Response(status=404, text="no --metrics-file given\n")
        self.metrics_served += 1
        return web.Response(body=self.metrics_text, headers={"Content-Type": "text/plain; version=0.0.4; charset=utf-8"})

    async def _models(self, _r: web.Request) -> web.Response:
        return web.json_response({"object": "list", "data": [{"id": self.model, "object": "model", "created": 0, "owned_by": "servescope-truth"}]})

    async def _get_log(self, request: web.Request) -> web.Response:
        rid = request.query.get("id")
        if rid is None:
            return web.json_response(list(self.log.values()))
        entry = self.log.get(rid)
        if entry is None:
            return web.json_response({"error": f"no log entry for id {rid!r} in worker {self.worker}"}, status=404)
        return web.json_response(entry)

    async def _clear_log(self, _r: web.Request) -> web.Response:
        n = len(self.log)
        self.log.clear()
        return web.json_response({"cleared": n})

    def _finish(self, entry: dict[str, Any]) -> None:
        entry["end_ns"] = _perf()
        self.log[entry["id"]] = entry
        if self._log_file:
            self._log_file.write(json.dumps(entry, separators=(",", ":")) + "\n")
            self._log_file.flush()

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, chat=True)

    async def _completions(self, request: web.Request) -> web.StreamResponse:
        return await self._handle(request, chat=False)

    def _request_id(self, request: web.Request, body: dict[str, Any], prompt: str) -> str:
        rid = request.headers.get("X-Request-ID")
        truth = body.get("truth")
        if not rid and isinstance(truth, dict) and truth.get("id") is not None:
            rid = str(truth["id"])
        if not rid and isinstance(body.get("user"), str) and body["user"]:
            rid = body["user"]
        if not rid:
            m = _ID_MARKER.search(prompt)
            if m:
                rid = m.group(1)
        if not rid:
            self._n += 1
            rid = f"{os.getpid()}-{self._n}"
        return rid

    async def _handle(self, request: web.Request, *, chat: bool) -> web.StreamResponse:
        recv = _perf()
        try:
            body = await request.json()
            if not isinstance(body, dict):
                raise ValueError("body must be a JSON object")
            opts = self.options.merged(body.get("truth"))
        except (ValueError, TypeError) as exc:
            return web.json_response({"error": {"code": 400, "message": f"bad request: {exc}", "type": "invalid_request_error"}}, status=400)
        prompt = _prompt_text(body)
        rid = self._request_id(request, body, prompt)
        n = body.get("max_tokens") or body.get("max_completion_tokens") or opts.default_max_tokens
        n = max(0, int(n))
        prompt_tokens = len(prompt.split())
        entry: dict[str, Any] = {
            "id": rid,
            "worker": self.worker,
            "recv_ns": recv,
            "api": "chat" if chat else "completions",
            "max_tokens": n,
            "prompt_tokens": prompt_tokens,
        }
        hdrs = {"X-Truth-Id": rid}
        if opts.status:
            entry["outcome"] = f"status-{opts.status}"
            self._finish(entry)
            return web.json_response(
                {"error": {"code": opts.status, "message": f"truth: injected HTTP {opts.status}", "type": "server_error"}}, status=opts.status, headers=hdrs
            )
        if opts.overflow or (opts.context_size is not None and prompt_tokens > opts.context_size):
            n_ctx = opts.context_size if opts.context_size is not None else max(1, prompt_tokens)
            n_req = max(prompt_tokens, n_ctx + 1)
            entry["outcome"] = "context-overflow"
            self._finish(entry)
            return web.json_response(context_overflow_body(n_req, n_ctx), status=400, headers=hdrs)
        requested_model = body.get("model")
        model = requested_model if isinstance(requested_model, str) else self.model
        chunks = self.chunks(chat, model)
        offsets = opts.offsets_ns(n, rid)
        entry["schedule_ns"] = offsets
        token_ns: list[int] = []
        entry["token_ns"] = token_ns
        if not body.get("stream"):
            return await self._non_streaming(request, entry, chunks, offsets, prompt_tokens, hdrs, opts.usage_fields)
        include_usage = opts.usage
        if include_usage is None:
            so = body.get("stream_options")
            include_usage = bool(isinstance(so, dict) and so.get("include_usage"))
        resp = web.StreamResponse(headers={**hdrs, "Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
        resp.enable_chunked_encoding()
        await resp.prepare(request)
        await resp.write(b"")  # flush the headers now, as real engines do
        entry["headers_ns"] = _perf()
        transport = request.transport
        if transport is None:  # client already gone
            entry["outcome"] = "client-gone"
            self._finish(entry)
            return resp
        stop_at = n
        for limit in (opts.drop_after, opts.error_after):
            if limit is not None:
                stop_at = min(stop_at, max(0, limit))
        stream = _Stream(transport, recv, offsets, stop_at, token_ns, chunks.first, chunks.token)
        outcome = "ok"
        try:
            if stop_at > 0:
                await self.emitter.run(stream)
            if stream.gone:
                outcome = "client-gone"
            elif opts.drop_after is not None and len(token_ns) >= opts.drop_after:
                outcome = "dropped"
            elif opts.error_after is not None and len(token_ns) >= opts.error_after:
                outcome = "stream-error"
            entry["backlogged"] = stream.backlogged
            if outcome == "dropped":
                transport.abort()
                entry["outcome"] = outcome
                self._finish(entry)
                return resp
            if outcome == "client-gone":
                entry["outcome"] = outcome
                self._finish(entry)
                return resp
            if outcome == "stream-error":
                transport.write(chunks.error(f"truth: injected stream error after {len(token_ns)} tokens"))
            else:
                tail = chunks.finish
                if include_usage or opts.usage_fields:
                    tail += chunks.usage(prompt_tokens, len(token_ns), opts.usage_fields)
                if not opts.omit_done:
                    tail += chunks.done
                transport.write(tail)
            entry["outcome"] = outcome
            await resp.write_eof()
        except (ConnectionError, RuntimeError) as exc:  # client went away mid-write
            entry["outcome"] = f"client-gone: {type(exc).__name__}"
        self._finish(entry)
        return resp

    async def _non_streaming(
        self,
        request: web.Request,
        entry: dict[str, Any],
        chunks: _Chunks,
        offsets: list[int],
        prompt_tokens: int,
        hdrs: dict[str, str],
        usage_fields: dict[str, Any] | None = None,
    ) -> web.Response:
        recv = entry["recv_ns"]
        if offsets:
            delay = recv + offsets[-1] - _perf()
            if delay > 0:
                await asyncio.sleep(delay / 1e9)
        n = len(offsets)
        text = self.token_text * n
        entry["outcome"] = "ok-non-streaming"
        usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": n, "total_tokens": prompt_tokens + n, **(usage_fields or {})}
        if chunks.chat:
            choice: dict[str, Any] = {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "length"}
            obj = "chat.completion"
        else:
            choice = {"index": 0, "text": text, "logprobs": None, "finish_reason": "length"}
            obj = "text_completion"
        entry["response_ns"] = _perf()
        self._finish(entry)
        return web.json_response({**chunks.head, "object": obj, "choices": [choice], "usage": usage}, headers=hdrs)


# ----------------------------------------------------------------------------- running it


def raise_nofile_limit() -> int:
    """Raise the soft open-files limit to the hard one (1,024 streams need > 1,024 sockets)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        with contextlib.suppress(ValueError, OSError):
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
            return hard
    return soft


async def serve(
    options: Options,
    *,
    host: str,
    port: int,
    model: str,
    token_text: str,
    log_dir: Path | None,
    worker: int,
    reuse_port: bool,
    ready: Any = None,
    metrics_file: Path | None = None,
) -> None:
    log_path = log_dir / f"truth-{worker}.jsonl" if log_dir else None
    metrics_text = metrics_file.read_bytes() if metrics_file else None
    ta = TruthApp(options, model=model, token_text=token_text, log_path=log_path, worker=worker, metrics_text=metrics_text)
    await serve_until_signal(ta.app, host, port, ready, backlog=4096, reuse_port=reuse_port or None)


def _cli_options(a: argparse.Namespace) -> Options:
    return Options(
        ttft_ms=a.ttft_ms,
        itl_ms=a.itl_ms,
        jitter_ms=a.jitter_ms,
        seed=a.seed,
        default_max_tokens=a.default_max_tokens,
        error_after=a.error_after,
        drop_after=a.drop_after,
        omit_done=a.omit_done,
        usage={"auto": None, "on": True, "off": False}[a.usage],
        overflow=a.overflow,
        context_size=a.context_size,
        status=a.status,
        usage_fields=a.usage_fields,
    )


def _json_object(text: str) -> dict[str, Any]:
    value = json.loads(text)
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError("give a JSON object")
    return value


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m servescope.testing.truth.server", description="Timing-truth OpenAI-compatible streaming server (loopback test tooling)."
    )
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=0, help="0 = any free port (printed as READY <port>)")
    p.add_argument("--workers", type=int, default=1, help="worker processes sharing the port with SO_REUSEPORT")
    p.add_argument("--worker-index", type=int, default=0, help=argparse.SUPPRESS)
    p.add_argument("--model", default="truth")
    p.add_argument("--token-text", default=" the", help="the content of every token chunk")
    p.add_argument("--log-dir", type=Path, default=None, help="append one JSONL line per request to LOG_DIR/truth-<worker>.jsonl")
    p.add_argument("--metrics-file", type=Path, default=None, help="serve this recorded Prometheus page at GET /metrics")
    p.add_argument("--ttft-ms", type=float, default=Options.ttft_ms)
    p.add_argument("--itl-ms", type=float, default=Options.itl_ms)
    p.add_argument("--jitter-ms", type=float, default=0.0)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--default-max-tokens", type=int, default=Options.default_max_tokens)
    p.add_argument("--error-after", type=int, default=None)
    p.add_argument("--drop-after", type=int, default=None)
    p.add_argument("--omit-done", action="store_true")
    p.add_argument("--usage", choices=["auto", "on", "off"], default="auto")
    p.add_argument("--overflow", action="store_true")
    p.add_argument("--context-size", type=int, default=None)
    p.add_argument("--status", type=int, default=None)
    p.add_argument("--usage-fields", type=_json_object, default=None, help="JSON object replacing the usage chunk's counts, e.g. '{\"completion_tokens\": -5}'")
    return p


def main(argv: list[str] | None = None) -> int:
    a = build_parser().parse_args(argv)
    raise_nofile_limit()
    if a.log_dir:
        a.log_dir.mkdir(parents=True, exist_ok=True)
    opts = _cli_options(a)
    if a.workers > 1 and a.worker_index == 0:  # the supervisor; workers are 1..N
        return _run_workers(a, argv if argv is not None else sys.argv[1:])

    def ready(port: int) -> None:
        print(f"READY {port}", flush=True)

    asyncio.run(
        serve(
            opts,
            host=a.host,
            port=a.port,
            model=a.model,
            token_text=a.token_text,
            log_dir=a.log_dir,
            worker=a.worker_index,
            reuse_port=a.workers > 1,
            ready=ready,
            metrics_file=a.metrics_file,
        )
    )
    return 0


def _run_workers(a: argparse.Namespace, argv: list[str]) -> int:
    """Several worker processes on one port (SO_REUSEPORT); this process only supervises."""
    port = a.port
    holder = None
    if port == 0:  # reserve a free port for all workers
        holder = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        holder.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        holder.bind((a.host, 0))
        port = holder.getsockname()[1]
    procs: list[subprocess.Popen[str]] = []
    try:
        for w in range(1, a.workers + 1):
            cmd = [sys.executable, "-m", "servescope.testing.truth.server", *argv, "--port", str(port), "--worker-index", str(w)]
            procs.append(subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True))
        for p in procs:
            line = p.stdout.readline() if p.stdout else ""
            if not line.startswith("READY"):
                raise RuntimeError(f"truth worker failed to start: {line!r}")
        if holder is not None:
            holder.close()
            holder = None
        print(f"READY {port}", flush=True)
        stop = {"flag": False}

        def on_sig(*_: Any) -> None:
            stop["flag"] = True

        signal.signal(signal.SIGTERM, on_sig)
        signal.signal(signal.SIGINT, on_sig)
        while not stop["flag"] and all(p.poll() is None for p in procs):
            time.sleep(0.2)
    finally:
        if holder is not None:
            holder.close()
        for p in procs:
            if p.poll() is None:
                p.terminate()
        for p in procs:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
    return 0


class TruthServer:
    """Run the truth server in a subprocess on a free loopback port.

    ``with TruthServer(itl_ms=10, workers=1) as srv: ...`` — ``srv.base_url``,
    ``srv.read_log()`` (every worker's JSONL, as a dict by request id), ``srv.pids``.
    Keyword arguments are :class:`Options` fields plus ``model``, ``token_text`` and
    ``metrics_file`` (a recorded ``/metrics`` page to serve).
    """

    def __init__(
        self,
        *,
        workers: int = 1,
        host: str = "127.0.0.1",
        log_dir: Path | str | None = None,
        model: str = "truth",
        token_text: str = " the",
        start_timeout_s: float = 20.0,
        metrics_file: Path | str | None = None,
        **options: Any,
    ) -> None:
        bad = sorted(k for k in options if k not in _OPTION_NAMES)
        if bad:
            raise TypeError(f"unknown truth option(s): {', '.join(bad)}")
        self.options = replace(Options(), **options)
        self.workers = workers
        self.host = host
        self.model = model
        self.token_text = token_text
        self.start_timeout_s = start_timeout_s
        self.metrics_file = Path(metrics_file) if metrics_file else None
        self._tmp: tempfile.TemporaryDirectory[str] | None = None
        self.log_dir = Path(log_dir) if log_dir else None
        self.proc: subprocess.Popen[str] | None = None
        self.port: int | None = None

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("truth server not started")
        return f"http://{self.host}:{self.port}"

    @property
    def pids(self) -> list[int]:
        """The serving processes' ids (the supervisor is excluded when workers > 1)."""
        if self.proc is None:
            return []
        if self.workers == 1:
            return [self.proc.pid]
        out = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True, check=False).stdout.split()
        return [int(x) for x in out]

    def command(self) -> list[str]:
        o = self.options
        cmd = [sys.executable, "-m", "servescope.testing.truth.server", "--host", self.host, "--port", "0", "--workers", str(self.workers)]
        cmd += ["--model", self.model, "--token-text", self.token_text]
        assert self.log_dir is not None
        cmd += ["--log-dir", str(self.log_dir)]
        if self.metrics_file is not None:
            cmd += ["--metrics-file", str(self.metrics_file)]
        cmd += ["--ttft-ms", repr(o.ttft_ms), "--itl-ms", repr(o.itl_ms), "--jitter-ms", repr(o.jitter_ms), "--seed", str(o.seed)]
        cmd += ["--default-max-tokens", str(o.default_max_tokens)]
        for flag, val in (("--error-after", o.error_after), ("--drop-after", o.drop_after), ("--context-size", o.context_size), ("--status", o.status)):
            if val is not None:
                cmd += [flag, str(val)]
        if o.omit_done:
            cmd.append("--omit-done")
        if o.overflow:
            cmd.append("--overflow")
        cmd += ["--usage", {None: "auto", True: "on", False: "off"}[o.usage]]
        if o.usage_fields is not None:
            cmd += ["--usage-fields", json.dumps(o.usage_fields)]
        return cmd

    def start(self) -> TruthServer:
        if self.log_dir is None:
            self._tmp = tempfile.TemporaryDirectory(prefix="servescope-truth-")
            self.log_dir = Path(self._tmp.name)
        self.log_dir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(self.command(), stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + self.start_timeout_s
        assert self.proc.stdout is not None
        line = ""
        with selectors.DefaultSelector() as sel:
            sel.register(self.proc.stdout, selectors.EVENT_READ)
            if sel.select(timeout=max(0.0, deadline - time.monotonic())):
                line = self.proc.stdout.readline()
        if not line.startswith("READY "):
            self.stop()
            raise RuntimeError(f"truth server did not start (got {line!r})")
        self.port = int(line.split()[1])
        return self

    def stop(self) -> None:
        stop_server_process(self.proc)
        self.proc = None
        if self._tmp is not None:
            self._tmp.cleanup()
            self._tmp = None

    def __enter__(self) -> TruthServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def read_log(self) -> dict[str, dict[str, Any]]:
        """Every finished request logged so far, by request id (all workers)."""
        return read_log_dir(self.log_dir) if self.log_dir else {}

    def get(self, path: str, timeout_s: float = 10.0) -> Any:
        with urllib.request.urlopen(self.base_url + path, timeout=timeout_s) as r:  # noqa: S310 - loopback only
            return json.loads(r.read())


def read_log_dir(log_dir: Path | str) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for f in sorted(Path(log_dir).glob("truth-*.jsonl")):
        with open(f, encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    e = json.loads(line)
                    out[e["id"]] = e
    return out


if __name__ == "__main__":
    raise SystemExit(main())
