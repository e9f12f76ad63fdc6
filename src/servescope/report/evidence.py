"""One row of evidence per document: what it is (measured, predicted, imported),
which model x hardware x engine cell it speaks for, and its page in the site.

- **measured**: a Result with explicit timing from servescope's own harness, or
  an EvaluationRun whose harness is servescope;
- **imported**: explicit timing from another harness (``servescope import``, or
  an EvaluationRun another tool wrote);
- **predicted**: simulated timing (a Prediction, or a Result of the simulator).

The cell of a Result is its own model, hardware and engine; an EvaluationRun or
a Prediction names a scenario, which the inputs or the catalog resolve. A
scenario that neither knows keeps its name as the model and ``unknown`` for the
rest, and the run says so (nothing is guessed)."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from servescope.documents import EvaluationRun, Prediction, Result, Scenario

EvidenceKind = Literal["measured", "imported", "predicted"]
UNKNOWN = "unknown"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True, order=True)
class Cell:
    model: str
    hardware: str
    engine: str


@dataclass(eq=False)
class Run:
    """A document as the report sees it (compared by identity: one Run per document file)."""

    doc: Result | Prediction | EvaluationRun
    source: Path
    name: str
    evidence: EvidenceKind
    cell: Cell
    workload_id: str | None
    scenario: str | None
    engine_version: str | None
    config_id: str | None
    harness: str
    slug: str
    notes: list[str] = field(default_factory=list)

    @property
    def doc_kind(self) -> str:
        return type(self.doc).__name__

    @property
    def page(self) -> str:
        """Path of the run's page, relative to the site root."""
        return f"runs/{self.slug}.html"

    @property
    def series_key(self) -> tuple[str, ...]:
        """Runs drawn as one series: repeats of one configuration by one harness."""
        return (
            self.evidence,
            self.doc_kind if not isinstance(self.doc, Result) else "Result",
            self.cell.model,
            self.cell.hardware,
            self.cell.engine,
            self.engine_version or "",
            self.config_id or self.name,
            self.harness,
        )

    @property
    def label(self) -> str:
        version = f"@{self.engine_version}" if self.engine_version else ""
        config = f" {self.config_id[:8]}" if self.config_id else ""
        return f"{self.cell.model} · {self.cell.hardware} · {self.cell.engine}{version}{config} ({self.evidence})"


def slug(name: str, source: Path) -> str:
    """A file name safe on every system, unique per source file."""
    digest = hashlib.sha1(str(source).encode("utf-8")).hexdigest()[:8]
    return f"{_UNSAFE.sub('-', name).strip('-')[:80] or 'run'}-{digest}"


def _classify_result(r: Result) -> EvidenceKind:
    if r.timing_mode == "simulated":
        return "predicted"
    if isinstance(r.resolved_params.get("import"), dict) or r.metadata.harness != "servescope":
        return "imported"
    return "measured"


def _scenario_cell(name: str | None, scenarios: dict[str, Scenario]) -> tuple[Cell, str | None, list[str]]:
    sc = scenarios.get(name or "")
    if sc is None:
        note = f"scenario {name!r} is in neither the inputs nor the catalog: its hardware and engine are unknown"
        return Cell(name or UNKNOWN, UNKNOWN, UNKNOWN), None, [note]
    return Cell(sc.model, sc.hardware, sc.engine.id), sc.engine.version, []


def to_run(doc: Result | Prediction | EvaluationRun, source: Path, scenarios: dict[str, Scenario]) -> Run:
    if isinstance(doc, Result):
        notes: list[str] = []
        hardware = doc.hardware.id if doc.hardware else None
        if hardware is None and doc.scenario in scenarios:
            hardware = scenarios[doc.scenario].hardware
            notes.append(f"hardware from scenario {doc.scenario!r} (the Result names none)")
        cell = Cell(doc.model.id, hardware or UNKNOWN, doc.engine.id)
        return Run(
            doc,
            source,
            doc.run_id,
            _classify_result(doc),
            cell,
            doc.workload_id,
            doc.scenario,
            doc.engine.version,
            doc.config_id,
            doc.metadata.harness,
            slug(doc.run_id, source),
            notes,
        )
    cell, version, notes = _scenario_cell(doc.scenario, scenarios)
    if isinstance(doc, Prediction):
        return Run(
            doc,
            source,
            doc.name,
            "predicted",
            cell,
            doc.workload,
            doc.scenario,
            doc.engine_version or version,
            None,
            doc.predictor,
            slug(doc.name, source),
            notes,
        )
    evidence: EvidenceKind = "measured" if doc.harness == "servescope" else "imported"
    return Run(doc, source, doc.name, evidence, cell, doc.workload, doc.scenario, doc.engine_version, None, doc.harness, slug(doc.name, source), notes)
