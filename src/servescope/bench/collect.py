"""Gather Results from files and folders, including runs that never finished:
a run folder with ``records.jsonl`` but no ``result.json`` (killed, interrupted,
still going) is rebuilt from its records. A file that cannot be read is reported
by name and the others are still gathered; request lines a records file holds but
that cannot be used are counted by reason, never dropped silently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from servescope.bench.recover import recover
from servescope.catalog.store import Catalog
from servescope.documents import Result, load
from servescope.documents.walk import file_type, walk
from servescope.errors import DocumentError, ServescopeError


@dataclass
class Collected:
    results: list[Result] = field(default_factory=list)
    partial: list[Path] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    # records file -> request lines it holds that could not be used, by reason
    dropped: dict[Path, dict[str, int]] = field(default_factory=dict)
    # records file -> reason -> "line N: field = value" of the first line left out for it
    dropped_at: dict[Path, dict[str, str]] = field(default_factory=dict)
    # run_id -> dropped lines by reason, for every run rebuilt from its records
    partial_runs: dict[str, dict[str, int]] = field(default_factory=dict)


def _result_files(path: Path, problems: list[str]) -> Iterable[Path]:
    """The file named, or the document files (and records.jsonl) under a folder; a path
    the walk skipped (FIFO, symlink loop, ...) is one line in ``problems``."""
    if not path.is_dir():
        yield path
        return
    walked = walk(path, lambda p: p.suffix in (".json", ".yaml", ".yml") or p.name == "records.jsonl")
    problems.extend(walked.skipped_lines())
    yield from walked.files


def unfinished_runs(paths: Iterable[Path | str]) -> list[Path]:
    """Records files (named, or in the folders named) of runs that wrote no
    ``result.json`` beside them: killed, interrupted or still going."""
    found: set[Path] = set()
    for raw in paths:
        path = Path(raw)
        records = [path] if path.is_file() and path.name == "records.jsonl" else sorted(path.rglob("records.jsonl")) if path.is_dir() else []
        found.update(r for r in records if not (r.parent / "result.json").is_file())
    return sorted(found)


def unfinished_line(records: Path) -> str:
    """What to say of a run that did not finish, and how to read it anyway."""
    return (
        f"{records}: the records of a run that did not finish (no result.json beside them: killed, interrupted or still going); "
        f"summarize rebuilds its Result from them: servescope summarize --in {records.parent} --out SUMMARY_FOLDER"
    )


def _same_but_rebuild_time(a: Result, b: Result) -> bool:
    return a.model_dump(exclude={"metadata": {"finished_at"}}) == b.model_dump(exclude={"metadata": {"finished_at"}})


def collect_results(paths: Iterable[Path], catalog: Catalog | None = None) -> Collected:
    out = Collected()
    cat = catalog
    seen_dirs: set[Path] = set()
    seen_files: set[Path] = set()  # a file reached twice (overlapping --in paths) is read once
    run_at: dict[tuple[str, Any], list[tuple[Any, Path]]] = {}  # (kind, run id) -> documents found: a copied run folder is read once

    def first_sight(doc: Result, where: Path) -> bool:
        """False for a document already found elsewhere, field for field (a copied run folder)."""
        key = ("Result", doc.run_id)
        same = run_at.setdefault(key, [])
        for other, first in same:
            # (field for field but the time a rebuild from records was made: two rebuilds of a copied
            # killed run straddling a second differ only there)
            if first != where and (other == doc or _same_but_rebuild_time(other, doc)):
                out.problems.append(f"{where}: run {key[1]} again (the same as {first}; a copy?): counted once")
                return False
        same.append((doc, where))
        return True

    for path in paths:
        odd = file_type(path)
        if odd is not None or not path.exists():
            out.problems.append(f"{path}: {'no such file or folder' if odd is None else f'is {odd}, not a file or folder'}")
            continue
        files = []
        for f in _result_files(path, out.problems):
            key = f.resolve()
            if key not in seen_files:
                seen_files.add(key)
                files.append(f)
        for f in files:
            if f.name == "records.jsonl":
                continue
            loaded = load(f)
            if isinstance(loaded.document, Result):
                if loaded.ok:
                    seen_dirs.add(f.parent.resolve())
                    if first_sight(loaded.document, f):
                        out.results.append(loaded.document)
                else:
                    first = next(i for i in loaded.issues if i.level == "error")
                    out.problems.append(first.format(str(f)) + " (skipped)")
            elif not loaded.ok and isinstance(loaded.data, dict) and loaded.data.get("kind") == "Result":
                # a Result this version cannot read (a newer schema, a hand edit): said, never silently
                # replaced by the Result its records rebuild (which is then summarized, and says so)
                first = next(i for i in loaded.issues if i.level == "error")
                out.problems.append(first.format(str(f)) + " (skipped)")
        records = [f for f in files if f.name == "records.jsonl"]
        for rec in records:
            if rec.parent.resolve() in seen_dirs:
                continue
            try:
                cat = cat or Catalog.load()
                got = recover(rec, cat)
            except DocumentError as exc:
                out.problems.append(f"{exc} (skipped)" if str(exc).startswith(str(rec)) else f"{rec}: {exc} (skipped)")
                continue
            except ValidationError as exc:  # what the records add up to is not a valid Result
                detail = exc.errors()[0]
                where = ".".join(str(p) for p in detail["loc"])
                out.problems.append(f"{rec}: cannot rebuild a result from the records: {where}: {detail['msg']} (skipped)")
                continue
            except (ServescopeError, ValueError, KeyError, OSError, TypeError, AttributeError, IndexError, OverflowError) as exc:
                # (data of a shape no writer of ours makes: this file is skipped, the others still summarized)
                out.problems.append(f"{rec}: cannot rebuild a result from the records: {' '.join(str(exc).split())} (skipped)")
                continue
            if not first_sight(got.result, rec):
                continue
            if not got.result.metrics.total_requests:  # a run stopped before its first request ended: no episode
                out.problems.append(f"{rec}: no request recorded (a run stopped before its first request ended): left out")
                continue
            out.results.append(got.result)
            out.partial.append(rec)
            out.partial_runs[got.result.run_id] = got.dropped
            if got.dropped:
                out.dropped[rec] = got.dropped
                out.dropped_at[rec] = got.dropped_at
    return out
