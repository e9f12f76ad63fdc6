"""The coverage map: model x hardware x engine, one facet per workload (and one
over all workloads), each cell coloured by its strongest evidence.

Evidence ranks measured > imported > predicted only > none. A cell is **stale**
when every run in it is stale (shared/seeds/workloads.txt: "mark the v1 cells
stale rather than wrong"); a run is stale when

- its workload is superseded: a known Workload names it in ``supersedes``, or,
  when no document of the newer one is at hand, a workload id with the same stem
  and a higher ``-vN`` was seen; or
- its engine is two or more minor versions behind the newest release of that
  engine seen in the inputs (a lower major counts as behind). Versions that are
  not ``MAJOR.MINOR...`` (llama.cpp builds such as ``b4567``) are never stale
  by version: there is no minor to count.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass, field

from servescope.documents import Workload
from servescope.documents.workload import ID_PATTERN
from servescope.report.evidence import Cell, EvidenceKind, Run

EVIDENCE_ORDER: tuple[EvidenceKind, ...] = ("measured", "imported", "predicted")
ALL_WORKLOADS = "all workloads"
_VERSION = re.compile(r"^v?(\d+)\.(\d+)")


def parse_version(version: str | None) -> tuple[int, int] | None:
    m = _VERSION.match(version or "")
    return (int(m.group(1)), int(m.group(2))) if m else None


def superseded_by(workloads: dict[str, Workload], seen_ids: set[str]) -> dict[str, tuple[str, str]]:
    """workload id -> (newer id, how that is known)."""
    out: dict[str, tuple[str, str]] = {}
    for w in sorted(workloads.values(), key=lambda w: w.id):
        if w.supersedes:
            out[w.supersedes] = (w.id, f"{w.id} says supersedes: {w.supersedes}")
    by_stem: dict[str, list[tuple[int, str]]] = defaultdict(list)
    for wid in seen_ids | set(workloads):
        m = ID_PATTERN.match(wid)
        if m:
            by_stem[m.group("base")].append((int(m.group("version")), wid))
    for versions in by_stem.values():
        versions.sort()
        newest_version, newest = versions[-1]
        if newest in workloads:  # its own document says what it supersedes (above); the name alone does not
            continue
        for version, wid in versions[:-1]:
            if wid not in out:
                out[wid] = (newest, f"{newest} was seen and no Workload document of it is at hand; the ids say v{newest_version} > v{version}")
    return out


def newest_engines(runs: list[Run]) -> dict[str, tuple[tuple[int, int], str]]:
    out: dict[str, tuple[tuple[int, int], str]] = {}
    for run in runs:
        v = parse_version(run.engine_version)
        if v is not None and (run.cell.engine not in out or v > out[run.cell.engine][0]):
            out[run.cell.engine] = (v, run.engine_version or "")
    return out


@dataclass
class Staleness:
    """Why each run is stale (an empty list: it is not)."""

    superseded: dict[str, tuple[str, str]]
    newest: dict[str, tuple[tuple[int, int], str]]

    def reasons(self, run: Run) -> list[str]:
        out = []
        if run.workload_id in self.superseded:
            newer, how = self.superseded[run.workload_id]
            out.append(f"workload {run.workload_id} is superseded by {newer} ({how})")
        v = parse_version(run.engine_version)
        if v is not None and run.cell.engine in self.newest:
            (nmaj, nmin), newest = self.newest[run.cell.engine]
            if v[0] < nmaj or (v[0] == nmaj and nmin - v[1] >= 2):
                behind = f"{nmin - v[1]} minor versions" if v[0] == nmaj else "a major version"
                out.append(f"engine {run.cell.engine} {run.engine_version} is {behind} behind {newest}, the newest {run.cell.engine} seen")
        return out


@dataclass
class CoverageCell:
    cell: Cell
    runs: list[Run] = field(default_factory=list)
    stale_reasons: list[str] = field(default_factory=list)
    stale: bool = False
    current_runs: int = 0

    @property
    def counts(self) -> dict[str, int]:
        return {k: sum(1 for r in self.runs if r.evidence == k) for k in EVIDENCE_ORDER}

    @property
    def status(self) -> str:
        """measured, imported, predicted (only) or none."""
        counts = self.counts
        return next((k for k in EVIDENCE_ORDER if counts[k]), "none")

    def why(self) -> list[str]:
        """What hovering the cell says."""
        if not self.runs:
            return ["no run of this model on this hardware with this engine here"]
        counts = self.counts
        lines = [", ".join(f"{n} {k}" for k, n in counts.items() if n)]
        if self.status == "predicted":
            lines.append("predicted only: no measurement yet")
        if self.stale:
            lines.append("stale, not wrong: every run here is stale")
        elif self.stale_reasons:
            lines.append(f"not stale: {self.current_runs} of {len(self.runs)} run(s) here are current; the others:")
        lines.extend(self.stale_reasons)
        return lines


@dataclass
class Facet:
    workload: str
    cells: dict[Cell, CoverageCell]
    superseded_by: str | None = None
    supersedes: str | None = None


@dataclass
class CoverageMap:
    models: list[str]
    columns: list[tuple[str, str]]  # (hardware, engine)
    facets: list[Facet]


def _facet_order(wid: str) -> tuple[str, int, str]:
    m = ID_PATTERN.match(wid)
    return (m.group("base"), int(m.group("version")), wid) if m else (wid, 0, wid)


def build_coverage(runs: list[Run], staleness: Staleness) -> CoverageMap:
    models = sorted({r.cell.model for r in runs})
    columns = sorted({(r.cell.hardware, r.cell.engine) for r in runs})
    reasons = {id(r): staleness.reasons(r) for r in runs}
    workload_ids = sorted({r.workload_id or "no workload" for r in runs}, key=_facet_order)
    supersedes = {old: new for old, (new, _) in staleness.superseded.items()}
    older = {new: old for old, new in supersedes.items()}
    facets = []
    for wid in [ALL_WORKLOADS, *workload_ids]:
        chosen = runs if wid == ALL_WORKLOADS else [r for r in runs if (r.workload_id or "no workload") == wid]
        cells: dict[Cell, CoverageCell] = {}
        for model in models:
            for hardware, engine in columns:
                c = Cell(model, hardware, engine)
                cells[c] = CoverageCell(c)
        for r in chosen:
            cells[r.cell].runs.append(r)
        for cc in cells.values():
            if cc.runs:
                cc.stale = all(reasons[id(r)] for r in cc.runs)
                cc.current_runs = sum(1 for r in cc.runs if not reasons[id(r)])
                seen: list[str] = []
                for r in cc.runs:
                    for line in reasons[id(r)]:
                        if line not in seen:
                            seen.append(line)
                cc.stale_reasons = seen
        facets.append(Facet(wid, cells, supersedes.get(wid), older.get(wid)))
    return CoverageMap(models, columns, facets)
