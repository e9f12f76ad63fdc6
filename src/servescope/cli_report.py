"""``servescope report``: the static site of Results, Predictions and EvaluationRuns."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console


def _consoles() -> tuple[Console, Console]:
    """(stdout, stderr) consoles as ``servescope.cli`` makes them; not imported from
    it, so the command module does not import the app that imports it."""
    width = None if sys.stdout.isatty() else 160
    return (Console(highlight=False, soft_wrap=True, width=width), Console(stderr=True, highlight=False, soft_wrap=True, width=width))


def report_command(
    inputs: Annotated[
        list[Path], typer.Option("--in", help="Result, Prediction, EvaluationRun (and Workload, Scenario) files or folders, searched recursively.")
    ],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write the site into (index.html, assets/, runs/, workloads/, summary/).")],
) -> None:
    """Write a static HTML report (opens from disk; no server, no network): coverage map, charts, run pages, summary."""
    from servescope.output_paths import check_output_folder
    from servescope.report import write_report

    check_output_folder(out_dir)
    out, err = _consoles()

    files = write_report(inputs, out_dir)
    for line in files.problems:
        err.print(line, markup=False)
    for path in files.partial:
        out.print(f"{path}: partial run, reported from its records", markup=False)
    out.print(f"{files.runs} run(s), {files.pages} page(s)", markup=False)
    out.print(str(files.index.resolve()), markup=False)
