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

import math
import re
from dataclasses import dataclass, field

from servescope.documents.result import Slo

SLO_METRICS: tuple[str, ...] = ("ttft_ms", "itl_ms", "tpot_ms", "e2e_ms")
_PART = re.compile(r"^\s*(?P<name>[^<>=!]*?)\s*(?P<op><=|>=|==|!=|<|>|=)\s*(?P<value>.*?)\s*$")
_STAT = re.compile(r"^(?:(mean|p\d+(?:\.\d+)?)_)?(.*)$")
_NUMBER = re.compile(r"^(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?$")
_EXAMPLE = "write SLOs like ttft_ms<=500,itl_ms<=30"


class SloSyntaxError(ValueError):
    """A part of an SLO list that is not an SLO (``part``: as written; ``reason``: what is
    wrong with it, without the part)."""

    def __init__(self, part: str, reason: str) -> None:
        super().__init__(f"cannot read SLO {part!r}: {reason}")
        self.part = part
        self.reason = reason


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


def _parse_part(part: str) -> SloSpec:
    m = _PART.match(part)
    if m is None:
        raise SloSyntaxError(part, f"no comparison; {_EXAMPLE} (a metric, <= or <, a threshold in ms)")
    name, op, value = m.group("name"), m.group("op"), m.group("value")
    stat_m = _STAT.match(name)
    assert stat_m is not None  # the pattern matches every name
    stat, metric = stat_m.group(1), stat_m.group(2)
    if metric not in SLO_METRICS:
        hint = f" (names are lower case: {metric.lower()})" if metric.lower() in SLO_METRICS else ""
        raise SloSyntaxError(part, f"unknown metric {metric!r}{hint}; one of {', '.join(SLO_METRICS)} (optional prefix mean_ or pNN_)")
    if stat not in (None, "mean") and not 0 < float(stat[1:]) < 100:
        raise SloSyntaxError(part, f"percentile {stat!r}: give p1..p99 (decimals allowed, e.g. p99.9)")
    if op not in ("<=", "<"):
        raise SloSyntaxError(part, f"operator {op!r} is not taken; an SLO is an upper bound: {metric}<=T or {metric}<T")
    if not value:
        raise SloSyntaxError(part, f"no threshold; give milliseconds, e.g. {name}{op}500")
    if not _NUMBER.match(value):
        if re.match(r"^-?[0-9.]+\s*[a-zA-Zµ]+$", value):
            raise SloSyntaxError(part, f"threshold {value!r}: give a plain number of milliseconds (the metric's _ms is the unit), e.g. {name}{op}500")
        if value.lower().lstrip("+-") in ("inf", "infinity", "nan") or value.startswith("-"):
            raise SloSyntaxError(part, f"threshold {value!r}: give a finite number of milliseconds >= 0, e.g. {name}{op}500")
        raise SloSyntaxError(part, f"threshold {value!r} is not a number; {_EXAMPLE}")
    threshold = float(value)
    if not math.isfinite(threshold):  # 1e999
        raise SloSyntaxError(part, f"threshold {value!r}: give a finite number of milliseconds >= 0, e.g. {name}{op}500")
    return SloSpec(metric, op, threshold, stat, value)


def parse_slos(text: str) -> list[SloSpec]:
    """``"ttft_ms<=500,itl_ms<=30"`` or ``"p99_ttft_ms<=2000,mean_tpot_ms<=50"`` → SLOs;
    ``SloSyntaxError`` (a ``ValueError``, one line naming the part and what is wrong) on a
    part that is not one, on an empty part (a stray comma) and on a statistic given twice."""
    out: list[SloSpec] = []
    if not text.strip():
        return out
    for part in text.split(","):
        if not part.strip():
            raise SloSyntaxError(text, f"an empty part (a stray comma); {_EXAMPLE}")
        spec = _parse_part(part.strip())
        twice = next((s for s in out if s.name == spec.name), None)
        if twice is not None:
            raise SloSyntaxError(text, f"{spec.name} is given twice ({twice}, {spec}); give one bound per metric")
        out.append(spec)
    return out


def parse_request_slos(text: str | None) -> list[Slo]:
    """A run's SLOs (each request held to them): ``ttft_ms<=500,itl_ms<=30``."""
    return [s.per_request() for s in parse_slos(text or "")]
