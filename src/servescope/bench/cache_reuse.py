"""Whether a run's prompts were served from the engine's prefix cache when its load shares no
prefix by design: then an earlier request or run sent the same text (repeats of one ``--seed``
send word-for-word the same synthetic prompts), and the TTFT measured is warm, not the load's.

Only where the engine says (``usage.prompt_tokens_details.cached_tokens``, each record's
``cached_tokens``); a synthetic load with no system prompt and no sessions is the load whose
prompts share nothing but the chat template's few tokens.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from servescope.documents.record import RequestRecord

#: Share of a no-sharing load's prompt tokens the cache may serve before the run is called warm
#: (a chat template and a block's rounding are a few tokens of hundreds).
WARM_SHARE = 0.5


def warm_cache_warning(load: Any, records: Iterable[RequestRecord]) -> str | None:
    """One warning line when a synthetic load without shared prefixes got most of its prompt
    tokens from the engine's cache; None otherwise (or when the engine reports no cache counts)."""
    if load is None or getattr(load, "source", None) != "synthetic" or getattr(load, "sessions", None) or getattr(load, "system_prompt_tokens", None):
        return None
    cached = prompt = 0
    for r in records:
        if r.phase == "measured" and r.ok and r.cached_tokens is not None and r.input_tokens:
            cached += r.cached_tokens
            prompt += r.input_tokens
    if not prompt or cached / prompt < WARM_SHARE:
        return None
    return (
        f"the engine served {cached:,} of {prompt:,} prompt tokens ({cached / prompt:.1%}) from its prefix cache, though this load's prompts share "
        "no prefix: an earlier run (or warm-up) sent the same text (the same --seed sends the same prompts), so the TTFT measured "
        "is warm; for a cold measurement give another --seed or restart the server"
    )


__all__ = ["WARM_SHARE", "warm_cache_warning"]
