"""vLLM-Omni (``vllm serve MODEL --omni``): ``POST /v1/images/generations`` with the
OpenAI fields plus ``num_inference_steps``, ``guidance_scale`` and ``seed`` (its
Image Generation API page, "vllm-omni Extension Parameters"). Its documented answer
is ``{"created", "data": [{"b64_json", ...}]}`` with no time of its own: the wall
clock applies unless an answer carries ``timing.total_ms``. Checked against its
documentation only, not against a running server."""

from __future__ import annotations

from servescope.bench.images.lane import Lane


class VllmOmniLane(Lane):
    name = "vllm-omni"
