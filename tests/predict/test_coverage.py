"""What the simulator does not model is refused or warned, one line each: a test per
feature. A refusal is a ``NotModelledError`` (one line: where, what, what to do); a
warning is a line in ``Deployment.warnings`` that the Prediction and the Result carry."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from servescope.catalog.store import Catalog
from servescope.predict.api import predict
from servescope.predict.coverage import NotModelledError
from servescope.predict.deployment import Deployment, deploy
from servescope.predict.hf_config import model_from_config
from servescope.predict.workload_input import SyntheticWorkload
from tests.predict.conftest import scenario
from tests.predict.test_hf_config import DEEPSEEK_V3, LLAMA, LLAMA4_SCOUT

MOE = "qwen3-30b-a3b"


def _deploy(catalog: Catalog, **over: Any) -> Deployment:
    return deploy(scenario(**over), catalog=catalog)


def _engine(args: dict[str, Any] | None = None, engine: str = "vllm", **fields: Any) -> dict[str, Any]:
    return {"id": engine, "version": "0.11.0", "args": args or {}, **fields}


def _refused(catalog: Catalog, *needles: str, **over: Any) -> str:
    with pytest.raises(NotModelledError) as info:
        _deploy(catalog, **over)
    text = str(info.value)
    assert "\n" not in text and text.startswith("scenario s: "), text
    for needle in needles:
        assert needle in text, text
    return text


def _warned(catalog: Catalog, *needles: str, **over: Any) -> str:
    dep = _deploy(catalog, **over)
    hits = [w for w in dep.warnings if all(n in w for n in needles)]
    assert len(hits) == 1, dep.warnings
    assert "\n" not in hits[0]
    return hits[0]


def test_catalog_scenarios_are_fully_modelled(catalog: Catalog) -> None:
    for name in ("llama-3.1-8b-on-h100", "tiny-llama-on-cpu"):
        assert deploy(catalog.scenario(name), catalog=catalog).warnings == [], name


# --- speculative decoding ---------------------------------------------------------------


def test_speculative_tokens_without_a_method_are_refused(catalog: Catalog) -> None:
    # (what is simulated of speculative decoding, and every other refusal of it: test_speculative.py)
    _refused(catalog, "speculative_tokens: 3", "without a method", "speculative_method", speculative_tokens=3)


@pytest.mark.parametrize(
    "engine, flag, value, needle",
    [
        ("vllm", "--speculative-config", '{"method": "medusa", "num_speculative_tokens": 3}', "not simulated"),
        ("vllm", "--num-speculative-tokens", 5, "without a method"),  # vLLM < 0.10, no draft named
        ("sglang", "--speculative-algorithm", "EAGLE", "tree"),
        ("trt-llm", "speculative_config", "mtp", "speculative decoding"),
        ("llama.cpp", "-md", "draft.gguf", "speculative decoding"),
    ],
)
def test_speculative_flags_not_simulated_are_refused(catalog: Catalog, engine: str, flag: str, value: object, needle: str) -> None:
    _refused(catalog, f"engine.args.{flag}", needle, engine=_engine({flag: value}, engine))


def test_simulated_speculative_flags_are_not_warned_as_unread(catalog: Catalog) -> None:
    args = {"--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3}'}
    dep = _deploy(catalog, engine=_engine(args))
    assert [w for w in dep.warnings if "not simulated (read by the engine" in w] == []
    assert any("speculative decoding (eagle3, k = 3)" in w for w in dep.warnings)


# --- expert parallelism -------------------------------------------------------------------


@pytest.mark.parametrize(
    "engine, flag, value",
    [("vllm", "--enable-expert-parallel", None), ("sglang", "--ep-size", 2), ("trt-llm", "--ep_size", 2)],
)
def test_expert_parallel_is_warned(catalog: Catalog, engine: str, flag: str, value: object) -> None:
    line = _warned(catalog, "expert parallel", model=MOE, tp=2, count=2, engine=_engine({flag: value}, engine))
    assert f"engine.args.{flag}" in line and "busiest" in line and "skew" in line


def test_expert_parallel_size_other_than_tp_is_refused(catalog: Catalog) -> None:
    _refused(catalog, "engine.args.--ep-size", "only expert parallelism over the tp ranks", model=MOE, tp=4, count=4,
             engine=_engine({"--ep-size": 2}, "sglang"))  # fmt: skip


def test_all_to_all_backends_are_warned(catalog: Catalog) -> None:
    line = _warned(catalog, "all-to-all", model=MOE, tp=2, count=2, engine=_engine({"--moe-a2a-backend": "deepep"}, "sglang"))
    assert "not modelled" in line


def test_expert_parallel_on_a_dense_model_is_warned(catalog: Catalog) -> None:
    _warned(catalog, "no experts", engine=_engine({"--enable-expert-parallel": True}))


def test_vllm_data_parallel_moe_is_warned(catalog: Catalog) -> None:
    # vLLM shards a MoE model's experts over all dp x tp devices (its data-parallel deployment docs)
    _warned(catalog, "dp: 2", "experts", model=MOE, dp=2, count=2)
    assert _deploy(catalog, dp=2, count=2).warnings == []  # dense: independent replicas, as simulated


def test_sglang_dp_attention_is_warned(catalog: Catalog) -> None:
    _warned(catalog, "enable-dp-attention", model=MOE, dp=2, count=2, engine=_engine({"--enable-dp-attention": True}, "sglang"))


# --- parallel layouts ---------------------------------------------------------------------


@pytest.mark.parametrize(
    "flag, value, field",
    [("--tensor-parallel-size", 4, "tp"), ("-tp", "4", "tp"), ("--pipeline-parallel-size", 2, "pp"), ("--data-parallel-size", 2, "dp")],
)
def test_parallel_flags_must_agree_with_the_scenario(catalog: Catalog, flag: str, value: object, field: str) -> None:
    _refused(catalog, f"engine.args.{flag}", f"{field} 1", engine=_engine({flag: value}))


def test_parallel_flags_that_agree_are_read_silently(catalog: Catalog) -> None:
    assert _deploy(catalog, tp=2, count=2, engine=_engine({"--tensor-parallel-size": 2})).warnings == []
    assert _deploy(catalog, tp=2, count=2, engine=_engine({"--tp-size": 2}, "sglang")).warnings == []


def test_pipeline_parallel_is_warned(catalog: Catalog) -> None:
    line = _warned(catalog, "pp: 2", pp=2, count=2)
    assert "micro-batch" in line and "throughput" in line


# --- engine flags the simulator does not read ----------------------------------------------


def test_unread_flags_are_listed_in_one_warning(catalog: Catalog) -> None:
    line = _warned(catalog, "not simulated", engine=_engine({"--swap-space": 8, "--foo-bar": "x", "--max-num-seqs": 64}))
    assert "--swap-space" in line and "--foo-bar" in line and "--max-num-seqs" not in line


def test_inert_flags_need_no_warning(catalog: Catalog) -> None:
    args = {"--host": "0.0.0.0", "--port": 8000, "--served-model-name": "m", "--trust-remote-code": None,
            "--api-key": "secret", "--disable-log-requests": None, "--gpu-memory-utilization": 0.9}  # fmt: skip
    assert _deploy(catalog, engine=_engine(args)).warnings == []


def test_eager_mode_beside_a_draft_is_warned(catalog: Catalog) -> None:
    # (alone it is modelled: tests/predict/test_cuda_graphs.py)
    args = {
        "--enforce-eager": None,
        "--speculative-config": '{"method": "eagle3", "num_speculative_tokens": 3, "model": "yuhuili/EAGLE3-LLaMA3.1-Instruct-8B"}',
    }
    _warned(catalog, "engine.args.--enforce-eager", "CUDA graphs", engine=_engine(args))


def test_cpu_offload_is_refused(catalog: Catalog) -> None:
    _refused(catalog, "engine.args.--cpu-offload-gb", "offload", engine=_engine({"--cpu-offload-gb": 10}))


def test_llama_cpp_partial_gpu_offload_is_refused(catalog: Catalog) -> None:
    _refused(catalog, "engine.args.-ngl", "layers", engine=_engine({"-ngl": 10}, "llama.cpp"))
    assert _deploy(catalog, engine=_engine({"-ngl": 99}, "llama.cpp")).warnings == []


def test_llama_cpp_threads_batch_differing_is_warned(catalog: Catalog) -> None:
    _warned(catalog, "threads-batch", engine=_engine({"--threads": 4, "--threads-batch": 8}, "llama.cpp"))


def test_engine_without_a_model_of_its_own_is_warned(catalog: Catalog) -> None:
    _warned(catalog, "engine.id: tgi", "vLLM", engine=_engine(engine="tgi"))


# --- flags now read, and contradictions ----------------------------------------------------


def test_kv_cache_dtype_flag_is_read(catalog: Catalog) -> None:
    assert _deploy(catalog).step_model.kv_bytes == 2.0
    assert _deploy(catalog, engine=_engine({"--kv-cache-dtype": "fp8"})).step_model.kv_bytes == 1.0
    assert _deploy(catalog, engine=_engine({"-ctk": "q8_0", "-ctv": "q8_0"}, "llama.cpp")).step_model.kv_bytes == 34 / 32


def _invalid(*needles: str, **over: Any) -> str:
    """A scenario refused as a document (``documents.scenario_args``): before anything is deployed."""
    with pytest.raises(ValidationError) as info:
        scenario(**over)
    text = str(info.value)
    for needle in needles:
        assert needle in text, text
    return text


def test_contradicting_dtypes_are_refused(catalog: Catalog) -> None:
    _invalid("engine.args.--kv-cache-dtype", "contradicts kv_dtype fp16", kv_dtype="fp16", engine=_engine({"--kv-cache-dtype": "fp8"}))
    _invalid("engine.args.--dtype", "contradicts weight_dtype bf16", engine=_engine({"--dtype": "float8"}))
    _refused(catalog, "cache-type", engine=_engine({"-ctk": "q8_0", "-ctv": "f16"}, "llama.cpp"))


def test_contradicting_engine_fields_are_refused(catalog: Catalog) -> None:
    _refused(catalog, "engine.args.--max-num-seqs", "engine.max_num_seqs", engine=_engine({"--max-num-seqs": 128}, max_num_seqs=64))


def test_prefix_and_chunked_flags_are_read(catalog: Catalog) -> None:
    dep = _deploy(catalog, engine=_engine({"--enable-prefix-caching": False, "--no-enable-chunked-prefill": None}))
    assert (dep.engine.enable_prefix_caching, dep.engine.enable_chunked_prefill) == (False, False)


def test_quantization_not_matching_the_weight_dtype_is_warned(catalog: Catalog) -> None:
    _warned(catalog, "quantization: awq", "weight_dtype", quantization="awq")
    assert _deploy(catalog, quantization="awq", weight_dtype="int4").warnings == []
    _warned(catalog, "quantization: bitsandbytes", quantization="bitsandbytes")


# --- model features ------------------------------------------------------------------------


def test_llama4_chunked_attention_is_warned_past_the_chunk(catalog: Catalog, h100: Any) -> None:
    model = model_from_config(LLAMA4_SCOUT, model_id="llama-4-scout")
    long = deploy(scenario(model="llama-4-scout", tp=4, count=4, engine=_engine(max_model_len=65536)), model=model, hardware=h100)
    assert any("attention_chunk_size 8192" in w for w in long.warnings), long.warnings
    short = deploy(scenario(model="llama-4-scout", tp=4, count=4, engine=_engine(max_model_len=8192)), model=model, hardware=h100)
    assert short.warnings == []


def test_mla_is_modelled(catalog: Catalog, h100: Any) -> None:
    model = model_from_config(DEEPSEEK_V3, model_id="deepseek-v3")
    dep = deploy(scenario(model="deepseek-v3", hardware="h200", tp=8, count=8, weight_dtype="fp8"), model=model,
                 hardware=catalog.hardware("h200"))  # fmt: skip
    assert dep.warnings == []
    # the 576-element latent is replicated on every tensor-parallel rank
    assert dep.step_model.kv_bytes_per_token_per_device == 61 * 576 * 2


# --- warnings travel with the documents -----------------------------------------------------


def test_warnings_are_recorded_in_the_prediction_and_result(catalog: Catalog) -> None:
    run = predict(scenario(pp=2, count=2), SyntheticWorkload((1,), isl=128, osl=8, num_requests=4), catalog=catalog)
    [line] = run.prediction.warnings
    assert line.startswith("scenario s: pp: 2")
    assert run.result.resolved_params["warnings"] == [line]
    assert run.warnings == [line]


def test_vllm_v0_versions_are_warned(catalog: Catalog) -> None:
    # vLLM made its V1 engine the default in 0.8.0; the simulator schedules as V1 with V1's defaults
    _warned(catalog, "engine.version: 0.6.3", "V0", engine={"id": "vllm", "version": "0.6.3"})
    assert _deploy(catalog, engine={"id": "vllm", "version": "v0.8.5"}).warnings == []
    assert _deploy(catalog, engine={"id": "vllm", "version": "unstated"}).warnings == []


def test_sglang_before_0_5_is_warned_unless_its_defaults_are_pinned(catalog: Catalog) -> None:
    # v0.4 took mem_fraction_static from tp and captured CUDA graphs up to 160 sequences; the simulator applies 0.5's rule
    line = _warned(catalog, "engine.version: 0.4.0.post1", "SGLang before 0.5", "--cuda-graph-max-bs",
                   engine={"id": "sglang", "version": "0.4.0.post1"})  # fmt: skip
    assert "0.81 at tp 8" in line and "160 sequences" in line
    for version in ("0.5.5.post1", "v0.5.3rc0", "unstated"):
        assert _deploy(catalog, engine={"id": "sglang", "version": version}).warnings == [], version
    pinned = {"--mem-fraction-static": 0.85, "--cuda-graph-max-bs": 160, "--chunked-prefill-size": 8192}
    assert _deploy(catalog, engine={"id": "sglang", "version": "0.4.0", "args": pinned}).warnings == []
    # one default left to 0.5's rule is still warned
    partly = {k: v for k, v in pinned.items() if k != "--cuda-graph-max-bs"}
    _warned(catalog, "SGLang before 0.5", engine={"id": "sglang", "version": "0.4.0", "args": partly})


def test_requests_past_the_workload_timeout_are_warned(catalog: Catalog) -> None:
    from servescope.documents import Workload

    wl = catalog.workload("serve-chat-c8-i1k-o256-v1").model_copy(deep=True)
    wl.params.timeout_s = 0.5  # the harness cancels a request after this; the simulator never does
    run = predict(scenario(), wl, catalog=catalog)
    hits = [w for w in run.prediction.warnings if "params.timeout_s 0.5" in w]
    assert len(hits) == 1 and "would record them as timeouts" in hits[0], run.prediction.warnings
    assert run.result.resolved_params["warnings"] == run.prediction.warnings
    assert not predict(scenario(), "serve-chat-c8-i1k-o256-v1", catalog=catalog).prediction.warnings
    assert isinstance(wl, Workload)


@pytest.mark.parametrize(
    "args",
    [
        # trtllm-serve's CLI flag, the extra-llm-api-config keys flat and nested (written dotted)
        {"--kv_cache_free_gpu_memory_fraction": 0.5, "capacity_scheduler_policy": "MAX_UTILIZATION", "enable_block_reuse": False},
        {"free_gpu_memory_fraction": 0.5, "capacity_scheduler_policy": "MAX_UTILIZATION", "enable_block_reuse": False},
        {
            "kv_cache_config.free_gpu_memory_fraction": 0.5,
            "scheduler_config.capacity_scheduler_policy": "MAX_UTILIZATION",
            "kv_cache_config.enable_block_reuse": False,
            "kv_cache_config.dtype": "fp8",
        },
    ],
)
def test_tensorrt_llm_kv_cache_and_scheduler_settings_are_read_however_written(catalog: Catalog, args: dict[str, Any]) -> None:
    """The pool's fraction, block reuse (TensorRT-LLM's prefix cache), the capacity policy and the KV dtype
    are simulated whether written as the CLI flag, the flat key or the nested YAML key: none is warned
    as unread, and each changes what is simulated."""
    dep = _deploy(catalog, engine=_engine(args, "trt-llm", version="1.0.0"))
    assert dep.warnings == []
    assert dep.engine.gpu_memory_utilization == 0.5
    assert dep.engine.enable_prefix_caching is False
    assert dep.engine.reserve_to_completion is False
    assert dep.step_model.kv_dtype == ("fp8" if "kv_cache_config.dtype" in args else "bf16")
    default = _deploy(catalog, engine=_engine({}, "trt-llm", version="1.0.0"))
    assert default.engine.gpu_memory_utilization == 0.9 and default.engine.enable_prefix_caching is True
    assert default.engine.reserve_to_completion is True


@pytest.mark.parametrize("engine, flag", [("trt-llm", "stream_interval"), ("sglang", "--stream-interval")])
def test_a_stream_interval_is_warned_with_what_it_changes(catalog: Catalog, engine: str, flag: str) -> None:
    """Tokens streamed several to a chunk are not simulated: one line says which metric that changes
    (ITL, a gap between chunks) and which it does not; an interval of 1 (every token its own chunk)
    is what is simulated and is not warned."""
    line = _warned(catalog, "streams tokens 20 to a chunk", engine=_engine({flag: 20}, engine, version="1.0.0"))
    assert f"engine.args.{flag}" in line and "ITL" in line and "understated about 20 times" in line and "TPOT" in line
    assert _deploy(catalog, engine=_engine({flag: 1}, engine, version="1.0.0")).warnings == []


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_tensorrt_llm_kv_settings_are_not_read_for_other_engines(catalog: Catalog, engine: str) -> None:
    """TensorRT-LLM's own KV and scheduler keys mean nothing to vLLM or SGLang: they change nothing
    there and are warned as unread, not taken silently."""
    args = {"kv_cache_free_gpu_memory_fraction": 0.5, "enable_block_reuse": False, "max_tokens": 1000}
    dep = _deploy(catalog, engine=_engine(args, engine))
    base = _deploy(catalog, engine=_engine({}, engine))
    assert dep.engine.gpu_memory_utilization == base.engine.gpu_memory_utilization
    assert dep.engine.enable_prefix_caching == base.engine.enable_prefix_caching
    line = _warned(catalog, "not simulated (read by the engine", engine=_engine(args, engine))
    assert all(k in line for k in args)


def test_nim_reads_tensorrt_llm_kv_settings_however_written(catalog: Catalog) -> None:
    for args in ({"free_gpu_memory_fraction": 0.5}, {"kv_cache_config.free_gpu_memory_fraction": 0.5}):
        dep = _deploy(catalog, engine=_engine(args, "nim", version="1.8.0"))
        assert dep.engine.gpu_memory_utilization == 0.5
        assert not [w for w in dep.warnings if "fraction" in w]


def test_one_setting_written_twice_with_different_values_is_refused(catalog: Catalog) -> None:
    args = {"free_gpu_memory_fraction": 0.5, "--kv_cache_free_gpu_memory_fraction": 0.6}
    _invalid(
        "engine.args.--kv_cache_free_gpu_memory_fraction", "same flag as free_gpu_memory_fraction", "keep one", engine=_engine(args, "trt-llm", version="1.0.0")
    )
    same = {"free_gpu_memory_fraction": 0.5, "kv_cache_config.free_gpu_memory_fraction": 0.5}
    assert _deploy(catalog, engine=_engine(same, "trt-llm", version="1.0.0")).engine.gpu_memory_utilization == 0.5


@pytest.mark.parametrize("value", [None, "often", 0])
def test_a_stream_interval_that_is_no_count_is_refused(catalog: Catalog, value: object) -> None:
    _refused(catalog, "engine.args.stream_interval", "whole number", engine=_engine({"stream_interval": value}, "trt-llm", version="1.0.0"))


# --- deployments the engine itself refuses to start ----------------------------------------


@pytest.mark.parametrize("tp", [3, 5, 7, 64])
def test_a_tp_that_does_not_divide_the_heads_is_refused(catalog: Catalog, tp: int) -> None:
    text = _refused(catalog, f"tp: {tp}", "does not divide llama-3.1-8b's 32 attention heads", "use a tp of 1, 2, 4, 8, 16, 32", tp=tp, count=tp)
    assert text.count("error") == 0


def test_a_tp_that_splits_the_kv_heads_unevenly_is_refused(catalog: Catalog) -> None:
    # 48 query heads, 6 KV heads: tp 4 divides the heads, but leaves 1.5 KV heads a rank (vLLM's QKVParallelLinear asserts)
    model = model_from_config({**LLAMA, "num_attention_heads": 48, "num_key_value_heads": 6, "hidden_size": 6144}, model_id="odd-kv")
    h100 = catalog.hardware("h100-sxm")
    with pytest.raises(NotModelledError, match=r"tp: 4: neither divides nor is a multiple of odd-kv's 6 KV heads"):
        deploy(scenario(model="odd-kv", tp=4, count=4), model=model, hardware=h100)
    for tp in (2, 3, 6, 12):  # a share of the KV heads, or whole copies of one
        deploy(scenario(model="odd-kv", tp=tp, count=tp), model=model, hardware=h100)


def test_a_tp_that_divides_the_heads_is_predicted(catalog: Catalog) -> None:
    assert not [w for w in _deploy(catalog, tp=8, count=8).warnings if "tp:" in w]


@pytest.mark.parametrize(("engine", "hardware", "needle"), [
    ("vllm", "apple-m2-max", "no backend for Apple GPUs"),
    ("sglang", "apple-m2-max", "no backend for Apple GPUs"),
    ("trt-llm", "mi300x", "NVIDIA GPUs only"),
    ("nim", "generic-cpu", "NVIDIA GPUs only"),
])  # fmt: skip
def test_an_engine_on_a_device_it_does_not_serve_on_is_refused(catalog: Catalog, engine: str, hardware: str, needle: str) -> None:
    _refused(catalog, "engine.id: ", needle, hardware=hardware, engine=_engine(engine=engine), model="servescope-tiny-llama")


def test_sglang_on_a_cpu_is_warned_and_llama_cpp_on_apple_predicted(catalog: Catalog) -> None:
    _warned(catalog, "engine.id: sglang", "CPU backend", hardware="generic-cpu", engine=_engine(engine="sglang"), model="servescope-tiny-llama")
    assert not _deploy(catalog, hardware="apple-m2-max", engine=_engine(engine="llama.cpp"), model="servescope-tiny-llama").warnings
