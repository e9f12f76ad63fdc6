"""Was a measurement taken on the hardware of the scenario it is to calibrate?

``calibrate`` fits step-time factors of one scenario's devices; fitted to a run
measured on other devices (an H100 scenario to a CPU run) they would absorb the
other device's speed, and every prediction made with them would be wrong. The
measured hardware is the Result's own ``hardware`` (id and count), else the
hardware of the scenario the measurement names, when that scenario is the one
calibrated or the catalog knows it. A different device (id) or device count is
refused; a measurement that says nothing of its hardware is a warning."""

from __future__ import annotations

from dataclasses import dataclass

from servescope.catalog.store import Catalog
from servescope.documents import EvaluationRun, Result, Scenario
from servescope.errors import CatalogError, UsageError


@dataclass(frozen=True)
class MeasuredOn:
    hardware: str
    count: int
    source: str
    """Where it was read: the Result's hardware field, or the scenario the measurement names."""


def measured_on(doc: EvaluationRun | Result, scenario: Scenario, catalog: Catalog) -> MeasuredOn | None:
    """The hardware a measurement was taken on, or None when it does not say."""
    if isinstance(doc, Result) and doc.hardware is not None:
        return MeasuredOn(doc.hardware.id, doc.hardware.count, "its hardware field")
    if not doc.scenario:
        return None
    if doc.scenario == scenario.name:
        return MeasuredOn(scenario.hardware, scenario.count, f"its scenario {doc.scenario}")
    try:
        named = catalog.scenario(doc.scenario)
    except CatalogError:
        return None
    return MeasuredOn(named.hardware, named.count, f"its scenario {doc.scenario}")


def _device(hardware_id: str, count: int, catalog: Catalog) -> str:
    try:
        hw = catalog.hardware(hardware_id)
    except CatalogError:
        return f"{count} x {hardware_id}"
    return f"{count} x {hardware_id} ({hw.device_type}: {hw.name})"


def check_measured_hardware(doc: EvaluationRun | Result, scenario: Scenario, catalog: Catalog, measured_name: str) -> list[str]:
    """Raise ``UsageError`` when the measurement was taken on other hardware than ``scenario``'s;
    return a warning when it does not say what it was taken on (module docstring)."""
    on = measured_on(doc, scenario, catalog)
    if on is None:
        named = f" (its scenario {doc.scenario!r} is in neither the catalog nor the one calibrated)" if doc.scenario else ""
        return [
            f"{measured_name} does not say which hardware it was measured on{named}: the fit assumes "
            f"{_device(scenario.hardware, scenario.count, catalog)}, the scenario's; check that it is"
        ]
    if on.hardware != scenario.hardware or on.count != scenario.count:
        raise UsageError(
            f"scenario {scenario.name} runs on {_device(scenario.hardware, scenario.count, catalog)} but {measured_name} was "
            f"measured on {_device(on.hardware, on.count, catalog)} ({on.source}): factors fitted to other devices would "
            "predict this scenario wrong; calibrate the scenario that was measured, or measure this one"
        )
    return []
