"""A client whose start is not stated is a range, not a guess.

With fixed lengths, a closed loop whose requests start together stays in lock-step waves
(every prompt at the start of a wave, then decode-only steps), while jitter de-synchronises
it into the steady state; real runs sit anywhere between. When nobody said how the client
started (``predict --isl/--osl --concurrency`` without ``--harness``), both readings are
simulated — steady state and first-wave-at-once (``--harness burst``) — and each point's
interval spans both readings' intervals: the figures printed are the steady state's, the
interval says how far the other reading moves them, and each point keeps the burst reading's
own figures (``burst``).
"""

from __future__ import annotations

from servescope.documents.prediction import Prediction

CLIENT_START_UNSTATED = "unstated: the interval spans steady state and every request of a wave sent at once (burst)"


#: The figures of the burst reading kept on each point (``PredictionPoint.burst``).
BURST_FIGURES = ("ttft_ms", "ttft_p50_ms", "itl_ms", "tpot_ms", "e2e_ms", "output_tokens_per_sec")


def envelope(steady: Prediction, burst: Prediction) -> Prediction:
    """``steady`` with each point's intervals widened to cover ``burst``'s at the same concurrency."""
    other = {p.concurrency: p for p in burst.points}
    points = []
    for p in steady.points:
        q = other.get(p.concurrency)
        if p.intervals is None or q is None or q.intervals is None:
            points.append(p)
            continue
        merged = dict(p.intervals)
        for name, (lo, hi) in q.intervals.items():
            if name in merged:
                merged[name] = [min(merged[name][0], lo), max(merged[name][1], hi)]
        # the burst reading's own figures beside the steady state's: the two ends, not only their span
        figures = {name: float(v) for name in BURST_FIGURES if isinstance(v := getattr(q, name, None), int | float)}
        points.append(p.model_copy(update={"intervals": merged, "burst": figures or None}))
    interval = steady.interval
    if interval is not None:
        interval = interval.model_copy(update={"client_start": CLIENT_START_UNSTATED})
    return steady.model_copy(update={"points": points, "interval": interval})


__all__ = ["BURST_FIGURES", "CLIENT_START_UNSTATED", "envelope"]
