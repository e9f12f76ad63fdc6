"""stable-diffusion.cpp's server (``sd-server``): OpenAI's ``/v1/images/generations``
takes ``prompt``, ``n``, ``size`` and ``output_format``; its own sampling controls
travel inside the prompt as ``<sd_cpp_extra_args>{json}</sd_cpp_extra_args>``, which
the server cuts out before encoding the prompt (``extract_and_remove_sd_cpp_extra_args``
in its server source): ``seed`` and ``sample_params: {sample_steps, guidance:
{txt_cfg}}``. Checked against its source and clients that use it, not a running server.
It reports no time of its own: the wall clock applies."""

from __future__ import annotations

import json
from typing import Any

from servescope.bench.images.lane import ImageAsk, Lane


class SdCppLane(Lane):
    name = "sd.cpp"
    steps_field = None
    seed_field = None
    guidance_field = None

    def fields(self, ask: ImageAsk) -> dict[str, Any]:
        body = super().fields(ask)
        sample: dict[str, Any] = {"sample_steps": ask.steps}
        if ask.guidance is not None:
            sample["guidance"] = {"txt_cfg": ask.guidance}
        extra = json.dumps({"seed": ask.seed, "sample_params": sample}, separators=(",", ":"))
        body["prompt"] = f"{ask.prompt} <sd_cpp_extra_args>{extra}</sd_cpp_extra_args>"
        body["output_format"] = "png"
        return body
