"""``servescope report --in PATHS --out DIR``: a static site that opens from disk.

DIR gets ``index.html`` (coverage map, workloads, summary), ``workloads/*.html``
(charts), ``runs/*.html`` (one page per document), ``summary/`` (the summary
files of ``servescope summarize``) and ``assets/`` (Plotly's JS copied from the
installed plotly package, the site's own script and style sheet). No page loads
anything from the network; fonts are the system's."""

from __future__ import annotations

import shutil
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path

from servescope.analysis.summarize import write_summary
from servescope.catalog.store import Catalog
from servescope.documents import Result
from servescope.errors import UsageError
from servescope.redaction import redact
from servescope.report.context import Site
from servescope.report.coverage import (
    Staleness,
    build_coverage,
    newest_engines,
    superseded_by,
)
from servescope.report.evidence import slug, to_run
from servescope.report.index_page import render_index
from servescope.report.inputs import collect_inputs
from servescope.report.pairing import pair_runs
from servescope.report.run_page import render_run
from servescope.report.twins import split_twins
from servescope.report.workload_page import render_workload

ASSETS = ("report.js", "report.css")
SITE_FOLDERS = ("assets", "runs", "workloads", "summary")


@dataclass
class ReportFiles:
    index: Path
    pages: int
    runs: int
    problems: list[str] = field(default_factory=list)
    partial: list[Path] = field(default_factory=list)


def plotly_js() -> Path:
    import plotly

    path = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    if not path.is_file():
        raise UsageError(f"the installed plotly package has no {path.name} to bundle (reinstall plotly: pip install --force-reinstall plotly)")
    return path


def _write(path: Path, text: str) -> None:
    """Every page of the site: under the one redaction rule (a page copies workload
    descriptions, scenario names, args and failure messages from its inputs)."""
    path.write_text(redact(text), encoding="utf-8")


def write_report(paths: Iterable[Path], out_dir: Path, catalog: Catalog | None = None) -> ReportFiles:
    found = collect_inputs(list(paths), catalog)
    if not found.documents:
        why = f"; left out: {found.problems[0]}" + (f" (+{len(found.problems) - 1} more)" if len(found.problems) > 1 else "") if found.problems else ""
        raise UsageError(f"no Result, Prediction or EvaluationRun found in the given paths; give run folders or document files{why}")
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"{out_dir}: exists and is not a folder; give a folder for the report")
    if out_dir.is_dir() and any(out_dir.iterdir()):
        if not (out_dir / "index.html").is_file():
            raise UsageError(f"{out_dir}: is not empty and holds no earlier report; give a new or empty folder for the report")
        for sub in SITE_FOLDERS:  # an earlier report: its pages go, so none of a run no longer given stays behind
            shutil.rmtree(out_dir / sub, ignore_errors=True)
    runs = [to_run(doc, src, found.scenarios) for doc, src in found.documents]
    # run, import and predict write each run twice (a Result and its compact table): count it once
    runs, twins = split_twins(runs)
    seen = {r.workload_id for r in runs if r.workload_id}
    staleness = Staleness(superseded_by(found.workloads, seen), newest_engines(runs))
    site = Site(runs, staleness, pair_runs(runs), found.workloads, problems=list(found.problems), twins=len(twins))
    workload_ids = sorted({r.workload_id or "no workload" for r in runs})
    site.workload_pages = {wid: f"workloads/{slug(wid, Path(wid))}.html" for wid in workload_ids}

    for sub in ("assets", "runs", "workloads"):
        (out_dir / sub).mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js(), out_dir / "assets" / "plotly.min.js")
    for name in ASSETS:
        # packaged code, not a copy of any input: as shipped (the redaction rule must not rewrite a script)
        (out_dir / "assets" / name).write_text(resources.files("servescope.report").joinpath("assets", name).read_text(encoding="utf-8"), encoding="utf-8")
    results = [r.doc for r in runs if isinstance(r.doc, Result)]
    if results:
        write_summary(results, out_dir / "summary")
    for run in runs:
        _write(out_dir / run.page, render_run(run, site))
    for wid, page_path in site.workload_pages.items():
        _write(out_dir / page_path, render_workload(wid, site))
    index = out_dir / "index.html"
    _write(index, render_index(build_coverage(runs, staleness), site))
    return ReportFiles(index, 1 + len(runs) + len(workload_ids), len(runs), list(found.problems), list(found.partial))
