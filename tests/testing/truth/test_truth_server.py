"""The timing-truth server on loopback: its schedule holds, each fault does what it
says, and servescope's client classifies every fault as the design says."""

from __future__ import annotations

import asyncio
import itertools
import json
import statistics
import time
from collections.abc import Iterator
from typing import Any

import aiohttp
import pytest

from servescope.bench.client import make_session, send
from servescope.bench.endpoint import Endpoint
from servescope.documents.record import RequestRecord
from servescope.testing.truth.errors import Pairing, abs_summary, schedule_lateness_ns
from servescope.testing.truth.server import Options, TruthServer, context_overflow_body, read_log_dir

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def srv() -> Iterator[TruthServer]:
    with TruthServer(ttft_ms=30.0, itl_ms=10.0) as s:
        yield s


async def _raw(base: str, body: dict[str, Any], path: str = "/v1/chat/completions") -> tuple[int, list[tuple[int, bytes]], int, BaseException | None]:
    """POST with a plain aiohttp client; returns (status, [(recv perf_ns, bytes)], send perf_ns, error)."""
    chunks: list[tuple[int, bytes]] = []
    err: BaseException | None = None
    async with aiohttp.ClientSession() as s:
        t_send = time.perf_counter_ns()
        async with s.post(base + path, json=body) as r:
            try:
                async for data in r.content.iter_any():
                    chunks.append((time.perf_counter_ns(), data))
            except aiohttp.ClientPayloadError as exc:
                err = exc
            return r.status, chunks, t_send, err


def _events(chunks: list[tuple[int, bytes]]) -> list[str]:
    text = b"".join(c for _, c in chunks).decode()
    return [ln[len("data: ") :] for ln in text.split("\n") if ln.startswith("data: ")]


def _send(srv: TruthServer, body_extra: dict[str, Any], max_tokens: int = 5, api: str = "chat") -> RequestRecord:
    endpoint = Endpoint.create(srv.base_url, model="truth", api=api)  # type: ignore[arg-type]

    async def go() -> RequestRecord:
        async with make_session() as session:
            rec = RequestRecord(request_id=str(body_extra.get("user", "r")))
            t0 = time.perf_counter_ns()
            body = endpoint.body("hello there", max_tokens, extra=body_extra)
            return await send(session, endpoint, body, rec, t0_ns=t0, timeout_s=20)

    return asyncio.run(go())


# ----------------------------------------------------------------------------- pure parts


def test_schedule_is_deterministic_and_jitter_bounded() -> None:
    o = Options(ttft_ms=20, itl_ms=10, jitter_ms=3, seed=5)
    a, b = o.offsets_ns(50, "x"), o.offsets_ns(50, "x")
    assert a == b
    assert a != o.offsets_ns(50, "y")
    assert a != Options(ttft_ms=20, itl_ms=10, jitter_ms=3, seed=6).offsets_ns(50, "x")
    gaps = [(q - p) / 1e6 for p, q in itertools.pairwise(a)]
    assert all(7 - 1e-6 <= g <= 13 + 1e-6 for g in gaps)
    assert 17e6 <= a[0] <= 23e6
    assert Options(ttft_ms=20, itl_ms=10).offsets_ns(3, "z") == [20_000_000, 30_000_000, 40_000_000]


def test_unknown_truth_option_is_rejected() -> None:
    with pytest.raises(ValueError, match="unknown truth option"):
        Options().merged({"itl": 3})
    assert Options().merged({"itl_ms": 3, "id": "q"}).itl_ms == 3


def test_pairing_arithmetic() -> None:
    p = Pairing()
    p.add("a", [110, 220, 330], {"token_ns": [100, 200, 300]})  # receipts 10, 20, 30 ns late
    p.add("b", [1, 2], {"token_ns": [1]})
    p.add("c", [1], None)
    assert p.ttft_err_ns == [10]
    assert p.itl_err_ns == [10, 10]
    assert (p.matched, p.count_mismatch, p.missing_in_log) == (1, 1, 1)
    s = abs_summary([-2_000_000, 1_000_000])
    assert s is not None and s["p50"] == pytest.approx(1.5) and s["max"] == pytest.approx(2.0)
    assert schedule_lateness_ns({"recv_ns": 10, "schedule_ns": [5, 15], "token_ns": [16, 27]}) == [1, 2]


# ----------------------------------------------------------------------------- the server on loopback


@pytest.mark.timing
def test_schedule_holds_for_a_raw_client(srv: TruthServer) -> None:
    async def go() -> list[tuple[int, list[tuple[int, bytes]], int, Any]]:
        await _raw(srv.base_url, {"max_tokens": 1, "stream": True, "truth": {"ttft_ms": 1}})  # warm the server's first-request paths
        return await asyncio.gather(*(_raw(srv.base_url, {"max_tokens": 20, "stream": True, "user": f"sched-{i}"}) for i in range(4)))

    results = asyncio.run(go())
    ttfts, gaps = [], []
    for status, chunks, t_send, err in results:
        assert status == 200 and err is None
        token_times = []
        for t, data in chunks:  # one token per read almost always; count events per read to be exact
            token_times += [t] * data.count(b'"content":" the"')
        assert len(token_times) == 20
        ttfts.append((token_times[0] - t_send) / 1e6)
        gaps += [(b - a) / 1e6 for a, b in itertools.pairwise(token_times)]
    # Loopback on a shared 2-core machine: the client's TTFT includes its connect and
    # send, so only a generous upper bound; it is never early.
    assert min(ttfts) >= 30.0 and statistics.median(ttfts) <= 50.0, ttfts
    assert 8.0 <= statistics.median(gaps) <= 12.0
    log = srv.get("/truth/log?id=sched-0")
    assert len(log["token_ns"]) == 20 and log["outcome"] == "ok"
    late = schedule_lateness_ns(log)
    assert min(late) >= 0  # a token is never written before it is due
    assert statistics.median(late) < 5e6


def test_models_health_and_log_endpoints(srv: TruthServer) -> None:
    assert srv.get("/health")["status"] == "ok"
    assert srv.get("/v1/models")["data"][0]["id"] == "truth"
    assert isinstance(srv.get("/truth/log"), list)


def test_request_id_from_header_and_prompt_marker(srv: TruthServer) -> None:
    async def go() -> tuple[str | None, str | None]:
        async with aiohttp.ClientSession() as s:
            async with s.post(srv.base_url + "/v1/completions", json={"prompt": "x", "max_tokens": 1, "stream": True}, headers={"X-Request-ID": "hdr-1"}) as r:
                await r.read()
                a = r.headers.get("X-Truth-Id")
            async with s.post(srv.base_url + "/v1/completions", json={"prompt": "x [truth-id:mark-7] y", "max_tokens": 1, "stream": True}) as r:
                await r.read()
                b = r.headers.get("X-Truth-Id")
            return a, b

    assert asyncio.run(go()) == ("hdr-1", "mark-7")


def test_fault_error_event_after_k_tokens(srv: TruthServer) -> None:
    status, chunks, _, err = asyncio.run(_raw(srv.base_url, {"max_tokens": 6, "stream": True, "truth": {"error_after": 2, "ttft_ms": 1, "itl_ms": 1}}))
    ev = _events(chunks)
    assert status == 200 and err is None
    assert len(ev) == 3 and json.loads(ev[2])["error"]["message"].startswith("truth: injected stream error")
    assert sum('"content"' in e for e in ev) == 2


def test_fault_drop_after_k_tokens(srv: TruthServer) -> None:
    status, chunks, _, err = asyncio.run(_raw(srv.base_url, {"max_tokens": 6, "stream": True, "truth": {"drop_after": 3, "ttft_ms": 1, "itl_ms": 1}}))
    assert status == 200 and isinstance(err, aiohttp.ClientPayloadError)
    assert len(_events(chunks)) == 3


def test_fault_omit_done_and_usage_switch(srv: TruthServer) -> None:
    base = {"max_tokens": 2, "stream": True, "stream_options": {"include_usage": True}}
    _, chunks, _, _ = asyncio.run(_raw(srv.base_url, {**base, "truth": {"omit_done": True, "ttft_ms": 1, "itl_ms": 1}}))
    ev = _events(chunks)
    assert "[DONE]" not in ev and json.loads(ev[2])["choices"][0]["finish_reason"] == "length"
    assert json.loads(ev[3])["usage"]["completion_tokens"] == 2
    _, chunks, _, _ = asyncio.run(_raw(srv.base_url, {**base, "truth": {"usage": False, "ttft_ms": 1, "itl_ms": 1}}))
    ev = _events(chunks)
    assert ev[-1] == "[DONE]" and not any("usage" in e for e in ev)
    _, chunks, _, _ = asyncio.run(_raw(srv.base_url, {"max_tokens": 1, "stream": True, "truth": {"ttft_ms": 1}}))
    assert not any("usage" in e for e in _events(chunks))  # follows stream_options when not forced


def test_fault_context_overflow_matches_llama_cpp(srv: TruthServer) -> None:
    status, chunks, _, _ = asyncio.run(
        _raw(srv.base_url, {"prompt": "a b c d e", "max_tokens": 2, "stream": True, "truth": {"context_size": 4}}, "/v1/completions")
    )
    body = json.loads(b"".join(c for _, c in chunks))
    assert status == 400
    assert body == context_overflow_body(5, 4)
    assert body["error"]["message"] == "request (5 tokens) exceeds the available context size (4 tokens), try increasing it"
    assert body["error"]["type"] == "exceed_context_size_error"


def test_non_streaming_and_injected_status(srv: TruthServer) -> None:
    status, chunks, _, _ = asyncio.run(_raw(srv.base_url, {"max_tokens": 3, "truth": {"ttft_ms": 1, "itl_ms": 1}}))
    body = json.loads(b"".join(c for _, c in chunks))
    assert status == 200 and body["choices"][0]["message"]["content"] == " the" * 3
    status, _, _, _ = asyncio.run(_raw(srv.base_url, {"max_tokens": 3, "stream": True, "truth": {"status": 503}}))
    assert status == 503


# ----------------------------------------------------------------------------- servescope's client against each fault


def test_send_ok_and_times_match_the_log(srv: TruthServer) -> None:
    rec = _send(srv, {"user": "ss-ok", "truth": {"ttft_ms": 5, "itl_ms": 5}}, max_tokens=8)
    assert rec.ok, rec.error
    assert rec.output_tokens == 8 and rec.token_count_source == "server-usage" and rec.finish_reason == "length"
    assert len(rec.chunk_ns) == 8
    log = srv.get("/truth/log?id=ss-ok")
    # Relative client gaps vs server gaps: same count, and close (loopback).
    cg = [b - a for a, b in zip(rec.chunk_ns, rec.chunk_ns[1:], strict=False)]
    sg = [b - a for a, b in zip(log["token_ns"], log["token_ns"][1:], strict=False)]
    assert statistics.median(abs(c - s) for c, s in zip(cg, sg, strict=True)) < 5e6


def test_send_classifies_mid_stream_error(srv: TruthServer) -> None:
    rec = _send(srv, {"user": "ss-err", "truth": {"error_after": 2, "ttft_ms": 1, "itl_ms": 1}})
    assert (rec.ok, rec.stage, rec.category) == (False, "stream", "stream-error")
    assert "injected stream error" in (rec.error or "")
    assert len(rec.chunk_ns) == 2


def test_send_classifies_dropped_connection(srv: TruthServer) -> None:
    rec = _send(srv, {"user": "ss-drop", "truth": {"drop_after": 2, "ttft_ms": 1, "itl_ms": 1}})
    assert (rec.ok, rec.stage, rec.category) == (False, "stream", "connection")


def test_send_classifies_context_overflow(srv: TruthServer) -> None:
    rec = _send(srv, {"user": "ss-ovf", "truth": {"overflow": True}}, api="completions")
    assert (rec.ok, rec.category, rec.http_status) == (False, "context-overflow", 400)


def test_send_missing_done_with_finish_reason_is_ok(srv: TruthServer) -> None:
    rec = _send(srv, {"user": "ss-nodone", "truth": {"omit_done": True, "usage": False, "ttft_ms": 1, "itl_ms": 1}}, max_tokens=3)
    assert rec.ok, rec.error
    assert rec.finish_reason == "length" and rec.output_tokens == 3 and rec.token_count_source == "stream-count"


# ----------------------------------------------------------------------------- several workers, one port


def test_two_workers_share_a_port_and_log_to_files(tmp_path: Any) -> None:
    async def burst(base: str) -> None:
        async with aiohttp.ClientSession(connector=aiohttp.TCPConnector(force_close=True)) as s:

            async def one(i: int) -> None:
                async with s.post(base + "/v1/chat/completions", json={"max_tokens": 2, "stream": True, "user": f"w-{i}"}) as r:
                    await r.read()

            await asyncio.gather(*(one(i) for i in range(24)))

    with TruthServer(workers=2, ttft_ms=1, itl_ms=1, log_dir=tmp_path) as s:
        assert len(s.pids) == 2
        asyncio.run(burst(s.base_url))
        log = s.read_log()
    assert {f"w-{i}" for i in range(24)} <= set(log)
    assert log == read_log_dir(tmp_path)
    assert all(len(e["token_ns"]) == 2 for k, e in log.items() if k.startswith("w-"))
