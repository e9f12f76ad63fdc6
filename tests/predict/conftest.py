from __future__ import annotations

import pytest

from servescope.catalog.store import Catalog
from servescope.documents import Hardware, Model, Scenario
from servescope.predict.step_time import GEMM_ROOFLINE_P


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """With the compiled simulator loaded (``servescope.native_sim``), a ``pure_sim`` test would
    patch or read Python the compiled classes do not have: it is skipped here and run in a process
    that keeps pure Python (``tests/test_native_sim.py``)."""
    import servescope.predict.sim as sim

    if not sim.NATIVE:
        return
    skip = pytest.mark.skip(reason="compiled simulator loaded: run in pure Python by tests/test_native_sim.py")
    for item in items:
        if item.get_closest_marker("pure_sim") is not None:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def catalog() -> Catalog:
    return Catalog.load([])


@pytest.fixture(scope="session")
def llama8b(catalog: Catalog) -> Model:
    return catalog.model("llama-3.1-8b")


@pytest.fixture(scope="session")
def h100(catalog: Catalog) -> Hardware:
    return catalog.hardware("h100-sxm")


def gemm_s(compute_s: float, memory_s: float) -> float:
    """A GEMM's time on a GPU from its two roofline sides (``step_time.GEMM_ROOFLINE_P``)."""
    p = GEMM_ROOFLINE_P
    return float((compute_s**p + memory_s**p) ** (1 / p))


def toy_hardware(**over: object) -> Hardware:
    """A round-numbered device: 1 TFLOP/s bf16, 1 GB/s... scaled for hand arithmetic."""
    doc = {
        "kind": "Hardware",
        "id": "toy",
        "name": "toy",
        "vendor": "test",
        "device_type": "gpu",
        "memory_gb": 100.0,
        "memory_bandwidth_gb_s": 1000.0,
        "peak_tflops": {"bf16": 100.0},
        "interconnect": {"name": "link", "bandwidth_gb_s": 100.0, "latency_us": 10.0},
    }
    doc.update(over)
    return Hardware.model_validate(doc)


def scenario(name: str = "s", **over: object) -> Scenario:
    doc: dict[str, object] = {
        "kind": "Scenario",
        "name": name,
        "model": "llama-3.1-8b",
        "hardware": "h100-sxm",
        "engine": {"id": "vllm", "version": "0.11.0"},
    }
    doc.update(over)
    return Scenario.model_validate(doc)
