"""Scraping ``/metrics`` must never touch token timing.

The timing-truth server (its own process) serves a real vLLM 0.32 ``/metrics`` page
(52 KB, tests/bench/fixtures/vllm_0.32_cpu_metrics.txt) and logs the moment it
writes every token; ``run_point`` — the path every run takes — measures it with
the sampler on, and each token's stamp is held against the log.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from servescope.bench import scrape
from servescope.bench.client import make_session
from servescope.bench.endpoint import Endpoint
from servescope.bench.execute import LoadSpec, run_point
from servescope.bench.outcome import PointOutcome
from servescope.bench.records import RecordWriter
from servescope.bench.scrape import MetricsSampler
from servescope.testing.truth.contrast import OnLoopSampler
from servescope.testing.truth.errors import Pairing
from servescope.testing.truth.server import TruthServer
from servescope.workload.plan import PlannedPoint, PlannedRequest

pytestmark = [pytest.mark.integration, pytest.mark.timing]

FIXTURES = Path(__file__).parent / "fixtures"
VLLM_PAGE = FIXTURES / "vllm_0.32_cpu_metrics.txt"
SGLANG_PAGE = FIXTURES / "sglang_metrics.txt"

CONCURRENCY = 16
REQUESTS = 64
TOKENS = 48
ITL_MS = 10.0


def _point(tag: str) -> PlannedPoint:
    reqs = [PlannedRequest(f"{tag}-{i}", f"[truth-id:{tag}-{i}] hello", f"p{i}", TOKENS, None) for i in range(REQUESTS)]
    return PlannedPoint(index=0, concurrency=CONCURRENCY, requests=reqs)


def _measure(srv: TruthServer, tmp_path: Path, tag: str, sampler: MetricsSampler | None) -> tuple[dict[str, Any], PointOutcome]:
    endpoint = Endpoint.create(srv.base_url, model="truth")

    async def go() -> tuple[int, PointOutcome]:
        async with make_session() as session:
            t0 = time.perf_counter_ns()
            with RecordWriter(tmp_path / f"{tag}.jsonl") as writer:
                out = await run_point(
                    session, endpoint, _point(tag), writer, t0_ns=t0, timeout_s=60, temperature=0.0, seed=None, load=LoadSpec(), sampler=sampler
                )
            return t0, out

    t0, outcome = asyncio.run(go())
    log = srv.read_log()
    pairing = Pairing()
    gaps: list[int] = []
    for rec in outcome.records:
        assert rec.ok, rec.error
        pairing.add(rec.request_id, [t0 + c for c in rec.chunk_ns], log.get(rec.request_id))
        gaps.extend(np.diff(rec.chunk_ns).tolist())
    summary = pairing.summary()
    assert summary["requests_matched"] == REQUESTS
    summary["bunched_fraction"] = float(np.mean(np.asarray(gaps) < 100_000))  # gaps under 0.1 ms; the server's are 10 ms
    return summary, outcome


def _best(
    srv_kwargs: dict[str, Any], tmp_path: Path, tag: str, make_sampler: Any, rounds: int = 3, good_enough: Any = None
) -> tuple[dict[str, Any], list[MetricsSampler | None]]:
    """The best of up to ``rounds`` measurements (lowest ITL p99), stopping at the first
    that ``good_enough`` accepts: this 2-core machine is shared, and a descheduled
    client process stalls its tokens whatever it runs."""
    best: dict[str, Any] | None = None
    samplers = []
    for k in range(rounds):
        with TruthServer(ttft_ms=20.0, itl_ms=ITL_MS, **srv_kwargs) as srv:
            sampler = make_sampler(srv.base_url)
            summary, outcome = _measure(srv, tmp_path, f"{tag}{k}", sampler)
            summary["outcome"] = outcome
        samplers.append(sampler)
        if best is None or summary["itl_abs_error_ms"]["p99"] < best["itl_abs_error_ms"]["p99"]:
            best = summary
        if good_enough is not None and good_enough(summary):
            break
    assert best is not None
    return best, samplers


def _passes(baseline: dict[str, Any]) -> Any:
    def ok(summary: dict[str, Any]) -> bool:
        try:
            _check_truthful(summary, baseline)
        except AssertionError:
            return False
        return True

    return ok


@pytest.fixture(scope="module")
def baseline(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """No scraping at all: the client's own error on this machine, now. The median of
    three rounds, not the best: on this shared 2-core machine one round's ITL p99 runs
    0.6-2.2 ms with nothing scraping, and a lucky low baseline failed CI against a
    scraping round that was no worse than the typical unscraped one (1.5 ms)."""
    tmp = tmp_path_factory.mktemp("baseline")
    rounds = []
    for k in range(3):
        with TruthServer(ttft_ms=20.0, itl_ms=ITL_MS) as srv:
            rounds.append(_measure(srv, tmp, f"base{k}", None)[0])
    return {
        "itl_abs_error_ms": {"p99": float(np.median([r["itl_abs_error_ms"]["p99"] for r in rounds]))},
        "bunched_fraction": float(np.median([r["bunched_fraction"] for r in rounds])),
        "rounds": rounds,
    }


def _check_truthful(summary: dict[str, Any], baseline: dict[str, Any]) -> None:
    """Issue 10's bar: ITL p50 error < 0.3 ms, p99 < 1 ms and bunched gaps under 2 %,
    as without scraping (both loosened as below only when the client misses them alone).
    The p99 bound is 1 ms, or, when this shared machine is loaded and the client misses
    1 ms even with no scraping, 1.5 x the baseline's median p99 + 0.5 ms: a loaded CI
    machine does not fail it, while a scrape on the loop (p99 ~7.7 ms against ~2 ms
    unscraped, measured 2026-12-01) still does (test_the_check_catches_a_scrape_on_the_loop)."""
    itl = summary["itl_abs_error_ms"]
    assert itl["p50"] < 0.3, summary
    bound = max(1.0, 1.5 * baseline["itl_abs_error_ms"]["p99"] + 0.5)
    assert itl["p99"] < bound, (summary, baseline)
    # Same rule for bunching: 2 %, or on a loaded machine twice what the client shows
    # with no scraping + 1 % (a 40 ms parse on the loop bunches far more than that).
    assert summary["bunched_fraction"] < max(0.02, 2 * baseline["bunched_fraction"] + 0.01), (summary, baseline)


@pytest.mark.parametrize("page", [VLLM_PAGE, SGLANG_PAGE], ids=["vllm", "sglang"])
def test_scraping_a_real_page_leaves_token_timing_alone(page: Path, tmp_path: Path, baseline: dict[str, Any]) -> None:
    # Ten times the default rate, to give a scrape every chance to land among tokens.
    summary, samplers = _best({"metrics_file": page}, tmp_path, "scrape", lambda url: MetricsSampler(url, interval_s=0.05), good_enough=_passes(baseline))
    _check_truthful(summary, baseline)
    for sampler in samplers:
        assert sampler is not None
        stats = sampler.stats
        assert stats.scrapes >= 10 and stats.failed == 0, stats
        assert stats.page_bytes_max == page.stat().st_size
    assert summary["outcome"].engine.kv_utilization is not None  # the page's KV gauge was read


def test_the_check_catches_a_scrape_on_the_loop(tmp_path: Path, baseline: dict[str, Any]) -> None:
    """The same measurement fails the bar when the page is parsed on the loop, so the
    test above can fail."""
    summary, _ = _best({"metrics_file": VLLM_PAGE}, tmp_path, "onloop", lambda url: OnLoopSampler(url, interval_s=0.05), rounds=1)
    with pytest.raises(AssertionError):
        _check_truthful(summary, baseline)


def test_a_slow_parse_does_not_reach_the_loop(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, baseline: dict[str, Any]) -> None:
    """Each parse is made to take 40 ms. On the loop that stalls every token arriving
    meanwhile (their stamps bunch); in the sampler's thread the loop never waits."""
    real = scrape.parse_exposition

    def slow(text: str, prefixes: tuple[str, ...] | None = None) -> dict[str, float]:
        time.sleep(0.04)
        return real(text, prefixes)

    monkeypatch.setattr(scrape, "parse_exposition", slow)
    summary, samplers = _best(
        {"metrics_file": VLLM_PAGE},
        tmp_path,
        "slow",
        lambda url: MetricsSampler(url, interval_s=0.05, max_interval_s=0.05),
        good_enough=_passes(baseline),
    )
    _check_truthful(summary, baseline)
    for sampler in samplers:
        assert sampler is not None and sampler.stats.scrapes >= 10
        assert min(sampler.stats.parse_ms) >= 40.0  # the slow parse did run


def test_a_slow_scrape_backs_off(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    real = scrape.parse_exposition

    def slow(text: str, prefixes: tuple[str, ...] | None = None) -> dict[str, float]:
        time.sleep(0.03)  # over a tenth of a 0.1 s interval
        return real(text, prefixes)

    monkeypatch.setattr(scrape, "parse_exposition", slow)
    with TruthServer(ttft_ms=5.0, itl_ms=2.0, metrics_file=VLLM_PAGE) as srv:
        sampler = MetricsSampler(srv.base_url, interval_s=0.1, max_interval_s=0.4)
        _measure(srv, tmp_path, "backoff", sampler)
    meta = sampler.stats.as_metadata()
    assert meta["interval_s"] == 0.1 and meta["final_interval_s"] == 0.4
    assert meta["in_thread"] is True and meta["parse_ms_max"] >= 30.0


def test_no_page_and_an_oversized_page_say_why(tmp_path: Path) -> None:
    with TruthServer(ttft_ms=5.0, itl_ms=2.0) as srv:  # no --metrics-file: 404
        sampler = MetricsSampler(srv.base_url)
        _, outcome = _measure(srv, tmp_path, "nopage", sampler)
        assert sampler.available is False and outcome.engine.kv_utilization is None
        assert sampler.stats.note is not None and "HTTP 404" in sampler.stats.note
    with TruthServer(ttft_ms=5.0, itl_ms=2.0, metrics_file=VLLM_PAGE) as srv:
        sampler = MetricsSampler(srv.base_url, max_page_bytes=4096)
        _, outcome = _measure(srv, tmp_path, "big", sampler)
        assert sampler.available is False and outcome.engine.kv_utilization is None
        assert sampler.stats.note is not None and "larger than 4096 bytes" in sampler.stats.note
