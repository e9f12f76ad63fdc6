"""SGLang diffusion (``sglang serve --model-path ...``): ``POST /v1/images/generations``
and ``/v1/images/edits`` (multipart) with ``prompt``, ``size``, ``n`` and
``response_format: b64_json`` (its docs/diffusion/openai_api.md). The steps, seed and
guidance fields are sent as its sampling parameters are named (``num_inference_steps``,
``seed``, ``guidance_scale``: its CLI's ``--num-inference-steps``, ``--seed``); the HTTP
page does not list them, so this adapter is UNVERIFIED for those three against a
running server. No time of its own is documented: the wall clock applies unless an
answer carries ``timing.total_ms``."""

from __future__ import annotations

from servescope.bench.images.lane import Lane


class SglangLane(Lane):
    name = "sglang"
