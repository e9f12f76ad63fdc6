"""Per-request lengths of a point measured on the ShareGPT dataset, replayed from
its mean lengths.

A ShareGPT point publishes only the mean prompt and output lengths of the requests it
sent (GPUStack and DataCrunch: total input and generated tokens over the requests).
Giving every request those means loses what moves the engine: a few long prompts and
long answers, and - for an engine that reserves a request's ``max_tokens`` up front
(TensorRT-LLM's GUARANTEED_NO_EVICT) - the real reservations. So each request draws:

- **the law**: prompt and output lengths independent, each exponential. No public
  statistics of ShareGPT_V3_unfiltered_cleaned_split's token lengths (a histogram, a
  fitted law, quantiles) were found (searched 2026-12-01: dataset cards, benchmark
  docs, question-and-answer pages); the sources give a mean and nothing else, and the
  exponential is the maximum-entropy law on the positive numbers for a known mean - it
  adds nothing beyond what was measured. Its scale is solved so that the drawn requests,
  *after* the client's filter below, have the measured means (the measured mean is of
  the requests that passed the filter, so the law before the filter is a little wider);
  it is solved on the drawn requests themselves, since the measured mean is of exactly
  the requests the point sent.
- **the client's filter** (``SHAREGPT_FILTERS``): the pairs a benchmark client drops
  before it samples, redrawn until the point has its count.
- **max_tokens = the drawn output length**: ``vllm bench serve`` sends the dataset
  completion's token count as ``max_tokens`` / ``max_completion_tokens`` with
  ``ignore_eos`` off for ShareGPT (the model may stop earlier; what it generated is the
  measured mean, taken here as the cap), ``sglang.bench_serving`` sends it as
  ``max_new_tokens`` with ``ignore_eos`` on unless ``--disable-ignore-eos``. Either way
  the drawn output is what a reserving engine reserves.

Seeded (the load seed's generator) and deterministic.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class DatasetFilter:
    """The (prompt, output) pairs a benchmark client keeps from a dataset."""

    client: str
    min_prompt: int
    min_output: int
    max_prompt: int | None
    max_total: int | None
    source: str

    def keeps(self, prompt: np.ndarray, output: np.ndarray) -> np.ndarray:
        ok = (prompt >= self.min_prompt) & (output >= self.min_output)
        if self.max_prompt is not None:
            ok &= prompt <= self.max_prompt
        if self.max_total is not None:
            ok &= prompt + output <= self.max_total
        return ok

    def max_mean_prompt(self) -> float | None:
        """The largest mean prompt the filter lets through at all (all mass at the cap: uniform
        on [min, max] is the limit of the exponential as its scale grows)."""
        cap = self.max_prompt if self.max_prompt is not None else self.max_total
        return None if cap is None else (self.min_prompt + cap) / 2.0


#: ShareGPT filters of the benchmark clients the validation set's ShareGPT points used,
#: keyed by ``EvaluationRun.harness``.
SHAREGPT_FILTERS: dict[str, DatasetFilter] = {
    f.client: f
    for f in (
        DatasetFilter(
            "vllm-bench-serve",
            min_prompt=4,
            min_output=4,
            max_prompt=1024,
            max_total=2048,
            # ShareGPTDataset.sample calls is_valid_sequence(prompt_len, output_len) with its defaults:
            # min_len 4 (prompt and output), max_prompt_len 1024, max_total_len 2048 ("copied from the
            # original sample_sharegpt_requests in benchmark_serving.py")
            source="vllm-project/vllm vllm/benchmarks/datasets.py@f2e97ddaf5902a9727f48b70d001b6117b8b8b12 "
            "(is_valid_sequence, ShareGPTDataset.sample); max_completion_tokens = output_len, ignore_eos False by "
            "default: vllm/benchmarks/lib/endpoint_request_func.py@3aee4a4f4c4d1a2a7af3ebdb88c768e459e6c602",
        ),
        DatasetFilter(
            "sglang-bench-serving",
            min_prompt=2,
            min_output=2,
            max_prompt=None,
            # prompt_len + output_len > context_len is dropped only when --sharegpt-context-len is given,
            # which neither DataCrunch's script nor its output line states
            max_total=None,
            source="sgl-project/sglang python/sglang/bench_serving.py sample_sharegpt_requests (prompt_len < 2 or "
            "output_len < 2 pruned; prompt_len + output_len > context_len pruned only with a context_len); "
            "ignore_eos on unless --disable-ignore-eos",
        ),
    )
}

#: Largest relative difference allowed between the drawn means and the measured ones.
MEAN_TOLERANCE = 0.01
_ITERATIONS = 200
_MAX_DRAWS_PER_REQUEST = 64


def sharegpt_filter(client: str) -> DatasetFilter:
    try:
        return SHAREGPT_FILTERS[client.lower()]
    except KeyError:
        raise ValueError(
            f"ShareGPT lengths for client {client!r}: its ShareGPT length filter is not known here; known clients: {', '.join(SHAREGPT_FILTERS)}"
        ) from None


def check_means(mean_prompt: int, mean_output: int, filt: DatasetFilter) -> None:
    """One line if the filter cannot let requests of these means through."""
    if mean_prompt < filt.min_prompt or mean_output < filt.min_output:
        raise ValueError(
            f"ShareGPT mean lengths {mean_prompt}:{mean_output}: {filt.client} drops prompts under {filt.min_prompt} and "
            f"outputs under {filt.min_output} tokens, so no mean can be below those"
        )
    top = filt.max_mean_prompt()
    # the filter's region bounds the means any law can reach: uniform on it is the limit of a widening
    # exponential (prompt: (min + cap) / 2; prompt + output under a total cap T: 2 T / 3); refused short of those
    if (top is not None and mean_prompt >= 0.9 * top) or (filt.max_total is not None and mean_prompt + mean_output >= 0.6 * filt.max_total):
        raise ValueError(
            f"ShareGPT mean lengths {mean_prompt}:{mean_output}: {filt.client}'s filter (prompt <= {filt.max_prompt}, prompt + "
            f"output <= {filt.max_total}) lets no exponential law of lengths reach those means; check the point's mean_isl/mean_osl"
        )


def draw_sharegpt(mean_prompt: int, mean_output: int, n: int, rng: np.random.Generator, filt: DatasetFilter) -> tuple[list[int], list[int]]:
    """``n`` (prompt, output) lengths: exponential, kept by ``filt``, whose means are
    ``mean_prompt``/``mean_output`` within ``MEAN_TOLERANCE`` (module docstring)."""
    if n <= 0:
        return [], []
    check_means(mean_prompt, mean_output, filt)
    target = np.array([float(mean_prompt), float(mean_output)])
    unit = rng.standard_exponential((2 * n + 64, 2))
    scale = target.copy()
    best: tuple[float, np.ndarray, np.ndarray] | None = None
    for _ in range(_ITERATIONS):
        lengths = np.maximum(1, np.rint(unit * scale)).astype(np.int64)
        kept = np.flatnonzero(filt.keeps(lengths[:, 0], lengths[:, 1]))
        if kept.size < n:
            if unit.shape[0] >= _MAX_DRAWS_PER_REQUEST * n:
                break  # the filter keeps too few of this law: refused below
            # a wide law loses more to the filter: draw more from the same stream (deterministic)
            unit = np.vstack([unit, rng.standard_exponential((unit.shape[0], 2))])
            continue
        chosen = lengths[kept[:n]]
        drawn = chosen.mean(axis=0)
        miss = float(np.max(np.abs(drawn - target) / target))
        if best is None or miss < best[0]:
            best = (miss, chosen[:, 0], chosen[:, 1])
        if miss <= MEAN_TOLERANCE / 4:
            break
        # the filter's cut moves with the scale: a fixed-point step on each mean
        scale = scale * target / drawn
    if best is None or best[0] > MEAN_TOLERANCE:
        raise ValueError(
            f"ShareGPT lengths {mean_prompt}:{mean_output} for {n} requests: no draw under {filt.client}'s filter came "
            f"within {MEAN_TOLERANCE:.0%} of those means"
        )
    return best[1].tolist(), best[2].tolist()
