"""A load whose prompts share prefixes, predicted on an engine whose prefix cache is not simulated.

llama.cpp keeps each slot's last prompt and serves a new prompt's common prefix from it, and the
simulator does not model that cache (a Scenario's ``engine.enable_prefix_caching: true`` stands in
for one). A trace whose ``hash_ids`` repeat a block, or prompts that begin alike, then hit the
engine's cache in a measurement and are computed whole in the prediction: TTFT reads high. The
prediction says so in one warning, and ``compare`` reads that warning (its marker phrase,
``analysis.compare.PREFIX_CACHE_NOT_SIMULATED``) to say it again and to hold back its calibrate
hint, which would fold the cache into the step-time factors."""

from __future__ import annotations

from collections.abc import Iterable

from servescope.analysis.compare import PREFIX_CACHE_NOT_SIMULATED
from servescope.documents.config_id import normalize_engine
from servescope.predict.deployment import Deployment
from servescope.predict.engine_flags import LLAMA_CPP_ENGINES
from servescope.workload.plan import PlannedRequest

SHARED_TEXT_CHARS = 256
"""Prompts alike over their first this many characters (about 64 tokens), or whole, count as
sharing a prefix; a shorter common start is too little of a prompt to move its TTFT."""


def _prefix_key(req: PlannedRequest) -> object | None:
    if req.prefix_blocks:
        return ("block", req.prefix_blocks[0])  # a trace: the leading block is the cache's first hit
    text = req.prompt or "".join(m.get("content", "") for m in req.messages or ())
    return ("text", text[:SHARED_TEXT_CHARS]) if text else None


def shared_prefix_requests(requests: Iterable[PlannedRequest]) -> tuple[int, int]:
    """(requests that begin as an earlier one did, all requests), in the order they are sent."""
    seen: set[object] = set()
    shared = total = 0
    for req in requests:
        total += 1
        key = _prefix_key(req)
        if key is None:
            continue
        shared += key in seen
        seen.add(key)
    return shared, total


def unsimulated_cache_warning(requests: Iterable[PlannedRequest], dep: Deployment) -> str | None:
    """The warning for a load sharing prefixes on an engine that caches them where the simulation
    does not (module docstring); None when the simulation caches, or when the scenario turned the
    cache off (the engine does not cache either)."""
    engine = dep.scenario.engine
    if dep.engine.enable_prefix_caching or engine.enable_prefix_caching is not None or normalize_engine(engine.id) not in LLAMA_CPP_ENGINES:
        return None
    shared, total = shared_prefix_requests(requests)
    if not shared:
        return None
    return (
        f"the load shares prompt prefixes ({shared} of {total} requests begin as an earlier one: a trace's hash_ids or "
        f"alike prompts), but {engine.id}'s {PREFIX_CACHE_NOT_SIMULATED} (scenario {dep.scenario.name}): every prompt is "
        "computed whole, so TTFT and E2E read high against a run whose engine serves those prefixes from its cache; "
        "a Scenario with engine.enable_prefix_caching: true simulates one"
    )
