"""Gated DeltaNet hybrids (Qwen3-Next, Qwen3.5): linear-attention layers hold a constant
state per sequence, no KV cache; the state is read and written once per decode token and
once per prompt chunk, and it takes pool memory for as long as its request runs."""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Model
from servescope.predict.architecture import LINEAR_CHUNK, architecture
from servescope.predict.deployment import deploy
from servescope.predict.hf_config import model_from_config
from servescope.predict.outputs import build_records
from servescope.predict.sim.load import Phase
from servescope.predict.sim.request import SimRequest
from servescope.predict.sim.simulator import Simulation
from tests.predict.conftest import scenario
from tests.predict.test_hf_config import QWEN3_NEXT_80B_A3B
from tests.predict.test_simulator import reqs, toy

# 36 Gated DeltaNet layers, 32 value heads of 128 x 128 state, a conv state of 3 x 8192
STATE_ELEMENTS = 36 * (32 * 128 * 128)
CONV_ELEMENTS = 36 * 3 * (2 * 16 * 128 + 32 * 128)


@pytest.fixture(scope="module")
def qwen3_next() -> Model:
    return model_from_config(QWEN3_NEXT_80B_A3B, model_id="qwen3-next-80b-a3b")


def _deploy(catalog: Catalog, model: Model, engine: str = "vllm", **over: object):  # type: ignore[no-untyped-def]
    scen = scenario(model=model.id, hardware="h100-sxm", count=4, tp=4, engine={"id": engine, "version": "0.11.0", **over})
    return deploy(scen, catalog=catalog, model=model, hardware=catalog.hardware("h100-sxm"))


def test_state_and_flops_follow_the_layer_shapes(qwen3_next: Model) -> None:
    arch = architecture(qwen3_next)
    assert arch.linear_layers == 36 and arch.full_layers == 12
    # fp32 recurrent state, bf16 conv state, split over tp = 2
    assert arch.linear_state_bytes(2, 4.0, 2.0) == (STATE_ELEMENTS * 4.0 + CONV_ELEMENTS * 2.0) / 2
    decode, prefill = arch.linear_flops_per_token()
    assert decode == 36 * 32 * 7 * 128 * 128
    assert prefill == 36 * 32 * 2 * (LINEAR_CHUNK * (2 * 128 + 128) + 3 * 128 * 128)


def test_state_dtype_by_engine_and_flag(catalog: Catalog, qwen3_next: Model) -> None:
    bf16 = (STATE_ELEMENTS * 2.0 + CONV_ELEMENTS * 2.0) / 4  # tp = 4
    fp32 = (STATE_ELEMENTS * 4.0 + CONV_ELEMENTS * 2.0) / 4
    # vLLM's mamba_ssm_cache_dtype auto: the model dtype; SGLang's --mamba-ssm-dtype defaults to float32
    assert _deploy(catalog, qwen3_next).step_model.state_bytes_per_sequence == bf16
    assert _deploy(catalog, qwen3_next, "sglang").step_model.state_bytes_per_sequence == fp32
    flagged = _deploy(catalog, qwen3_next, args={"mamba-ssm-cache-dtype": "float32"})
    assert flagged.step_model.state_bytes_per_sequence == fp32
    assert not any("mamba-ssm-cache-dtype" in w for w in flagged.warnings)  # read, not warned as ignored
    # the config's own mamba_ssm_dtype (Qwen3.5) is what vLLM's auto reads
    asks = qwen3_next.model_copy(update={"linear_state_dtype": "float32"})
    assert _deploy(catalog, asks).step_model.state_bytes_per_sequence == fp32


def test_decode_cost_grows_with_batch_not_context(catalog: Catalog, qwen3_next: Model) -> None:
    dep = _deploy(catalog, qwen3_next)
    sm = dep.step_model
    state_io = 2 * sm.state_bytes_per_sequence
    assert sm.linear_attention_time(64) == pytest.approx(64 * state_io / sm._bw)  # memory-bound
    assert sm.linear_attention_time(0) == 0.0
    # a decode iteration carries it whatever the context (even none)
    assert sm.decode_run(np.zeros(64, dtype=np.int64), 1)[0] >= sm.linear_attention_time(64) + sm.linear_time(64)
    # a prompt chunk reads and writes the state once, its tokens cost chunked-form FLOPs
    one = sm.linear_attention_time(0, prefill_tokens=4096, prefill_chunks=1)
    assert one == pytest.approx(max(4096 * sm._lin_prefill_flops / sm._attn_rate, state_io / sm._bw))
    assert sm.breakdown(prefill=[(4096, 0)]).attention > sm.prefill_attention_time(4096, 0)


def test_plain_models_get_no_linear_term(catalog: Catalog) -> None:
    dep = deploy(scenario(), catalog=catalog)
    assert dep.step_model.state_bytes_per_sequence == 0.0 and dep.kv.state_blocks == 0
    assert dep.step_model.linear_attention_time(64, 4096, 1) == 0.0


def test_the_pool_holds_one_state_per_running_request(catalog: Catalog, qwen3_next: Model) -> None:
    dep = _deploy(catalog, qwen3_next)
    kv = dep.kv
    per_block = kv.block_size * kv.kv_bytes_per_token
    assert kv.state_blocks == math.ceil(kv.state_bytes_per_sequence / per_block)
    # 39.5 MB of bf16 state a sequence, 9.9 MB a device at tp 4, against 12,288 bytes of KV a token
    # a device (12 layers x K and V x 1 of the 2 KV heads x 256 x 2 bytes): 804 tokens' worth
    assert kv.kv_bytes_per_token == 12 * 2 * 256 * 2
    assert kv.state_blocks * kv.block_size == 816


def _run(dep, requests, concurrency):  # type: ignore[no-untyped-def]
    return Simulation(dep, [Phase(0, "measured", requests, concurrency, None)]).run()


def test_state_blocks_limit_how_many_requests_run(catalog: Catalog) -> None:
    """40 blocks of 16 tokens: eight 16-token prompts fit at once without state; with 8 blocks of
    state each (10 a request with its 2 KV blocks) only 4 do, and every block comes back."""
    plain = toy(catalog, blocks=40, max_num_seqs=8)
    hybrid = toy(catalog, blocks=40, max_num_seqs=8)
    hybrid.kv = replace(hybrid.kv, state_bytes_per_sequence=8 * hybrid.kv.block_size * hybrid.kv.kv_bytes_per_token)
    assert hybrid.kv.state_blocks == 8
    out_plain = _run(plain, reqs(8, 16, 5), 8)
    out_hybrid = _run(hybrid, reqs(8, 16, 5), 8)
    assert out_plain.replicas[0].peak_running == 8
    assert out_hybrid.replicas[0].peak_running == 4
    for out in (out_plain, out_hybrid):
        assert all(r.ok for r in build_records(out))
        pool = out.replicas[0].pool
        assert pool.free == pool.num_blocks == 40


def test_state_blocks_survive_preemption(catalog: Catalog) -> None:
    """Requests that outgrow a small pool are preempted and recomputed; their state goes and comes back with them."""
    dep = toy(catalog, blocks=30, max_num_seqs=6, max_num_batched_tokens=64)
    dep.kv = replace(dep.kv, state_bytes_per_sequence=3 * dep.kv.block_size * dep.kv.kv_bytes_per_token)
    requests = [
        SimRequest(index=i, request_id=f"r{i}", phase="measured", point=0, concurrency=6, prompt_tokens=20 + 7 * i, max_tokens=60, target=20 + 7 * i)
        for i in range(12)
    ]
    out = _run(dep, requests, 6)
    recs = build_records(out)
    assert all(r.ok for r in recs) and [r.output_tokens for r in recs] == [60] * 12
    assert out.measured[0].replicas[0].preemptions > 0
    pool = out.replicas[0].pool
    assert pool.free == pool.num_blocks == 30


def test_a_hybrid_prediction_says_what_is_approximated(catalog: Catalog, qwen3_next: Model) -> None:
    warnings = _deploy(catalog, qwen3_next).warnings
    assert any("36 Gated DeltaNet layers" in w and "prefix hit" in w for w in warnings), warnings
    sglang = _deploy(catalog, qwen3_next, "sglang").warnings
    assert any("max_mamba_cache_size" in w for w in sglang), sglang


def test_a_bad_state_dtype_flag_is_one_line(catalog: Catalog, qwen3_next: Model) -> None:
    from servescope.errors import CatalogError

    with pytest.raises(CatalogError, match=r"--mamba-ssm-cache-dtype / --mamba-ssm-dtype 'foo' is not a state dtype") as info:
        _deploy(catalog, qwen3_next, args={"--mamba-ssm-cache-dtype": "foo"})
    assert "\n" not in str(info.value)
