"""The groups a deployment falls in, along the dimensions the predictor's error is held out by.

``benchmarks/predict_logo.py`` scores each group of the public validation set with the
constants a fit without that group gives (leave-one-group-out); :mod:`.intervals` reads
those held-out errors back for a new scenario by the same labels. One labelling, so the
interval a user is shown and the error it was built from name the same groups.
"""

from __future__ import annotations

import re

from servescope.catalog.store import Catalog
from servescope.documents import Model, Scenario
from servescope.predict.deployment import Deployment, routed_expert_dtype

#: Hardware generation of each catalog device (by id prefix, longest first).
GENERATIONS = {
    "h100": "Hopper",
    "h200": "Hopper",
    "h20": "Hopper",
    "h800": "Hopper",
    "gh200": "Hopper",
    "b200": "Blackwell",
    "b300": "Blackwell",
    "gb200": "Blackwell",
    # a part whose memory system is not HBM is its own group: the held-out errors of datacenter HBM
    # parts say nothing of a GDDR card or an LPDDR APU (no public point of the set is on one)
    "gb10": "Blackwell, LPDDR (GB10)",
    "rtx-pro-6000": "Blackwell, GDDR",
    "rtx-5090": "Blackwell, GDDR",
    "l40s": "Ada",
    "l40": "Ada",
    "l4": "Ada",
    "l20": "Ada",
    "rtx-4090": "Ada",
    "a100": "Ampere",
    "a10g": "Ampere, GDDR",
    "a10": "Ampere, GDDR",
    "rtx-3090": "Ampere, GDDR",
    "mi300x": "CDNA3",
    "mi325x": "CDNA3",
    "mi355x": "CDNA4",
}
ENGINE_NAMES = {
    "vllm": "vLLM",
    "sglang": "SGLang",
    "trt-llm": "TensorRT-LLM",
    "tensorrt-llm": "TensorRT-LLM",
    "trtllm": "TensorRT-LLM",
    "nim": "NIM (TensorRT-LLM)",
}
#: The dimensions a scenario is labelled by (the publisher, the fifth of predict_logo.py, is a
#: property of a measurement, not of a deployment a user describes).
SCENARIO_DIMENSIONS = ("engine", "hardware generation", "weight dtype", "model family")


def generation(hardware_id: str) -> str:
    for prefix in sorted(GENERATIONS, key=len, reverse=True):
        if hardware_id.startswith(prefix):
            return GENERATIONS[prefix]
    return hardware_id


def family(model_id: str) -> str:
    """Same architecture, same family: Llama 3.1 and 3.3 70B are one (3.3 is a re-train of 3.1's shapes)."""
    return re.sub(r"^llama-3\.[0-9]+-", "llama-3.x-", model_id)


def weight_dtype(scen: Scenario, model: Model) -> str:
    """The dtype most of the deployment's weight bytes are in (see :func:`weight_dtype_label`)."""
    expert = routed_expert_dtype(scen, model)
    if expert is not None:
        return expert
    return str(scen.weight_dtype if scen.weight_dtype != "auto" else (model.torch_dtype or "auto"))


def weight_dtype_label(scen: Scenario, cat: Catalog) -> str:
    """The dtype most of the deployment's weight bytes are in: the scenario's weight dtype, except that
    routed experts quantised in the checkpoint (gpt-oss: mxfp4 experts, 97 % of its parameters, beside
    bf16 attention) label the deployment by the experts' dtype, as the deployment runs them."""
    return weight_dtype(scen, cat.model(scen.model))


def deployment_groups(dep: Deployment) -> dict[str, str]:
    """The deployment's group along each of :data:`SCENARIO_DIMENSIONS`."""
    scen = dep.scenario
    return {
        "engine": ENGINE_NAMES.get(scen.engine.id.lower(), scen.engine.id),
        "hardware generation": generation(dep.hardware.id),
        "weight dtype": weight_dtype(scen, dep.model),
        "model family": family(dep.model.id),
    }


__all__ = ["ENGINE_NAMES", "GENERATIONS", "SCENARIO_DIMENSIONS", "deployment_groups", "family", "generation", "weight_dtype", "weight_dtype_label"]
