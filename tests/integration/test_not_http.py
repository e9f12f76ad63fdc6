"""Servers that do not speak HTTP, or say nothing: a raw asyncio TCP server on
loopback answers with garbage, binary or silence. Each request so answered is a
categorised failure; the start-up probe of /v1/models gives one clear line."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import threading
import warnings
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

import pytest

from servescope.bench import run as bench_run
from servescope.bench.records import read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.errors import EndpointError

pytestmark = pytest.mark.integration

MODELS = json.dumps({"object": "list", "data": [{"id": "raw", "object": "model"}]}).encode()
MODELS_ANSWER = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(MODELS), MODELS)


Handler = Callable[[asyncio.StreamReader, asyncio.StreamWriter], Awaitable[None]]


def collect_test_server_garbage() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        gc.collect()


@contextmanager
def serve_tcp(handle: Handler) -> Iterator[str]:
    """See _serve_tcp. A connection accepted just as the server closes can have its accept
    task cancelled before the handler starts, leaving its transport unclosed; once the
    server's loop is dropped it is collected here, quietly, not later inside whichever
    unrelated test the garbage collector happens to run in (filterwarnings=error)."""
    try:
        with _serve_tcp(handle) as url:
            yield url
    finally:
        collect_test_server_garbage()


@contextmanager
def _serve_tcp(handle: Handler) -> Iterator[str]:
    """A raw TCP server on loopback, on its own loop in a thread; yields its base URL.
    On the way out it stops accepting, lets every accepted connection's handler start,
    then closes every connection, so no socket outlives the test."""
    writers: list[asyncio.StreamWriter] = []

    async def tracked(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        writers.append(writer)
        try:
            with suppress(ConnectionError, asyncio.IncompleteReadError, asyncio.CancelledError):
                await handle(reader, writer)
        finally:
            writer.close()

    loop = asyncio.new_event_loop()
    server = loop.run_until_complete(asyncio.start_server(tracked, "127.0.0.1", 0))
    port = server.sockets[0].getsockname()[1]
    thread = threading.Thread(target=loop.run_forever, daemon=True)
    thread.start()

    async def shutdown() -> None:
        server.close()
        await asyncio.sleep(0.05)  # connections accepted before the close: their handlers start
        for w in writers:
            w.close()
        for task in asyncio.all_tasks():
            if task is not asyncio.current_task():
                task.cancel()
        await asyncio.sleep(0.05)
        await server.wait_closed()

    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        asyncio.run_coroutine_threadsafe(shutdown(), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


@contextmanager
def raw_server(answer_get: bytes | None, answer_post: bytes | None) -> Iterator[str]:
    """Reads one request head, then writes the given bytes and closes (None: stays silent
    until the client gives up). Yields its base URL."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        answer = answer_get if head.startswith(b"GET ") else answer_post
        if answer is None:
            await reader.read()  # silence: until the client closes
        else:
            writer.write(answer)
            await writer.drain()

    with serve_tcp(handle) as url:
        yield url


GARBAGE = [b"garbage\r\n", b"\x00\xff\x13\x37binary\x00\r\n\r\n", b"HTTP/1.1 99999 Nope\r\n\r\n", b"HTTP/1.1 200 OK\r\nContent-Length: abc\r\n\r\n"]


@pytest.mark.parametrize("garbage", GARBAGE)
def test_every_request_answered_with_non_http_bytes_is_a_malformed_output_failure(itest_catalog: Catalog, tmp_path: Path, garbage: bytes) -> None:
    with raw_server(MODELS_ANSWER, garbage) as url:
        art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=url, out_dir=tmp_path, scrape_metrics=False, fail_fast=False), catalog=itest_catalog)
    records = list(read_records(art.records_path))
    assert len(records) == 14
    assert {(r.stage, r.category) for r in records} == {("send", "malformed-output")}
    assert all(r.error and r.error.startswith("not an HTTP answer: ") and "\n" not in r.error for r in records)
    assert art.result.blocked_by_reason_code == {"malformed-output": 12}


@pytest.mark.parametrize("garbage", GARBAGE[:2])
def test_a_non_http_server_is_refused_at_the_probe_in_one_line(itest_catalog: Catalog, tmp_path: Path, garbage: bytes) -> None:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1])}
    with raw_server(garbage, garbage) as url:
        proc = subprocess.run(
            [sys.executable, "-m", "servescope", "run", "serve-itest-c4-v1", "--endpoint", url, "--out", str(tmp_path)],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 1, proc.stderr  # an endpoint error, not an internal one (3)
    [line] = proc.stderr.strip().splitlines()
    assert line.startswith(f"error: {url}/v1/models answered with something that is not HTTP (")
    assert "is this the server's HTTP port?" in line
    assert not any(tmp_path.iterdir())


def test_a_server_that_closes_without_answering_is_one_line(itest_catalog: Catalog, tmp_path: Path) -> None:
    with raw_server(b"", b"") as url, pytest.raises(EndpointError, match="closed the connection without answering"):
        run_workload(RunOptions("serve-itest-c4-v1", endpoint=url, out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog)


def test_a_silent_server_says_what_happened_and_what_to_do(itest_catalog: Catalog, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(bench_run, "PROBE_TIMEOUT_S", 0.5)
    with raw_server(None, None) as url, pytest.raises(EndpointError) as info:
        run_workload(RunOptions("serve-itest-c4-v1", endpoint=url, out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog)
    assert str(info.value) == (
        f"no answer from {url}/v1/models within 0.5 s: something accepts connections there but does not answer; "
        "is the engine still loading, or is this another service's port?"
    )


def test_a_json_answer_to_a_streaming_request_is_a_malformed_output_failure(itest_catalog: Catalog, tmp_path: Path) -> None:
    """A server that ignores "stream": true and answers one JSON object: it answered, not in a form that can be timed."""
    body = json.dumps({"choices": [{"index": 0, "message": {"content": "hi"}, "finish_reason": None}]}).encode()
    answer = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s" % (len(body), body)
    with raw_server(MODELS_ANSWER, answer) as url:
        art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=url, out_dir=tmp_path, scrape_metrics=False, fail_fast=False), catalog=itest_catalog)
    records = list(read_records(art.records_path))
    assert {(r.stage, r.category) for r in records} == {("stream", "malformed-output")}
    assert records[0].error == "answered HTTP 200 with Content-Type application/json, not a stream of server-sent events"
