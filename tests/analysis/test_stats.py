"""analysis.stats against hand-computed values (shared/STYLE.md item 8), numpy and scipy."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from servescope.analysis.stats import (
    PERCENTILES,
    calibration_error,
    describe,
    describe_counts,
    mean_ci,
    paired_percentile_difference_ci,
    paired_rate_difference_ci,
    percentile,
    rate_ci,
    weighted_percentile,
)

# ---- percentile ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("p", "expected"),
    [
        # [1, 2, 3, 4]: rank h = 3p/100, value x[floor h] + frac(h) * (x[ceil h] - x[floor h])
        (0, 1.0),
        (50, 2.5),  # h = 1.5
        (90, 3.7),  # h = 2.7
        (95, 3.85),  # h = 2.85
        (99, 3.97),  # h = 2.97
        (100, 4.0),
        (25, 1.75),  # h = 0.75
    ],
)
def test_percentile_hand_computed(p: float, expected: float) -> None:
    assert percentile([4, 1, 3, 2], p) == pytest.approx(expected)


def test_percentile_of_one_value_is_that_value() -> None:
    assert percentile([7.5], 99) == 7.5


def test_percentile_of_nothing_is_none() -> None:
    assert percentile([], 50) is None


@pytest.mark.parametrize("p", [-0.1, 100.1, 150])
def test_percentile_outside_0_100_raises(p: float) -> None:
    with pytest.raises(ValueError):
        percentile([1, 2], p)


finite = st.floats(min_value=-1e9, max_value=1e9, allow_nan=False, allow_infinity=False)


@settings(max_examples=100, deadline=None)
@given(values=st.lists(finite, min_size=1, max_size=60), p=st.floats(min_value=0, max_value=100))
def test_percentile_matches_numpy_linear(values: list[float], p: float) -> None:
    got = percentile(values, p)
    assert got is not None
    assert got == pytest.approx(float(np.percentile(values, p, method="linear")), rel=1e-12, abs=1e-6)
    assert min(values) - 1e-6 <= got <= max(values) + 1e-6


# ---- describe ----------------------------------------------------------------------


def test_describe_hand_computed() -> None:
    d = describe([1, 2, 3, 4])
    assert d["count"] == 4
    assert d["mean"] == 2.5
    assert d["p50"] == pytest.approx(2.5)
    assert d["p90"] == pytest.approx(3.7)
    assert d["p95"] == pytest.approx(3.85)
    assert d["p99"] == pytest.approx(3.97)
    assert (d["min"], d["max"]) == (1.0, 4.0)
    # sample std (ddof = 1): sqrt(((1.5² + 0.5²) * 2) / 3) = sqrt(5/3)
    assert d["std"] == pytest.approx(math.sqrt(5 / 3))
    assert set(d) == {"count", "mean", "p50", "p90", "p95", "p99", "min", "max", "std"}


def test_describe_std_is_sample_not_population() -> None:
    d = describe([2, 4, 4, 4, 5, 5, 7, 9])  # population std 2.0, sample std sqrt(32/7)
    assert d["std"] == pytest.approx(math.sqrt(32 / 7))


def test_describe_one_value_has_no_std() -> None:
    d = describe([3.0])
    assert d["count"] == 1
    assert d["std"] is None
    assert d["mean"] == d["p50"] == d["p99"] == d["min"] == d["max"] == 3.0


def test_describe_empty_is_all_none() -> None:
    d = describe([])
    assert d["count"] == 0
    assert all(d[k] is None for k in ("mean", "p50", "p90", "p95", "p99", "min", "max", "std"))


def test_describe_returns_plain_floats() -> None:
    d = describe(np.array([1, 2, 3], dtype=np.int64))
    assert all(type(d[k]) is float for k in ("mean", "p50", "min", "max", "std"))
    assert type(d["count"]) is int


@settings(max_examples=100, deadline=None)
@given(values=st.lists(finite, min_size=2, max_size=60))
def test_describe_matches_numpy(values: list[float]) -> None:
    d = describe(values)
    arr = np.asarray(values)
    assert d["mean"] == pytest.approx(arr.mean(), rel=1e-9, abs=1e-6)
    assert d["std"] == pytest.approx(arr.std(ddof=1), rel=1e-9, abs=1e-6)
    for p in PERCENTILES:
        assert d[f"p{p}"] == pytest.approx(np.percentile(arr, p), rel=1e-9, abs=1e-6)
    assert d["p50"] <= d["p90"] <= d["p95"] <= d["p99"]  # type: ignore[operator]


# ---- mean_ci ---------------------------------------------------------------------------


def test_mean_ci_hand_computed() -> None:
    # mean 2.5, s = sqrt(5/3), sem = s/2 = 0.645497, t(0.975, 3) = 3.182446 → half-width 2.054260
    lo, hi = mean_ci([1, 2, 3, 4])  # type: ignore[misc]
    assert lo == pytest.approx(0.445740, abs=1e-6)
    assert hi == pytest.approx(4.554260, abs=1e-6)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_mean_ci_matches_scipy_t_interval(confidence: float) -> None:
    values = [12.0, 15.5, 9.8, 11.1, 14.2, 13.3, 10.0]
    arr = np.asarray(values)
    ref = sps.t.interval(confidence, df=len(arr) - 1, loc=arr.mean(), scale=sps.sem(arr))
    assert mean_ci(values, confidence) == pytest.approx(ref, rel=1e-12)


def test_mean_ci_converges_to_normal_for_large_n() -> None:
    arr = np.random.default_rng(0).normal(100, 10, size=5000)
    lo, hi = mean_ci(arr)  # type: ignore[misc]
    half = 1.96 * arr.std(ddof=1) / math.sqrt(arr.size)
    assert (hi - lo) / 2 == pytest.approx(half, rel=1e-3)


@pytest.mark.parametrize("values", [[], [5.0]])
def test_mean_ci_needs_two_values(values: list[float]) -> None:
    assert mean_ci(values) is None


def test_mean_ci_of_constant_sample_is_a_point() -> None:
    assert mean_ci([3.0, 3.0, 3.0]) == (3.0, 3.0)


# ---- rate_ci -----------------------------------------------------------------------------


def test_wilson_hand_computed() -> None:
    # z = 1.959964; centre = (0.8 + z²/20) / (1 + z²/10) = 0.716741;
    # half = z·sqrt(0.016 + z²/400) / (1 + z²/10) = 0.226577
    lo, hi = rate_ci(8, 10)  # type: ignore[misc]
    assert lo == pytest.approx(0.4902, abs=1e-4)
    assert hi == pytest.approx(0.9433, abs=1e-4)


def test_wilson_zero_successes_upper_bound() -> None:
    # phat = 0: upper = (z²/n) / (1 + z²/n) = 0.384146 / 1.384146
    _, hi = rate_ci(0, 10)  # type: ignore[misc]
    assert hi == pytest.approx(0.277533, abs=1e-6)


@pytest.mark.parametrize(
    ("k", "n", "expected"),
    [
        (0, 10, (0.0, 0.3085)),  # upper = 1 - 0.025^(1/10)
        (10, 10, (0.6915, 1.0)),  # lower = 0.025^(1/10)
        (5, 10, (0.1871, 0.8129)),
        (1, 20, (0.0013, 0.2487)),
    ],
)
def test_clopper_pearson_known_values(k: int, n: int, expected: tuple[float, float]) -> None:
    lo, hi = rate_ci(k, n, method="clopper-pearson")  # type: ignore[misc]
    assert lo == pytest.approx(expected[0], abs=1e-4)
    assert hi == pytest.approx(expected[1], abs=1e-4)


def test_clopper_pearson_zero_of_ten_closed_form() -> None:
    _, hi = rate_ci(0, 10, method="clopper-pearson")  # type: ignore[misc]
    assert hi == pytest.approx(1 - 0.025 ** (1 / 10), rel=1e-10)


def test_clopper_pearson_is_wider_than_wilson() -> None:
    w = rate_ci(8, 10)
    cp = rate_ci(8, 10, method="clopper-pearson")
    assert w is not None and cp is not None
    assert cp[0] < w[0] and cp[1] > w[1]


def test_no_trials_is_none() -> None:
    assert rate_ci(0, 0) is None


@pytest.mark.parametrize(("k", "n"), [(-1, 10), (11, 10)])
def test_successes_outside_trials_raise(k: int, n: int) -> None:
    with pytest.raises(ValueError):
        rate_ci(k, n)


@st.composite
def k_of_n(draw: st.DrawFn, interior: bool = False) -> tuple[int, int]:
    n = draw(st.integers(min_value=2 if interior else 1, max_value=5000))
    k = draw(st.integers(min_value=1, max_value=n - 1) if interior else st.integers(min_value=0, max_value=n))
    return k, n


@settings(max_examples=150, deadline=None)
@given(kn=k_of_n(), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_clopper_pearson_contains_the_estimate_within_0_1(kn: tuple[int, int], confidence: float) -> None:
    k, n = kn
    lo, hi = rate_ci(k, n, confidence, method="clopper-pearson")  # type: ignore[misc]
    assert 0.0 <= lo <= k / n <= hi <= 1.0


@settings(max_examples=150, deadline=None)
@given(kn=k_of_n(interior=True), confidence=st.sampled_from([0.8, 0.9, 0.95, 0.99]))
def test_wilson_contains_the_estimate_within_0_1(kn: tuple[int, int], confidence: float) -> None:
    k, n = kn
    lo, hi = rate_ci(k, n, confidence)  # type: ignore[misc]
    assert 0.0 <= lo < k / n < hi <= 1.0


@pytest.mark.parametrize(("k", "n"), [(0, 3), (10, 10)])
def test_wilson_contains_the_estimate_at_the_edges(k: int, n: int) -> None:
    lo, hi = rate_ci(k, n)  # type: ignore[misc]
    assert lo <= k / n <= hi


@settings(max_examples=100, deadline=None)
@given(kn=k_of_n())
def test_higher_confidence_is_never_narrower(kn: tuple[int, int]) -> None:
    k, n = kn
    for method in ("wilson", "clopper-pearson"):
        a = rate_ci(k, n, 0.9, method=method)  # type: ignore[arg-type]
        b = rate_ci(k, n, 0.99, method=method)  # type: ignore[arg-type]
        assert a is not None and b is not None
        assert b[0] <= a[0] + 1e-12 and a[1] <= b[1] + 1e-12


@settings(max_examples=150, deadline=None)
@given(st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=300))
def test_large_sample_path_gives_the_same_numbers(values: list[float]) -> None:
    """Above a million values describe sorts in place and sums in blocks; with the
    threshold lowered, that path must give what numpy gives."""
    import servescope.analysis.stats as stats_module

    expected = describe(np.array(values))
    old = stats_module._BLOCK
    stats_module._BLOCK = 1
    try:
        got = describe(np.array(values), overwrite=True)
    finally:
        stats_module._BLOCK = old
    assert got.keys() == expected.keys()
    for k in expected:
        assert got[k] == pytest.approx(expected[k], rel=1e-9, abs=1e-6), k


@settings(max_examples=150, deadline=None)
@given(st.lists(st.integers(-(2**40), 2**40), min_size=2, max_size=300), st.sampled_from([np.int32, np.int64]), st.booleans())
def test_describe_counts_is_describe_of_the_scaled_sample(values: list[int], dtype: type, overwrite: bool) -> None:
    """The whole-number path (ITL gaps in ns) gives describe(values / unit): its percentiles,
    minimum and maximum exactly, its mean and spread to rounding; with overwrite False the
    caller's array is left as it was."""
    import servescope.analysis.stats as stats_module

    arr = np.array([v % (2**31) if dtype is np.int32 else v for v in values], dtype=dtype)
    kept = arr.copy()
    old = stats_module._BLOCK
    stats_module._BLOCK = 1  # both on their large-sample paths, as above a million values
    try:
        expected = describe(arr / 1e6, overwrite=True)
        got = describe_counts(arr, 1e6, overwrite=overwrite)
    finally:
        stats_module._BLOCK = old
    assert got.keys() == expected.keys()
    for k in ("count", "p50", "p90", "p95", "p99", "min", "max"):
        assert got[k] == expected[k], k
    for k in ("mean", "std"):
        assert got[k] == pytest.approx(expected[k], rel=1e-9, abs=1e-9), k
    if not overwrite:
        assert arr.tolist() == kept.tolist()


def test_describe_counts_above_the_block_and_past_int64_sums() -> None:
    """Above a million gaps (the path a big summary takes), and values whose sum would
    overflow int64 (the float path then): the same figures as describe."""
    rng = np.random.default_rng(0)
    gaps = rng.integers(1_000_000, 40_000_000, size=(1 << 20) + 5, dtype=np.int64).astype(np.int32)
    expected = describe(gaps / 1e6)
    got = describe_counts(gaps, 1e6)
    for k in ("count", "p50", "p90", "p95", "p99", "min", "max"):
        assert got[k] == expected[k], k
    assert got["mean"] == pytest.approx(expected["mean"], rel=1e-12)
    assert got["std"] == pytest.approx(expected["std"], rel=1e-9)
    huge = np.full((1 << 20) + 1, 2**62, dtype=np.int64)
    huge[0] = 2**61
    assert describe_counts(huge, 1e6) == describe(huge / 1e6)


def test_overwrite_false_leaves_the_array_alone() -> None:
    arr = np.array([3.0, 1.0, 2.0] * 10)
    describe(arr)
    assert arr.tolist() == [3.0, 1.0, 2.0] * 10


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.tuples(st.floats(-1e6, 1e6, allow_nan=False), st.integers(0, 40)), min_size=1, max_size=60),
    st.floats(0, 100),
)
def test_weighted_percentile_is_the_percentile_of_the_repeated_sample(pairs: list[tuple[float, int]], p: float) -> None:
    values = np.array([v for v, _ in pairs])
    counts = np.array([c for _, c in pairs])
    want = percentile(np.repeat(values, counts), p)
    got = weighted_percentile(values, counts, p)
    if want is None:
        assert got is None
    else:
        assert got == want


# ---- paired rate difference (Newcombe square-and-add) ---------------------------


def test_newcombe_paired_published_example() -> None:
    """Cavo et al. 2012 as worked in Fagerland, Lydersen & Laake (ch. 8, the R package
    contingencytables): 59 both, 6 only A, 16 only B, 80 neither -> -0.0621 (-0.1186 to -0.0046)."""
    ci = paired_rate_difference_ci(59, 6, 16, 80)
    assert ci is not None
    assert ci[0] == pytest.approx(-0.1186, abs=5e-5) and ci[1] == pytest.approx(-0.0046, abs=5e-5)


def test_newcombe_paired_swapping_a_and_b_negates_the_interval() -> None:
    lo, hi = paired_rate_difference_ci(20, 9, 3, 8)  # type: ignore[misc]
    lo2, hi2 = paired_rate_difference_ci(20, 3, 9, 8)  # type: ignore[misc]
    assert (lo2, hi2) == pytest.approx((-hi, -lo))
    assert lo < 6 / 40 < hi


def test_newcombe_paired_no_discordant_items_straddles_zero() -> None:
    lo, hi = paired_rate_difference_ci(10, 0, 0, 10)  # type: ignore[misc]
    assert lo < 0 < hi


def test_newcombe_paired_all_discordant_one_way_excludes_zero() -> None:
    lo, hi = paired_rate_difference_ci(0, 30, 0, 0)  # type: ignore[misc]
    assert 0 < lo <= hi == 1.0


def test_newcombe_paired_no_items_is_none() -> None:
    assert paired_rate_difference_ci(0, 0, 0, 0) is None


@given(st.tuples(*(st.integers(0, 40) for _ in range(4))).filter(lambda t: sum(t) > 0))
@settings(max_examples=200, deadline=None)
def test_newcombe_paired_contains_the_estimate_within_minus_one_one(t: tuple[int, int, int, int]) -> None:
    both, only_a, only_b, neither = t
    n = sum(t)
    lo, hi = paired_rate_difference_ci(both, only_a, only_b, neither)  # type: ignore[misc]
    d = (only_a - only_b) / n
    assert -1.0 <= lo <= d + 1e-12 and d - 1e-12 <= hi <= 1.0


# ---- paired percentile difference (bootstrap over items) -------------------------


def test_paired_bootstrap_of_a_constant_shift_is_that_shift() -> None:
    b = [10.0, 30.0, 20.0, 50.0, 40.0]
    ci = paired_percentile_difference_ci([x + 5.0 for x in b], b)
    assert ci == pytest.approx((5.0, 5.0))


def test_paired_bootstrap_is_reproducible_and_contains_the_median_difference() -> None:
    rng = np.random.default_rng(3)
    b = rng.gamma(2.0, 100.0, size=60)
    a = b * 1.3 + rng.normal(0, 5, size=60)
    ci = paired_percentile_difference_ci(a, b)
    assert ci == paired_percentile_difference_ci(a, b)  # fixed seed
    assert ci is not None and ci[0] < float(np.median(a) - np.median(b)) < ci[1] and ci[0] > 0


def test_paired_bootstrap_needs_two_pairs_of_equal_length() -> None:
    assert paired_percentile_difference_ci([1.0], [2.0]) is None
    with pytest.raises(ValueError):
        paired_percentile_difference_ci([1.0, 2.0], [1.0])


# ---- calibration (ECE / MCE, 10 equal-width bins) -----------------------------------


@pytest.mark.parametrize(
    ("confidences", "correct", "ece", "mce"),
    [
        # one bin (0.8, 0.9]: acc 3/4, conf 0.9 -> |0.75 - 0.9| = 0.15
        ([0.9, 0.9, 0.9, 0.9], [True, True, True, False], 0.15, 0.15),
        # (0, 0.1]: acc 0, conf 0.1, weight 1/3; (0.9, 1]: acc 1/2, conf 0.95, weight 2/3 -> 0.1/3 + 0.45*2/3
        ([0.1, 0.95, 0.95], [False, True, False], 0.1 / 3 + 0.45 * 2 / 3, 0.45),
        # (0.5, 0.6]: |0.5 - 0.6| weight 2/5; (0.7, 0.8]: |2/3 - 0.8| weight 3/5 -> 0.04 + 0.08
        ([0.6, 0.6, 0.8, 0.8, 0.8], [True, False, True, True, False], 0.12, 0.8 - 2 / 3),
        ([1.0, 1.0], [True, True], 0.0, 0.0),  # sure and right
        ([0.0], [False], 0.0, 0.0),  # 0 goes in the first bin, and is right to be 0
        ([1.0, 0.0], [False, True], 1.0, 1.0),  # sure and wrong, sure-wrong and right
        # 0.31 and 0.35 share (0.3, 0.4]: acc 1/2, conf 0.33
        ([0.31, 0.35], [True, False], 0.17, 0.17),
    ],
)
def test_calibration_error_hand_computed(confidences: list[float], correct: list[bool], ece: float, mce: float) -> None:
    out = calibration_error(confidences, correct)
    assert out is not None
    assert out["ece"] == pytest.approx(ece) and out["mce"] == pytest.approx(mce)
    assert out["answered_with_confidence"] == len(confidences)
    bins = out["bins"]
    assert isinstance(bins, list) and len(bins) == 10 and sum(b["count"] for b in bins) == len(confidences)


def test_calibration_bin_edges_belong_to_the_bin_below() -> None:
    """(lo, hi]: 0.3 is in (0.2, 0.3] even though 0.3 * 10 is 3.0000000000000004 in floating point."""
    out = calibration_error([0.3, 0.7, 0.1], [False, True, True])
    assert out is not None
    counts = [b["count"] for b in out["bins"]]  # type: ignore[attr-defined]
    assert counts == [1, 0, 1, 0, 0, 0, 1, 0, 0, 0]
    empty = out["bins"][1]  # type: ignore[index]
    assert empty["accuracy"] is None and empty["mean_confidence"] is None


def test_calibration_without_any_confidence_is_none() -> None:
    assert calibration_error([], []) is None


def test_calibration_refuses_confidences_outside_0_1() -> None:
    with pytest.raises(ValueError):
        calibration_error([1.2], [True])
