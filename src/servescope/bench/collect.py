"""Gather Results from files and folders, including runs that never finished:
a run folder with ``records.jsonl`` but no ``result.json`` (killed, interrupted,
still going) is rebuilt from its records. A file that cannot be read is reported
by name and the others are still gathered; request lines a records file holds but
that cannot be used are counted by reason, never dropped silently."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

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


def collect_results(paths: Iterable[Path], catalog: Catalog | None = None) -> Collected:
    out = Collected()
    cat = catalog
    seen_dirs: set[Path] = set()
    for path in paths:
        odd = file_type(path)
        if odd is not None or not path.exists():
            out.problems.append(f"{path}: {'no such file or folder' if odd is None else f'is {odd}, not a file or folder'}")
            continue
        files = list(_result_files(path, out.problems))
        for f in files:
            if f.name == "records.jsonl":
                continue
            loaded = load(f)
            if isinstance(loaded.document, Result):
                if loaded.ok:
                    out.results.append(loaded.document)
                    seen_dirs.add(f.parent.resolve())
                else:
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
            except (ServescopeError, ValueError, KeyError, OSError) as exc:
                out.problems.append(f"{rec}: cannot rebuild a result from the records: {exc} (skipped)")
                continue
            out.results.append(got.result)
            out.partial.append(rec)
            out.partial_runs[got.result.run_id] = got.dropped
            if got.dropped:
                out.dropped[rec] = got.dropped
    return out
