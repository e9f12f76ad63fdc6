"""The image lane adapters as plain values: what each sends for a render, and how an
answer is read (pure; the client against a real server is in tests/integration)."""

from __future__ import annotations

import json

import pytest

from servescope.bench.images import LANES, ImageAsk, lane_for
from servescope.bench.runners.image import guidance_args

ASK = ImageAsk("a fox", 64, 48, 4, 7, 2, None, model="m")


def test_the_default_lane_sends_openai_fields_and_the_extension_fields() -> None:
    body = lane_for(None).fields(ASK)
    assert body == {"prompt": "a fox", "n": 2, "size": "64x48", "response_format": "b64_json", "model": "m", "num_inference_steps": 4, "seed": 7}
    assert lane_for("openai").fields(ImageAsk("x", 8, 8, 1, 0, 1, 2.5))["guidance_scale"] == 2.5
    assert lane_for("vllm").name == lane_for("vllm-omni").name == "vllm-omni"
    assert lane_for("something-else").name == "openai"


def test_localai_takes_step_and_cfg_scale() -> None:
    body = lane_for("localai").fields(ImageAsk("x", 8, 8, 3, 1, 1, 4.0))
    assert body["step"] == 3 and body["cfg_scale"] == 4.0 and "num_inference_steps" not in body


def test_sdcpp_carries_its_sampling_controls_inside_the_prompt() -> None:
    body = lane_for("sd.cpp").fields(ImageAsk("a fox", 8, 8, 3, 9, 1, 5.0))
    prompt, _, rest = body["prompt"].partition(" <sd_cpp_extra_args>")
    assert prompt == "a fox" and rest.endswith("</sd_cpp_extra_args>")
    extra = json.loads(rest.removesuffix("</sd_cpp_extra_args>"))
    assert extra == {"seed": 9, "sample_params": {"sample_steps": 3, "guidance": {"txt_cfg": 5.0}}}
    assert "seed" not in body and "num_inference_steps" not in body


@pytest.mark.parametrize(
    ("payload", "problem"),
    [
        ([1, 2], "not an object"),
        ({"created": 1}, "no data[]"),
        ({"data": []}, "no data[]"),
        ({"data": [{"url": "http://x/1.png"}]}, "no b64_json"),
    ],
)
def test_an_answer_without_renders_says_why(payload: object, problem: str) -> None:
    assert problem in (lane_for(None).read(payload).problem or "")


def test_the_lanes_own_time_and_guidance_are_read_only_when_they_are_numbers() -> None:
    ok = lane_for(None).read({"data": [{"b64_json": "AA=="}], "timing": {"total_ms": 12.5}, "params": {"guidance_scale": 3}})
    assert ok.problem is None and ok.total_ms == 12.5 and ok.guidance == 3.0
    for timing in ({"total_ms": "12"}, {"total_ms": -1}, {"total_ms": float("nan")}, {"total_ms": True}, "12", None):
        assert lane_for(None).read({"data": [{"b64_json": "AA=="}], "timing": timing}).total_ms is None


def test_guidance_args_record_what_applied() -> None:
    lane = lane_for(None)
    assert guidance_args(2.0, {None}, lane)["guidance_source"] == "workload"
    assert guidance_args(None, {3.0}, lane) == {"image_lane": "openai", "guidance": 3.0, "guidance_source": "lane-reported"}
    assert guidance_args(None, {None}, lane)["guidance"] == "lane-default"
    assert guidance_args(None, {1.0, 2.0}, lane)["guidance_source"] == "not-reported"  # two values: no one default to claim


def test_every_adapter_is_a_lane() -> None:
    assert {cls().name for cls in LANES.values()} == {"openai", "vllm-omni", "sglang", "localai", "sd.cpp"}
