"""The GEMM roofline's shape and the 16-bit GEMM efficiency against the public profiles they come from
(benchmarks/vidur_gemm_profiles.json, fitted by benchmarks/gemm_roofline.py): the shipped constants stay
what the fit gives, and the fit keeps beating the plain max on the models it never saw."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from servescope.predict.calibration import Calibration
from servescope.predict.step_time import GEMM_ROOFLINE_P

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
import gemm_roofline  # noqa: E402


@pytest.fixture(scope="module")
def data() -> list[gemm_roofline.Row]:
    return gemm_roofline.load()


def test_the_shipped_shape_and_efficiency_are_the_pooled_fit(data: list[gemm_roofline.Row]) -> None:
    pooled = gemm_roofline.fit(data, ("h100", "a100"))
    assert abs(GEMM_ROOFLINE_P - pooled["p"]) <= 0.05
    assert Calibration().gemm_eff_16bit == pytest.approx(pooled["e_compute"], abs=0.01)


def test_the_shape_is_the_same_on_both_devices(data: list[gemm_roofline.Row]) -> None:
    """p fitted on each device alone lands within 0.1 of the other's; each device fits better with it than with max."""
    h100, a100 = gemm_roofline.fit(data, ("h100",)), gemm_roofline.fit(data, ("a100",))
    assert abs(h100["p"] - a100["p"]) < 0.1
    for device, own in (("h100", h100), ("a100", a100)):
        assert own["mape_pct"] < gemm_roofline.fit(data, (device,), gemm_roofline.MAX)["mape_pct"]


def test_models_no_fit_saw_are_predicted_better_than_by_max(data: list[gemm_roofline.Row]) -> None:
    shaped = gemm_roofline.held_out(data, gemm_roofline.fit(data, ("h100", "a100")))
    plain = gemm_roofline.held_out(data, gemm_roofline.fit(data, ("h100", "a100"), gemm_roofline.MAX))
    assert len(shaped) == 5
    for model, err in shaped.items():
        assert err < plain[model], model
