"""The catalog: packaged and user workloads, datasets, scenarios, hardware, models.

A catalog root is a folder with any of ``workloads/``, ``datasets/``,
``scenarios/``, ``hardware/``, ``models/`` and an optional ``catalog.lock.json``.
The packaged root ships inside servescope; user roots come from
``SERVESCOPE_CATALOG_PATH`` (``os.pathsep``-separated) or are passed in. Later
roots add to earlier ones; an id defined twice is a catalog error.

A file of a user root that is not a valid document (or is hostile: an alias bomb, a
huge list) is skipped and kept in ``broken`` with its reason; the document loader
bounds what reading it costs (``servescope.limits``), so one bad file never stalls a
command. ``catalog list`` prints them, and an unknown id names them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from servescope.catalog.lock import sha256_file
from servescope.documents import Dataset, DatasetRow, Document, Hardware, Model, Scenario, Workload, load
from servescope.documents.walk import Walked, walk
from servescope.errors import CatalogError

SUBDIRS: dict[str, type[Document]] = {
    "workloads": Workload,
    "datasets": Dataset,
    "scenarios": Scenario,
    "hardware": Hardware,
    "models": Model,
}
DOCUMENT_SUFFIXES = (".json", ".yaml", ".yml")
LOCK_FILE = "catalog.lock.json"


def packaged_root() -> Path:
    """The catalog shipped inside the package."""
    return Path(str(resources.files("servescope") / "data"))


def user_roots() -> list[Path]:
    raw = os.environ.get("SERVESCOPE_CATALOG_PATH", "")
    return [Path(p) for p in raw.split(os.pathsep) if p.strip()]


def document_walk(root: Path) -> Walked:
    """Document files under a folder, recursively, in a stable order, and what was skipped."""
    return walk(root, lambda path: path.suffix.lower() in DOCUMENT_SUFFIXES and path.name != LOCK_FILE)


def document_files(root: Path) -> Iterator[Path]:
    """Document files under a folder, recursively, in a stable order (``document_walk``
    also says which paths it skipped)."""
    yield from document_walk(root).files


def doc_key(doc: Document) -> str:
    return str(getattr(doc, "id", None) or getattr(doc, "name", ""))


@dataclass
class Entry:
    document: Document
    path: Path


@dataclass
class Catalog:
    """Every document of every root, indexed by kind folder and id."""

    roots: list[Path] = field(default_factory=list)
    entries: dict[str, dict[str, Entry]] = field(default_factory=lambda: {k: {} for k in SUBDIRS})
    broken: list[Path] = field(default_factory=list)
    broken_reasons: dict[Path, str] = field(default_factory=dict)

    @classmethod
    def load(cls, roots: Iterable[Path] | None = None, *, include_packaged: bool = True) -> Catalog:
        cat = cls()
        all_roots = ([packaged_root()] if include_packaged else []) + list(roots if roots is not None else user_roots())
        for root in all_roots:
            cat.add_root(root)
        return cat

    def add_root(self, root: Path) -> None:
        self.roots.append(root)
        for sub, model in SUBDIRS.items():
            folder = root / sub
            if not folder.is_dir():
                continue
            walked = document_walk(folder)
            for path, why in walked.skipped:
                self.broken.append(path)
                self.broken_reasons[path] = why
            for path in walked.files:
                loaded = load(path)
                if isinstance(loaded.document, model) and loaded.ok:
                    self.add(sub, loaded.document, path)
                else:
                    self.broken.append(path)
                    first = next((i for i in loaded.issues if i.level == "error"), None)
                    self.broken_reasons[path] = (
                        (f"{first.path}: " if first.path else "") + first.message
                        if first is not None
                        else f"is a {type(loaded.document).__name__}, not a {model.__name__} (it sits in {sub}/)"
                    )

    def broken_lines(self) -> list[str]:
        """One line per skipped file: ``PATH: skipped: reason``."""
        return [f"{path}: skipped: {self.broken_reasons.get(path, 'not a valid document')}" for path in self.broken]

    def add(self, sub: str, doc: Document, path: Path) -> None:
        key = doc_key(doc)
        existing = self.entries[sub].get(key)
        if existing is not None and existing.path.resolve() != path.resolve():
            if existing.document.dump() != doc.dump():
                raise CatalogError(f"{path}: {sub} id {key!r} is already defined by {existing.path}")
            return
        self.entries[sub][key] = Entry(doc, path)

    def _get(self, sub: str, key: str) -> Entry:
        entry = self.entries[sub].get(key)
        if entry is None:
            known = ", ".join(sorted(self.entries[sub])) or "none"
            skipped = [p for p in self.broken if sub in p.parts]
            note = (
                f"; {len(skipped)} file(s) in {sub}/ were skipped as invalid, e.g. {skipped[0]}: {self.broken_reasons.get(skipped[0], 'not a valid document')}"
                if skipped
                else ""
            )
            raise CatalogError(f"unknown {sub[:-1] if sub != 'hardware' else 'hardware'} {key!r}; known: {known}{note}")
        return entry

    def workload(self, key: str) -> Workload:
        return self._get("workloads", key).document  # type: ignore[return-value]

    def dataset(self, key: str) -> Dataset:
        return self._get("datasets", key).document  # type: ignore[return-value]

    def scenario(self, key: str) -> Scenario:
        return self._get("scenarios", key).document  # type: ignore[return-value]

    def hardware(self, key: str) -> Hardware:
        return self._get("hardware", key).document  # type: ignore[return-value]

    def model(self, key: str) -> Model:
        return self._get("models", key).document  # type: ignore[return-value]

    def ids(self, sub: str) -> list[str]:
        return sorted(self.entries[sub])

    def dataset_rows(self, key: str) -> list[DatasetRow]:
        """The rows of a dataset, after checking its pinned digest."""
        entry = self._get("datasets", key)
        ds: Dataset = entry.document  # type: ignore[assignment]
        rows_path = entry.path.parent / ds.rows_file
        digest = sha256_file(rows_path)
        if digest != ds.rows_sha256:
            raise CatalogError(f"{rows_path}: sha256 {digest} differs from the pinned {ds.rows_sha256}")
        with rows_path.open(encoding="utf-8") as fh:
            return [DatasetRow.model_validate(json.loads(line)) for line in fh if line.strip()]
