"""Gathering what a report shows from files and folders: Results (partial runs
rebuilt from their records), Predictions and EvaluationRuns, plus the Workloads
and Scenarios that say which workload supersedes which and where a scenario ran.

Files of other kinds are read and ignored; a file that is not a valid document
is one line in ``problems`` and is left out of the report (never half-shown)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from servescope.analysis.predicted_intervals import stored_intervals
from servescope.catalog.store import Catalog
from servescope.documents import (
    EvaluationRun,
    Prediction,
    Result,
    Scenario,
    Workload,
    load,
)
from servescope.documents.walk import file_type, walk
from servescope.errors import ServescopeError

SUFFIXES = (".json", ".yaml", ".yml")
REPORTED_KINDS = (Result, Prediction, EvaluationRun)


@dataclass
class Inputs:
    """Every document found, each with the file it came from."""

    documents: list[tuple[Result | Prediction | EvaluationRun, Path]] = field(default_factory=list)
    workloads: dict[str, Workload] = field(default_factory=dict)
    scenarios: dict[str, Scenario] = field(default_factory=dict)
    partial: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)


def _files(path: Path, problems: list[str]) -> Iterable[Path]:
    """The file named, or the documents and records.jsonl under a folder; a path the
    walk skipped (FIFO, symlink loop, ...) is one line in ``problems``."""
    if not path.is_dir():
        yield path
        return
    walked = walk(path, lambda p: p.suffix in SUFFIXES or p.name == "records.jsonl")
    problems.extend(walked.skipped_lines())
    yield from walked.files


def collect_inputs(paths: Iterable[Path], catalog: Catalog | None = None) -> Inputs:
    """Read every document under ``paths``; the catalog adds workloads and scenarios
    the inputs do not carry themselves (inputs win on a clash: they are what ran)."""
    found = Inputs()
    records: list[Path] = []
    dirs_with_result: set[Path] = set()
    for path in paths:
        odd = file_type(path)
        if odd is not None or not path.exists():
            found.problems.append(f"{path}: {'no such file or folder' if odd is None else f'is {odd}, not a file or folder'}")
            continue
        for f in _files(path, found.problems):
            if f.name == "records.jsonl":
                records.append(f)
                continue
            loaded = load(f)
            doc = loaded.document
            if not loaded.ok:
                # a file that cannot be read or parsed might have been a result: say so. Plain
                # JSON/YAML without a kind (another tool's file) is simply not a document.
                kind = loaded.data.get("kind") if isinstance(loaded.data, dict) else None
                if loaded.data is None or doc is not None or kind in ("Result", "Prediction", "EvaluationRun"):
                    first = next(i for i in loaded.issues if i.level == "error")
                    found.problems.append(first.format(str(f)) + " (left out of the report)")
                continue
            if isinstance(doc, REPORTED_KINDS):
                try:
                    stored_intervals(doc)  # a simulated Result's interval, as the charts draw it
                except ValueError as exc:
                    found.problems.append(f"{f}: {exc} (left out of the report)")
                    continue
                found.documents.append((doc, f))
                if isinstance(doc, Result):
                    dirs_with_result.add(f.parent.resolve())
            elif isinstance(doc, Workload):
                found.workloads[doc.id] = doc
            elif isinstance(doc, Scenario):
                found.scenarios[doc.name] = doc
    cat = catalog
    for rec in records:
        if rec.parent.resolve() in dirs_with_result:
            continue
        from servescope.bench.recover import result_from_records

        try:
            cat = cat or Catalog.load()
            found.documents.append((result_from_records(rec, cat), rec))
            found.partial.append(rec)
        except (ServescopeError, ValueError, KeyError, OSError) as exc:
            found.problems.append(f"{rec}: cannot rebuild a result from the records: {exc} (left out of the report)")
    cat = cat or Catalog.load()
    for key in cat.ids("workloads"):
        found.workloads.setdefault(key, cat.workload(key))
    for key in cat.ids("scenarios"):
        found.scenarios.setdefault(key, cat.scenario(key))
    return found
