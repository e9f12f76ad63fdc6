"""``Scenario``'s engine flags written as structured YAML: for TensorRT-LLM a nested mapping (its
extra-llm-api-config YAML) is the same flags dotted; for other engines a mapping is the flag's JSON;
a list is the values space-separated."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from servescope.documents import Scenario, load_document
from servescope.documents.config_id import config_id
from servescope.errors import DocumentError


def _scenario(args: dict[Any, Any], engine: str = "trt-llm") -> Scenario:
    return Scenario.model_validate(
        {"kind": "Scenario", "name": "s", "model": "llama-3.1-8b", "hardware": "h100-sxm", "engine": {"id": engine, "version": "1.1.0", "args": args}}
    )


def test_nested_flags_are_the_dotted_flags() -> None:
    nested = _scenario({"kv_cache_config": {"free_gpu_memory_fraction": 0.6, "enable_block_reuse": False}, "stream_interval": 1})
    dotted = _scenario({"kv_cache_config.free_gpu_memory_fraction": 0.6, "kv_cache_config.enable_block_reuse": False, "stream_interval": 1})
    assert nested.engine.args == dotted.engine.args
    assert config_id("trt-llm", "1.1.0", nested.engine.args) == config_id("trt-llm", "1.1.0", dotted.engine.args)
    deep = _scenario({"a": {"b": {"c": 3}}})
    assert deep.engine.args == {"a.b.c": 3}


def test_a_list_of_values_is_the_values_space_separated() -> None:
    """As a command line gives a multi-value flag: ``batch_sizes: [1, 2, 4]`` is ``"1 2 4"``."""
    listed = _scenario({"cuda_graph_config": {"batch_sizes": [1, 2, 4], "enable_padding": False}})
    assert listed.engine.args == {"cuda_graph_config.batch_sizes": "1 2 4", "cuda_graph_config.enable_padding": False}
    assert _scenario({"--cuda-graph-sizes": [8, 16]}).engine.args == {"--cuda-graph-sizes": "8 16"}
    for bad in ([{"b": 1}], [True, False], []):  # not a list of numbers or names: refused, saying what to give
        with pytest.raises(ValidationError) as info:
            _scenario({"a": bad})
        assert "give a non-empty list of numbers or names" in str(info.value)


def test_a_null_inside_a_nested_block_is_a_key_left_at_its_default() -> None:
    """TensorRT-LLM's YAML writes an unset key as null (``batch_sizes: null``): dropped, not read as a bare
    flag (which would be true); a null at the top is still a bare flag."""
    s = _scenario({"cuda_graph_config": {"batch_sizes": None, "max_batch_size": 64}, "pytorch_backend_config": {"disable_overlap_scheduler": None}})
    assert s.engine.args == {"cuda_graph_config.max_batch_size": 64}
    assert _scenario({"--enable-chunked-prefill": None, "a": {"b": 1}}).engine.args == {"--enable-chunked-prefill": None, "a.b": 1}


def test_for_other_engines_a_mapping_is_the_flags_json() -> None:
    """vLLM's JSON-valued flags take an object: a mapping there is that JSON, which the simulator reads."""
    from servescope.catalog.store import Catalog
    from servescope.predict.deployment import deploy

    s = _scenario({"--speculative-config": {"method": "eagle3", "num_speculative_tokens": 3}}, engine="vllm")
    assert json.loads(s.engine.args["--speculative-config"]) == {"method": "eagle3", "num_speculative_tokens": 3}
    dep = deploy(s.model_copy(update={"model": "llama-3.1-8b"}), catalog=Catalog.load())
    assert dep.step_model.spec.tokens == 3  # type: ignore[attr-defined]


def test_a_key_that_is_not_a_name_is_refused() -> None:
    """YAML reads ``1:`` or ``yes:`` as a number or a boolean, not a flag name."""
    for args in ({1: "x", "a": {"b": 1}}, {"a": {True: 1}}):
        with pytest.raises(ValidationError) as info:
            _scenario(args)
        assert "is not a flag name; quote it" in str(info.value)


def test_the_same_flag_nested_and_dotted_with_different_values_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        _scenario({"kv_cache_config": {"dtype": "fp8"}, "kv_cache_config.dtype": "auto"})
    assert "kv_cache_config.dtype is given twice, nested and dotted" in str(info.value)
    # the same value twice is one setting; 1 and true are not the same value
    assert _scenario({"kv_cache_config": {"dtype": "fp8"}, "kv_cache_config.dtype": "fp8"}).engine.args == {"kv_cache_config.dtype": "fp8"}
    with pytest.raises(ValidationError):
        _scenario({"a.b": 1, "a": {"b": True}})


def test_an_empty_nested_mapping_is_refused_in_one_line(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "kind: Scenario\nname: s\nmodel: llama-3.1-8b\nhardware: h100-sxm\nengine:\n  id: trt-llm\n  version: 1.1.0\n  args:\n    kv_cache_config: {}\n",
        encoding="utf-8",
    )
    with pytest.raises(DocumentError) as info:
        load_document(path, Scenario)
    text = str(info.value)
    assert "\n" not in text and str(path) in text and "kv_cache_config: an empty mapping sets nothing" in text
