"""Prompt lengths and prefix-cache block hashes for simulated requests.

A prefix cache (vLLM's automatic prefix caching) keys each *full* KV block by a
hash chained over the token ids of every block up to it, so two prompts share
cached blocks exactly as far as their token prefixes agree, block-aligned.

With a real tokenizer (``Model.tokenizer``, read with the optional
``tokenizers`` package) the simulator hashes real token ids. Without one it
uses a deterministic pseudo-tokenisation: a prompt of ``n`` nominal tokens is
cut into blocks of ``block_size * chars_per_token`` characters, with one
``chars_per_token`` for the whole workload (so equal text prefixes give equal
blocks). Lengths come from the workload's nominal counts in that case.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from importlib import resources
from pathlib import Path

import numpy as np

Encoder = Callable[[str], list[int]]

_SEED = b"servescope-prefix-v1"


def _chain(blocks: Sequence[bytes]) -> tuple[int, ...]:
    out: list[int] = []
    prev = _SEED
    for data in blocks:
        digest = hashlib.blake2b(prev + data, digest_size=8).digest()
        out.append(int.from_bytes(digest, "little"))
        prev = digest
    return tuple(out)


def hashes_from_ids(ids: Sequence[int], block_size: int) -> tuple[int, ...]:
    """Chained hashes of the full blocks of ``ids``."""
    full = len(ids) // block_size
    data = np.asarray(ids[: full * block_size], dtype="<u4").tobytes()
    width = 4 * block_size
    return _chain([data[i * width : (i + 1) * width] for i in range(full)])


def hashes_from_text(text: str, n_tokens: int, block_size: int, chars_per_token: float) -> tuple[int, ...]:
    """Chained hashes of the full blocks of a prompt of ``n_tokens`` tokens, cut
    from its text at ``block_size * chars_per_token`` characters per block."""
    full = n_tokens // block_size
    step = block_size * chars_per_token
    data = text.encode("utf-8")
    blocks = [data[round(i * step) : round((i + 1) * step)] for i in range(full)]
    return _chain(blocks)


def resolve_tokenizer_path(spec: str) -> Path:
    """``package:engine/tokenizer.json`` → the file inside servescope's data; otherwise a path."""
    if spec.startswith("package:"):
        return Path(str(resources.files("servescope").joinpath("data", *spec.removeprefix("package:").split("/"))))
    return Path(spec)


def load_encoder(spec: str | None) -> Encoder | None:
    """An ``encode(text) -> ids`` for a tokenizer.json, or None when there is no
    spec or the optional ``tokenizers`` package is not installed."""
    if not spec:
        return None
    try:
        from tokenizers import Tokenizer
    except ImportError:
        return None
    path = resolve_tokenizer_path(spec)
    if not path.is_file():
        return None
    tok = Tokenizer.from_file(str(path))

    def encode(text: str) -> list[int]:
        return list(tok.encode(text, add_special_tokens=False).ids)

    return encode
