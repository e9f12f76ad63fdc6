"""``servescope validate``: every document under the given paths, each checked
alone and against the catalog around it."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from servescope.catalog.rules import catalog_issues
from servescope.catalog.store import SUBDIRS, Catalog, document_files, document_walk, packaged_root, user_roots
from servescope.documents import Dataset, Document, Issue, Loaded, load
from servescope.documents.base import error, warning


@dataclass
class Report:
    """The outcome of validating a set of files."""

    files: list[Loaded] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for f in self.files for i in f.issues if i.level == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.files for i in f.issues if i.level == "warning")

    def issues(self) -> Iterable[tuple[str, Issue]]:
        for f in self.files:
            for i in f.issues:
                yield f.source, i


def expand(paths: Iterable[str | Path]) -> list[tuple[str, Path]]:
    """Files named, and document files inside folders named (recursively)."""
    out: list[tuple[str, Path]] = []
    for raw in paths:
        p = Path(raw)
        if p.is_dir():
            out.extend((str(f), f) for f in document_files(p))
        else:
            out.append((str(raw), p))
    return out


ExtraCheck = Callable[[Document, Catalog], list[Issue]]


def validate_paths(paths: Iterable[str | Path], catalog: Catalog | None = None, extra_checks: Sequence[ExtraCheck] = ()) -> Report:
    """Validate every document; ``extra_checks`` come from higher layers (the
    predictor's plausibility physics) so the catalog never imports them."""
    cat = catalog if catalog is not None else Catalog.load()
    paths = list(paths)
    files = expand(paths)
    report = Report()
    for raw in paths:  # a folder named but holding no document: a gate must not pass on nothing
        if Path(raw).is_dir():
            walked = document_walk(Path(raw))
            if not walked.files:
                report.files.append(Loaded(source=str(raw), issues=[error("", "no documents found (no .yaml, .yml or .json files in it)")]))
            # a path the walk could not use is said, never passed over (a warning: --strict fails on it)
            report.files.extend(Loaded(source=str(path), issues=[warning("", f"{why}; not validated")]) for path, why in walked.skipped)
    loaded_all = []
    for source, path in files:
        loaded = load(path)
        loaded.source = source
        loaded_all.append((loaded, path))
    extra_datasets = {ld.document.id for ld, _ in loaded_all if isinstance(ld.document, Dataset)}
    for loaded, path in loaded_all:
        if loaded.document is not None:
            try:
                loaded.issues.extend(catalog_issues(loaded.document, path, cat, extra_datasets))
                if loaded.ok:
                    for check in extra_checks:
                        loaded.issues.extend(check(loaded.document, cat))
            except (OSError, ValueError) as exc:
                loaded.issues.append(error("", f"could not be checked against the catalog: {exc}"))
        report.files.append(loaded)
    return report


def catalog_paths() -> list[Path]:
    """The kind folders of every catalog root (packaged first, then user roots)."""
    return [root / sub for root in [packaged_root(), *user_roots()] for sub in SUBDIRS if (root / sub).is_dir()]
