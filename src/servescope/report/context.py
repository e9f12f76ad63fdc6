"""What every page of one report shares: the runs, their staleness, the
prediction/measurement pairings and where each workload's page is."""

from __future__ import annotations

from dataclasses import dataclass, field

from servescope.documents import Workload
from servescope.report.coverage import Staleness
from servescope.report.evidence import Run
from servescope.report.pairing import Pairing


@dataclass
class Site:
    runs: list[Run]
    staleness: Staleness
    pairings: list[Pairing]
    workloads: dict[str, Workload]
    workload_pages: dict[str, str] = field(default_factory=dict)  # workload id -> path from the site root
    problems: list[str] = field(default_factory=list)
    twins: int = 0  # documents left out as copies or compact tables of those shown (report.twins)
