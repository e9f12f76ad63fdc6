"""SLOs: one way to write them, one parser, one comparison.

``ttft_ms<=500,itl_ms<30`` — a metric (ttft_ms, itl_ms, tpot_ms, e2e_ms), ``<=`` or
``<``, a threshold in ms. Two uses:

- a run (``run --slo``, ``predict`` of a workload): each request is held to every
  SLO (a ``Slo`` of the Result; ``on_time_rate`` is the share of requests within
  all of them, ``analysis.metrics.slo_outcome``); no statistic prefix;
- a point (``search``, ``predict --max-rate``): a statistic of the point is held
  to it, named by a prefix — ``mean_``, ``pNN_`` (``p99_ttft_ms<=2000``); no
  prefix: the caller's default statistic.

Both compare with ``holds``: a value that was not measured never holds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from servescope.documents.result import Slo

SLO_METRICS: tuple[str, ...] = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")
_SLO = re.compile(r"^\s*(?:(mean|p\d{1,2}(?:\.\d+)?)_)?(ttft_ms|itl_ms|tpot_ms|e2e_ms)\s*(<=|<)\s*([0-9]*\.?[0-9]+)\s*$")


class SloSyntaxError(ValueError):
    """A part of an SLO list that is not an SLO (``part``: as written)."""

    def __init__(self, part: str, message: str) -> None:
        super().__init__(message)
        self.part = part


def holds(value: float | None, op: str, threshold: float) -> bool:
    """Whether ``value`` meets ``op threshold``; an unmeasured value never does."""
    if value is None:
        return False
    return value <= threshold if op == "<=" else value < threshold


@dataclass(frozen=True)
class SloSpec:
    metric: str
    op: str
    threshold: float
    stat: str | None = None
    """``mean``, ``pNN`` (e.g. ``p99``), or None: the statistic the caller applies by default."""
    text: str = field(default="", compare=False)
    """The threshold as written (a run's SLO id keeps it: ``ttft_ms<=500``)."""

    def ok(self, value: float | None) -> bool:
        return holds(value, self.op, self.threshold)

    def percentile(self, default: float | None) -> float | None:
        """The percentile this SLO is checked on (None: the mean)."""
        if self.stat is None:
            return default
        return None if self.stat == "mean" else float(self.stat[1:])

    @property
    def name(self) -> str:
        """The statistic checked: ``ttft_ms``, ``p99_ttft_ms``, ``mean_tpot_ms``."""
        return f"{self.stat + '_' if self.stat else ''}{self.metric}"

    def __str__(self) -> str:
        return f"{self.name}{self.op}{self.threshold:g}"

    def per_request(self) -> Slo:
        """The Result's ``Slo`` (each request held to it), id as written: ``ttft_ms<=500``."""
        if self.stat is not None:
            raise ValueError(
                f"{self.name}{self.op}{self.text}: a run holds each request to its SLOs; write {self.metric}{self.op}{self.text} (no {self.stat}_ prefix)"
            )
        return Slo(id=f"{self.metric}{self.op}{self.text}", metric=self.metric, op=self.op, threshold=self.threshold)  # type: ignore[arg-type]


def parse_slos(text: str) -> list[SloSpec]:
    """``"ttft_ms<=500,itl_ms<=30"`` or ``"p99_ttft_ms<=2000,mean_tpot_ms<=50"`` → SLOs;
    ``ValueError`` (one line) on a part that is not one."""
    out = []
    for part in text.split(","):
        if not part.strip():
            continue
        m = _SLO.match(part)
        if not m or (m.group(1) not in (None, "mean") and not 0 < float(m.group(1)[1:]) < 100):
            raise SloSyntaxError(
                part.strip(),
                f"cannot read SLO {part.strip()!r}; write e.g. ttft_ms<=500 or p99_ttft_ms<=2000 "
                "(ttft_ms, itl_ms, tpot_ms, e2e_ms; optional prefix mean_ or pNN_)",
            )
        out.append(SloSpec(m.group(2), m.group(3), float(m.group(4)), m.group(1), m.group(4)))
    return out


def parse_request_slos(text: str | None) -> list[Slo]:
    """A run's SLOs (each request held to them): ``ttft_ms<=500,itl_ms<=30``."""
    return [s.per_request() for s in parse_slos(text or "")]
