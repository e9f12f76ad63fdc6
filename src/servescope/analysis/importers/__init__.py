"""Importers: other harnesses' exports → ``Result`` and ``EvaluationRun``.

One module per harness. Each reads the harness's own export file as that tool
writes it into an ``Imported`` (``_model``): one point per concurrency level
found, filled only with what the tool measured (a metric it did not report stays
null; nothing is derived beyond arithmetic on reported values, such as mean
lengths from token totals, which the notes say), failed requests counted apart
from completed ones and categorised, and ``notes`` on where the harness's metric
definitions differ from servescope's (shared/DESIGN.md, "Metric definitions").
``_build`` makes the documents:

- the ``Result``: full distributions, TPOT, token totals, ``failures[]``, one
  ``points[]`` entry per concurrency, provenance (``metadata.harness``);
- the ``EvaluationRun``: one row per concurrency, the harness's headline means.

Bad input raises ``DocumentError(str(path), "one line")``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from servescope.analysis.importers._build import build_result, build_run
from servescope.analysis.importers._model import Imported
from servescope.analysis.importers.aiperf import import_aiperf, read_aiperf
from servescope.analysis.importers.guidellm import import_guidellm, read_guidellm
from servescope.analysis.importers.inference_perf import (
    import_inference_perf,
    read_inference_perf,
)
from servescope.analysis.importers.vllm import import_vllm, read_vllm
from servescope.documents import EvaluationRun, Result
from servescope.errors import DocumentError

READERS: dict[str, Callable[[Path], Imported]] = {
    "aiperf": read_aiperf,
    "guidellm": read_guidellm,
    "inference-perf": read_inference_perf,
    "vllm": read_vllm,
}
IMPORTERS: dict[str, Callable[[Path, str], EvaluationRun]] = {
    "aiperf": import_aiperf,
    "guidellm": import_guidellm,
    "inference-perf": import_inference_perf,
    "vllm": import_vllm,
}


def read_export(harness: str, path: str | Path) -> Imported:
    """Read ``path``, an export written by ``harness``."""
    reader = READERS.get(harness)
    if reader is None:
        raise DocumentError(str(path), f"unknown harness {harness!r}; one of: {', '.join(sorted(READERS))}")
    return reader(Path(path))


def _given(path: str | Path, value: str | None, what: str) -> str | None:
    if value is not None and not value.strip():
        raise DocumentError(str(path), f"the {what} is empty; omit it or give one")
    return value


def import_documents(
    harness: str,
    path: str | Path,
    scenario: str,
    *,
    workload: str | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
) -> tuple[Result, EvaluationRun]:
    """The Result and the EvaluationRun of ``scenario`` from ``path``, an export of ``harness``.

    Exports do not record the engine, its version or the servescope workload they
    ran: ``engine`` is ``"unknown"`` and ``engine_version`` null (``"unknown"`` in
    the EvaluationRun) unless given; ``workload`` is the Result's ``workload_id``
    (default ``<harness>-export``) and the EvaluationRun's ``workload`` (default
    none).
    """
    engine_version = _given(path, engine_version, "engine version")
    engine = _given(path, engine, "engine id")
    workload = _given(path, workload, "workload id")
    imported = read_export(harness, path)
    result = build_result(Path(path), imported, scenario=scenario, workload=workload, engine=engine, engine_version=engine_version)
    run = build_run(Path(path), imported, scenario=scenario, engine_version=engine_version, workload=workload)
    return result, run


def import_export(harness: str, path: str | Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """Import ``path``, an export written by ``harness``, as an EvaluationRun of ``scenario``.

    ``engine_version`` is the engine release the run exercised; exports do not
    record it, so it is ``"unknown"`` unless given.
    """
    engine_version = _given(path, engine_version, "engine version")
    return build_run(Path(path), read_export(harness, path), scenario=scenario, engine_version=engine_version)


def import_result(
    harness: str,
    path: str | Path,
    scenario: str,
    *,
    workload: str | None = None,
    engine: str | None = None,
    engine_version: str | None = None,
) -> Result:
    """Import ``path``, an export written by ``harness``, as a Result (see ``import_documents``)."""
    return import_documents(harness, path, scenario, workload=workload, engine=engine, engine_version=engine_version)[0]


__all__ = [
    "IMPORTERS",
    "READERS",
    "Imported",
    "import_aiperf",
    "import_documents",
    "import_export",
    "import_guidellm",
    "import_inference_perf",
    "import_result",
    "import_vllm",
    "read_export",
]
