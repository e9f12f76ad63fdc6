"""LocalAI: ``POST /v1/images/generations`` with ``prompt`` and ``size``; its image
generation page names the additional parameters ``mode`` and ``step`` (steps: ``step``,
not ``num_inference_steps``). It documents no seed or guidance field: the seed is sent
as ``seed`` and guidance as ``cfg_scale`` (the name its diffusers backend's model
config uses) — UNVERIFIED against a running server. No time of its own: the wall
clock applies."""

from __future__ import annotations

from servescope.bench.images.lane import Lane


class LocalAILane(Lane):
    name = "localai"
    steps_field = "step"
    guidance_field = "cfg_scale"
