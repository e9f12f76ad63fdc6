"""The immutability lock: digests of each published workload's and dataset's
runnable content (everything but ``name``, ``description`` and ``notes``).

``catalog.lock.json`` maps id → {"digest", "fields": {field: digest}}; the
per-field digests let the validator name what changed. Entries are only ever
added (``servescope catalog lock``), never rewritten.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from servescope.documents import Dataset, Document, Workload


def sha256_file(path: Path) -> str:
    """The sha256 of a file's bytes (hex), read a MiB at a time."""
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


EDITABLE_FIELDS = frozenset({"name", "description", "notes"})
LOCK_FILE_NAME = "catalog.lock.json"
LOCKED_KINDS: dict[type[Document], str] = {Workload: "workloads", Dataset: "datasets"}


def _digest(value: Any) -> str:
    blob = json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    return hashlib.sha256(blob.encode()).hexdigest()


def runnable_content(doc: Document) -> dict[str, Any]:
    data = doc.model_dump(mode="json", exclude_none=True)
    return {k: v for k, v in data.items() if k not in EDITABLE_FIELDS}


def lock_entry(doc: Document) -> dict[str, Any]:
    content = runnable_content(doc)
    return {"digest": _digest(content), "fields": {k: _digest(v) for k, v in sorted(content.items())}}


def read_lock(path: Path) -> dict[str, dict[str, Any]]:
    if not path.is_file():
        return {"workloads": {}, "datasets": {}}
    data = json.loads(path.read_text(encoding="utf-8"))
    return {"workloads": data.get("workloads", {}), "datasets": data.get("datasets", {})}


def changed_fields(doc: Document, entry: dict[str, Any]) -> list[str] | None:
    """None when the document matches its lock entry; else the fields that differ."""
    now = lock_entry(doc)
    if now["digest"] == entry.get("digest"):
        return None
    old_fields: dict[str, str] = entry.get("fields", {})
    names = set(old_fields) | set(now["fields"])
    return sorted(n for n in names if old_fields.get(n) != now["fields"].get(n)) or ["(content)"]


def add_to_lock(lock_path: Path, docs: list[Document]) -> list[str]:
    """Add entries for documents not yet locked; returns the ids added."""
    lock = read_lock(lock_path)
    added = []
    for doc in docs:
        section = LOCKED_KINDS.get(type(doc))
        if section is None:
            continue
        key = str(getattr(doc, "id"))  # noqa: B009 - every locked kind has an id; Document, the type here, has none
        if key in lock[section]:
            continue
        lock[section][key] = lock_entry(doc)
        added.append(key)
    if added:
        ordered = {s: dict(sorted(lock[s].items())) for s in ("workloads", "datasets")}
        lock_path.write_text(json.dumps(ordered, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return added
