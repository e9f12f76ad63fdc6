"""KV capacity from memory, by hand."""

from __future__ import annotations

import pytest

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


def test_trtllm_serve_takes_build_configs_batch_limits_on_every_gpu() -> None:
    """trtllm-serve's --max_batch_size / --max_num_tokens default to BuildConfig's 2,048 / 8,192 whatever
    the GPU; vLLM's defaults (256 sequences, 2,048 tokens on an A100) are not TensorRT-LLM's. A flag wins."""
    from servescope.documents import Scenario
    from servescope.predict.deployment import engine_config

    cat = Catalog.load()
    base = cat.scenario("llama-3.1-8b-on-h100")
    model = cat.model(base.model)

    def limits(engine_id: str, hardware: str, args: dict[str, object]) -> tuple[int, int]:
        data = base.model_dump(mode="json")
        data["engine"] = {**data["engine"], "id": engine_id, "args": args}
        data["hardware"] = hardware
        eng = engine_config(Scenario.model_validate(data), model, cat.hardware(hardware))
        return eng.max_num_seqs, eng.max_num_batched_tokens

    assert limits("trt-llm", "a100-80gb", {}) == (2048, 8192)
    assert limits("trt-llm", "h100-sxm", {}) == (2048, 8192)
    assert limits("trt-llm", "a100-80gb", {"--max_batch_size": 64, "--max_num_tokens": 4096}) == (64, 4096)
    assert limits("vllm", "a100-80gb", {}) == (256, 2048)  # (vLLM's own rule for an A100)
    assert limits("nim", "a100-80gb", {}) == (256, 2048)  # (NIM's prebuilt profiles are not trtllm-serve's)


def test_sliding_window_layers_hold_only_their_window(catalog: Catalog) -> None:
    """gpt-oss-120b: 18 of its 36 layers slide over 128 tokens. vLLM V1 and TensorRT-LLM keep those
    layers' KV for the window only, so a pool's tokens are counted in the full layers' bytes and each
    running request holds its window's worth beside them; with vLLM's hybrid manager off (or SGLang,
    whose SWA pool is not modelled) every layer's KV grows with every token."""
    from servescope.documents import Scenario
    from servescope.predict.deployment import deploy

    def dep(engine: dict[str, object]):  # type: ignore[no-untyped-def]
        # 32k as GPUStack served it on one H100: vLLM refuses the model's 131k there (vLLM issue #23278)
        engine = {"max_model_len": 32768, **engine}
        return deploy(Scenario(name="t", model="gpt-oss-120b", hardware="h100-sxm", engine=engine), catalog=catalog)  # type: ignore[arg-type]

    v1 = dep({"id": "vllm", "version": "0.11.0"})
    sm = v1.step_model
    full, every = sm.kv_full_bytes_per_token_per_device, sm.kv_bytes_per_token_per_device
    assert full == every / 2  # 18 full layers of 36, the same heads and dims
    assert v1.kv.kv_bytes_per_token == full
    assert v1.kv.state_bytes_per_sequence == 128 * (every - full)
    assert v1.kv.state_blocks == 128 // v1.kv.block_size  # the window in full-layer blocks
    assert v1.kv.tokens == pytest.approx(v1.kv.kv_pool_bytes / full, rel=1e-3)
    for engine in ({"id": "trt-llm", "version": "1.0.0"},):
        assert dep(engine).kv.kv_bytes_per_token == full
    for engine in ({"id": "vllm", "version": "0.11.0", "args": {"--disable-hybrid-kv-cache-manager": True}}, {"id": "sglang", "version": "0.5.5"}):
        flat = dep(engine)
        assert flat.kv.kv_bytes_per_token == every and flat.kv.state_bytes_per_sequence == 0.0
