"""The real llama.cpp server on loopback, with the tiny model."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from servescope.bench.engine import detached
from servescope.bench.engine.llama_server import LlamaServer, ServerConfig, health_status
from servescope.bench.engine.tiny_model import MODEL_NAME
from servescope.errors import EngineError

pytestmark = [pytest.mark.integration, pytest.mark.usefixtures("llama_server_available")]


def request(port: int, method: str, path: str, body: dict[str, Any] | None = None) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        payload = json.dumps(body) if body is not None else None
        conn.request(method, path, payload, {"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def sse_events(raw: bytes) -> list[dict[str, Any]]:
    events = []
    for line in raw.decode().splitlines():
        if line.startswith("data: ") and line != "data: [DONE]":
            events.append(json.loads(line.removeprefix("data: ")))
    return events


def port_is_free(port: int) -> bool:
    """Nobody listens and a server could bind it (SO_REUSEADDR, as servers do: a connection the
    server closed first may leave a TIME_WAIT entry on the port for a minute)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


@pytest.fixture(scope="module")
def server(engine_cache: Path, tiny_model: Path) -> Any:
    with LlamaServer(ServerConfig(parallel=2, ctx_per_slot=512, cache_dir=engine_cache)) as running:
        yield running


def test_health_models_and_slots(server: LlamaServer) -> None:
    assert health_status(server.base_url) == 200
    status, body = request(server.port, "GET", "/v1/models")
    assert status == 200
    assert json.loads(body)["data"][0]["id"] == MODEL_NAME
    status, body = request(server.port, "GET", "/slots")
    slots = json.loads(body)
    assert [s["n_ctx"] for s in slots] == [512, 512]  # ctx_per_slot, not the total


def test_streamed_chat_returns_max_tokens_and_usage(server: LlamaServer) -> None:
    status, raw = request(
        server.port,
        "POST",
        "/v1/chat/completions",
        {
            "model": server.model_name,
            "messages": [{"role": "user", "content": "Tell me about the river."}],
            "max_tokens": 24,
            "stream": True,
            "stream_options": {"include_usage": True},
        },
    )
    assert status == 200
    events = sse_events(raw)
    pieces = [c["delta"].get("content") for e in events for c in e["choices"] if c["delta"].get("content")]
    assert len(pieces) == 24  # random weights, but end-of-sequence is never sampled
    assert all(p.isascii() for p in pieces)
    assert events[-1]["choices"] == []
    assert events[-1]["usage"]["completion_tokens"] == 24
    assert "timings" in events[-1]


def test_server_and_local_tokenizer_agree(server: LlamaServer) -> None:
    pytest.importorskip("tokenizers")
    from servescope.bench.engine.tokenizer import TinyTokenizer

    text = "The ferry carries twelve cars, the post, and once even a piano.\nWhy?"
    status, body = request(server.port, "POST", "/tokenize", {"content": text})
    assert status == 200
    assert json.loads(body)["tokens"] == TinyTokenizer().encode(text)


def test_prompt_longer_than_a_slot_is_http_400(server: LlamaServer) -> None:
    status, body = request(
        server.port,
        "POST",
        "/v1/completions",
        {"prompt": "lighthouse " * 600, "max_tokens": 4, "stream": True},
    )
    assert status == 400
    error = json.loads(body)["error"]
    assert error["type"] == "exceed_context_size_error"
    assert error["n_ctx"] == 512


def test_stop_frees_the_port(engine_cache: Path, tiny_model: Path) -> None:
    server = LlamaServer(ServerConfig(parallel=1, ctx_per_slot=256, cache_dir=engine_cache)).start()
    port, pid = server.port, server.pid
    assert not port_is_free(port)
    # SIGTERM was enough (no SIGKILL): a clean exit, or death by SIGTERM when it arrives in the
    # moment between /health turning 200 and llama-server installing its signal handler.
    assert server.stop() in (0, -signal.SIGTERM)
    assert not server.is_running()
    assert port_is_free(port)
    assert health_status(f"http://127.0.0.1:{port}") is None
    assert server.stop() is None  # idempotent
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_server_that_dies_at_startup_reports_its_log(engine_cache: Path, tmp_path: Path) -> None:
    bad = tmp_path / "not-a-model.gguf"
    bad.write_bytes(b"this is not a gguf file")
    with pytest.raises(EngineError) as info:
        LlamaServer(ServerConfig(model=bad, cache_dir=engine_cache)).start()
    assert "exited with status" in str(info.value)
    assert "failed to load model" in str(info.value)


def test_detached_start_status_stop(engine_cache: Path, tiny_model: Path) -> None:
    started = detached.start_detached(ServerConfig(parallel=1, ctx_per_slot=256, cache_dir=engine_cache))
    try:
        assert started.running and started.healthy and started.state is not None
        assert detached.state_path(engine_cache).is_file()
        again = detached.start_detached(ServerConfig(cache_dir=engine_cache))
        assert again.message.startswith("already running")
        assert again.state == started.state
        now = detached.status(engine_cache)
        assert now.running and now.healthy
    finally:
        stopped = detached.stop_detached(engine_cache)
    assert stopped.message.startswith("stopped")
    assert not detached.state_path(engine_cache).exists()
    assert health_status(started.state.base_url) is None
    assert detached.status(engine_cache).message == "no engine started"
    assert detached.stop_detached(engine_cache).message == "was not running"
