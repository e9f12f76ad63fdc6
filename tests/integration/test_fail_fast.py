"""A dead or broken server stops the run early (bench.fail_fast): the first requests
all failed the same way, the rest are recorded as not sent, and the Result is written."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servescope.bench.client import make_session
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec, run_point
from servescope.bench.fail_fast import FailFast, window_for
from servescope.bench.records import RecordWriter, read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.documents.record import RequestRecord
from servescope.testing.truth.server import TruthServer
from servescope.workload.plan import PlannedPoint, PlannedRequest
from tests.bench.hostile import hostile_server
from tests.integration.test_not_http import MODELS_ANSWER, serve_tcp

pytestmark = pytest.mark.integration


def _free_port() -> int:
    """A loopback port nothing listens on (bound, then closed)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _point(n: int, concurrency: int) -> PlannedPoint:
    reqs = [PlannedRequest(f"q{i}", f"prompt {i}", f"p{i}", 8, None) for i in range(n)]
    return PlannedPoint(0, concurrency, reqs)


async def _run_point(url: str, point: PlannedPoint, path: Path, fail_fast: FailFast | None, rate: float | None = None) -> None:
    async with make_session() as session:
        with RecordWriter(path) as writer:
            await run_point(
                session,
                Endpoint(url, "m"),
                point,
                writer,
                t0_ns=time.perf_counter_ns(),
                timeout_s=5.0,
                temperature=0.0,
                seed=None,
                load=LoadSpec(rate=rate),
                fail_fast=fail_fast,
            )


@pytest.mark.parametrize("rate", [None, 2000.0, 20.0])
def test_a_port_nothing_listens_on_stops_after_the_first_window(tmp_path: Path, rate: float | None) -> None:
    point = _point(200, 4)
    rule = FailFast(window_for(4))
    path = tmp_path / "records.jsonl"
    t0 = time.monotonic()
    asyncio.run(_run_point(f"http://127.0.0.1:{_free_port()}", point, path, rule, rate))
    assert time.monotonic() - t0 < 5.0  # at 20 req/s the schedule alone is 10 s: a stopped run does not sit it out
    records = list(read_records(path))
    assert len(records) == 200  # every planned request has its record
    sent = [r for r in records if r.stage != "admission"]
    not_sent = [r for r in records if r.stage == "admission"]
    refused = [r for r in sent if r.category == "connection"]
    assert {(r.stage, r.category) for r in refused} == {("connect", "connection")} and len(refused) >= rule.window
    assert all(r.category == "cancelled" and (r.error or "").startswith("cancelled in flight") for r in sent if r not in refused)
    assert rule.stopped and len(sent) < 200 // 2
    assert {r.category for r in not_sent} == {"cancelled"} and len(not_sent) == rule.not_sent
    assert all(r.error and r.error.startswith("not sent: the run stopped early") for r in not_sent)
    # an open loop prepares each request ahead of its time: a connection refused then is
    # still recorded at the request's time, never before it (no negative latency)
    assert all(r.sent_ns >= r.start_ns and r.end_ns is not None and r.end_ns >= r.start_ns for r in sent)


def test_without_the_rule_every_request_is_sent(tmp_path: Path) -> None:
    path = tmp_path / "records.jsonl"
    asyncio.run(_run_point(f"http://127.0.0.1:{_free_port()}", _point(40, 4), path, None))
    assert {(r.stage, r.category) for r in read_records(path)} == {("connect", "connection")}


def test_a_server_answering_500_to_everything_stops_early_and_keeps_its_result(itest_catalog: Catalog, tmp_path: Path) -> None:
    notices: list[str] = []
    from servescope.bench.run import Progress

    with TruthServer(ttft_ms=1, itl_ms=1, status=500) as srv:
        art = run_workload(
            RunOptions("serve-itest-long-c2-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False),
            Progress(on_notice=notices.append),
            catalog=itest_catalog,
        )
        served = len(srv.read_log())
    window = window_for(2)
    assert window <= served < 24  # 24 planned; the window plus what was in flight
    [notice] = notices
    assert f"stopped early: the first {window} requests all failed with http-error (HTTP 500" in notice and "--no-fail-fast" in notice
    m = art.result.metrics
    assert m.total_requests == 24 and m.completed_requests == 0  # every planned request counted
    codes = art.result.blocked_by_reason_code
    assert set(codes) == {"http-error", "cancelled"} and codes["http-error"] >= window and sum(codes.values()) == 24
    not_sent = [r for r in read_records(art.records_path) if r.stage == "admission"]
    assert len(not_sent) == 24 - served and all(r.category == "cancelled" for r in not_sent)
    assert art.result.resolved_params["stopped_early"] == notice
    assert (art.run_dir / "result.json").is_file()


def test_no_fail_fast_sends_every_request(itest_catalog: Catalog, tmp_path: Path) -> None:
    with TruthServer(ttft_ms=1, itl_ms=1, status=500) as srv:
        art = run_workload(
            RunOptions("serve-itest-long-c2-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, fail_fast=False), catalog=itest_catalog
        )
        assert len(srv.read_log()) == 24
    assert art.result.blocked_by_reason_code == {"http-error": 24}


def test_a_server_that_never_answers_stops_after_the_first_timeouts(itest_catalog: Catalog, tmp_path: Path) -> None:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1])}
    with TruthServer(ttft_ms=600_000, itl_ms=1) as srv:  # headers at once, the first token in ten minutes
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "servescope",
                "run",
                "serve-itest-long-c2-v1",
                "--endpoint",
                srv.base_url,
                "--timeout",
                "0.3",
                "--no-scrape",
                "--out",
                str(tmp_path),
            ],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 4, proc.stderr  # recorded, failed its bar
    assert "stopped early: the first 8 requests all failed with timeout" in proc.stdout
    [result] = tmp_path.glob("*/result.json")
    codes = json.loads(result.read_text())["blocked_by_reason_code"]
    assert codes["timeout"] >= 8 and codes["cancelled"] >= 24 - 12 and sum(codes.values()) == 24


def test_a_server_that_drops_every_request_stops_early(itest_catalog: Catalog, tmp_path: Path) -> None:
    with hostile_server("normal", drop_first=10**9) as srv:  # /v1/models answers; every completion's connection is cut
        art = run_workload(
            RunOptions("serve-itest-long-c2-v1", endpoint=srv.base_url, model="hostile", out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog
        )
    codes = art.result.blocked_by_reason_code
    assert codes["connection"] >= 8 and codes["cancelled"] > 0 and sum(codes.values()) == 24


def _rec(ok: bool, category: str | None = None) -> RequestRecord:
    stage = None if ok else "score" if category == "wrong-answer" else "stream"
    return RequestRecord(
        request_id="r", ok=ok, stage=stage, category="malformed-output" if category == "wrong-answer" else category, error=None if ok else "boom"
    )


@pytest.mark.parametrize(
    ("history", "stops"),
    [
        (["timeout"] * 8, True),
        (["timeout"] * 7, False),
        ([None] + ["timeout"] * 20, False),  # one success among the first disarms the rule
        (["timeout"] * 4 + ["connection"] * 20, False),  # two causes: not one dead server
        (["context-overflow"] * 20, False),  # an answer about the request, not the server
        (["http-error"] * 3 + ["unsupported"] + ["http-error"] * 20, False),
        (["wrong-answer"] * 20, False),  # a needle not found in the answer: the server answered
        (["malformed-output"] * 8, True),  # answers that cannot be read (not HTTP, impossible usage)
    ],
)
def test_only_the_first_requests_all_failing_one_way_stop_the_run(history: list[str | None], stops: bool) -> None:
    rule = FailFast(8)
    for category in history:
        rule.observe(_rec(category is None, category))
    assert rule.stopped is stops


def test_the_window_grows_with_concurrency_and_is_bounded() -> None:
    assert [window_for(c) for c in (1, 4, 5, 32, 64, 1000)] == [8, 8, 10, 64, 128, 128]


# The raw server's hung connections are closed at teardown; now and then one accepted as the
# client gives up is collected after its loop closed (a test-server teardown race, no product socket).
@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_requests_in_flight_when_the_run_stops_are_cancelled_not_waited_for(itest_catalog: Catalog, tmp_path: Path) -> None:
    """The first 8 requests get HTTP 500 at once; every later one is never answered. The
    ones in flight when the rule trips are cancelled then, not after their 60 s timeout."""
    answered = 0

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        nonlocal answered
        while True:
            head = await reader.readuntil(b"\r\n\r\n")
            length = next((int(ln.split(b":")[1]) for ln in head.split(b"\r\n") if ln.lower().startswith(b"content-length:")), 0)
            await reader.readexactly(length)
            if head.startswith(b"GET "):
                writer.write(MODELS_ANSWER)
            elif answered < 8:
                answered += 1
                writer.write(b"HTTP/1.1 500 Internal Server Error\r\nContent-Length: 4\r\n\r\nboom")
            else:
                await reader.read()  # silence until the client gives up
                return
            await writer.drain()

    with serve_tcp(handle) as url:
        t0 = time.monotonic()
        art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=url, out_dir=tmp_path, scrape_metrics=False, timeout_s=60), catalog=itest_catalog)
        elapsed = time.monotonic() - t0
    assert elapsed < 20  # not 60 s for the requests left hanging
    records = list(read_records(art.records_path))
    assert len(records) == 14
    by = {(r.stage, r.category) for r in records}
    assert ("send", "http-error") in by and ("admission", "cancelled") in by
    in_flight = [r for r in records if r.stage != "admission" and r.category == "cancelled"]
    assert in_flight and all(r.error and r.error.startswith("cancelled in flight: the run stopped early") for r in in_flight)
    assert sum(r.category == "http-error" for r in records) == 8
