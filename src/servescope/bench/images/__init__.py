"""Image lanes: the OpenAI images API and the servers that differ from it, one
adapter module each (``lane`` says what an adapter is). The lane follows the
engine id (``--engine-id``, or what the endpoint said it is); any other engine is
the default ``openai`` lane."""

from __future__ import annotations

from servescope.bench.images.lane import ImageAsk, Lane, LaneAnswer
from servescope.bench.images.localai import LocalAILane
from servescope.bench.images.openai import OpenAILane
from servescope.bench.images.sdcpp import SdCppLane
from servescope.bench.images.sglang import SglangLane
from servescope.bench.images.vllm_omni import VllmOmniLane
from servescope.errors import UsageError

LANES: dict[str, type[Lane]] = {
    "openai": OpenAILane,
    "vllm-omni": VllmOmniLane,
    "vllm": VllmOmniLane,  # a vLLM that serves images is vLLM-Omni
    "sglang": SglangLane,
    "localai": LocalAILane,
    "sd.cpp": SdCppLane,
    "stable-diffusion.cpp": SdCppLane,
}


def require(module: str, what: str) -> None:
    """One line naming the extra when an optional package an image run needs is missing."""
    import importlib

    try:
        importlib.import_module(module)
    except ImportError:
        raise UsageError(f"{what} needs {module}, which is not installed: pip install 'servescope[image]'") from None


def lane_for(engine_id: str | None) -> Lane:
    return LANES.get((engine_id or "").strip().lower(), OpenAILane)()


__all__ = ["LANES", "ImageAsk", "Lane", "LaneAnswer", "lane_for", "require"]
