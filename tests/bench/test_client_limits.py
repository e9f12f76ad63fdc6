"""The client against a misbehaving server on loopback: bounded, recorded, redacted."""

from __future__ import annotations

import asyncio
import time

import pytest

from servescope import limits
from servescope.analysis.metrics import aggregate
from servescope.bench.client import make_session, send
from servescope.bench.endpoint import Endpoint
from servescope.documents.record import RequestRecord
from tests.bench.hostile import HostileServer, hostile_server

pytestmark = pytest.mark.integration

KEY = "sk-test-4f9a8b7c6d5e4f3a2b1c"


def _send(srv: HostileServer, *, api_key: str | None = None, timeout_s: float = 20.0) -> RequestRecord:
    endpoint = Endpoint(srv.base_url, "hostile", "chat", api_key)

    async def go() -> RequestRecord:
        async with make_session() as session:
            rec = RequestRecord(request_id="r0")
            body = endpoint.body("hello", 8)
            return await send(session, endpoint, body, rec, t0_ns=time.perf_counter_ns(), timeout_s=timeout_s)

    return asyncio.run(go())


def test_a_normal_stream_is_one_attempt() -> None:
    with hostile_server("normal") as srv:
        rec = _send(srv)
    assert rec.ok, rec.error
    assert rec.attempts == 1
    assert rec.output_tokens == 3


# --- issue 12, bug 3: an empty data field is an event with empty data, not a failure -------------


def test_an_empty_data_field_mid_stream_is_not_a_failure() -> None:
    with hostile_server("empty-data-field") as srv:
        rec = _send(srv)
    assert rec.ok, rec.error
    assert rec.output_tokens == 3 and len(rec.chunk_ns) == 3


# --- issue 12, bug 2: a send that never reached the server is counted ------------------------------


def test_a_request_sent_again_records_its_attempts() -> None:
    with hostile_server("normal", drop_first=2) as srv:
        rec = _send(srv)
        posts = len(srv.seen_headers)
    assert rec.ok, rec.error
    assert posts == 3
    assert rec.attempts == 3


def test_a_request_that_never_gets_through_says_how_often_it_was_sent() -> None:
    with hostile_server("normal", drop_first=10) as srv:
        rec = _send(srv)
    assert not rec.ok and rec.category == "connection"
    assert rec.attempts == 4 and "after 4 attempts" in (rec.error or "")


def test_the_metrics_count_resends_and_resent_requests() -> None:
    records = [
        RequestRecord(request_id=str(i), start_ns=0, sent_ns=0, first_token_ns=5, end_ns=9, output_tokens=1, attempts=a) for i, a in enumerate([1, 3, 2, 1])
    ]
    metrics = aggregate(records).metrics
    assert metrics["resends"] == 3 and metrics["resent_requests"] == 2
    # records written before attempts were counted: unknown, not zero
    old = [RequestRecord(request_id="x", start_ns=0, first_token_ns=5, end_ns=9, output_tokens=1)]
    assert "resends" not in aggregate(old).metrics


# --- issue 13, finding 2: every stream is bounded ----------------------------------------------------


@pytest.mark.parametrize("mode", ["endless-line", "endless-data-lines"])
def test_an_endless_line_or_event_ends_the_request_as_malformed_output(mode: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_SSE_LINE_BYTES", 256 * 1024)
    monkeypatch.setattr(limits, "MAX_SSE_EVENT_BYTES", 256 * 1024)
    t = time.perf_counter()
    with hostile_server(mode) as srv:
        rec = _send(srv)
    assert time.perf_counter() - t < 10
    assert not rec.ok
    assert rec.category == "malformed-output" and rec.stage == "stream"
    expected = "SERVESCOPE_MAX_SSE_LINE_BYTES" if mode == "endless-line" else "SERVESCOPE_MAX_SSE_EVENT_BYTES"
    assert expected in (rec.error or "")


def test_a_response_past_its_byte_limit_is_malformed_output(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(limits, "MAX_RESPONSE_BYTES", 2 * 1024 * 1024)
    with hostile_server("huge-response") as srv:
        rec = _send(srv)
    assert not rec.ok and rec.category == "malformed-output"
    assert "SERVESCOPE_MAX_RESPONSE_BYTES" in (rec.error or "")
    assert rec.first_token_ns is not None  # what was seen before stays in the record


def test_an_endless_error_body_is_read_only_up_to_its_limit() -> None:
    with hostile_server("huge-error") as srv:
        rec = _send(srv, timeout_s=10)
    assert not rec.ok and rec.http_status == 500 and rec.category == "http-error"
    assert len(rec.error or "") < 400


# --- issue 13, finding 4: a server that echoes the key cannot get it stored -------------------------


@pytest.mark.parametrize("mode", ["echo-headers", "echo-headers-in-stream"])
def test_an_echoed_key_is_redacted_from_the_record(mode: str) -> None:
    with hostile_server(mode) as srv:
        rec = _send(srv, api_key=KEY)
        assert srv.seen_headers[0]["authorization"] == f"Bearer {KEY}"  # it was sent, and echoed
    assert not rec.ok
    assert KEY not in rec.to_json()
    assert "<redacted>" in (rec.error or "")
