"""Importers: other harnesses' exports → ``EvaluationRun``.

One module per harness. Each reads the harness's own export file as that tool
writes it, makes one point per concurrency level found, fills only what the tool
measured (a metric it did not report stays null; nothing is derived), and lists in
``notes`` where the harness's metric definitions differ from servescope's
(shared/DESIGN.md, "Metric definitions"). Bad input raises
``DocumentError(str(path), "one line")``.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from servescope.analysis.importers.aiperf import import_aiperf
from servescope.analysis.importers.guidellm import import_guidellm
from servescope.analysis.importers.inference_perf import import_inference_perf
from servescope.analysis.importers.vllm import import_vllm
from servescope.documents import EvaluationRun
from servescope.errors import DocumentError

IMPORTERS: dict[str, Callable[[Path, str], EvaluationRun]] = {
    "aiperf": import_aiperf,
    "guidellm": import_guidellm,
    "inference-perf": import_inference_perf,
    "vllm": import_vllm,
}


def import_export(harness: str, path: str | Path, scenario: str, engine_version: str | None = None) -> EvaluationRun:
    """Import ``path``, an export written by ``harness``, as an EvaluationRun of ``scenario``.

    ``engine_version`` is the engine release the run exercised; exports do not
    record it, so it is ``"unknown"`` unless given.
    """
    importer = IMPORTERS.get(harness)
    if importer is None:
        raise DocumentError(str(path), f"unknown harness {harness!r}; one of: {', '.join(sorted(IMPORTERS))}")
    run = importer(Path(path), scenario)
    if engine_version is not None:
        if not engine_version.strip():
            raise DocumentError(str(path), "the engine version is empty; omit it or give the engine release")
        run = run.model_copy(update={"engine_version": engine_version})
    return run


__all__ = ["IMPORTERS", "import_aiperf", "import_export", "import_guidellm", "import_inference_perf", "import_vllm"]
