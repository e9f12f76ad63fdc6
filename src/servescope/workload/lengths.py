"""Request lengths of a synthetic load: ``--isl N --range-ratio r`` means lengths drawn
uniformly from the integers in [floor(N lo), ceil(N hi)] (lo = 1 - r, hi = 1 + r: vLLM's
``--random-range-ratio``), at least 1, from a seeded generator. The harness and the
simulator draw with this one function, so the option means the same on both sides."""

from __future__ import annotations

import math

import numpy as np


def uniform_lengths(length: int, lo: float, hi: float, n: int, rng: np.random.Generator) -> list[int]:
    """n lengths around ``length``; exactly ``length`` each when lo == hi == 1 (nothing drawn)."""
    if lo == hi == 1.0:
        return [length] * n
    drawn: list[int] = np.maximum(1, rng.integers(math.floor(length * lo), math.ceil(length * hi) + 1, size=n)).tolist()
    return drawn
