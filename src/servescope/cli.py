"""The ``servescope`` command line: thin wrappers over library functions.

Each command parses its arguments, calls one library entry point and prints
the outcome. Every ``ServescopeError`` becomes one line on stderr and an exit
code; tracebacks are shown only with ``SERVESCOPE_DEBUG=1``.
"""

from __future__ import annotations

import json
import os
import sys
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.console import Console
from rich.table import Table

from servescope import __version__
from servescope.cli_args import CLICK_ERROR, check_scenario_name, click_error_line
from servescope.cli_examples import epilog
from servescope.errors import ServescopeError
from servescope.redaction import RedactingStream, redact, remember_environment

if TYPE_CHECKING:  # imported lazily at run time: the CLI starts without them
    from servescope.catalog.store import Catalog
    from servescope.documents.base import Document, Issue

app = typer.Typer(
    name="servescope",
    help="Predict, measure and compare how an LLM deployment serves a workload.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    epilog=epilog(""),
)
catalog_app = typer.Typer(help="List and lock the workload/dataset catalog.", no_args_is_help=True, epilog=epilog("catalog"))
app.add_typer(catalog_app, name="catalog")

from servescope.cli_run import engine_app, run_command  # noqa: E402 - after app creation on purpose

app.command("run", epilog=epilog("run"))(run_command)
from servescope.cli_image import t2i_reference_command  # noqa: E402 - after app creation on purpose

app.command("t2i-reference", epilog=epilog("t2i-reference"))(t2i_reference_command)
app.add_typer(engine_app, name="engine")

from servescope.cli_predict import calibrate_command, predict_command, probe_command, search_command  # noqa: E402

app.command("predict", epilog=epilog("predict"))(predict_command)
app.command("calibrate", epilog=epilog("calibrate"))(calibrate_command)
app.command("search", epilog=epilog("search"))(search_command)
app.command("probe", epilog=epilog("probe"))(probe_command)

from servescope.cli_report import report_command  # noqa: E402

app.command("report", epilog=epilog("report"))(report_command)

# Tables stay readable when piped (rich would otherwise assume 80 columns).
_WIDTH = None if sys.stdout.isatty() else 160
out = Console(highlight=False, soft_wrap=True, width=_WIDTH)
err = Console(stderr=True, highlight=False, soft_wrap=True, width=_WIDTH)


class OutputFormat(str, Enum):
    text = "text"
    json = "json"


def _version(value: bool) -> None:
    if value:
        out.print(f"servescope {__version__}")
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")] = False,
) -> None:
    """servescope: predict it, measure it, compare both honestly."""


def _plausibility(doc: Document, catalog: Catalog) -> list[Issue]:
    """Impossible times in any measurement or prediction; the predictor's physics on
    measurements whose scenario is known."""
    from servescope.analysis.predicted_intervals import stored_intervals
    from servescope.documents import EvaluationRun, Prediction, Result
    from servescope.documents.base import error
    from servescope.predict.plausibility import plausibility_issues

    if not isinstance(doc, (Result, EvaluationRun, Prediction)):
        return []
    issues = plausibility_issues(doc, catalog=catalog)
    try:
        stored_intervals(doc)  # a simulated Result's intervals, as compare and report read them
    except ValueError as exc:
        where, _, what = str(exc).partition(": ")
        issues.append(error(where, what))
    return issues


@app.command(epilog=epilog("validate"))
def validate(
    paths: Annotated[list[Path] | None, typer.Argument(help="Document files or folders (searched recursively).")] = None,
    catalog: Annotated[bool, typer.Option("--catalog", help="Also validate the whole catalog (packaged + SERVESCOPE_CATALOG_PATH).")] = False,
    fmt: Annotated[OutputFormat, typer.Option("--format", help="text or json.")] = OutputFormat.text,
    strict: Annotated[bool, typer.Option(help="Treat warnings as errors.")] = False,
) -> None:
    """Validate documents (kind detected from each file) against their rules and the catalog."""
    from servescope.bench.collect import unfinished_line, unfinished_runs
    from servescope.catalog.validate import catalog_paths, validate_paths

    targets = list(paths or []) + (catalog_paths() if catalog else [])
    if not targets:
        err.print("error: give document files or folders to validate, or --catalog", markup=False)
        raise typer.Exit(2)
    # a run's records.jsonl is no document (one JSON line per request): its run's result.json stands for it
    for i, t in enumerate(targets):
        if Path(t).name == "records.jsonl" and Path(t).is_file() and (Path(t).parent / "result.json").is_file():
            out.print(f"{t}: a run's records, not a document: validating its run's result.json instead", markup=False)
            targets[i] = Path(t).parent / "result.json"
    # A killed run leaves records but no Result: named as such (and failing the gate), not "no documents".
    unfinished = unfinished_runs(targets)
    report = validate_paths([t for t in targets if Path(t) not in unfinished], extra_checks=[_plausibility])
    report.files = [f for f in report.files if not (f.document is None and Path(f.source).is_dir() and any(Path(f.source) in u.parents for u in unfinished))]
    # A gate that found nothing to check must not pass (a wrong path in CI).
    failed = report.errors > 0 or (strict and report.warnings > 0) or not report.files or bool(unfinished)
    if fmt is OutputFormat.json:
        payload = {
            "files": len(report.files),
            "errors": report.errors + len(unfinished),
            "warnings": report.warnings,
            "valid": not failed,
            "issues": [i.as_dict(src) for src, i in report.issues()],
            "unfinished_runs": [str(u) for u in unfinished],
        }
        print(json.dumps(payload, indent=2))
    else:
        for source, issue in report.issues():
            (err if issue.level == "error" else out).print(issue.format(source), markup=False)
        for records in unfinished:
            err.print(f"error: {unfinished_line(records)}", markup=False)
        if not report.files and not unfinished:
            err.print(f"error: no documents found in {', '.join(map(str, targets))} (no .yaml, .yml or .json files); "
                      "nothing was validated", markup=False)  # fmt: skip
        verdict = "[red]invalid[/red]" if failed else "[green]valid[/green]"
        out.print(f"{len(report.files)} file(s): {report.errors + len(unfinished)} error(s), {report.warnings} warning(s) — {verdict}")
    raise typer.Exit(1 if failed else 0)


@app.command(epilog=epilog("schema"))
def schema(
    out_dir: Annotated[Path, typer.Option("--out", help="Folder to write <kind>.schema.json files into.")] = Path("schemas"),
) -> None:
    """Write the JSON Schemas (draft 2020-12) of every document kind."""
    from servescope.documents.schema import write_schemas
    from servescope.output_paths import check_output_folder

    check_output_folder(out_dir)
    for path in write_schemas(out_dir):
        out.print(str(path))


@app.command(epilog=epilog("summarize"))
def summarize(
    inputs: Annotated[list[Path], typer.Option("--in", help="Result files or folders (searched recursively; partial runs included).")],
    out_dir: Annotated[Path, typer.Option("--out", help="Folder for the summary files.")],
    basename: Annotated[str, typer.Option(help="File name stem of the summary files.")] = "summary",
) -> None:
    """Summarize Results: summary_v0.2.csv, summary_v0.3.csv, summary.csv and summary.md."""
    from servescope.analysis.summarize import group_results, pooled_scores, score_line, write_summary
    from servescope.bench.collect import collect_results
    from servescope.output_paths import check_file_name, check_output_folder

    check_output_folder(out_dir)
    check_file_name(basename, "--basename")
    found = collect_results(inputs)
    for line in [*filter(None, map(_not_a_result, inputs)), *found.problems]:
        err.print(line, markup=False)
    for path in found.partial:
        # a finished run whose result.json was left out (named above, with its field) is no partial run
        beside = path.parent / "result.json"
        what = f"summarized from its records instead of {beside}" if beside.is_file() else "partial run, summarized from its records"
        out.print(f"{path}: {what}", markup=False)
    for path, dropped in found.dropped.items():
        reasons = ", ".join(f"{n} {why}" for why, n in dropped.items())
        first = "; ".join(f"{why} at {where}" for why, where in found.dropped_at.get(path, {}).items())
        where = f" (first {first})" if first else ""
        out.print(f"{path}: {sum(dropped.values())} record(s) dropped: {reasons}{where}; the other records are summarized", markup=False)
    if not found.results:
        err.print("error: no Result found in the given paths (--in takes result.json files, run folders and runs' records.jsonl)", markup=False)
        raise typer.Exit(2)
    files = write_summary(found.results, out_dir, basename, partial_runs=found.partial_runs)
    out.print(f"{files.results} result(s) in {files.groups} group(s)")
    for group in group_results(found.results):
        pooled = pooled_scores(group.results)
        if pooled is not None:
            out.print(f"{group.key[0]} {group.key[4]} {group.key[1]} {group.key[3]}: {score_line(pooled)}", markup=False)
    for p in (files.v02, files.v03, files.csv, files.markdown):
        out.print(str(p), markup=False)


def _not_a_result(path: Path) -> str | None:
    """One line for a file given to ``summarize --in`` that is no Result (a trace, a Prediction);
    None for a folder, a records.jsonl, a Result (``collect_results`` names a broken one)."""
    from servescope.documents import Result, load

    if path.name == "records.jsonl" or not path.is_file():
        return None
    loaded = load(path)
    kind = loaded.data.get("kind") if isinstance(loaded.data, dict) else None
    if isinstance(loaded.document, Result) or kind == "Result":
        return None
    what = f"is a {kind}" if isinstance(kind, str) else "is not a servescope document"
    return f"{path}: {what}, not a Result: left out (--in takes result.json files, run folders and runs' records.jsonl)"


class CompareFormat(str, Enum):
    text = "text"
    json = "json"
    csv = "csv"
    md = "md"


@app.command(epilog=epilog("compare"))
def compare(
    a: Annotated[Path, typer.Argument(help="A: a Prediction, EvaluationRun or Result, or the folder holding it (e.g. the prediction).")],
    b: Annotated[
        Path, typer.Argument(help="B: the reference (e.g. the measured run's result.json, its folder, or the records.jsonl of a run that never finished).")
    ],
    fmt: Annotated[CompareFormat, typer.Option("--format", help="text, json, csv or md.")] = CompareFormat.text,
    force: Annotated[bool, typer.Option(help="Compare even when scenarios or workloads differ (and say so).")] = False,
    plot: Annotated[
        Path | None, typer.Option(help="Write predicted-vs-measured curves over concurrency (.html: plotly; .png/.svg/.pdf: matplotlib, the plot extra).")
    ] = None,
) -> None:
    """Compare two tables point by point: A, B, signed error %, whether the measurement lies in the
    prediction's 80 % interval, MAPE and max error per metric; two scored Results also item by item:
    Δaccuracy and Δlatency with 95 % intervals."""
    from servescope.analysis import compare as cmp
    from servescope.documents import EvaluationRun, Prediction, Result, load
    from servescope.errors import UsageError
    from servescope.output_paths import check_output_file

    if plot is not None:
        if not str(plot).endswith((".html", ".png", ".svg", ".pdf")):
            raise UsageError(f"--plot {plot}: use .html (interactive, offline) or .png/.svg/.pdf (static)")
        check_output_file(plot, "--plot")
    docs: list[EvaluationRun | Prediction | Result] = []
    for path in (a, b):
        path = _compare_input(path)
        if path.name == "records.jsonl":  # a run that wrote no result.json (killed, interrupted): rebuilt, as summarize does
            from servescope.bench.recover import result_from_records

            err.print(f"{path}: a run's records: compared as the Result rebuilt from them", markup=False)
            docs.append(result_from_records(path))
            continue
        loaded = load(path)
        errors = [i for i in loaded.issues if i.level == "error"]
        if errors:
            err.print(errors[0].format(str(path)), markup=False)
            raise typer.Exit(2)
        for issue in loaded.issues:  # what validate warns of (an interval that does not hold its own figure): said before the verdicts
            err.print(issue.format(str(path)), markup=False)
        if not isinstance(loaded.document, (EvaluationRun, Prediction, Result)):
            err.print(f"{path}: is a {type(loaded.document).__name__}; compare takes Predictions, EvaluationRuns and Results", markup=False)
            raise typer.Exit(2)
        docs.append(loaded.document)
    c = cmp.compare(docs[0], docs[1], force=force)
    for w in c.warnings:
        err.print(f"warning: {w}", markup=False)
    if fmt is CompareFormat.json:
        print(cmp.format_json(c), end="")
    elif fmt is CompareFormat.csv:
        print(cmp.format_csv(c), end="")
    elif fmt is CompareFormat.md:
        print(cmp.format_markdown(c), end="")
    else:
        table = Table(title=f"{c.a_name} (A) vs {c.b_name} (B)")
        for col in ("concurrency", "metric", "A", "B", "error %", "in interval"):
            table.add_column(col, justify="left" if col == "metric" else "right")
        for p in c.pairs:
            table.add_row(
                str(p.concurrency),
                p.metric,
                f"{p.a:,.2f}",
                f"{p.b:,.2f}",
                "-" if p.error_pct is None else f"{p.error_pct:+.1f}",
                cmp.inside_text(p.inside_interval),
            )
        out.print(table)
        summary = Table(title="per metric")
        for col in ("metric", "points", "MAPE %", "max |error| %", "inside the predicted interval"):
            summary.add_column(col, justify="left" if col == "metric" else "right")
        for m in c.per_metric:
            summary.add_row(
                m.metric,
                str(m.points),
                "-" if m.mape_pct is None else f"{m.mape_pct:.1f}",
                "-" if m.max_abs_pct is None else f"{m.max_abs_pct:.1f}",
                cmp.inside_count(m),
            )
        out.print(summary)
        if c.unpaired_a or c.unpaired_b:
            out.print(f"unpaired concurrencies: A {c.unpaired_a}, B {c.unpaired_b}")
        if c.scores is not None:
            out.print("scores (same items, A − B)")
            for line in cmp.score_lines(c.scores):
                out.print(f"  {line}", markup=False)
    if plot is not None:
        plot.parent.mkdir(parents=True, exist_ok=True)  # (checked before comparing: creatable, as --out's folders are)
        cmp.plot(c, str(plot))
        err.print(f"plot: {plot}", markup=False)
    from servescope.analysis.calibration_hint import calibrate_hint

    hint = calibrate_hint(c, ((docs[0], a), (docs[1], b)))
    if hint:
        err.print(hint, markup=False)


def _compare_input(path: Path) -> Path:
    """The file ``compare`` reads for ``path``: a document file as given; a run or prediction
    folder's result.json (else prediction.json, else its records); anything else one line."""
    from servescope.errors import UsageError

    if path.is_dir():
        for name in ("result.json", "prediction.json", "records.jsonl"):
            if (path / name).is_file():
                return path / name
        raise UsageError(f"{path}: a folder with no result.json, prediction.json or records.jsonl; give a run or prediction folder, or the document itself")
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder; give a prediction.json, result.json or evaluation-run.json (or the folder that holds it)")
    if path.suffix == ".jsonl" and path.name != "records.jsonl":
        raise UsageError(f"{path}: a JSON-lines file; compare takes a Prediction, EvaluationRun or Result document, or a run's records.jsonl")
    return path


@app.command(epilog=epilog("regress"))
def regress(
    baseline: Annotated[Path, typer.Option("--baseline", help="Folder of baseline Results (deterministic runs).")],
    results: Annotated[Path, typer.Option("--results", help="Folder of new Results to check against it.")],
) -> None:
    """Regression guard: integers and structs of deterministic runs must equal the baseline's."""
    from servescope.analysis.regress import regress as run_guard

    for folder in (baseline, results):
        if not folder.is_dir():
            err.print(f"error: {folder}: no such folder", markup=False)
            raise typer.Exit(2)
    report = run_guard(baseline, results)
    for note in report.skipped:
        out.print(f"note: {note}", markup=False)
    for line in report.differences:
        err.print(f"- {line}", markup=False)
    if report.compared == 0 and not report.differences:
        err.print(
            f"error: no deterministic Result to compare in {baseline} and {results}; a guard that compares nothing "
            "fails (check the paths: each folder needs the result.json files of simulated runs)",
            markup=False,
        )
        raise typer.Exit(1)
    verdict = "[green]no regression[/green]" if report.ok else f"[red]{len(report.differences)} difference(s)[/red]"
    out.print(f"{report.compared} result(s) compared: {verdict}")
    raise typer.Exit(0 if report.ok else 1)


@app.command("import", epilog=epilog("import"))
def import_cmd(
    harness: Annotated[str, typer.Argument(help="Which tool wrote the export: aiperf, guidellm, vllm or inference-perf.")],
    path: Annotated[Path, typer.Argument(help="The tool's export file or folder.")],
    scenario: Annotated[str, typer.Option(help="The scenario that was measured.")],
    engine: Annotated[str | None, typer.Option(help="Engine measured, e.g. vllm (default: unknown).")] = None,
    engine_version: Annotated[str | None, typer.Option(help="Engine release measured (default: unknown).")] = None,
    workload: Annotated[str | None, typer.Option(help="The servescope workload the run reproduced (default: <harness>-export).")] = None,
    output: Annotated[
        Path | None,
        typer.Option(
            "--out",
            "-o",
            help="Folder for result.json and evaluation-run.json; a .json/.yaml file name writes the EvaluationRun there and the Result beside it (<stem>.result.json); default: print the EvaluationRun.",
        ),
    ] = None,
) -> None:
    """Turn another harness's export into a Result and an EvaluationRun (definitions noted where they differ)."""
    from servescope.analysis.importers import READERS, import_documents
    from servescope.analysis.importers._write import render, write_documents

    if harness not in READERS:
        err.print(f"error: unknown harness {harness!r}; choose one of {', '.join(sorted(READERS))}", markup=False)
        raise typer.Exit(2)
    check_scenario_name(scenario)
    if output is not None:
        from servescope.analysis.importers._write import targets
        from servescope.output_paths import check_output_file, check_output_folder

        result_target, run_target = targets(output)
        if run_target == output:  # a file name: the EvaluationRun there, the Result beside it
            check_output_file(output)
            check_output_file(result_target)
        else:
            check_output_folder(output)
    result, run = import_documents(harness, path, scenario, workload=workload, engine=engine, engine_version=engine_version)
    if output is None:
        print(render(run.dump(), ".json"), end="")
        return
    result_path, run_path = write_documents(result, run, output)
    failed = result.metrics.failed_requests
    err.print(
        f"{run_path}: EvaluationRun with {len(run.points)} point(s) from {harness}; "
        f"{result_path}: Result ({result.metrics.completed_requests} completed, "
        f"{'unknown' if failed is None else failed} failed request(s))",
        markup=False,
    )


@app.command("config-id", epilog=epilog("config-id"))
def config_id_cmd(
    engine: Annotated[str, typer.Argument(help="Engine name, e.g. vllm or llama.cpp.")],
    version: Annotated[str, typer.Argument(help="Engine version.")],
    flags: Annotated[
        list[str] | None,
        typer.Argument(help="Engine flags, or its whole command line (vllm serve MODEL ..., llama-server -m MODEL ...), after --."),
    ] = None,
    dtype: Annotated[str | None, typer.Option(help="Weight dtype.")] = None,
    kv_dtype: Annotated[str | None, typer.Option(help="KV-cache dtype.")] = None,
    quantization: Annotated[str | None, typer.Option(help="Quantization method.")] = None,
    show: Annotated[bool, typer.Option(help="Also print the canonical configuration that is hashed.")] = False,
) -> None:
    """Print the config_id fingerprint of an engine setup (the model of a pasted command line is not part of it)."""
    from servescope.documents.config_id import canonical_config, config_id
    from servescope.documents.engine_command import command_for_engine
    from servescope.errors import UsageError

    for value, name in ((engine, "ENGINE"), (version, "VERSION")):
        if not value.strip():
            raise UsageError(f"{name} is empty; give e.g. `servescope config-id vllm 0.11.0 -- --max-num-seqs 64`")
    try:
        args = command_for_engine(flags or [], engine).flags
        cid = config_id(engine, version, args, dtype, kv_dtype, quantization)
        canon = canonical_config(engine, version, args, dtype, kv_dtype, quantization)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    out.print(cid)
    if show:
        out.print_json(json.dumps(canon))


@catalog_app.command("list", epilog=epilog("catalog list"))
def catalog_list(
    fmt: Annotated[OutputFormat, typer.Option("--format", help="text or json.")] = OutputFormat.text,
) -> None:
    """List the workloads of the catalog (packaged plus SERVESCOPE_CATALOG_PATH)."""
    from servescope.catalog.store import Catalog
    from servescope.catalog.summary import workload_rows

    cat = Catalog.load()
    for line in cat.broken_lines():
        err.print(line, markup=False)
    rows = workload_rows(cat)
    if fmt is OutputFormat.json:
        print(json.dumps(rows, indent=2))
        return
    table = Table(title=f"servescope workloads ({len(rows)})")
    for col in ("id", "kind", "dataset", "concurrency", "requests", "in", "out"):
        table.add_column(col, justify="right" if col in ("concurrency", "requests", "in", "out") else "left")
    for r in rows:
        table.add_row(*(str(r[k]) if r[k] is not None else "-" for k in ("id", "kind", "dataset", "concurrency", "requests", "input_tokens", "output_tokens")))
    out.print(table)


@catalog_app.command("lock", epilog=epilog("catalog lock"))
def catalog_lock(
    root: Annotated[Path, typer.Argument(help="Catalog root holding workloads/ and datasets/.")],
) -> None:
    """Add every valid, not yet locked workload and dataset of ROOT to ROOT/catalog.lock.json."""
    from servescope.catalog.lock import LOCK_FILE_NAME
    from servescope.catalog.summary import lock_root
    from servescope.errors import UsageError
    from servescope.output_paths import check_output_file

    if not root.is_dir():
        raise UsageError(f"ROOT {root}: {'no such folder' if not root.exists() else 'is not a folder'}; give a catalog root holding workloads/ and datasets/")
    if not any((root / sub).is_dir() for sub in ("workloads", "datasets")):
        raise UsageError(f"ROOT {root}: holds neither workloads/ nor datasets/; give a catalog root (nothing to lock)")
    check_output_file(root / LOCK_FILE_NAME, "ROOT")
    added, problems = lock_root(root)
    for line in problems:
        err.print(line, markup=False)
    out.print(f"locked {len(added)} new entr{'y' if len(added) == 1 else 'ies'}" + (f": {', '.join(added)}" if added else ""))
    raise typer.Exit(1 if problems else 0)


class ExportFormatOption(str, Enum):
    parquet = "parquet"
    csv = "csv"


@app.command("export", epilog=epilog("export"))
def export_cmd(
    run_dirs: Annotated[
        list[Path], typer.Argument(help="Run folders (each holding records.jsonl), or records.jsonl files; finished or not.", metavar="RUN_DIR...")
    ],
    fmt: Annotated[ExportFormatOption, typer.Option("--format", help="parquet (needs pyarrow: the parquet extra) or csv.")] = ExportFormatOption.parquet,
    output: Annotated[
        Path | None, typer.Option("--out", "-o", help="File to write, for one run (default: records.parquet or records.csv beside each records.jsonl).")
    ] = None,
) -> None:
    """Write each run's per-request records as a table, one row per request (every field of records.jsonl)."""
    from servescope.errors import UsageError

    files: dict[Path, Path] = {}  # each records file once (a run given twice, or as its folder and its file)
    for run_dir in run_dirs:
        records_path = run_dir / "records.jsonl" if run_dir.is_dir() else run_dir
        if not records_path.is_file():
            where = f"{run_dir} has no records.jsonl" if run_dir.is_dir() else f"{run_dir}: no such file or folder"
            raise UsageError(f"{where}; give a run folder written by servescope run (OUT/<run_id>/) or its records.jsonl")
        files.setdefault(records_path.resolve(), records_path)
    if output is not None:
        if len(files) > 1:
            raise UsageError(f"--out {output}: names one file, and {len(files)} runs were given; give one run, or leave --out out to "
                             "write each run's table beside its records.jsonl")  # fmt: skip
        from servescope.output_paths import check_output_file

        check_output_file(output, "--out")  # a folder, a path under a file, an unwritable place: one line, before any work
    for records_path in files.values():
        _export_one(records_path, output or records_path.with_name(f"records.{fmt.value}"), fmt)


def _export_one(records_path: Path, target: Path, fmt: ExportFormatOption) -> None:
    from servescope.analysis.export import export_records
    from servescope.bench.records import read_header, read_records
    from servescope.errors import UsageError

    if target.exists() and target.resolve() == records_path.resolve():
        raise UsageError(f"--out {target}: that is the records file being exported; give another file")
    dropped: dict[str, int] = {}
    duplicates: dict[str, list[str]] = {}  # reason -> requests on more than one line (each exported once, its first line)
    try:
        header = read_header(records_path)
        done = export_records(read_records(records_path, dropped, duplicates), target, fmt.value, header)
    except UnicodeDecodeError as exc:
        target.unlink(missing_ok=True)
        raise UsageError(f"{records_path}: not UTF-8 text (byte {exc.start}); is it a servescope records file?") from None
    if header is None and not done.rows:
        target.unlink(missing_ok=True)
        raise UsageError(f"{records_path}: neither a run header nor a request line; is it a servescope records file?")
    for why, n in {**dropped, **done.rejected}.items():
        ids = duplicates.get(why, [])
        of = f" (of {len(ids)} request(s): {', '.join(ids[:3])}{' ...' if len(ids) > 3 else ''}; the first line of each is exported)" if ids else ""
        err.print(f"warning: {records_path}: {n} record(s) left out: {why}{of}", markup=False)
    out.print(f"{target}: {done.rows} request(s) from {records_path}", markup=False)


def _run_app() -> object:
    """The app, not standalone (click's usage errors come to ``main`` to be one line),
    with a file the system refused (a file where a folder was to be made, a full disk,
    a path too long) said as that file and the system's reason, not as a servescope bug."""
    try:
        return app(standalone_mode=False)
    except OSError as exc:
        if exc.filename is None or os.environ.get("SERVESCOPE_DEBUG"):
            raise
        from servescope.errors import DocumentError

        raise DocumentError(str(exc.filename), f"cannot be used: {exc.strerror or exc}") from exc


def main() -> None:
    """Entry point: run the app, turning known errors into one line. Everything it
    prints passes the one redaction rule (``redaction.RedactingStream``), with the
    values of credential-named environment variables (``OPENAI_API_KEY``, ...) known."""
    remember_environment()
    if not isinstance(sys.stdout, RedactingStream):
        sys.stdout = RedactingStream(sys.stdout)
    if not isinstance(sys.stderr, RedactingStream):
        sys.stderr = RedactingStream(sys.stderr)
    try:
        # not standalone: click's own usage errors (a value that is not a number, an
        # unknown option) come here, to be one line like every other bad argument
        code = _run_app()
    except CLICK_ERROR as exc:
        line = click_error_line(exc)
        if line:
            err.print(f"error: {redact(line)}", markup=False)  # it may echo a value: a URL with a password
        sys.exit(getattr(exc, "exit_code", 2))
    except typer.Abort:
        err.print("aborted", markup=False)
        sys.exit(1)
    except ServescopeError as exc:
        # Last line of defence for credentials: a URL's user:password@, a Bearer token.
        err.print(f"error: {redact(str(exc))}", markup=False)
        sys.exit(exc.exit_code)
    except KeyboardInterrupt:
        err.print("interrupted", markup=False)
        sys.exit(130)
    except Exception as exc:  # noqa: BLE001 - last line of defence against tracebacks
        if os.environ.get("SERVESCOPE_DEBUG"):
            raise
        err.print(
            f"internal error: {type(exc).__name__}: {redact(str(exc))} (a servescope bug; rerun with SERVESCOPE_DEBUG=1 for the traceback and report it)",
            markup=False,
        )
        sys.exit(3)
    if isinstance(code, int) and code:
        sys.exit(code)


if __name__ == "__main__":
    main()
