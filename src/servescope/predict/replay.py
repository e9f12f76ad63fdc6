"""How the clients of a closed-loop point send their requests, replayed by the
simulator (``predict --harness NAME``; ``steady`` by default).

A closed-loop point is "c clients, each sending its next request when the last
one ends", but its numbers depend on three choices a harness makes: which requests
are counted (is there a warm-up, does the load stay full until the last counted
request ends), how many, and whether the lengths vary. A deterministic simulation
of c identical requests started together stays in lock-step waves - every wave
prefills c prompts at once, so TTFT pays c prefills - which a real engine under a
real client does not keep for long. So a point is predicted the way a harness
measures it once the system has desynchronised:

**The steady-state rule** (``steady``):

1. one closed loop of c clients; each client's first request is a warm-up, not
   counted (``STEADY_WARMUP`` = 1 per client), and stops after a uniformly drawn
   share of its output (a *stationary start*: completions begin spread over one
   request's length, as if the loop had always run, instead of all c arriving,
   prefilling and finishing together; with it, longer warm-ups change the
   predicted TTFT by less than the seed does);
2. the next ``max(32, 16 c)`` are measured (``STEADY_MEASURED``);
3. the loop is held full: cool-down requests keep c in flight until the last
   measured request has ended, so none is measured while the load drains;
4. input and output lengths are drawn per request uniformly from
   ``[L (1 - r), L (1 + r)]`` with ``r = STEADY_RANGE_RATIO`` = 0.1 (vLLM's
   ``--random-range-ratio`` meaning): the mean lengths stay the nominal ones, and
   requests that happen to line up drift apart again instead of re-forming waves;
   from 0.02 to 0.3 the predicted TTFT and TPOT stay within the seed spread
   (benchmarks/README.md, "Closed-loop replay", ``benchmarks/predict_replay.py``);
5. the figures are the metric formulas' own (``analysis.metrics``) over the
   measured requests; throughput is their output tokens over the measured window
   (first measured send to last measured end). In a continuous loop that window
   holds about one request's length more than the measured requests fill, so it
   reads lower than the loop's rate by about c / (N + c) for N measured requests
   (1/17, 6 %, at the default): said, not corrected; ``--num-requests`` narrows it.

The other replays follow a known client's documented behaviour (sources below and
in README.md, "Predicting"). Where a default could not be pinned to a version, the
replay asks for it (``needs_requests``) instead of inventing it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

STEADY_WARMUP = 1
STEADY_MEASURED = 16
STEADY_MIN_MEASURED = 32
STEADY_RANGE_RATIO = 0.1


@dataclass(frozen=True)
class Replay:
    """One client's way of running a closed-loop point."""

    name: str
    summary: str
    source: str
    warmup_per_concurrency: float = 0.0
    """Warm-up requests per client (round(x c) in all), not counted."""
    warmup_requests: int = 0
    """A fixed warm-up count (vLLM's --num-warmups), added to the above."""
    continuous: bool = False
    """True: the warm-up requests open the same closed loop the measured ones continue.
    False: the warm-up runs as a burst of its own, then the measured requests start together."""
    hold: bool = False
    """Keep c requests in flight (cool-down, not counted) until the last measured one ends."""
    requests_per_concurrency: int = 4
    min_requests: int = 32
    num_requests: int | None = None
    """A fixed measured count (vLLM's --num-prompts default), instead of the per-concurrency rule."""
    needs_requests: bool = False
    """The client's own default count is not pinned here: --num-requests must be given."""
    length_range: tuple[float, float] = (1.0, 1.0)
    """Input and output lengths uniform in [lo L, hi L] per request."""
    stationary_start: bool = False
    """Each client's first (warm-up) request stops after a uniformly drawn share of its
    output, so completions start spread over one request's length (continuous loops)."""
    stream_client: str | None = None
    """The client whose stream timing the predicted ITL follows (``predict.stream_chunks``);
    None: servescope's (chunks with text)."""

    def warmup_at(self, concurrency: int) -> int:
        return round(self.warmup_per_concurrency * concurrency) + self.warmup_requests

    def measured_at(self, concurrency: int) -> int:
        if self.num_requests is not None:
            return self.num_requests
        return max(self.min_requests, self.requests_per_concurrency * concurrency)

    def cooldown_at(self, concurrency: int) -> int:
        """Cool-down requests a held loop may send: each client can finish about one
        more request (two, with lengths varying) before the last measured one ends."""
        return 2 * concurrency if self.hold else 0


def symmetric(range_ratio: float) -> tuple[float, float]:
    """vLLM's current ``--random-range-ratio`` r: lengths uniform in [L (1 - r), L (1 + r)]."""
    if not (math.isfinite(range_ratio) and 0.0 <= range_ratio < 1.0):
        raise ValueError(f"range ratio {range_ratio}: give a number in [0, 1) (lengths uniform in L(1-r)..L(1+r))")
    return (1.0 - range_ratio, 1.0 + range_ratio)


REPLAYS: dict[str, Replay] = {
    r.name: r
    for r in (
        Replay(
            "steady",
            f"steady state: {STEADY_WARMUP} c warm-up requests in the same loop, max({STEADY_MIN_MEASURED}, "
            f"{STEADY_MEASURED} c) measured with the loop held full, lengths +-{STEADY_RANGE_RATIO:g}",
            "servescope's rule (predict/replay.py); harnesses that report steady windows: perf_analyzer/genai-perf measurement windows, aiperf with a warm-up",
            warmup_per_concurrency=STEADY_WARMUP,
            continuous=True,
            hold=True,
            stationary_start=True,
            requests_per_concurrency=STEADY_MEASURED,
            min_requests=STEADY_MIN_MEASURED,
            length_range=symmetric(STEADY_RANGE_RATIO),
        ),
        Replay(
            "burst",
            "c identical requests start together, max(32, 4 c) measured, no warm-up, exact lengths (servescope's replay before the steady-state rule)",
            "servescope < 2026-12-01",
        ),
        Replay(
            "vllm",
            "vllm bench serve --dataset-name random --max-concurrency c --request-rate inf: 1000 prompts "
            "(--num-prompts), all measured from a burst start to the last end, --random-range-ratio 0.0 "
            "(exact lengths), --num-warmups 0",
            "vllm-project/vllm vllm/benchmarks/serve.py (--num-warmups 0, --request-rate inf: all sent at once behind a "
            "max-concurrency semaphore; warm-ups are a burst of their own before the run) and "
            "vllm/benchmarks/datasets.py (RandomDataset.DEFAULT_RANGE_RATIO 0.0, lengths in "
            "[floor(L(1-r)), ceil(L(1+r))], --num-prompts 1000), main branch as stored 2026",
            num_requests=1000,
            stream_client="vllm-bench-serve",
        ),
        Replay(
            "inferencex",
            "SemiAnalysis InferenceX: vLLM's benchmark_serving.py --random-range-ratio 0.8 --num-prompts 10 c "
            "--max-concurrency c --request-rate inf --ignore-eos; lengths uniform in [0.8 L, L]",
            "SemiAnalysisAI/InferenceX benchmarks/*_slurm.sh and its vendored utils/bench_serving/"
            "benchmark_serving.py (sample_random_requests: lower = int(L r), upper = L, as vLLM's older file)",
            requests_per_concurrency=10,
            min_requests=1,
            length_range=(0.8, 1.0),
        ),
        Replay(
            "aiperf",
            "aiperf profile --concurrency c: synthetic lengths with --synthetic-input-tokens-stddev 0 and "
            "--output-tokens-stddev 0 (exact), --warmup-request-count 0, measured from a burst start; "
            "--request-count must be given (--num-requests)",
            "ai-dynamo/aiperf aiperf/common/config/loadgen_config.py and its docs (warm-up phase, stddev defaults); "
            "its default --request-count is not pinned here (genai-perf's constants say 10)",
            needs_requests=True,
        ),
        Replay(
            "genai-perf",
            "genai-perf profile --concurrency c --request-count N: as aiperf (stddev 0, warm-up 0)",
            "triton-inference-server genai-perf constants (DEFAULT_PROMPT_TOKENS_STDDEV 0, "
            "DEFAULT_WARMUP_REQUEST_COUNT 0, DEFAULT_REQUEST_COUNT 10); without --request-count it measures "
            "perf_analyzer windows, which --harness steady approximates",
            needs_requests=True,
        ),
        Replay(
            "guidellm",
            "guidellm benchmark --profile concurrent --rate c --data prompt_tokens=L,output_tokens=M: c streams "
            "start together, each sends its next request when one ends; no stdev (exact lengths), no warm-up; "
            "--max-requests must be given (--num-requests)",
            "vllm-project/guidellm src/guidellm/data/deserializers/synthetic.py (prompt_tokens_stdev and "
            "output_tokens_stdev default None: every request the average); its --warmup/--cooldown defaults and "
            "request limits are not pinned here",
            needs_requests=True,
        ),
    )
}


def replay(name: str) -> Replay:
    try:
        return REPLAYS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown harness {name!r}; known: {', '.join(REPLAYS)}") from None
