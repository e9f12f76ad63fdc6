"""A synthetic load whose prompts came from the engine's cache is called warm, in one line."""

from __future__ import annotations

from servescope.bench.cache_reuse import warm_cache_warning
from servescope.documents.record import RequestRecord
from servescope.workload.load import Load


def _rec(i: int, cached: int | None, phase: str = "measured") -> RequestRecord:
    return RequestRecord(request_id=f"r{i}", phase=phase, start_ns=0, first_token_ns=1, end_ns=2, input_tokens=200, output_tokens=4, cached_tokens=cached)


def test_a_repeat_of_the_same_prompts_is_called_warm_and_a_cold_run_is_not() -> None:
    synthetic = Load(source="synthetic", isl=200, osl=4, num_requests=4, concurrency=(2,))
    assert warm_cache_warning(synthetic, [_rec(i, 4) for i in range(4)]) is None  # the template's few tokens
    warm = warm_cache_warning(synthetic, [_rec(i, 199) for i in range(4)])
    assert warm is not None and "796 of 800 prompt tokens (99.5%)" in warm and "--seed" in warm
    assert warm_cache_warning(synthetic, [_rec(i, None) for i in range(4)]) is None  # the engine said nothing
    assert warm_cache_warning(synthetic, [_rec(i, 199, phase="warmup") for i in range(4)]) is None


def test_loads_that_share_prefixes_by_design_are_never_called_warm() -> None:
    sessions = Load(source="synthetic", isl=32, osl=16, num_requests=6, concurrency=(2,), sessions=2, turns=3)
    system = Load(source="synthetic", isl=32, osl=16, num_requests=6, concurrency=(2,), system_prompt_tokens=1024)
    for load in (sessions, system, None):
        assert warm_cache_warning(load, [_rec(i, 199) for i in range(4)]) is None
