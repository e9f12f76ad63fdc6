"""Prediction intervals from held-out error (predict.intervals): the rule, the shipped table, the documents."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from typing import Any

import pytest

from servescope.predict.api import format_table, predict
from servescope.predict.intervals import interval_for_groups, table, union_range

LEVELS = [i / 40 for i in range(41)]


def _uniform(points: int, **ranges: tuple[float, float]) -> dict[str, Any]:
    """A group whose held-out factors are spread evenly over ``ranges[metric]`` (so its quantiles are known)."""
    quantiles = {m: [a + (b - a) * level for level in LEVELS] for m, (a, b) in ranges.items()}
    return {
        "points": points,
        "points_by_metric": dict.fromkeys(ranges, points),
        "quantiles": quantiles,
        **{m: [q[4], q[36]] for m, q in quantiles.items()},  # the 10th and 90th percentiles
    }


SMALL: dict[str, Any] = {
    "coverage": 0.8,
    "min_points": 10,
    "metrics": ["ttft_ms", "itl_ms", "output_tokens_per_sec"],
    "levels": LEVELS,
    "groups": {
        "engine": {"vLLM": _uniform(100, ttft_ms=(0.5, 1.5), itl_ms=(0.8, 1.2), output_tokens_per_sec=(0.8, 1.1))},
        "hardware generation": {
            "Hopper": _uniform(100, ttft_ms=(1.5, 2.5), itl_ms=(0.9, 1.5), output_tokens_per_sec=(0.9, 1.2)),
            "Ada": _uniform(3, ttft_ms=(0.99, 1.01), itl_ms=(0.99, 1.01), output_tokens_per_sec=(0.99, 1.01)),
            "Ampere": _uniform(1000, ttft_ms=(1.5, 2.5), itl_ms=(0.9, 1.5), output_tokens_per_sec=(0.9, 1.2)),
        },
    },
    "fallback": {"ttft_ms": [0.2, 5.0], "itl_ms": [0.4, 2.5], "output_tokens_per_sec": [0.3, 3.0]},
    "fallback_rule": "as wide as the widest validated group",
}


def test_a_deployment_in_two_groups_gets_the_range_of_their_points_together_not_the_widest() -> None:
    """vLLM's TTFT factors spread over 0.5-1.5 and Hopper's over 1.5-2.5, 100 points each: together
    they spread evenly over 0.5-2.5, whose 80 % range is 0.7-2.3 (the widest of the two groups'
    ranges, 0.6-2.4, over-covers by construction)."""
    iv = interval_for_groups({"engine": "vLLM", "hardware generation": "Hopper", "model family": "new-model"}, SMALL)
    assert iv.validated and iv.warnings == []
    assert iv.factors["ttft_ms"] == pytest.approx((0.7, 2.3))
    for metric, (lo, hi) in iv.factors.items():
        ranges = [SMALL["groups"]["engine"]["vLLM"][metric], SMALL["groups"]["hardware generation"]["Hopper"][metric]]
        widest = (min(r[0] for r in ranges), max(r[1] for r in ranges))
        assert widest[0] < lo and hi < widest[1]  # strictly inside the widest
        assert min(r[0] for r in ranges) <= lo <= max(r[0] for r in ranges) and min(r[1] for r in ranges) <= hi <= max(r[1] for r in ranges)
    assert "engine vLLM (100 points)" in iv.basis and "not in the validation set: model family new-model" in iv.basis


def test_a_group_weighs_by_its_points() -> None:
    """Ampere has ten times vLLM's points: the range sits near Ampere's own (1.6-2.4), not midway."""
    iv = interval_for_groups({"engine": "vLLM", "hardware generation": "Ampere"}, SMALL)
    lo, hi = iv.factors["ttft_ms"]
    assert 1.5 < lo < 1.6 and hi == pytest.approx(2.4, abs=0.01)


def test_one_group_alone_gets_its_own_range() -> None:
    spans = [(50, SMALL["groups"]["engine"]["vLLM"]["quantiles"]["itl_ms"])]
    assert union_range(spans, LEVELS, 0.8) == pytest.approx(tuple(SMALL["groups"]["engine"]["vLLM"]["itl_ms"]))


def test_a_deployment_new_along_a_dimension_takes_in_how_far_its_other_groups_were_missed() -> None:
    """A model family outside the set: the families that were validated (each predicted with
    constants fitted without it) say how far a new family is missed, so their points join the union."""
    data = {
        **SMALL,
        "groups": {**SMALL["groups"], "model family": {"qwen": _uniform(200, ttft_ms=(0.25, 4.0), itl_ms=(0.5, 2.0), output_tokens_per_sec=(0.5, 1.5))}},
    }
    known = interval_for_groups({"engine": "vLLM", "hardware generation": "Hopper", "model family": "qwen"}, data)
    new = interval_for_groups({"engine": "vLLM", "hardware generation": "Hopper", "model family": "new-model"}, data)
    alone = interval_for_groups({"engine": "vLLM", "hardware generation": "Hopper", "model family": "new-model"}, SMALL)  # no family validated
    assert new.validated and new.warnings == []
    assert new.factors == known.factors  # the one validated family is all the family evidence there is
    for metric in SMALL["metrics"]:
        assert new.factors[metric][0] < alone.factors[metric][0] and alone.factors[metric][1] < new.factors[metric][1]
    assert "new along the model family: with every validated model family's held-out error (200 points)" in new.basis
    assert "new along" not in known.basis


def test_a_metric_no_validated_group_measured_gets_no_interval_rather_than_an_invented_one() -> None:
    groups = {"engine": {"vLLM": {**_uniform(100, ttft_ms=(0.5, 1.5)), "itl_ms": None, "output_tokens_per_sec": None}}}
    data = {**SMALL, "groups": groups, "fallback": {"ttft_ms": [0.5, 1.5], "itl_ms": None, "output_tokens_per_sec": None}}
    for deployment in ({"engine": "vLLM"}, {"engine": "SGLang"}):  # validated, and the fallback
        iv = interval_for_groups(deployment, data)
        assert set(iv.factors) == {"ttft_ms"} and iv.bounds("itl_ms", 5.0) is None


def test_a_group_with_too_few_held_out_points_does_not_vouch_for_a_deployment() -> None:
    iv = interval_for_groups({"engine": "vLLM", "hardware generation": "Ada"}, SMALL)  # Ada: 3 points
    assert not iv.validated and iv.factors["ttft_ms"] == (0.2, 5.0)
    assert len(iv.warnings) == 1 and "hardware generation 'Ada'" in iv.warnings[0]


def test_the_shipped_fallback_is_never_narrower_than_a_validated_group() -> None:
    data = table()
    for metric, (lo, hi) in data["fallback"].items():
        for by_group in data["groups"].values():
            for group in by_group.values():
                if group["points"] >= data["min_points"] and group[metric] is not None:
                    assert lo <= group[metric][0] and group[metric][1] <= hi


def test_the_shipped_table_is_what_the_script_builds_from_the_committed_held_out_errors() -> None:
    import json
    import sys
    from pathlib import Path

    bench = Path(__file__).resolve().parents[2] / "benchmarks"
    sys.path.insert(0, str(bench))
    from prediction_intervals import LOGO, build

    built = build(json.loads(LOGO.read_text(encoding="utf-8"))["groups"])
    shipped = table()
    assert {k: shipped[k] for k in built} == json.loads(json.dumps(built))


def test_a_scenario_outside_every_validated_group_gets_a_wide_interval_and_a_warning_line() -> None:
    """The embedded llama.cpp engine on a CPU: no engine or hardware group of the public set."""
    run = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1])
    prediction = run.prediction
    assert prediction.interval is not None and not prediction.interval.validated
    validated = predict("llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1]).prediction.interval
    assert validated is not None and validated.validated
    for metric, (lo, hi) in prediction.interval.factors.items():  # wide: at least the widest validated group's range
        assert (lo, hi) == tuple(table()["fallback"][metric])
        assert lo < validated.factors[metric][0] and validated.factors[metric][1] < hi
    lo, hi = prediction.interval.factors["ttft_ms"]
    assert hi / lo >= 4
    assert [w for w in run.warnings if w.startswith("prediction interval: no held-out validation")]
    point = prediction.points[0]
    assert point.intervals is not None and point.ttft_ms is not None
    low, high = point.intervals["ttft_ms"]
    assert low < point.ttft_ms < high


def test_a_model_far_outside_the_validated_sizes_is_said_in_the_intervals_one_warning_line() -> None:
    """A 1.3 M-parameter model on an H100 (validated engine and generation): the interval stays its
    groups' (the rule is unchanged), and one warning line says the held-out error measured no model like it;
    on a CPU the same reason joins the fallback's line, still one line."""
    from servescope.catalog.store import Catalog

    def interval_lines(run: object) -> list[str]:
        return [w for w in run.warnings if w.startswith("prediction interval:")]  # type: ignore[attr-defined]

    base = Catalog.load().scenario("llama-3.1-8b-on-h100")
    tiny = predict(base.model_copy(update={"name": "tiny-on-h100", "model": "servescope-tiny-llama"}), "sweep-parallel-1-8-i128-o64-v1", concurrency=[1])
    [line] = interval_lines(tiny)
    assert "servescope-tiny-llama has 1.31 M parameters, outside the 8.19 B to 235 B of the validated models" in line
    assert tiny.prediction.interval is not None and tiny.prediction.interval.validated and "outside the" in tiny.prediction.interval.basis
    [both] = interval_lines(predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1]))
    assert both.startswith("prediction interval: no held-out validation for the engine 'llama.cpp'") and "; also, servescope-tiny-llama has" in both
    assert interval_lines(predict("llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1])) == []


@pytest.mark.parametrize("hardware", ["gb10", "rtx-5090", "rtx-3090", "a10g"])
def test_a_part_without_hbm_does_not_borrow_its_generations_datacenter_interval(hardware: str) -> None:
    """A GDDR card or an LPDDR APU of a validated generation (Blackwell, Ampere): the held-out
    points are all HBM datacenter parts, so its interval is the wide fallback, with the warning."""
    from servescope.catalog.store import Catalog

    base = Catalog.load().scenario("llama-3.1-8b-on-h100")
    scen = base.model_copy(update={"name": f"llama-3.1-8b-on-{hardware}", "hardware": hardware, "tp": 1, "count": 1})
    args = {k: v for k, v in scen.engine.args.items() if k != "--tensor-parallel-size"} | {"--max-model-len": 8192}  # (one small card)
    scen = scen.model_copy(update={"engine": scen.engine.model_copy(update={"args": args})})
    run = predict(scen, "sweep-parallel-1-8-i128-o64-v1", concurrency=[1])
    iv = run.prediction.interval
    assert iv is not None and not iv.validated, iv.groups
    assert [w for w in run.warnings if w.startswith("prediction interval: no held-out validation")]


def test_a_validated_scenario_carries_its_groups_interval_in_every_document() -> None:
    run = predict("llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", concurrency=[1, 8])
    iv = run.prediction.interval
    assert iv is not None and iv.validated and iv.groups["engine"] == "vLLM" and iv.groups["hardware generation"] == "Hopper"
    assert (
        {m: tuple(f) for m, f in iv.factors.items()} == interval_for_groups(iv.groups).factors
        and "engine vLLM (" in iv.basis
        and "hardware generation Hopper (" in iv.basis
    )
    fallback = table()["fallback"]
    for metric, (lo, hi) in iv.factors.items():  # its groups' range: inside the fallback's, and narrower
        assert fallback[metric][0] <= lo < hi <= fallback[metric][1] and (lo, hi) != tuple(fallback[metric])
    for p in run.prediction.points:
        assert p.intervals is not None and p.output_tokens_per_sec is not None
        lo, _hi = p.intervals["output_tokens_per_sec"]
        assert math.isclose(lo, p.output_tokens_per_sec * iv.factors["output_tokens_per_sec"][0])
    assert run.result is not None and run.result.resolved_params["prediction_interval"]["validated"] is True
    text = format_table(run.prediction)
    assert "80 % interval (where measurements are expected;" in text and "out tok/s" in text.splitlines()[-1]


def test_every_predicted_figure_has_an_interval_e2e_and_input_rate_included() -> None:
    """E2E from TTFT's and TPOT's ends (E2E = TTFT + decode), input tok/s with output tok/s's
    factors (a load's input per output token is fixed): each figure a point predicts has one."""
    run = predict("llama-3.1-8b-on-h100", "serve-chat-c8-i1k-o256-v1")
    iv = run.prediction.interval
    assert iv is not None
    f_ttft, f_itl, f_out = iv.factors["ttft_ms"], iv.factors["itl_ms"], iv.factors["output_tokens_per_sec"]
    for p in run.prediction.points:
        assert p.intervals is not None
        for name in ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms", "output_tokens_per_sec", "input_tokens_per_sec"):
            value = getattr(p, name)
            assert value is not None and name in p.intervals and p.intervals[name][0] <= value <= p.intervals[name][1], name
        assert p.ttft_ms is not None and p.e2e_ms is not None and p.input_tokens_per_sec is not None
        decode = p.e2e_ms - p.ttft_ms
        assert p.intervals["e2e_ms"] == pytest.approx([p.ttft_ms * f_ttft[0] + decode * f_itl[0], p.ttft_ms * f_ttft[1] + decode * f_itl[1]])
        assert p.intervals["input_tokens_per_sec"] == pytest.approx([p.input_tokens_per_sec * f_out[0], p.input_tokens_per_sec * f_out[1]])


@pytest.mark.integration
def test_predict_prints_the_interval_and_warns_outside_the_validated_groups(tmp_path: Any) -> None:
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "servescope",
            "predict",
            "tiny-llama-on-cpu",
            "--isl",
            "128",
            "--osl",
            "16",
            "--concurrency",
            "1",
            "--num-requests",
            "20",
            "--out",
            str(tmp_path),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "80 % interval" in out.stdout
    assert any(line.startswith("warning: prediction interval: no held-out validation") for line in out.stderr.splitlines())


def test_an_unstated_client_start_makes_the_interval_span_steady_state_and_burst() -> None:
    from servescope.predict.semantics import CLIENT_START_UNSTATED, envelope
    from servescope.predict.workload_input import SyntheticWorkload

    def run(harness: str) -> Any:
        return predict("llama-3.1-8b-on-h100", SyntheticWorkload(concurrency=(32,), isl=2048, osl=128, num_requests=96, harness=harness)).prediction

    steady, burst = run("steady"), run("burst")
    merged = envelope(steady, burst)
    assert merged.interval is not None and merged.interval.client_start == CLIENT_START_UNSTATED
    p, s, b = merged.points[0], steady.points[0], burst.points[0]
    assert p.ttft_ms == s.ttft_ms  # the figures stay steady state's
    assert p.intervals is not None and s.intervals is not None and b.intervals is not None
    for name in ("ttft_ms", "itl_ms", "output_tokens_per_sec"):
        assert p.intervals[name][0] == min(s.intervals[name][0], b.intervals[name][0])
        assert p.intervals[name][1] == max(s.intervals[name][1], b.intervals[name][1])
    assert b.ttft_ms is not None and s.ttft_ms is not None and b.ttft_ms > s.ttft_ms  # waves: every prompt at once
    assert p.intervals["ttft_ms"][1] >= b.ttft_ms  # so the burst reading is inside the range
    # and the burst reading's own figures are kept beside the steady state's: the ends, not only their span
    assert p.burst is not None and p.burst["ttft_ms"] == b.ttft_ms and p.burst["output_tokens_per_sec"] == b.output_tokens_per_sec
    assert s.burst is None


@pytest.mark.integration
def test_predict_without_harness_says_the_client_start_is_unstated(tmp_path: Any) -> None:
    args = [sys.executable, "-m", "servescope", "predict", "llama-3.1-8b-on-h100", "--isl", "512", "--osl", "32", "--concurrency", "8", "--out", str(tmp_path)]
    unstated = subprocess.run(args, capture_output=True, text=True, timeout=120)
    assert unstated.returncode == 0, unstated.stderr
    assert "client start not stated" in unstated.stdout
    stated = subprocess.run([*args, "--harness", "steady"], capture_output=True, text=True, timeout=120)
    assert stated.returncode == 0 and "client start not stated" not in stated.stdout


@pytest.mark.integration
def test_an_open_loop_gets_no_client_start_span_and_harness_burst_is_the_burst_reading_of_the_same_load(tmp_path: Any) -> None:
    """--rate with a --concurrency cap is an open loop: no first wave, no span, no burst reading.
    --harness burst predicts the load run sends (its adhoc label, --isl as the engine counts it):
    the very figures of the burst reading an unstated prediction carries."""
    base = [sys.executable, "-m", "servescope", "predict", "tiny-llama-on-cpu", "--isl", "64", "--osl", "16"]

    def predict_cli(*args: str) -> dict[str, Any]:
        out = tmp_path / str(len(list(tmp_path.iterdir())))
        done = subprocess.run([*base, *args, "--out", str(out)], capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        [path] = out.rglob("prediction.json")
        return {"stdout": done.stdout, **json.loads(path.read_text())}

    capped = predict_cli("--rate", "5", "--concurrency", "8")
    assert "client start not stated" not in capped["stdout"] and "burst reading" not in capped["stdout"]
    assert capped["points"][0].get("burst") is None and capped["interval"].get("client_start") is None
    unstated = predict_cli("--concurrency", "2")
    burst = predict_cli("--concurrency", "2", "--harness", "burst")
    assert "client start not stated" in unstated["stdout"] and "servescope's own `run` of this load" in unstated["stdout"]
    assert burst["workload"] == unstated["workload"] and burst["workload"].startswith("adhoc-")
    assert burst["points"][0]["mean_isl"] == unstated["points"][0]["mean_isl"] == 64
    assert burst["points"][0]["ttft_ms"] == unstated["points"][0]["burst"]["ttft_ms"]
    assert burst["points"][0]["output_tokens_per_sec"] == unstated["points"][0]["burst"]["output_tokens_per_sec"]


def test_an_uncalibrated_cpu_deployment_is_widened_to_the_embedded_engines_misses_and_a_calibrated_one_is_not() -> None:
    from servescope.predict.api import predict, resolve_deployment
    from servescope.predict.regimes import LoadShape, regimes_for

    run = predict("tiny-llama-on-cpu", "sweep-parallel-1-8-i128-o64-v1")
    iv = run.prediction.interval
    assert iv is not None and iv.known_misses == ["cpu-uncalibrated"]
    assert any(w.startswith("known miss (cpu-uncalibrated)") for w in run.warnings)
    for p in run.prediction.points:
        assert p.intervals is not None and p.ttft_ms is not None and p.output_tokens_per_sec is not None
        assert p.intervals["ttft_ms"][1] >= 4.8 * p.ttft_ms * 0.999 and p.intervals["output_tokens_per_sec"][0] <= 0.22 * p.output_tokens_per_sec * 1.001
    dep = resolve_deployment("tiny-llama-on-cpu")
    shape = LoadShape(128.0, 64.0, False, True)
    assert [r.key for r in regimes_for(dep, shape, 1)] == ["cpu-uncalibrated"]
    import dataclasses

    calibrated = dataclasses.replace(dep, calibration_name="cal.json")
    assert regimes_for(calibrated, shape, 1) == []
    assert regimes_for(resolve_deployment("llama-3.1-8b-on-h100"), shape, 1) == []  # a GPU: not this regime


def _scenario(**changes: Any) -> Any:
    from servescope.catalog.store import Catalog

    base = Catalog.load().scenario("llama-3.1-8b-on-h100")
    engine = changes.pop("engine", None)
    scen = base.model_copy(update=changes)
    if engine is not None:
        scen = scen.model_copy(update={"engine": base.engine.model_copy(update={"id": engine, "args": {}})})
    return scen


def test_points_in_a_regime_known_to_miss_get_a_wider_interval_and_a_warning() -> None:
    """vLLM, a small FP8 model, 2k-token prompts and 128 out, closed loop: the long-prompt /
    short-output regime widens ITL and throughput on every point, and the 16-64-stream TTFT
    regime widens TTFT at 32 streams but not at 1."""
    from servescope.predict.workload_input import SyntheticWorkload

    run = predict(_scenario(weight_dtype="fp8"), SyntheticWorkload(concurrency=(1, 32), isl=2048, osl=128))
    iv = run.prediction.interval
    assert iv is not None and iv.known_misses == ["closed-loop-long-prompt-ttft", "vllm-long-prompt-short-output"]
    by_c = {p.concurrency: p for p in run.prediction.points}
    one, many = by_c[1], by_c[32]
    assert one.intervals is not None and many.intervals is not None and one.ttft_ms and many.ttft_ms and many.itl_ms
    assert many.intervals["ttft_ms"][1] >= 5 * many.ttft_ms * 0.999
    assert one.intervals["ttft_ms"][1] == pytest.approx(one.ttft_ms * iv.factors["ttft_ms"][1])  # not widened at 1 stream
    assert many.intervals["itl_ms"][0] <= many.itl_ms / 3 * 1.001
    keys = [w for w in run.warnings if w.startswith("known miss (")]
    assert len(keys) == 2 and any("chunked-prefill" in w for w in keys)


def test_a_prediction_outside_the_known_misses_is_not_widened() -> None:
    run = predict("llama-3.1-8b-on-h100", "sweep-parallel-1-8-i128-o64-v1", concurrency=[8])
    iv = run.prediction.interval
    assert iv is not None and iv.known_misses is None
    assert not [w for w in run.warnings if w.startswith("known miss (")]


@pytest.mark.parametrize(
    ("changes", "shape", "key"),
    [
        ({"model": "llama-3.1-405b", "hardware": "mi300x", "count": 8, "tp": 8, "dp": 1, "engine": "vllm"}, (512, 512, False, True), "mi300x-vllm-large-dense"),
        ({"model": "qwen3-235b-a22b", "hardware": "h200", "count": 8, "tp": 8, "dp": 1, "weight_dtype": "fp8", "engine": "trt-llm"}, (1024, 1024, True, False),
         "trtllm-offline-large-moe"),
    ],
)  # fmt: skip
def test_the_large_model_regimes_are_recognised(changes: dict[str, Any], shape: tuple[float, float, bool, bool], key: str) -> None:
    from servescope.predict.api import resolve_deployment
    from servescope.predict.regimes import LoadShape, regimes_for

    dep = resolve_deployment(_scenario(**changes))
    assert [r.key for r in regimes_for(dep, LoadShape(*shape), 64)] == [key]
    if key == "trtllm-offline-large-moe":  # offline throughput only: the same deployment in a closed loop is not in it
        assert regimes_for(dep, LoadShape(512, 512, False, True), 64) == []
