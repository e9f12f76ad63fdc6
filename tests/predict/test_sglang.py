"""SGLang as SGLang runs: its memory and batch defaults (server_args), prefill passes that
run alone while the decoders wait, and an admission that reserves output tokens."""

from __future__ import annotations

from dataclasses import replace

import pytest

from servescope.catalog.store import Catalog
from servescope.predict.deployment import Deployment, deploy, sglang_max_running_requests, sglang_memory_defaults
from servescope.predict.kv_capacity import SGLANG_SETUP_BYTES
from tests.predict.conftest import scenario
from tests.predict.test_simulator import MS, STEP, reqs, run, times, toy


@pytest.mark.parametrize(
    "hardware, tp, chunk, fraction",
    [
        # reserved = 512 + 1.5 x 8192 + 2 x 256 + 1/8 GiB = 13,440 MiB of 81,559 (H100 SXM, nvidia-smi)
        ("h100-sxm", 1, 8192, round((81559 - 13440) / 81559, 3)),
        # tp 8: graphs up to 512, + 1 GiB for the parallel size
        ("h100-sxm", 8, 8192, round((81559 - (512 + 12288 + 1024 + 1024)) / 81559, 3)),
        # an A100 80 GB is in the H100's class for SGLang (vLLM gives it 2,048-token chunks)
        ("a100-80gb", 1, 8192, round((81920 - 13440) / 81920, 3)),
        ("b200", 1, 16384, round((183359 - (512 + 24576 + 1024 + 128)) / 183359, 3)),
        # under 35 GB: 2k chunks, graphs up to 24; the 10 GiB floor applies only over 60 GB
        ("l4", 1, 2048, round((23034 - (512 + 3072 + 48 + 128)) / 23034, 3)),
    ],
)
def test_memory_defaults_follow_server_args(catalog: Catalog, hardware: str, tp: int, chunk: int, fraction: float) -> None:
    assert sglang_memory_defaults(catalog.hardware(hardware), tp, 1) == (chunk, fraction)


def test_an_sglang_deployment_takes_them(catalog: Catalog) -> None:
    dep = deploy(scenario(engine={"id": "sglang", "version": "0.5.5"}), catalog=catalog)
    chunk, fraction = sglang_memory_defaults(catalog.hardware("h100-sxm"), 1, 1)
    assert dep.engine.max_num_batched_tokens == chunk and dep.engine.gpu_memory_utilization == fraction
    assert dep.engine.block_size == 1 and dep.engine.scheduler == "sglang"
    # the fraction is of what is free before the weights load, and only the weights come out of it
    assert dep.kv.reserve_bytes == SGLANG_SETUP_BYTES and dep.kv.activation_bytes == 0.0
    assert dep.kv.usable_bytes == pytest.approx((dep.kv.device_memory_bytes - SGLANG_SETUP_BYTES) * fraction)
    assert dep.kv.kv_pool_bytes == pytest.approx(dep.kv.usable_bytes - dep.kv.weight_bytes)
    assert dep.engine.max_num_seqs == sglang_max_running_requests(dep.kv.tokens, dep.engine.max_model_len)
    # flags win, and --enable-mixed-chunk mixes prefill and decode as vLLM does
    told = deploy(
        scenario(
            engine={"id": "sglang", "version": "0.5.5", "args": {"--mem-fraction-static": 0.8, "--max-running-requests": 64, "--enable-mixed-chunk": True}}
        ),
        catalog=catalog,
    )
    assert (told.engine.gpu_memory_utilization, told.engine.max_num_seqs, told.engine.scheduler) == (0.8, 64, "vllm-v1")
    assert not any("enable-mixed-chunk" in w for w in told.warnings)


def test_max_running_requests_rule() -> None:
    assert sglang_max_running_requests(1_000_000, 131072) == 3906  # int(1e6 / 131072 x 512)
    assert sglang_max_running_requests(2_000_000, 131072) == 4096  # at most 4,096
    assert sglang_max_running_requests(100_000, 131072) == 2048  # the request pool is at least 2,048
    assert sglang_max_running_requests(3_000, 4096) == 1500  # never more than half the pool's tokens


def _sglang(dep: Deployment) -> Deployment:
    dep.engine = replace(dep.engine, scheduler="sglang")
    return dep


def test_a_prefill_pass_runs_alone_and_the_decoders_wait(catalog: Catalog) -> None:
    """r0 decodes from 12 ms; r1 reaches the engine at 27 ms. vLLM puts r1's prompt into the
    iteration 32 -> 42 beside r0's token; SGLang runs it alone, so r0 has no token at 42."""
    requests = reqs(2, 100, 10)
    vllm = times(run(toy(catalog), requests, offsets=[0, 25 * MS]))
    sgl = times(run(_sglang(toy(catalog)), reqs(2, 100, 10), offsets=[0, 25 * MS]))
    assert vllm["r0"][2] == [12 * MS + i * STEP for i in range(10)]
    assert sgl["r1"][1] == 42 * MS  # its own prefill pass, 32 -> 42
    assert sgl["r0"][2] == [12 * MS, 22 * MS, 32 * MS] + [52 * MS + i * STEP for i in range(7)]
    assert sgl["r1"][2] == [42 * MS + i * STEP for i in range(10)]


def test_admission_reserves_output_so_nothing_is_retracted(catalog: Catalog) -> None:
    """A pool of 20 blocks of 16 tokens; two requests of 100 + 100 tokens (13 blocks each at
    the end). vLLM admits both on their prompts' blocks and preempts one later; SGLang admits
    r1 only once its prompt and max output fit beside r0's reserved output: after r0 ends."""
    vllm = run(toy(catalog, blocks=20), reqs(2, 100, 100), concurrency=2)
    sgl = run(_sglang(toy(catalog, blocks=20)), reqs(2, 100, 100), concurrency=2)
    assert vllm.measured[0].replicas[0].preemptions > 0
    assert sgl.measured[0].replicas[0].preemptions == 0
    t = times(sgl)
    assert t["r1"][1] > t["r0"][2][-1]
    assert sgl.replicas[0].pool.free == 20


@pytest.mark.parametrize("value", ["abc", 0, -1])
def test_a_bad_schedule_conservativeness_is_one_line(catalog: Catalog, value: object) -> None:
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match=r"engine\.args\.--schedule-conservativeness: .*a positive number"):
        scenario(engine={"id": "sglang", "version": "0.5.5", "args": {"--schedule-conservativeness": value}})
