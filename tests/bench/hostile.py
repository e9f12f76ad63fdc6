"""A misbehaving OpenAI-compatible server on loopback, for the client's limits.

A real TCP server (asyncio, its own thread) that speaks just enough HTTP/1.1: it reads
a request line, headers and a Content-Length body, then answers according to
``mode`` — an endless ``data:`` line, ``data:`` lines without the blank line, a huge
error body, an echo of the request headers (or of every other request's headers and body), a connection closed before any answer,
an empty ``data:`` field inside an otherwise normal stream, or any given bytes (``raw``). ``GET /v1/models`` always
answers one model, so ``servescope run --endpoint`` can be pointed at it.

Run as a script (``python -m tests.bench.hostile MODE``) it prints its port and serves
until killed: the run-level tests measure a whole ``servescope run`` process against it.
"""

from __future__ import annotations

import asyncio
import gc
import json
import sys
import threading
import warnings
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field

MODELS = json.dumps({"object": "list", "data": [{"id": "hostile", "object": "model"}]}).encode()


def _chunk(content: str, finish: str | None = None) -> bytes:
    obj = {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": finish}]}
    return b"data: " + json.dumps(obj).encode() + b"\n\n"


def _normal_stream(tokens: int = 3, *, empty_field_after: int | None = None) -> bytes:
    out = b""
    for k in range(tokens):
        out += _chunk(f"t{k} ")
        if empty_field_after is not None and k == empty_field_after:
            out += b"data:\n\n"  # an event with empty data (the SSE spec): not an error
    out += _chunk("", "stop")
    usage = {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": tokens}}
    return out + b"data: " + json.dumps(usage).encode() + b"\n\ndata: [DONE]\n\n"


@dataclass
class HostileServer:
    mode: str = "normal"
    port: int = 0
    connections: int = 0
    drop_first: int = 0  # close this many connections after reading the request, before answering
    raw_body: bytes = b""  # mode "raw": these bytes after the SSE headers, then close
    seen_headers: list[dict[str, str]] = field(default_factory=list)
    _loop: asyncio.AbstractEventLoop | None = None
    _thread: threading.Thread | None = None

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        with suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                lines = head.decode("latin-1").split("\r\n")
                method, _path, _ = lines[0].split(" ", 2)
                headers = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
                body = await reader.readexactly(int(headers.get("content-length", "0")))
                self.connections += 1
                if method == "GET":
                    writer.write(b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % len(MODELS) + MODELS)
                    await writer.drain()
                    continue
                self.seen_headers.append(headers)
                if self.drop_first > 0:
                    self.drop_first -= 1
                    writer.transport.abort()  # the request "never reached the server": no byte of answer
                    return
                await self._answer(writer, headers, body)
                return

    async def _answer(self, writer: asyncio.StreamWriter, headers: dict[str, str], body: bytes) -> None:
        sse = b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nConnection: close\r\n\r\n"
        mode = self.mode
        if mode == "normal":
            writer.write(sse + _normal_stream())
        elif mode == "raw":
            writer.write(sse + self.raw_body)
        elif mode == "empty-data-field":
            writer.write(sse + _normal_stream(3, empty_field_after=1))
        elif mode in ("endless-line", "endless-data-lines"):
            writer.write(sse)
            piece = b"x" * 65536 if mode == "endless-line" else b"data: " + b"x" * 1000 + b"\n"
            block = piece * (1 if mode == "endless-line" else 64)
            if mode == "endless-line":
                writer.write(b"data: ")
            while True:  # until the client gives up and the write fails
                writer.write(block)
                await writer.drain()
        elif mode == "huge-response":
            writer.write(sse)
            event = _chunk("y" * 200)
            while True:  # valid events, forever
                writer.write(event * 256)
                await writer.drain()
        elif mode == "huge-error":
            writer.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Type: text/plain\r\nConnection: close\r\n\r\n")
            while True:
                writer.write(b"e" * 65536)
                await writer.drain()
        elif mode == "echo-headers":
            text = json.dumps({"error": {"message": "unauthorized", "request": {"headers": headers}}}).encode()
            writer.write(b"HTTP/1.1 401 Unauthorized\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(text) + text)
        elif mode == "echo-request":  # every other request: 400 echoing its headers and body (no prompt), as some proxies do
            if len(self.seen_headers) % 2:
                writer.write(sse + _normal_stream())
            else:
                sent = json.loads(body or b"{}")
                sent.pop("messages", None)
                sent.pop("prompt", None)
                echo = {"body_text": json.dumps(sent), "headers": headers, "body": sent}
                text = json.dumps({"error": {"message": "rejected", "echo": echo}}).encode()
                writer.write(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n" % len(text) + text
                )
        elif mode == "echo-headers-in-stream":
            err = json.dumps({"error": {"message": f"bad request from {headers.get('authorization')}", "code": 400}}).encode()
            writer.write(sse + _chunk("a ") + b"data: " + err + b"\n\n")
        else:
            raise ValueError(mode)
        await writer.drain()
        writer.close()

    def start(self) -> HostileServer:
        ready = threading.Event()

        def serve() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            server = loop.run_until_complete(asyncio.start_server(self._handle, "127.0.0.1", self.port))
            self.port = server.sockets[0].getsockname()[1]
            ready.set()
            try:
                loop.run_forever()
            finally:
                server.close()
                for task in asyncio.all_tasks(loop):
                    task.cancel()
                loop.run_until_complete(asyncio.sleep(0))
                loop.close()
                self._loop = None
                del loop, server
                # Transports of connections cut mid-accept are collected here, quietly, not
                # later inside an unrelated test where filterwarnings=error turns them red.
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", ResourceWarning)
                    gc.collect()

        self._thread = threading.Thread(target=serve, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is not None:
            self._loop.call_soon_threadsafe(self._loop.stop)
        if self._thread is not None:
            self._thread.join(10)


@contextmanager
def hostile_server(mode: str = "normal", **kwargs: int) -> Iterator[HostileServer]:
    server = HostileServer(mode=mode, **kwargs).start()
    try:
        yield server
    finally:
        server.stop()


if __name__ == "__main__":
    srv = HostileServer(mode=sys.argv[1]).start()
    print(srv.port, flush=True)
    threading.Event().wait()
