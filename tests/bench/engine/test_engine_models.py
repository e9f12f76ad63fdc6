"""The models the embedded engine serves by name."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.bench.engine.models import ENGINE_MODELS, WHEEL_MODELS, check_engine_model, ensure_engine_model, wheel_model_path
from servescope.errors import UsageError


def test_unknown_engine_model_is_one_clear_line() -> None:
    with pytest.raises(UsageError) as err:
        check_engine_model("gpt-9")
    assert "gpt-9" in str(err.value) and "smollm2-135m" in str(err.value) and "\n" not in str(err.value)


def test_the_default_stays_the_tiny_model() -> None:
    assert ENGINE_MODELS[0] == "servescope-tiny-llama" and "smollm2-135m" in ENGINE_MODELS


def test_a_cached_model_is_used_without_fetching(tmp_path: Path) -> None:
    spec = WHEEL_MODELS["smollm2-135m"]
    target = wheel_model_path(spec, tmp_path)
    target.parent.mkdir(parents=True)
    target.write_bytes(b"GGUF")  # pip is never called when the model is already in place
    assert ensure_engine_model("smollm2-135m", tmp_path) == target
