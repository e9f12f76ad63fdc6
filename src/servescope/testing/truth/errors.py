"""A client's timestamps held against the truth server's log (pure arithmetic).

For request r with server write times s_0..s_{n-1} (``token_ns`` in the log) and
client receipt times c_0..c_{n-1} (absolute ``perf_counter_ns``, the same
CLOCK_MONOTONIC on Linux):

- per-token error  e_k = c_k − s_k  (client receipt − server write; includes loopback latency)
- TTFT error       e_0 (the first token's error: the client's TTFT minus the
                   true TTFT, where the request start is the same instant for both)
- ITL error        (c_k − c_{k−1}) − (s_k − s_{k−1}) = e_k − e_{k−1}, k ≥ 1

Summaries are over absolute values, in ms, with linear-interpolation percentiles
(the project's one method).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Pairing:
    """Errors collected over many requests."""

    ttft_err_ns: list[int] = field(default_factory=list)
    token_err_ns: list[int] = field(default_factory=list)
    itl_err_ns: list[int] = field(default_factory=list)
    matched: int = 0
    count_mismatch: int = 0
    missing_in_log: int = 0
    mismatch_ids: list[str] = field(default_factory=list)

    def add(self, request_id: str, client_abs_ns: Sequence[int], log_entry: dict[str, Any] | None) -> None:
        if log_entry is None:
            self.missing_in_log += 1
            return
        server = log_entry.get("token_ns") or []
        if len(server) != len(client_abs_ns) or not server:
            self.count_mismatch += 1
            if len(self.mismatch_ids) < 20:
                self.mismatch_ids.append(request_id)
            return
        c = np.asarray(client_abs_ns, dtype=np.int64)
        s = np.asarray(server, dtype=np.int64)
        e = c - s
        self.matched += 1
        self.ttft_err_ns.append(int(e[0]))
        self.token_err_ns.extend(e.tolist())
        if len(e) > 1:
            self.itl_err_ns.extend(np.diff(e).tolist())

    def summary(self) -> dict[str, Any]:
        return {
            "requests_matched": self.matched,
            "requests_count_mismatch": self.count_mismatch,
            "requests_missing_in_log": self.missing_in_log,
            "ttft_abs_error_ms": abs_summary(self.ttft_err_ns),
            "itl_abs_error_ms": abs_summary(self.itl_err_ns),
            "token_latency_error_ms": abs_summary(self.token_err_ns),
            "ttft_error_mean_signed_ms": _mean_ms(self.ttft_err_ns),
            "itl_error_mean_signed_ms": _mean_ms(self.itl_err_ns),
        }


def _mean_ms(v: Sequence[int]) -> float | None:
    return float(np.mean(v)) / 1e6 if len(v) else None


def abs_summary(values_ns: Iterable[int]) -> dict[str, float | int] | None:
    """p50/p90/p99/max/mean of |x| in ms (None when empty)."""
    a = np.abs(np.asarray(list(values_ns), dtype=np.float64)) / 1e6
    if a.size == 0:
        return None
    p50, p90, p99 = np.percentile(a, [50, 90, 99])
    return {"n": int(a.size), "p50": float(p50), "p90": float(p90), "p99": float(p99), "max": float(a.max()), "mean": float(a.mean())}


def schedule_lateness_ns(log_entry: dict[str, Any]) -> list[int]:
    """How late the server wrote each token versus its schedule (write − due)."""
    recv = log_entry["recv_ns"]
    return [t - (recv + due) for t, due in zip(log_entry.get("token_ns") or [], log_entry.get("schedule_ns") or [], strict=False)]
