"""The harness against a real llama.cpp server on loopback: each scenario ends
with the right records, categories and documents."""

from __future__ import annotations

import json
import signal
import threading
import time
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer, ServerConfig
from servescope.bench.records import read_header, read_records
from servescope.bench.recover import result_from_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.catalog.validate import validate_paths
from servescope.documents.result import Slo

pytestmark = pytest.mark.integration


def _valid(paths: list[Path], catalog: Catalog) -> None:
    report = validate_paths(paths, catalog)
    assert report.errors == 0, [i.format(s) for s, i in report.issues()]


def test_serving_run(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, scenario="tiny-on-cpu"), catalog=itest_catalog)
    records = list(read_records(art.records_path))
    assert len(records) == 14 and sum(r.phase == "warmup" for r in records) == 2
    m = art.result.metrics
    assert (m.total_requests, m.completed_requests, m.failed_requests) == (12, 12, 0)
    assert m.token_count_source == "server-usage"
    assert m.output_tokens_total == 12 * 16  # the tiny model never stops early
    assert m.ttft_ms and m.ttft_ms.count == 12 and 0 < m.ttft_ms.p50 < 5000
    assert m.itl_ms and m.itl_ms.count == 12 * 15
    assert m.kv_utilization is None  # llama.cpp exposes no KV gauge: null, not invented
    assert art.result.engine.id == "llama.cpp" and art.result.engine.version  # detected from /props
    assert art.result.args == {}  # an external endpoint's flags are unknown unless --engine-args says them
    assert art.result.metadata.allow_network is True  # an --endpoint may be anywhere: the run used the network
    assert art.evaluation_run.points[0].concurrency == 4
    header = read_header(art.records_path)
    assert header is not None and header["workload_id"] == "serve-itest-c4-v1"
    _valid([art.result_path, art.evaluation_run_path], itest_catalog)


def test_sweep_keeps_every_point(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    art = run_workload(RunOptions("sweep-itest-1-4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=itest_catalog)
    pts = art.result.points or []
    assert [p.concurrency for p in pts] == [1, 2, 4]
    # max(num_requests=3, c * 2): 3, 4, 8
    assert [p.metrics.total_requests for p in pts] == [3, 4, 8]
    assert [p.concurrency for p in art.evaluation_run.points] == [1, 2, 4]
    _valid([art.result_path, art.evaluation_run_path], itest_catalog)


@pytest.mark.timing
def test_prefix_cache_pair(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    on = run_workload(RunOptions("serve-itest-prefix-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=itest_catalog)
    off = run_workload(
        RunOptions("serve-itest-prefix-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, extra_body={"cache_prompt": False}),
        catalog=itest_catalog,
    )
    recs_on = [r for r in read_records(on.records_path) if r.phase == "measured"]
    recs_off = [r for r in read_records(off.records_path) if r.phase == "measured"]
    # rows of a group run back to back, the group's first row is warmup
    assert [r.group for r in read_records(on.records_path)][:3] == ["p00", "p00", "p00"]
    assert len(recs_on) == len(recs_off) == 11
    assert sum(r.cached_tokens or 0 for r in recs_on) > 0.5 * sum(r.input_tokens or 0 for r in recs_on)
    assert sum(r.cached_tokens or 0 for r in recs_off) == 0
    assert on.result.config_id != off.result.config_id
    assert on.result.metrics.prefix_cache_hit_rate is not None and on.result.metrics.prefix_cache_hit_rate > 0.5
    ttft_on, ttft_off = on.result.metrics.ttft_ms, off.result.metrics.ttft_ms
    assert ttft_on and ttft_off and ttft_on.p50 < ttft_off.p50  # reusing ~1k cached tokens is faster


def test_longctx_needle_and_overflow_are_failures_not_omissions(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    art = run_workload(RunOptions("longctx-itest-v1", endpoint=llama.openai_base_url, out_dir=tmp_path), catalog=itest_catalog)
    pts = art.result.points or []
    assert [p.context_tokens for p in pts] == [512, 4096]
    assert all(p.metrics.total_requests == 2 for p in pts)
    # random weights never find the needle: a wrong answer is a failed request
    assert art.result.blocked_by_reason_code == {"context-overflow": 2, "malformed-output": 2}
    cats = {(f.stage, f.category) for f in art.result.failures}
    assert cats == {("score", "malformed-output"), ("send", "context-overflow")}
    assert {f.concurrency for f in art.result.failures} == {1}  # located at their sweep point
    overflow = next(f for f in art.result.failures if f.category == "context-overflow")
    assert overflow.http_status == 400 and "exceeds the available context size" in overflow.message
    assert pts[1].status == "failed"
    _valid([art.result_path, art.evaluation_run_path], itest_catalog)


def test_server_killed_mid_run(engine_cache: Path, itest_catalog: Catalog, tmp_path: Path) -> None:
    with LlamaServer(ServerConfig(parallel=2, ctx_per_slot=1024, cache_dir=engine_cache)) as server:
        holder: dict[str, object] = {}

        def runner() -> None:
            holder["art"] = run_workload(
                RunOptions("serve-itest-long-c2-v1", endpoint=server.openai_base_url, out_dir=tmp_path, scrape_metrics=False),
                catalog=itest_catalog,
            )

        thread = threading.Thread(target=runner)
        thread.start()
        deadline = time.monotonic() + 60
        records_files: list[Path] = []
        while time.monotonic() < deadline:
            records_files = list(tmp_path.glob("*/records.jsonl"))
            if records_files and sum(1 for _ in read_records(records_files[0])) >= 4:
                break
            time.sleep(0.05)
        server._require().process.send_signal(signal.SIGKILL)  # noqa: SLF001 - the test kills the real process
        thread.join(timeout=120)
    art = holder["art"]
    records = list(read_records(art.records_path))  # type: ignore[attr-defined]
    assert len(records) == 24  # every request ends in a record
    ok = [r for r in records if r.ok]
    bad = [r for r in records if not r.ok]
    assert len(ok) >= 4 and bad
    assert {r.category for r in bad} == {"connection"}
    assert {r.stage for r in bad} <= {"connect", "stream"}
    result = art.result  # type: ignore[attr-defined]
    assert result.blocked_by_reason_code == {"connection": len(bad)}
    # the records alone rebuild the same counts (what summarize does for a partial run)
    rebuilt = result_from_records(art.records_path, itest_catalog)  # type: ignore[attr-defined]
    assert rebuilt.metrics.completed_requests == len(ok)
    assert rebuilt.metrics.failed_requests == len(bad)


def test_records_alone_rebuild_on_time_rate_and_achieved_rate(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    """What summarize does for a run that wrote no result.json: the records file (its
    header and its lines) must give the same SLO and load figures as the finished run."""
    slos = [Slo(id="ttft_ms<=1e9", metric="ttft_ms", threshold=1e9), Slo(id="itl_ms<1", metric="itl_ms", op="<", threshold=1.0)]
    art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path, rate=50.0, slos=slos), catalog=itest_catalog)
    assert art.result.on_time_rate is not None and art.result.metrics.achieved_rate is not None
    rebuilt = result_from_records(art.records_path, itest_catalog)
    assert rebuilt.slos == art.result.slos
    assert rebuilt.on_time_rate == art.result.on_time_rate
    assert rebuilt.violations_by_invariant_id == art.result.violations_by_invariant_id
    assert rebuilt.metrics.requested_rate == art.result.metrics.requested_rate == 50.0
    assert rebuilt.metrics.achieved_rate == art.result.metrics.achieved_rate
    assert rebuilt.metrics.model_dump() == art.result.metrics.model_dump()


def test_result_files_are_json_documents(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=llama.base_url + "/v1/", out_dir=tmp_path), catalog=itest_catalog)
    data = json.loads(art.result_path.read_text())
    assert data["kind"] == "Result" and data["endpoint"] == llama.base_url
    assert "api_key" not in art.result_path.read_text().lower()


def test_mid_stream_error_is_a_recorded_failure(itest_catalog: Catalog, tmp_path: Path) -> None:
    """llama.cpp reports errors as HTTP statuses before streaming and cannot be made to
    fail mid-stream, so this case runs against the loopback timing-truth server with
    its fault switch on: every stream sends 3 tokens, then a `data: {"error": ...}` event."""
    from servescope.testing.truth.server import TruthServer

    with TruthServer(itl_ms=1.0, ttft_ms=2.0, error_after=3) as srv:  # every request fails: --no-fail-fast sends them all
        art = run_workload(
            RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, fail_fast=False), catalog=itest_catalog
        )
    records = [r for r in read_records(art.records_path) if r.phase == "measured"]
    assert len(records) == 12 and not any(r.ok for r in records)
    assert {(r.stage, r.category) for r in records} == {("stream", "stream-error")}
    assert all(len(r.chunk_ns) == 3 and r.first_token_ns is not None for r in records)  # what arrived is kept
    assert art.result.blocked_by_reason_code == {"stream-error": 12}
    assert art.result.metrics.completed_requests == 0 and art.result.metrics.ttft_ms is None
    _valid([art.result_path, art.evaluation_run_path], itest_catalog)
