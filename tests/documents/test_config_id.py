"""config_id: the same setup however written gives one id; any runnable difference another.

The golden ids below were computed once and their canonical form checked by hand
against the docstring of servescope/documents/config_id.py (engine and version
normalised, long kebab flag names, typed values, host/port and defaults dropped,
sorted compact JSON, first 16 hex digits of sha256).
"""

from __future__ import annotations

import hashlib
import itertools
from typing import Any

import pytest

from servescope.documents import canonical_config, config_id
from servescope.documents.config_id import (
    legacy_config_id,
    normalize_value,
    parse_flags,
)

# --- golden vectors ----------------------------------------------------------------------------

GOLDEN: list[tuple[tuple[Any, ...], dict[str, Any], str, str]] = [
    (
        ("vllm", "0.6.3", {}),
        {},
        '{"dtype":null,"engine":"vllm","flags":{},"kv_dtype":null,"quantization":null,"version":"0.6.3"}',
        "db5aef5cd03fa5e5",
    ),
    (
        ("vllm", "0.6.3", {"--max-num-seqs": 64, "--tensor-parallel-size": 2, "--enable-prefix-caching": True}),
        {},
        '{"dtype":null,"engine":"vllm","flags":{"enable-prefix-caching":true,"max-num-seqs":64,'
        '"tensor-parallel-size":2},"kv_dtype":null,"quantization":null,"version":"0.6.3"}',
        "c96d66739fee8e14",
    ),
    (
        ("vllm", "0.6.3", {"--max-num-seqs": 64, "--tensor-parallel-size": 2, "--enable-prefix-caching": True}),
        {"dtype": "bf16"},
        '{"dtype":"bf16","engine":"vllm","flags":{"enable-prefix-caching":true,"max-num-seqs":64,'
        '"tensor-parallel-size":2},"kv_dtype":null,"quantization":null,"version":"0.6.3"}',
        "8f0b1c4f0a7c2ca1",
    ),
    (
        ("vllm", "0.6.3", {"--max-model-len": 8192}),
        {"dtype": "bf16", "kv_dtype": "fp8", "quantization": "awq"},
        '{"dtype":"bf16","engine":"vllm","flags":{"max-model-len":8192},"kv_dtype":"fp8","quantization":"awq","version":"0.6.3"}',
        "c6f9e33bdd888350",
    ),
    (
        ("llama.cpp", "b4000", {"--ctx-size": 8192, "--n-gpu-layers": 99, "--parallel": 4}),
        {},
        '{"dtype":null,"engine":"llama.cpp","flags":{"ctx-size":8192,"n-gpu-layers":99,"parallel":4},"kv_dtype":null,"quantization":null,"version":"b4000"}',
        "995ae8413d54d051",
    ),
    (
        ("sglang", "0.4.0", {"--tp-size": 2}),
        {},
        '{"dtype":null,"engine":"sglang","flags":{"tp-size":2},"kv_dtype":null,"quantization":null,"version":"0.4.0"}',
        "6d5173250c03f061",
    ),
]


@pytest.mark.parametrize(("args", "kwargs", "blob", "expected"), GOLDEN)
def test_golden_ids(args: tuple[Any, ...], kwargs: dict[str, Any], blob: str, expected: str) -> None:
    assert config_id(*args, **kwargs) == expected


@pytest.mark.parametrize(("args", "kwargs", "blob", "expected"), GOLDEN)
def test_golden_id_is_sha256_of_the_documented_canonical_json(args: tuple[Any, ...], kwargs: dict[str, Any], blob: str, expected: str) -> None:
    # The blob is hand-written; this checks step 6 of the docstring independently of config_id.
    assert hashlib.sha256(blob.encode()).hexdigest()[:16] == expected


def test_canonical_config_of_a_messy_vllm_setup() -> None:
    canon = canonical_config(
        "vLLM",
        "v0.6.3",
        {
            "--max_num_seqs": "64",
            "-tp": 2,
            "--enable-prefix-caching": None,
            "--gpu-memory-utilization": "0.90",
            "--host": "0.0.0.0",
            "--port": 8000,
            "--dtype": "bfloat16",
        },
    )
    assert canon == {
        "engine": "vllm",
        "version": "0.6.3",
        "flags": {"enable-prefix-caching": True, "max-num-seqs": 64, "tensor-parallel-size": 2},
        "dtype": "bf16",
        "kv_dtype": None,
        "quantization": None,
    }
    assert list(canon["flags"]) == sorted(canon["flags"])


def test_messy_spelling_gives_the_golden_id() -> None:
    messy = config_id(
        "vLLM",
        "v0.6.3",
        {"--max_num_seqs": "64", "-tp": "2", "--enable-prefix-caching": None, "--api-key": "secret", "--port": 8001},
        dtype="bfloat16",
    )
    assert messy == "8f0b1c4f0a7c2ca1"


def test_id_is_sixteen_lower_hex_digits() -> None:
    cid = config_id("trt-llm", "0.12", {"--max_batch_size": 8})
    assert len(cid) == 16
    assert set(cid) <= set("0123456789abcdef")


# --- same setup, written differently -----------------------------------------------------------

BASE_ARGS: dict[str, Any] = {"--max-num-seqs": 64, "--tensor-parallel-size": 2, "--enable-prefix-caching": True}


def vllm_id(args: dict[str, Any], **kwargs: Any) -> str:
    return config_id("vllm", "0.6.3", args, **kwargs)


SAME_VLLM: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("underscore flag", {"--max_num_seqs": 64}, {"max-num-seqs": 64}),
    ("dashes optional", {"max-num-seqs": 64}, {"--max-num-seqs": 64}),
    ("short tp", {"-tp": 2}, {"--tensor-parallel-size": 2}),
    ("tp string", {"-tp": "2"}, {"--tensor-parallel-size": 2}),
    ("bare flag None", {"--enable-prefix-caching": None}, {"--enable-prefix-caching": True}),
    ("bare flag 'true'", {"--enable-prefix-caching": "true"}, {"--enable-prefix-caching": True}),
    ("bare flag 'on'", {"--enable-prefix-caching": "on"}, {"--enable-prefix-caching": "TRUE"}),
    ("false spellings", {"--enforce-eager": "false"}, {"--enforce-eager": "off"}),
    ("float string", {"--gpu-memory-utilization": "0.95"}, {"--gpu-memory-utilization": 0.95}),
    ("float trailing zero", {"--gpu-memory-utilization": "0.950"}, {"--gpu-memory-utilization": 0.95}),
    ("int string", {"--max-num-seqs": "64"}, {"--max-num-seqs": 64}),
    ("int as float", {"--max-num-seqs": 64.0}, {"--max-num-seqs": 64}),
    ("int with spaces", {"--max-num-seqs": " 64 "}, {"--max-num-seqs": 64}),
    ("max-seq-len alias", {"--max-seq-len": 4096}, {"--max-model-len": 4096}),
    ("pp alias", {"-pp": 2}, {"--pipeline-parallel-size": 2}),
    ("q alias", {"-q": "awq"}, {"--quantization": "awq"}),
]


@pytest.mark.parametrize(("label", "one", "other"), SAME_VLLM, ids=[c[0] for c in SAME_VLLM])
def test_same_vllm_setup_written_differently_gives_one_id(label: str, one: dict[str, Any], other: dict[str, Any]) -> None:
    assert vllm_id(one) == vllm_id(other)


def test_argv_spellings_give_one_id() -> None:
    a = parse_flags(["-tp", "2", "--max_num_seqs", "64", "--enable-prefix-caching"])
    b = parse_flags(["--tensor-parallel-size=2", "--enable-prefix-caching", "--max-num-seqs=64"])
    assert vllm_id(a) == vllm_id(b) == vllm_id(BASE_ARGS)


@pytest.mark.parametrize("gpu_mem", ["0.90", "0.9", 0.9, "0.900"])
def test_default_value_in_any_spelling_equals_omitted(gpu_mem: Any) -> None:
    assert vllm_id({**BASE_ARGS, "--gpu-memory-utilization": gpu_mem}) == vllm_id(BASE_ARGS)


@pytest.mark.parametrize(
    "defaults",
    [
        {"-tp": 1},
        {"--pipeline-parallel-size": "1"},
        {"--block-size": 16},
        {"--swap-space": 4},
        {"--dtype": "auto"},
        {"--kv-cache-dtype": "auto"},
        {"--seed": 0},
    ],
)
def test_vllm_flags_at_their_default_equal_omitted(defaults: dict[str, Any]) -> None:
    assert vllm_id({"--max-num-seqs": 64, **defaults}) == vllm_id({"--max-num-seqs": 64})


@pytest.mark.parametrize(
    "noise",
    [
        {"--host": "0.0.0.0"},
        {"--port": 8000},
        {"--api-key": "sk-abc"},
        {"--served-model-name": "my-model"},
        {"--disable-log-requests": None},
        {"--uvicorn-log-level": "warning"},
        {"--host": "127.0.0.1", "--port": "9000", "--api_key": "x", "--log-level": "debug"},
    ],
)
def test_non_runnable_flags_do_not_change_the_id(noise: dict[str, Any]) -> None:
    assert vllm_id({**BASE_ARGS, **noise}) == vllm_id(BASE_ARGS)


def test_argument_order_does_not_matter() -> None:
    items = list({**BASE_ARGS, "--max-model-len": 8192, "--dtype": "bf16"}.items())
    ids = {vllm_id(dict(perm)) for perm in itertools.permutations(items)}
    assert len(ids) == 1


@pytest.mark.parametrize(
    ("one", "other"),
    [(("vLLM", "v0.6.3"), ("vllm", "0.6.3")), ((" VLLM ", "V0.6.3"), ("vllm", " 0.6.3 "))],
)
def test_engine_and_version_spellings_give_one_id(one: tuple[str, str], other: tuple[str, str]) -> None:
    assert config_id(*one, BASE_ARGS) == config_id(*other, BASE_ARGS)


@pytest.mark.parametrize("spelling", ["llama.cpp", "llamacpp", "llama-cpp", "llama_cpp", "llama-server", "LLaMA.cpp"])
def test_llama_cpp_engine_spellings_give_one_id(spelling: str) -> None:
    assert config_id(spelling, "b4000", {"--parallel": 4}) == config_id("llama.cpp", "b4000", {"--parallel": 4})


@pytest.mark.parametrize(
    ("field", "one", "other"),
    [
        ("dtype", "bfloat16", "bf16"),
        ("dtype", "BF16", "bf16"),
        ("dtype", "float16", "half"),
        ("dtype", "fp16", "f16"),
        ("dtype", "float32", "fp32"),
        ("kv_dtype", "fp8_e4m3", "fp8"),
        ("kv_dtype", "auto", None),
        ("dtype", "auto", None),
        ("quantization", "AWQ", "awq"),
        ("quantization", "none", None),
        ("quantization", "", None),
    ],
)
def test_dtype_spellings_give_one_id(field: str, one: Any, other: Any) -> None:
    assert vllm_id(BASE_ARGS, **{field: one}) == vllm_id(BASE_ARGS, **{field: other})


@pytest.mark.parametrize(
    ("flag", "value", "field"),
    [("--dtype", "bfloat16", "dtype"), ("--kv-cache-dtype", "fp8", "kv_dtype"), ("--quantization", "gptq", "quantization")],
)
def test_dtype_given_as_a_flag_equals_dtype_given_as_a_field(flag: str, value: str, field: str) -> None:
    assert vllm_id({**BASE_ARGS, flag: value}) == vllm_id(BASE_ARGS, **{field: value})


SAME_LLAMA: list[tuple[dict[str, Any], dict[str, Any]]] = [
    ({"-np": 4}, {"--parallel": 4}),
    ({"-np": "4"}, {"--parallel": "4"}),
    ({"-c": 8192}, {"--ctx-size": 8192}),
    ({"-ngl": 99}, {"--n-gpu-layers": 99}),
    ({"--gpu-layers": 99}, {"--n-gpu-layers": 99}),
    ({"-fa": None}, {"--flash-attn": True}),
    ({"-np": 4, "-cb": None}, {"--parallel": 4}),  # continuous batching is the default
    ({"-np": 4, "-b": 2048, "-ub": 512}, {"--parallel": 4}),
    ({"-np": 4, "-ctk": "f16", "-ctv": "f16"}, {"--parallel": 4}),
    ({"-np": 4, "--port": 8080, "--host": "0.0.0.0", "--metrics": None, "--slots": None}, {"--parallel": 4}),
    ({"-np": 1, "-c": 4096}, {"-c": 4096}),
]


@pytest.mark.parametrize(("one", "other"), SAME_LLAMA)
def test_same_llama_cpp_setup_written_differently_gives_one_id(one: dict[str, Any], other: dict[str, Any]) -> None:
    assert config_id("llama.cpp", "b4000", one) == config_id("llama.cpp", "b4000", other)


def test_sglang_aliases_give_one_id() -> None:
    a = config_id("sglang", "0.4.0", {"--tp": 2, "--dp": 2})
    b = config_id("sglang", "0.4.0", {"--tensor-parallel-size": 2, "--data-parallel-size": 2})
    c = config_id("sglang", "0.4.0", {"--tp-size": 2, "--dp-size": 2})
    assert a == b == c


# --- any runnable difference -------------------------------------------------------------------

REFERENCE = (("vllm", "0.6.3", dict(BASE_ARGS)), {"dtype": "bf16"})

DIFFERENT: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("flag value", ("vllm", "0.6.3", {**BASE_ARGS, "--max-num-seqs": 128}), {"dtype": "bf16"}),
    ("tp value", ("vllm", "0.6.3", {**BASE_ARGS, "--tensor-parallel-size": 4}), {"dtype": "bf16"}),
    ("bool flag off", ("vllm", "0.6.3", {**BASE_ARGS, "--enable-prefix-caching": False}), {"dtype": "bf16"}),
    ("bool flag dropped", ("vllm", "0.6.3", {"--max-num-seqs": 64, "-tp": 2}), {"dtype": "bf16"}),
    ("new flag", ("vllm", "0.6.3", {**BASE_ARGS, "--enable-chunked-prefill": None}), {"dtype": "bf16"}),
    ("non-default gpu mem", ("vllm", "0.6.3", {**BASE_ARGS, "--gpu-memory-utilization": 0.95}), {"dtype": "bf16"}),
    ("engine version", ("vllm", "0.6.4", dict(BASE_ARGS)), {"dtype": "bf16"}),
    ("engine", ("sglang", "0.6.3", dict(BASE_ARGS)), {"dtype": "bf16"}),
    ("dtype", ("vllm", "0.6.3", dict(BASE_ARGS)), {"dtype": "fp16"}),
    ("dtype unset", ("vllm", "0.6.3", dict(BASE_ARGS)), {}),
    ("kv dtype", ("vllm", "0.6.3", dict(BASE_ARGS)), {"dtype": "bf16", "kv_dtype": "fp8"}),
    ("kv dtype e5m2", ("vllm", "0.6.3", dict(BASE_ARGS)), {"dtype": "bf16", "kv_dtype": "fp8_e5m2"}),
    ("quantization", ("vllm", "0.6.3", dict(BASE_ARGS)), {"dtype": "bf16", "quantization": "awq"}),
    ("quantization flag", ("vllm", "0.6.3", {**BASE_ARGS, "-q": "fp8"}), {"dtype": "bf16"}),
    ("model flag", ("vllm", "0.6.3", {**BASE_ARGS, "--model": "meta-llama/Llama-3.1-8B"}), {"dtype": "bf16"}),
]


@pytest.mark.parametrize(("label", "args", "kwargs"), DIFFERENT, ids=[d[0] for d in DIFFERENT])
def test_runnable_difference_gives_a_different_id(label: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    ref_args, ref_kwargs = REFERENCE
    assert config_id(*args, **kwargs) != config_id(*ref_args, **ref_kwargs)


def test_all_runnable_differences_are_pairwise_distinct() -> None:
    ids = [config_id(*args, **kwargs) for _, args, kwargs in DIFFERENT]
    assert len(set(ids)) == len(ids)


def test_llama_cpp_runnable_differences() -> None:
    base = config_id("llama.cpp", "b4000", {"-np": 4, "-c": 8192})
    assert config_id("llama.cpp", "b4000", {"-np": 8, "-c": 8192}) != base
    assert config_id("llama.cpp", "b4000", {"-np": 4, "-c": 16384}) != base
    assert config_id("llama.cpp", "b4000", {"-np": 4, "-c": 8192, "-ctk": "q8_0"}) != base
    assert config_id("llama.cpp", "b4000", {"-np": 4, "-c": 8192, "--no-cont-batching": None}) != base
    assert config_id("llama.cpp", "b4001", {"-np": 4, "-c": 8192}) != base


def test_a_value_is_not_a_bare_flag() -> None:
    assert vllm_id({"--enable-prefix-caching": None}) != vllm_id({"--enable-prefix-caching": "false"})


# --- errors ------------------------------------------------------------------------------------


def test_same_flag_twice_with_different_values_raises() -> None:
    with pytest.raises(ValueError, match="'tensor-parallel-size' given twice"):
        vllm_id({"-tp": 2, "--tensor-parallel-size": 4})


def test_same_flag_twice_with_the_same_value_is_fine() -> None:
    assert vllm_id({"-tp": 2, "--tensor_parallel_size": "2"}) == vllm_id({"-tp": 2})


@pytest.mark.parametrize("value", [float("nan"), float("inf"), {"a": 1}])
def test_unusable_flag_value_raises(value: Any) -> None:
    with pytest.raises(ValueError):
        vllm_id({"--max-model-len": value})


def test_normalize_value_table() -> None:
    assert [normalize_value(v) for v in (None, True, "yes", "No", "8", "0.90", "1e3", 2.0, "model-x", [1, "2"])] == [
        True,
        True,
        True,
        False,
        8,
        0.9,
        1000,
        2,
        "model-x",
        [1, 2],
    ]


# --- parse_flags -------------------------------------------------------------------------------


def test_parse_flags_equals_form() -> None:
    assert parse_flags(["--x=1", "-tp=2", "--model=a=b"]) == {"--x": "1", "-tp": "2", "--model": "a=b"}


def test_parse_flags_bare_flags() -> None:
    argv = ["--enable-prefix-caching", "--max-num-seqs", "64", "--enforce-eager"]
    assert parse_flags(argv) == {"--enable-prefix-caching": None, "--max-num-seqs": "64", "--enforce-eager": None}


def test_parse_flags_bare_flag_followed_by_a_flag() -> None:
    assert parse_flags(["--a", "--b", "c"]) == {"--a": None, "--b": "c"}


@pytest.mark.parametrize("number", ["-1", "-0.5", "-1e3", "-42"])
def test_parse_flags_negative_number_is_a_value(number: str) -> None:
    assert parse_flags(["--seed", number, "--x"]) == {"--seed": number, "--x": None}


def test_parse_flags_empty() -> None:
    assert parse_flags([]) == {}


@pytest.mark.parametrize("argv", [["model.gguf"], ["--a", "1", "2"], ["--"], ["-"]])
def test_parse_flags_rejects_a_stray_value(argv: list[str]) -> None:
    with pytest.raises(ValueError, match="expected a flag"):
        parse_flags(argv)


def test_parse_flags_llama_cpp_short_flags() -> None:
    flags = parse_flags(["-np", "4", "-c", "8192", "-ngl", "99", "-fa"])
    assert flags == {"-np": "4", "-c": "8192", "-ngl": "99", "-fa": None}
    assert config_id("llama.cpp", "b4000", flags) == config_id(
        "llama.cpp", "b4000", {"--parallel": 4, "--ctx-size": 8192, "--n-gpu-layers": 99, "--flash-attn": True}
    )


# --- src bugs found while writing these tests --------------------------------------------------


def _id_or_conflict(*args: Any, **kwargs: Any) -> str:
    try:
        return config_id(*args, **kwargs)
    except ValueError:
        return "refused as conflicting"


def test_llama_cpp_short_flags_are_case_sensitive() -> None:
    # A valid llama-server command line: -c 4096 (ctx-size) -C ff (cpu-mask).
    canon = canonical_config("llama.cpp", "b4000", parse_flags(["-c", "4096", "-C", "ff"]))
    assert canon["flags"]["ctx-size"] == 4096
    assert "ff" in canon["flags"].values()


def test_dtype_flag_that_contradicts_the_dtype_field_is_not_hidden() -> None:
    runs_fp16 = _id_or_conflict("vllm", "0.6.3", {"--dtype": "float16"}, dtype="bf16")
    runs_bf16 = _id_or_conflict("vllm", "0.6.3", {"--dtype": "bfloat16"}, dtype="bf16")
    assert runs_fp16 != runs_bf16


def test_conflicting_repeat_with_a_default_value_is_refused() -> None:
    with pytest.raises(ValueError, match="given twice"):
        canonical_config("vllm", "0.6.3", {"--tensor-parallel-size": 2, "-tp": 1})


def test_dtype_flag_given_twice_with_different_values_is_refused() -> None:
    with pytest.raises(ValueError, match="given twice"):
        canonical_config("vllm", "0.6.3", {"--dtype": "half", "dtype": "float32"})


def test_quantization_none_in_any_case_equals_omitted() -> None:
    assert vllm_id(BASE_ARGS, quantization="None") == vllm_id(BASE_ARGS)


def test_vllm_max_num_seqs_256_is_not_assumed_to_be_the_default() -> None:
    assert config_id("vllm", "0.11.0", {"--max-num-seqs": 256}) != config_id("vllm", "0.11.0", {})


# --- --no-X negation (issue 10) ----------------------------------------------------------------


def test_no_flag_is_the_flag_set_false() -> None:
    assert canonical_config("vllm", "0.32", {"--no-enable-prefix-caching": None})["flags"] == {"enable-prefix-caching": False}
    assert vllm_id({"--no-enable-prefix-caching": None}) == vllm_id({"--enable-prefix-caching": "false"})
    assert vllm_id({"--no-enable-prefix-caching": None}) != vllm_id({"--enable-prefix-caching": None})


def test_flag_and_its_no_form_together_are_a_conflict() -> None:
    with pytest.raises(ValueError, match="'enable-prefix-caching' given twice"):
        vllm_id(parse_flags(["--enable-prefix-caching", "--no-enable-prefix-caching"]))


def test_no_form_of_a_default_is_kept_and_the_default_dropped() -> None:
    # llama.cpp batches continuously by default: --cont-batching is the default, --no-cont-batching is not.
    assert config_id("llama.cpp", "b1", {"--cont-batching": None}) == config_id("llama.cpp", "b1", {})
    assert canonical_config("llama.cpp", "b1", {"--no-cont-batching": None})["flags"] == {"cont-batching": False}


def test_no_prefix_with_a_non_boolean_value_is_left_alone() -> None:
    assert canonical_config("vllm", "1", {"--no-such-thing": "x"})["flags"] == {"no-such-thing": "x"}


# --- the earlier rule (before --no-X and credentials were normalised) ---------------------------


@pytest.mark.parametrize(("args", "kwargs", "blob", "expected"), GOLDEN)
def test_legacy_rule_gives_the_golden_ids(args: tuple[Any, ...], kwargs: dict[str, Any], blob: str, expected: str) -> None:
    assert legacy_config_id(*args, **kwargs) == expected


def test_legacy_rule_is_the_one_the_committed_demo_baseline_was_written_with() -> None:
    # args and id as servescope wrote them for tiny-llama-on-cpu before issue 10
    args = {
        "--cont-batching": None,
        "--ctx-size": "32768",
        "--metrics": None,
        "--no-kv-unified": None,
        "--no-webui": None,
        "--parallel": "8",
        "--slots": None,
        "--threads": "1",
        "--threads-batch": "1",
    }
    version = "0.6.0-dev (build 0, commit unknown)"
    assert legacy_config_id("llama.cpp", version, args, "fp32", "fp16") == "a361709790b9d8d0"
    assert config_id("llama.cpp", version, args, "fp32", "fp16") != "a361709790b9d8d0"
    assert legacy_config_id("vllm", "1", {"--hf-token": "a"}) != legacy_config_id("vllm", "1", {"--hf-token": "b"})


def test_tensorrt_llm_nested_keys_are_one_setting_and_older_ids_still_check() -> None:
    """The flat key, trtllm-serve's flag and the nested YAML key are one setting (one id); an id written
    before they were normalised is recomputed by the earlier rule, so such a Result is told apart
    from a wrong one."""
    flat = {"free_gpu_memory_fraction": 0.85, "enable_block_reuse": False}
    nested = {"kv_cache_config.free_gpu_memory_fraction": 0.85, "kv_cache_config.enable_block_reuse": False}
    cli = {"--kv_cache_free_gpu_memory_fraction": 0.85, "enable_block_reuse": False}
    assert config_id("trt-llm", "1.0.0", flat) == config_id("trt-llm", "1.0.0", nested) == config_id("trt-llm", "1.0.0", cli)
    assert config_id("nim", "1.8.0", flat) == config_id("nim", "1.8.0", nested)
    assert legacy_config_id("trt-llm", "1.0.0", nested) != config_id("trt-llm", "1.0.0", nested)
    # the earlier rule kept each spelling as written: the nested and flat keys gave different ids
    assert legacy_config_id("trt-llm", "1.0.0", nested) != legacy_config_id("trt-llm", "1.0.0", flat)
    assert canonical_config("trt-llm", "1.0.0", nested, legacy=True)["flags"] == {
        "kv-cache-config.free-gpu-memory-fraction": 0.85,
        "kv-cache-config.enable-block-reuse": False,
    }
