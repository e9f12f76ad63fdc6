"""ShareGPT lengths drawn around a point's measured means (predict.dataset_lengths):
the documented means, the client's filter, seeded, and what reaches the simulator."""

from __future__ import annotations

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.predict.dataset_lengths import MEAN_TOLERANCE, SHAREGPT_FILTERS, draw_sharegpt, sharegpt_filter
from servescope.predict.deployment import deploy
from servescope.predict.workload_input import SyntheticWorkload, phases_synthetic
from tests.predict.conftest import scenario

VLLM = SHAREGPT_FILTERS["vllm-bench-serve"]
SGLANG = SHAREGPT_FILTERS["sglang-bench-serving"]


@pytest.mark.parametrize("n", [100, 1000, 2000])
@pytest.mark.parametrize("client", sorted(SHAREGPT_FILTERS))
def test_drawn_means_are_the_measured_means(client: str, n: int) -> None:
    # GPUStack's Qwen3-32B ShareGPT burst: 217 / 201 tokens per request over 1000 requests
    prompts, outputs = draw_sharegpt(217, 201, n, np.random.default_rng(0), SHAREGPT_FILTERS[client])
    assert len(prompts) == len(outputs) == n
    assert abs(np.mean(prompts) - 217) / 217 <= MEAN_TOLERANCE
    assert abs(np.mean(outputs) - 201) / 201 <= MEAN_TOLERANCE


def test_vllm_bench_serve_filter_is_respected() -> None:
    """is_valid_sequence's defaults: prompt and output >= 4, prompt <= 1024, prompt + output <= 2048."""
    p, o = (np.asarray(x) for x in draw_sharegpt(300, 400, 5000, np.random.default_rng(3), VLLM))
    assert p.min() >= 4 and o.min() >= 4 and p.max() <= 1024 and (p + o).max() <= 2048
    # the filter bites at these means (an unfiltered exponential of mean 400 passes 2048 in ~1 % of pairs)
    assert (p + o).max() > 1500


def test_sglang_filter_has_no_length_cap() -> None:
    """sglang.bench_serving drops only prompts/outputs under 2 tokens without --sharegpt-context-len."""
    p, o = (np.asarray(x) for x in draw_sharegpt(224, 192, 2000, np.random.default_rng(0), SGLANG))
    assert p.min() >= 2 and o.min() >= 2
    assert p.max() > 1024 or (p + o).max() > 2048 or p.max() > 5 * 224  # a long tail, uncapped


def test_lengths_spread_as_an_exponential() -> None:
    """The law is the exponential (its median is ln 2 of its mean; about e^-1 of it lies above the
    mean), not the mean repeated: what moves a burst's throughput and TensorRT-LLM's reservations."""
    p, o = (np.asarray(x, dtype=float) for x in draw_sharegpt(217, 201, 4000, np.random.default_rng(1), VLLM))
    for x in (p, o):
        assert 0.25 < float(np.mean(x > x.mean())) < 0.45
        assert 0.55 < float(np.median(x) / x.mean()) < 0.85
        assert x.std() > 0.7 * x.mean()


def test_seeded_and_deterministic() -> None:
    a = draw_sharegpt(217, 201, 500, np.random.default_rng(7), VLLM)
    b = draw_sharegpt(217, 201, 500, np.random.default_rng(7), VLLM)
    c = draw_sharegpt(217, 201, 500, np.random.default_rng(8), VLLM)
    assert a == b and a != c


def test_unknown_client_and_impossible_means_are_one_line() -> None:
    with pytest.raises(ValueError, match="ShareGPT length filter is not known here; known clients: vllm-bench-serve"):
        sharegpt_filter("genai-perf")
    with pytest.raises(ValueError, match="lets no exponential law"):
        draw_sharegpt(900, 100, 10, np.random.default_rng(0), VLLM)
    with pytest.raises(ValueError, match="lets no exponential law"):
        draw_sharegpt(400, 900, 10, np.random.default_rng(0), VLLM)  # prompt + output >= 0.6 of the 2048 cap
    # means inside those bounds that the filter still cannot reach: refused after a bounded search, not a hang
    with pytest.raises(ValueError, match="came within 1% of those means"):
        draw_sharegpt(100, 1100, 1000, np.random.default_rng(0), VLLM)
    with pytest.raises(ValueError, match="drops prompts under 4"):
        SyntheticWorkload((), 2, 100, offline=True, sharegpt_client="vllm-bench-serve")
    with pytest.raises(ValueError, match="not known here"):
        SyntheticWorkload((), 200, 100, offline=True, sharegpt_client="aiperf")
    with pytest.raises(ValueError, match="not both"):
        SyntheticWorkload((4,), 200, 100, range_ratio=0.2, sharegpt_client="vllm-bench-serve")


def test_each_request_reserves_its_own_drawn_output(catalog: Catalog) -> None:
    """max_tokens = the drawn output length (vllm bench serve sends the completion's length as
    max_tokens): the per-request cap TensorRT-LLM's GUARANTEED_NO_EVICT reserves."""
    dep = deploy(scenario(), catalog=catalog)
    spec = SyntheticWorkload((), 217, 201, offline=True, num_requests=1000, sharegpt_client="vllm-bench-serve")
    [phase] = phases_synthetic(spec, dep)
    caps = np.asarray([r.max_tokens for r in phase.requests])
    prompts = np.asarray([r.prompt_tokens - dep.template_tokens for r in phase.requests])
    assert abs(caps.mean() - 201) / 201 <= MEAN_TOLERANCE and abs(prompts.mean() - 217) / 217 <= MEAN_TOLERANCE
    assert caps.max() > 4 * 201 and len(set(caps.tolist())) > 100
    assert spec.id == "synthetic-offline-n1000-i217-o201-sharegpt"
    mean_lengths = SyntheticWorkload((), 217, 201, offline=True, num_requests=1000, harness="burst")  # exact lengths
    assert {r.max_tokens for r in phases_synthetic(mean_lengths, dep)[0].requests} == {201}
