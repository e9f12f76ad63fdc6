"""Every hard limit servescope enforces on input it did not write, in one place.

A limit exists so that a hostile or broken input (a YAML alias bomb, a server that
streams one endless line, ``--concurrency 1e9``) ends in one clear line or one
failure record, in bounded time and memory, instead of exhausting the machine.
Each limit can be changed with the environment variable named beside it (an integer;
read once, when servescope starts); README.md's "Limits" section lists them.

This module imports nothing of servescope's but ``errors``, so every layer may read it.
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from servescope.errors import LimitSettingError


@dataclass(frozen=True)
class Limit:
    name: str  # the module attribute
    env: str  # the environment variable that overrides it
    default: int
    what: str  # one line for README and messages


_REGISTRY: list[Limit] = []


def _limit(name: str, default: int, what: str) -> int:
    env = f"SERVESCOPE_{name}"
    _REGISTRY.append(Limit(name, env, default, what))
    raw = os.environ.get(env)
    if raw is None or not raw.strip():
        return default
    try:
        value = int(raw.strip().replace("_", ""))
    except ValueError:
        value = 0
    if value < 1:
        raise LimitSettingError(f"{env}={raw!r}: give a positive integer (default {default})")
    return value


# --- documents (documents/loader.py) --------------------------------------------------------
MAX_DOCUMENT_BYTES = _limit("MAX_DOCUMENT_BYTES", 20 * 1024 * 1024, "size of one document file, checked before parsing")
MAX_DOCUMENT_NODES = _limit("MAX_DOCUMENT_NODES", 1_000_000, "values in one document after YAML aliases are expanded (alias bombs stop here)")
MAX_DOCUMENT_DEPTH = _limit("MAX_DOCUMENT_DEPTH", 64, "nesting depth of lists and mappings in one document")
MAX_LIST_ITEMS = _limit("MAX_LIST_ITEMS", 200_000, "items in one list (or keys in one mapping) of a document")
MAX_ISSUES_PER_FILE = _limit("MAX_ISSUES_PER_FILE", 50, "errors listed per file; the rest are counted as 'N more errors'")

# --- integers in documents (documents/base.py) ----------------------------------------------
MAX_CONCURRENCY = _limit("MAX_CONCURRENCY", 1_000_000, "concurrency of a workload point, result point or prediction")
MAX_REQUESTS = _limit("MAX_REQUESTS", 100_000_000, "requests in one workload or point")
MAX_TOKENS = _limit("MAX_TOKENS", 100_000_000, "tokens of one request (input or output) in a workload")

# --- streams from a server (bench/client.py, bench/sse.py) ----------------------------------
MAX_SSE_LINE_BYTES = _limit("MAX_SSE_LINE_BYTES", 4 * 1024 * 1024, "one line of a server-sent-events stream")
MAX_SSE_EVENT_BYTES = _limit("MAX_SSE_EVENT_BYTES", 4 * 1024 * 1024, "the data of one server-sent event")
MAX_RESPONSE_BYTES = _limit("MAX_RESPONSE_BYTES", 64 * 1024 * 1024, "bytes read from one streaming response")
MAX_ERROR_BODY_BYTES = _limit("MAX_ERROR_BODY_BYTES", 64 * 1024, "bytes read from an HTTP error answer")

# --- what predict and search may be asked to simulate (cli_predict.py) ----------------------
MAX_SIMULATED_REQUESTS = _limit("MAX_SIMULATED_REQUESTS", 5_000_000, "requests one prediction simulates (all points together)")
MAX_SIMULATED_CONCURRENCY = _limit("MAX_SIMULATED_CONCURRENCY", 100_000, "concurrency of one simulated point")
MAX_SEARCH_CANDIDATES = _limit("MAX_SEARCH_CANDIDATES", 100_000, "deployments one search may try")
MAX_GPUS = _limit("MAX_GPUS", 4096, "devices one search may spend (search --gpus)")

# --- what one run may hold (bench/run_checks.py) ---------------------------------------------
MAX_RUN_MEMORY_BYTES = _limit(
    "MAX_RUN_MEMORY_BYTES", 4 * 1024**3, "memory an ad-hoc run's planned prompts and kept records may take, estimated before it starts"
)


def registry() -> list[Limit]:
    """Every limit, in the order above (README's table is made from it)."""
    return list(_REGISTRY)


__all__ = [
    "MAX_CONCURRENCY",
    "MAX_DOCUMENT_BYTES",
    "MAX_DOCUMENT_DEPTH",
    "MAX_DOCUMENT_NODES",
    "MAX_ERROR_BODY_BYTES",
    "MAX_GPUS",
    "MAX_ISSUES_PER_FILE",
    "MAX_LIST_ITEMS",
    "MAX_REQUESTS",
    "MAX_RESPONSE_BYTES",
    "MAX_RUN_MEMORY_BYTES",
    "MAX_SEARCH_CANDIDATES",
    "MAX_SIMULATED_CONCURRENCY",
    "MAX_SIMULATED_REQUESTS",
    "MAX_SSE_EVENT_BYTES",
    "MAX_SSE_LINE_BYTES",
    "MAX_TOKENS",
    "Limit",
    "LimitSettingError",
    "registry",
]
