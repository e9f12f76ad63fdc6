"""Where ``servescope import`` writes what it imported.

- a folder (``--out DIR``, the default form): ``DIR/result.json`` and
  ``DIR/evaluation-run.json``, the names a servescope run writes;
- a file ending in ``.json``/``.yaml``/``.yml`` (the older form): the
  EvaluationRun there, as before, and the Result beside it as
  ``<stem>.result<suffix>``.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml

from servescope.documents import EvaluationRun, Result
from servescope.errors import DocumentError
from servescope.redaction import redact_obj

RESULT_FILE = "result.json"
RUN_FILE = "evaluation-run.json"
_FILE_SUFFIXES = (".json", ".yaml", ".yml")


def render(data: dict[str, Any], suffix: str) -> str:
    if suffix in (".yaml", ".yml"):
        return str(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


def targets(out: Path) -> tuple[Path, Path]:
    """(result path, evaluation-run path) for ``--out``."""
    if out.suffix.lower() in _FILE_SUFFIXES and not out.is_dir():
        return out.with_name(f"{out.stem}.result{out.suffix}"), out
    return out / RESULT_FILE, out / RUN_FILE


def write_documents(result: Result, run: EvaluationRun, out: Path) -> tuple[Path, Path]:
    """Write both documents for ``--out`` (module docstring); returns (result path, run path)."""
    result_path, run_path = targets(out)
    try:
        run_path.parent.mkdir(parents=True, exist_ok=True)
        for path, doc in ((result_path, result), (run_path, run)):
            # under the one redaction rule, as Document.write_json writes: an export may carry a key
            path.write_text(render(redact_obj(doc.dump()), path.suffix.lower()), encoding="utf-8")
    except OSError as exc:
        raise DocumentError(str(out), f"cannot be written: {exc.strerror or exc}") from exc
    return result_path, run_path
