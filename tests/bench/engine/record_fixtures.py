"""Re-record the llama.cpp wire fixtures in ``fixtures/`` from a real server (maintainer tool).

    python tests/bench/engine/record_fixtures.py

Each ``*.txt`` fixture is the exact response body; ``fixtures/README.md`` says which request
produced it, with which status and content type.
"""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path

from servescope.bench.engine.llama_server import LlamaServer, ServerConfig
from servescope.bench.engine.tokenizer import TinyTokenizer, corpus_text

FIXTURES = Path(__file__).parent / "fixtures"

CHAT_STREAM = {
    "model": "servescope-tiny-llama",
    "messages": [{"role": "user", "content": "Tell me about the lighthouse keeper."}],
    "max_tokens": 16,
    "stream": True,
    "stream_options": {"include_usage": True},
    "seed": 42,
}
COMPLETIONS_STREAM = {
    "model": "servescope-tiny-llama",
    "prompt": "The river begins as a spring high on a hillside",
    "max_tokens": 16,
    "stream": True,
    "stream_options": {"include_usage": True},
    "seed": 42,
}


def post(port: int, path: str, body: dict[str, object]) -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        conn.close()


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    try:
        conn.request("GET", path)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def main() -> None:
    FIXTURES.mkdir(exist_ok=True)
    tokenizer = TinyTokenizer()
    config = ServerConfig(parallel=2, ctx_per_slot=1024)
    with LlamaServer(config) as server:
        port = server.port
        outputs = {
            "llamacpp_chat_stream.txt": post(port, "/v1/chat/completions", CHAT_STREAM),
            "llamacpp_completions_stream.txt": post(port, "/v1/completions", COMPLETIONS_STREAM),
        }
        too_long = tokenizer.decode(tokenizer.encode(corpus_text())[:1100])
        outputs["llamacpp_context_overflow.txt"] = post(
            port,
            "/v1/chat/completions",
            {**CHAT_STREAM, "messages": [{"role": "user", "content": too_long}]},
        )
        for name, (status, content_type, body) in outputs.items():
            print(f"{name}: HTTP {status} {content_type}, {len(body)} bytes")
            (FIXTURES / name).write_bytes(body)
        # /metrics under load: 4 requests on 2 slots (2 deferred), a repeated prompt (cached tokens).
        post(port, "/v1/completions", {**COMPLETIONS_STREAM, "stream": False, "max_tokens": 4})
        load = [threading.Thread(target=post, args=(port, "/v1/completions", {**COMPLETIONS_STREAM, "max_tokens": 600})) for _ in range(4)]
        for thread in load:
            thread.start()
        time.sleep(0.3)
        status, body = get(port, "/metrics")
        for thread in load:
            thread.join()
        print(f"llamacpp_metrics.txt: HTTP {status}, {len(body)} bytes")
        (FIXTURES / "llamacpp_metrics.txt").write_bytes(body)


if __name__ == "__main__":
    main()
