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


def hashes_from_blocks(blocks: Sequence[int], n_tokens: int, block_size: int, tail_key: str, trace_block: int = 512) -> tuple[int, ...]:
    """Chained hashes of the full blocks of a prompt of ``n_tokens`` tokens made of a
    trace's prefix blocks (``hash_ids``: each ``trace_block`` tokens, equal ids equal
    tokens), then tokens unique to this prompt (``tail_key``): two prompts share cached
    blocks as far as their leading trace blocks agree, as the harness builds them."""
    full = n_tokens // block_size
    if full == 0:
        return ()
    n = full * block_size
    pos = np.arange(n, dtype=np.uint64)
    ids = np.empty(n, dtype=np.uint64)
    covered = min(n, len(blocks) * trace_block)
    if covered:
        named = np.asarray(blocks, dtype=np.uint64)[pos[:covered] // np.uint64(trace_block)]
        ids[:covered] = named * np.uint64(trace_block) + pos[:covered] % np.uint64(trace_block)
    if covered < n:
        tail = int.from_bytes(hashlib.blake2b(tail_key.encode("utf-8"), digest_size=4).digest(), "little")
        ids[covered:] = np.uint64(1 << 63) | (np.uint64(tail) << np.uint64(28)) | pos[covered:]
    data = ids.astype("<u8").tobytes()
    width = 8 * block_size
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
