"""What an image lane (a server of the OpenAI images API) is asked and answers, as
plain values: the request fields of one render and the reading of its answer.

A lane adapter (one module each: ``openai``, ``vllm_omni``, ``sglang``, ``localai``,
``sdcpp``) says how its server takes size, steps, seed and guidance and where it
reports its own inference time. The workload's shape (``ImageAsk``) is the contract:
an adapter that cannot carry a field refuses the run in one line rather than
dropping it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ImageAsk:
    """One render request: what the workload (or the scored suite's row) pins."""

    prompt: str
    width: int
    height: int
    steps: int
    seed: int
    n: int
    guidance: float | None  # None: the lane's own default
    model: str | None = None
    background: str | None = None  # "transparent": ask for an alpha channel (OpenAI gpt-image's field)


@dataclass
class LaneAnswer:
    """What a lane's JSON answer said: the renders (base64), its own inference time
    and the guidance it applied, when it reports them."""

    images_b64: list[str] = field(default_factory=list)
    total_ms: float | None = None
    guidance: float | None = None
    problem: str | None = None  # why the answer is not usable (no image in it)


# Request fields the workload pins, whatever the lane calls them: --extra-body may not set them.
PINNED_FIELDS = frozenset(
    {"prompt", "n", "size", "response_format", "model", "num_inference_steps", "seed", "guidance_scale", "step", "cfg_scale", "background", "output_format"}
)


class Lane:
    """The OpenAI images API as vLLM-Omni extends it (the default)."""

    name = "openai"
    # Request fields of the JSON body (and of the edit form) for steps, seed, guidance.
    steps_field: str | None = "num_inference_steps"
    seed_field: str | None = "seed"
    guidance_field: str | None = "guidance_scale"

    def fields(self, ask: ImageAsk) -> dict[str, Any]:
        body: dict[str, Any] = {"prompt": ask.prompt, "n": ask.n, "size": f"{ask.width}x{ask.height}", "response_format": "b64_json"}
        if ask.model:
            body["model"] = ask.model
        if self.steps_field:
            body[self.steps_field] = ask.steps
        if self.seed_field:
            body[self.seed_field] = ask.seed
        if ask.guidance is not None and self.guidance_field:
            body[self.guidance_field] = ask.guidance
        if ask.background is not None:
            body["background"] = ask.background
        return body

    def refusal(self, ask: ImageAsk) -> str | None:
        """Why this lane cannot carry the ask (a field it has no place for), or None."""
        return None

    def read(self, payload: Any) -> LaneAnswer:
        answer = LaneAnswer()
        if not isinstance(payload, dict):
            answer.problem = f"the answer is JSON {type(payload).__name__}, not an object with data[]"
            return answer
        data = payload.get("data")
        if not isinstance(data, list) or not data:
            answer.problem = "the answer has no data[] of images"
            return answer
        for item in data:
            b64 = item.get("b64_json") if isinstance(item, dict) else None
            if not isinstance(b64, str) or not b64:
                answer.problem = "an entry of data[] has no b64_json (was response_format b64_json honoured?)"
                return answer
            answer.images_b64.append(b64)
        answer.total_ms = self.reported_ms(payload)
        answer.guidance = self.reported_guidance(payload)
        return answer

    def reported_ms(self, payload: dict[str, Any]) -> float | None:
        """The lane's own inference time for the whole request (``timing.total_ms``)."""
        timing = payload.get("timing")
        value = timing.get("total_ms") if isinstance(timing, dict) else None
        return _finite_positive(value)

    def reported_guidance(self, payload: dict[str, Any]) -> float | None:
        params = payload.get("params")
        value = params.get("guidance_scale") if isinstance(params, dict) else None
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            return None
        return float(value)


def _finite_positive(value: Any) -> float | None:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        return None
    return float(value)
