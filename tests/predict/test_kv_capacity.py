"""KV capacity from memory, by hand."""

from __future__ import annotations

from servescope.catalog.store import Catalog
from servescope.predict.deployment import deploy
from servescope.predict.kv_capacity import CUDA_DRIVER_RESERVE_BYTES, GPU_RUNTIME_RESERVE_BYTES
from tests.predict.conftest import scenario


def test_llama_8b_on_one_h100(catalog: Catalog) -> None:
    dep = deploy(scenario(), catalog=catalog)
    assert (dep.engine.max_num_seqs, dep.engine.max_num_batched_tokens, dep.engine.block_size) == (1024, 8192, 16)
    weights = 8_029_995_008 * 2
    acts = 8192 * (2 * 14336 + (32 + 2 * 8) * 128 + 4 * 4096) * 2 + 1024 * 128256 * 4
    cuda = 81559 * 2**20 - CUDA_DRIVER_RESERVE_BYTES  # nvidia-smi's total less the driver's own (what CUDA exposes), not 80e9
    pool = cuda * 0.9 - weights - acts - GPU_RUNTIME_RESERVE_BYTES
    assert dep.kv.weight_bytes == weights
    assert dep.kv.activation_bytes == acts
    assert dep.kv.num_blocks == int(pool // (16 * 131072))
    assert dep.kv.tokens == dep.kv.num_blocks * 16


def test_tensor_parallel_splits_weights_and_kv(catalog: Catalog) -> None:
    one = deploy(scenario(), catalog=catalog)
    two = deploy(scenario(tp=2, count=2), catalog=catalog)
    assert two.kv.weight_bytes == one.kv.weight_bytes / 2
    assert two.kv.kv_bytes_per_token == 131072 / 2
    assert two.kv.tokens > 2 * one.kv.tokens  # each device keeps more room per token


def test_kv_dtype_fp8_halves_bytes(catalog: Catalog) -> None:
    dep = deploy(scenario(kv_dtype="fp8"), catalog=catalog)
    assert dep.kv.kv_bytes_per_token == 65536


def test_llama_cpp_context_is_fixed(catalog: Catalog) -> None:
    dep = deploy(catalog.scenario("tiny-llama-on-cpu"), catalog=catalog)
    assert dep.engine.max_num_seqs == 8
    assert dep.engine.max_model_len == 4096
    assert dep.kv.tokens == 32768  # --ctx-size
    assert dep.kv.kv_bytes_per_token == 2 * 4 * 2 * 32 * 2  # f16 KV: K+V x 4 layers x 2 heads x 32


def test_too_big_model_does_not_deploy(catalog: Catalog) -> None:
    import pytest

    from servescope.errors import CatalogError

    with pytest.raises(CatalogError, match="does not fit"):
        deploy(scenario(model="llama-3.1-70b"), catalog=catalog)


def test_engine_memory_is_the_drivers_total_not_decimal_gigabytes(catalog: Catalog) -> None:
    """An '80GB' H100 carries 80 GiB; the driver reports 81,559 MiB of it, which is what
    vLLM's --gpu-memory-utilization is a fraction of (issue 11: a 32B bf16 model on one
    80 GB GPU looked 4.7 GiB smaller than it is and its KV pool too small)."""
    h100 = catalog.hardware("h100-sxm")
    assert h100.device_memory_mib == 81559
    assert h100.device_memory_bytes == 81559 * 2**20
    no_driver_figure = h100.model_copy(update={"device_memory_mib": None})
    assert no_driver_figure.device_memory_bytes == 80 * 2**30  # datasheet GB of HBM read as GiB
    dep = deploy(scenario(), catalog=catalog)
    assert dep.kv.device_memory_bytes == 81559 * 2**20 - CUDA_DRIVER_RESERVE_BYTES  # 79.15 GiB: what vLLM logs as total_gpu_memory


def test_tensorrt_llm_admits_under_guaranteed_no_evict_unless_told_otherwise() -> None:
    from servescope.documents import Scenario
    from servescope.predict.deployment import engine_config

    cat = Catalog.load()
    base = cat.scenario("llama-3.1-8b-on-h100")
    model, hw = cat.model(base.model), cat.hardware(base.hardware)

    def policy(engine_id: str, args: dict[str, object]) -> bool:
        data = base.model_dump(mode="json")
        data["engine"] = {**data["engine"], "id": engine_id, "args": args}
        return engine_config(Scenario.model_validate(data), model, hw).reserve_to_completion

    assert policy("trt-llm", {}) and policy("nim", {})
    assert not policy("trt-llm", {"capacity_scheduler_policy": "MAX_UTILIZATION"})
    assert not policy("vllm", {}) and not policy("sglang", {})
