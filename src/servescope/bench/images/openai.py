"""The default lane: the OpenAI images API (``prompt``, ``n``, ``size``,
``response_format: b64_json``) with vLLM-Omni's extension fields for what OpenAI
has no field for (``num_inference_steps``, ``seed``, ``guidance_scale``), and the
lane's own time read from ``timing.total_ms`` when the answer has it. This is what
servescope's tiny image server (``servescope.testing.image``) takes; OpenAI's hosted
API itself rejects the extension fields, and a workload pins steps and seed, so it
cannot run there."""

from __future__ import annotations

from servescope.bench.images.lane import Lane


class OpenAILane(Lane):
    name = "openai"
