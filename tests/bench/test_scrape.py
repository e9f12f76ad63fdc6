"""Engine /metrics parsing and windows, on real exposition text.

llama.cpp: recorded here (tests/bench/engine/fixtures/). vLLM and SGLang: published
captures (tests/bench/fixtures/README.md). A second snapshot is the same text with
some sample values replaced, which is what the engine prints a moment later.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from servescope.bench.scrape import (
    WANTED_PREFIXES,
    EngineSnapshot,
    EngineWindow,
    ScrapeStats,
    filter_exposition,
    parse_exposition,
    summarize_window,
)
from servescope.documents.result import EngineScrape

HERE = Path(__file__).parent
LLAMACPP_TEXT = (HERE / "engine" / "fixtures" / "llamacpp_metrics.txt").read_text()
VLLM_TEXT = (HERE / "fixtures" / "vllm_metrics.txt").read_text()
SGLANG_TEXT = (HERE / "fixtures" / "sglang_metrics.txt").read_text()


def with_values(text: str, values: dict[str, float]) -> str:
    """The exposition text with the value of every sample of each named series replaced."""
    out = text
    for name, value in values.items():
        pattern = re.compile(rf"^({re.escape(name)}(?:\{{[^}}]*\}})?) \S+$", re.MULTILINE)
        out, n = pattern.subn(lambda m, value=value: f"{m.group(1)} {value!r}", out)
        assert n >= 1, f"{name} not in the fixture"
    return out


def snap(t_s: float, text: str) -> EngineSnapshot:
    return EngineSnapshot(int(t_s * 1e9), parse_exposition(text))


# ---- parse_exposition -----------------------------------------------------------


def test_parse_real_llamacpp_metrics() -> None:
    v = parse_exposition(LLAMACPP_TEXT)
    assert v["llamacpp:prompt_tokens"] == 35.0  # counters lose _total
    assert v["llamacpp:prompt_tokens_cached"] == 33.0
    assert v["llamacpp:tokens_predicted"] == 36.0
    assert v["llamacpp:n_decode"] == 182.0
    assert v["llamacpp:n_tokens_max"] == 157.0
    assert v["llamacpp:requests_processing"] == 2.0
    assert v["llamacpp:requests_deferred"] == 2.0
    assert v["llamacpp:n_busy_slots_per_decode"] == pytest.approx(1.8022)
    assert not any(k.endswith("_total") for k in v)
    assert len(v) == 15


def test_parse_real_vllm_metrics_drops_created_timestamps() -> None:
    v = parse_exposition(VLLM_TEXT)
    assert v == {
        "vllm:num_requests_running": 0.0,
        "vllm:num_requests_waiting": 0.0,
        "vllm:kv_cache_usage_perc": 0.0,
        "vllm:prefix_cache_queries": 0.0,
        "vllm:prefix_cache_hits": 0.0,
        "vllm:num_preemptions": 0.0,
        "vllm:prompt_tokens": 0.0,
        "vllm:generation_tokens": 0.0,
    }


def test_parse_real_sglang_metrics() -> None:
    v = parse_exposition(SGLANG_TEXT)
    assert v["sglang:token_usage"] == 0.28
    assert v["sglang:cache_hit_rate"] == pytest.approx(0.007507552643049313)
    assert v["sglang:prompt_tokens"] == 8_128_902.0
    assert v["sglang:generation_tokens"] == 7_557_572.0
    assert v["sglang:num_running_reqs"] == 162.0
    assert v["sglang:num_queue_reqs"] == 2826.0
    assert v["sglang:time_to_first_token_seconds_count"] == 11008.0


def test_labels_are_summed_away() -> None:
    text = (
        "# TYPE vllm:request_success_total counter\n"
        'vllm:request_success_total{finished_reason="stop",model_name="m"} 480.0\n'
        'vllm:request_success_total{finished_reason="length",model_name="m"} 20.0\n'
    )
    assert parse_exposition(text) == {"vllm:request_success": 500.0}


def test_empty_text_is_no_metrics() -> None:
    assert parse_exposition("") == {}


@pytest.mark.parametrize("text", ["<html>404 Not Found</html>", "this is not exposition", 'vllm:x{a="b"} notanumber\n'])
def test_garbage_raises_value_error(text: str) -> None:
    # MetricsSampler turns ValueError into "metrics unavailable"
    with pytest.raises(ValueError):
        parse_exposition(text)


# ---- llama.cpp windows ------------------------------------------------------------


def test_llamacpp_window_has_no_kv_gauge_and_no_preemptions() -> None:
    w = summarize_window([snap(0, LLAMACPP_TEXT), snap(1, LLAMACPP_TEXT)])
    assert w.kv_utilization is None
    assert w.preemptions is None


def test_llamacpp_prefix_hit_rate_from_counter_deltas() -> None:
    after = with_values(LLAMACPP_TEXT, {"llamacpp:prompt_tokens_total": 135, "llamacpp:prompt_tokens_cached_total": 233})
    w = summarize_window([snap(0, LLAMACPP_TEXT), snap(0.5, LLAMACPP_TEXT), snap(1, after)])
    # Δcached = 233 - 33 = 200, Δcomputed = 135 - 35 = 100 → 200 / 300
    assert w.prefix_cache_hit_rate == pytest.approx(2 / 3)
    assert w.kv_utilization is None and w.preemptions is None
    assert w.raw_delta["llamacpp:prompt_tokens"] == 100.0
    assert w.raw_delta["llamacpp:prompt_tokens_cached"] == 200.0
    assert w.raw_delta["llamacpp:requests_processing"] == 0.0


def test_llamacpp_window_without_prompts_has_no_hit_rate() -> None:
    # nothing finished in the window: the rate is unknown, not 0
    w = summarize_window([snap(0, LLAMACPP_TEXT), snap(1, LLAMACPP_TEXT)])
    assert w.prefix_cache_hit_rate is None


def test_llamacpp_all_computed_is_zero_hit_rate() -> None:
    after = with_values(LLAMACPP_TEXT, {"llamacpp:prompt_tokens_total": 535})
    w = summarize_window([snap(0, LLAMACPP_TEXT), snap(1, after)])
    assert w.prefix_cache_hit_rate == 0.0


# ---- vLLM windows -------------------------------------------------------------------

VLLM_SERIES = ("vllm:kv_cache_usage_perc", "vllm:prefix_cache_queries_total", "vllm:prefix_cache_hits_total", "vllm:num_preemptions_total")


def vllm_at(kv: float, queries: float, hits: float, preemptions: float) -> str:
    return with_values(VLLM_TEXT, dict(zip(VLLM_SERIES, (kv, queries, hits, preemptions), strict=True)))


def test_vllm_window_kv_mean_prefix_rate_and_preemptions() -> None:
    snapshots = [
        snap(0.0, VLLM_TEXT),  # idle, all zero (the real capture)
        snap(0.5, vllm_at(0.5, 1000, 250, 3)),
        snap(1.0, vllm_at(0.7, 3000, 1250, 5)),
    ]
    w = summarize_window(snapshots)
    assert w.kv_utilization == pytest.approx((0.0 + 0.5 + 0.7) / 3)
    assert w.prefix_cache_hit_rate == pytest.approx(1250 / 3000)
    assert w.preemptions == 5
    assert w.raw_delta["vllm:prefix_cache_queries"] == 3000.0
    assert w.raw_delta["vllm:num_preemptions"] == 5.0


def test_vllm_window_uses_first_and_last_counters_only() -> None:
    snapshots = [snap(0, vllm_at(0.1, 100, 10, 1)), snap(1, vllm_at(0.1, 9999, 9999, 99)), snap(2, vllm_at(0.1, 300, 110, 4))]
    w = summarize_window(snapshots)
    assert w.prefix_cache_hit_rate == pytest.approx(100 / 200)
    assert w.preemptions == 3


def test_vllm_idle_window() -> None:
    w = summarize_window([snap(0, VLLM_TEXT), snap(1, VLLM_TEXT)])
    assert w.kv_utilization == 0.0
    assert w.prefix_cache_hit_rate is None  # no queries: unknown, not 0
    assert w.preemptions == 0


def test_vllm_older_gauge_name_is_read() -> None:
    older = vllm_at(0.42, 0, 0, 0).replace("vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc")
    w = summarize_window([snap(0, older)])
    assert w.kv_utilization == pytest.approx(0.42)


def dp_page(engine0: str, engine1: str) -> str:
    """One exposition page for two engines: engine1's samples relabelled engine="1" and
    placed after engine0's sample of the same series (the layout vLLM prints for DP)."""
    samples1 = {line.split("{")[0]: line.replace('engine="0"', 'engine="1"') for line in engine1.splitlines() if line and not line.startswith("#")}
    out = []
    for line in engine0.splitlines():
        out.append(line)
        if line and not line.startswith("#"):
            out.append(samples1[line.split("{")[0]])
    return "\n".join(out) + "\n"


def test_vllm_data_parallel_counters_are_summed_over_engines() -> None:
    """Two DP ranks (engine="0" and engine="1"): token counters add up."""
    before = dp_page(vllm_at(0.0, 0, 0, 0), vllm_at(0.0, 0, 0, 0))
    after = dp_page(vllm_at(0.2, 1000, 100, 1), vllm_at(0.6, 3000, 2900, 2))
    w = summarize_window([snap(0, before), snap(1, after)])
    assert w.prefix_cache_hit_rate == pytest.approx((100 + 2900) / (1000 + 3000))
    assert w.preemptions == 3


def test_vllm_data_parallel_kv_usage_is_not_the_sum_of_engines() -> None:
    page = dp_page(vllm_at(0.2, 0, 0, 0), vllm_at(0.6, 0, 0, 0))
    w = summarize_window([snap(0, page)])
    assert w.kv_utilization is not None
    assert 0.2 <= w.kv_utilization <= 0.6


# ---- SGLang windows ----------------------------------------------------------------


def test_sglang_window_token_usage_and_hit_rate_gauge() -> None:
    later = with_values(SGLANG_TEXT, {"sglang:token_usage": 0.5, "sglang:cache_hit_rate": 0.25})
    w = summarize_window([snap(0, SGLANG_TEXT), snap(1, later)])
    assert w.kv_utilization == pytest.approx((0.28 + 0.5) / 2)
    assert w.prefix_cache_hit_rate == pytest.approx(0.25)  # the gauge's latest value
    assert w.preemptions is None  # SGLang exposes no preemption counter here


def test_sglang_single_snapshot() -> None:
    w = summarize_window([snap(0, SGLANG_TEXT)])
    assert w.kv_utilization == pytest.approx(0.28)
    assert w.prefix_cache_hit_rate == pytest.approx(0.007507552643049313)
    assert w.raw_delta["sglang:prompt_tokens"] == 0.0


# ---- edges -------------------------------------------------------------------------------


def test_no_snapshots_is_an_empty_window() -> None:
    assert summarize_window([]) == EngineWindow()


def test_unknown_engine_gives_nulls_not_zeros() -> None:
    text = "# TYPE tgi_queue_size gauge\ntgi_queue_size 3\n"
    w = summarize_window([snap(0, text), snap(1, text)])
    assert (w.kv_utilization, w.prefix_cache_hit_rate, w.preemptions) == (None, None, None)
    assert w.raw_delta == {}  # only engine-prefixed series are kept


# ---- filtering before parsing (what the sampler does) ------------------------------

VLLM_032_TEXT = (HERE / "fixtures" / "vllm_0.32_cpu_metrics.txt").read_text()


@pytest.mark.parametrize("text", [VLLM_032_TEXT, VLLM_TEXT, SGLANG_TEXT, LLAMACPP_TEXT], ids=["vllm-0.32", "vllm-v1-idle", "sglang", "llamacpp"])
def test_filtered_parse_keeps_every_value_the_window_reads(text: str) -> None:
    full = parse_exposition(text)
    kept = parse_exposition(text, WANTED_PREFIXES)
    assert kept and kept == {k: v for k, v in full.items() if k.startswith(WANTED_PREFIXES)}
    # raw_delta differs only by families nothing reads; the window's fields must match.
    a = summarize_window([EngineSnapshot(0, kept), EngineSnapshot(1, kept)])
    b = summarize_window([EngineSnapshot(0, full), EngineSnapshot(1, full)])
    assert (a.kv_utilization, a.prefix_cache_hit_rate, a.preemptions) == (b.kv_utilization, b.prefix_cache_hit_rate, b.preemptions)


def test_filter_keeps_only_the_needed_lines_of_a_real_vllm_page() -> None:
    kept = filter_exposition(VLLM_032_TEXT)
    assert len(VLLM_032_TEXT) > 50_000 and len(kept) < 1_500
    assert parse_exposition(kept)["vllm:prefix_cache_queries"] == 69362.0
    assert parse_exposition(kept)["vllm:prefix_cache_hits"] == 29312.0
    assert "vllm:kv_cache_usage_perc" in parse_exposition(kept)
    assert filter_exposition("# HELP x y\nx 1\n") == ""


def test_scrape_stats_fit_the_result_schema() -> None:
    stats = ScrapeStats(interval_s=0.5, final_interval_s=1.0, scrapes=2, fetch_ms=[1.0, 3.0], parse_ms=[0.2, 0.4], page_bytes_max=52384)
    meta = EngineScrape.model_validate(stats.as_metadata())
    assert meta.fetch_ms_mean == 2.0 and meta.parse_ms_max == 0.4 and meta.in_thread
    assert EngineScrape.model_validate(ScrapeStats(interval_s=0.5, final_interval_s=0.5).as_metadata()).fetch_ms_mean is None
