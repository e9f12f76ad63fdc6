"""``Scenario``'s engine flags: a nested mapping (TensorRT-LLM's extra-llm-api-config YAML) is
the same flags written dotted."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from servescope.documents import Scenario, load_document
from servescope.documents.config_id import config_id
from servescope.errors import DocumentError


def _scenario(args: dict[str, Any]) -> Scenario:
    return Scenario.model_validate(
        {"kind": "Scenario", "name": "s", "model": "llama-3.1-8b", "hardware": "h100-sxm", "engine": {"id": "trt-llm", "version": "1.1.0", "args": args}}
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
    with pytest.raises(ValidationError):
        _scenario({"a": [{"b": 1}]})  # not a list of plain values: still refused


def test_the_same_flag_nested_and_dotted_with_different_values_is_refused() -> None:
    with pytest.raises(ValidationError) as info:
        _scenario({"kv_cache_config": {"dtype": "fp8"}, "kv_cache_config.dtype": "auto"})
    assert "kv_cache_config.dtype is given twice, nested and dotted" in str(info.value)
    # the same value twice is one setting
    assert _scenario({"kv_cache_config": {"dtype": "fp8"}, "kv_cache_config.dtype": "fp8"}).engine.args == {"kv_cache_config.dtype": "fp8"}


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
