"""Shared fixtures: one tiny model per test session, built into a temporary cache folder."""

from __future__ import annotations

from pathlib import Path

import pytest

from servescope.bench.engine.binary import find_llama_server
from servescope.bench.engine.tiny_model import ensure_tiny_model
from servescope.errors import EngineError


@pytest.fixture(scope="session")
def engine_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache folder private to this test session (nothing is written to ~/.cache)."""
    return tmp_path_factory.mktemp("engine-cache")


@pytest.fixture(scope="session")
def tiny_model(engine_cache: Path) -> Path:
    return ensure_tiny_model(engine_cache)


@pytest.fixture(scope="session")
def llama_server_available(engine_cache: Path) -> None:
    """Skip (with the reason in the summary) when llama-server is not installed."""
    try:
        find_llama_server(engine_cache)
    except EngineError as exc:
        pytest.skip(str(exc))
