"""The interval beside each leave-one-group-out MAPE (benchmarks/predict_logo.py): a cluster
bootstrap over deployments, whose centre is the pooled point mean the table prints."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

BENCH = Path(__file__).resolve().parents[2] / "benchmarks"
sys.path.insert(0, str(BENCH))
from predict_logo import MIN_CLUSTERS_FOR_INTERVAL, cluster_bootstrap_interval  # noqa: E402


def test_the_interval_brackets_the_pooled_mean_and_widens_with_the_spread_between_deployments() -> None:
    rng = np.random.default_rng(1)
    alike = [list(rng.normal(0.10, 0.01, 20).clip(0)) for _ in range(8)]
    apart = [list(rng.normal(m, 0.01, 20).clip(0)) for m in (0.02, 0.05, 0.08, 0.11, 0.14, 0.17, 0.20, 0.23)]
    for clusters in (alike, apart):
        pooled = 100 * np.mean([e for c in clusters for e in c])
        lo, hi = cluster_bootstrap_interval(clusters) or (0.0, 0.0)
        assert lo <= pooled <= hi
    narrow, wide = cluster_bootstrap_interval(alike), cluster_bootstrap_interval(apart)
    assert narrow is not None and wide is not None and wide[1] - wide[0] > 5 * (narrow[1] - narrow[0])


def test_points_of_one_deployment_move_together() -> None:
    """One deployment with many points and many with one: redrawn by deployment, the big one's weight
    is drawn whole or not at all, so the interval is wider than if its points were drawn one by one."""
    clusters = [[0.5] * 50] + [[0.05] for _ in range(9)]
    by_deployment = cluster_bootstrap_interval(clusters)
    by_point = cluster_bootstrap_interval([[e] for c in clusters for e in c])
    assert by_deployment is not None and by_point is not None
    assert by_deployment[1] - by_deployment[0] > 2 * (by_point[1] - by_point[0])


def test_too_few_deployments_give_no_interval() -> None:
    assert cluster_bootstrap_interval([[0.1, 0.2]] * (MIN_CLUSTERS_FOR_INTERVAL - 1)) is None
    assert cluster_bootstrap_interval([[0.1], [], [0.2], [], [0.3], [0.1]]) is None  # (empty ones do not count)
    assert cluster_bootstrap_interval([[0.2]] * MIN_CLUSTERS_FOR_INTERVAL) == [20.0, 20.0]
