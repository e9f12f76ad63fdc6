"""What the docs say is what the code does.

docs/layout.md names every path and module (issue 12 bug 4, issue 31); the records file
names in the docstrings, the help of `compare --plot` and the exception tree of errors.py
match the code; and every code block of the README and docs/ runs, is validated, or says
why not (issue 31: see tests/docs_blocks.py for the markers)."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
import re
import shutil
import subprocess
import sys
import typing
from collections.abc import Iterator
from pathlib import Path

import pytest

import servescope
from servescope import errors
from servescope.bench import records, recover
from servescope.bench.records import index_paths
from tests.docs_blocks import DOCUMENT_LANGS, RUN_LANGS, Block, block_problems, expected_lines_missing, markdown_pages, parse_blocks

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "servescope"


def _layout_tree() -> list[str]:
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    block = text.split("```text", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line.strip()]


def test_layout_tree_names_paths_that_exist_where_it_puts_them() -> None:
    parent: Path | None = None
    named = []
    for line in _layout_tree():
        name = line.split()[0]
        if not line.startswith(" "):
            parent = ROOT / name
            named.append(parent)
        elif not line.startswith("               "):  # an indented entry (not a wrapped description)
            assert parent is not None
            named.append(parent / name)
    missing = [str(p.relative_to(ROOT)) for p in named if not p.exists()]
    assert not missing, f"docs/layout.md names paths that do not exist: {missing}"
    assert "later" not in "\n".join(_layout_tree())
    top = {p.name for p in named if p.parent == PACKAGE}
    unnamed = sorted(p.name for p in PACKAGE.iterdir() if p.name not in top | {"__init__.py", "__pycache__"})
    assert not unnamed, f"docs/layout.md's tree does not name src/servescope/{unnamed}"


def _layout_sections() -> dict[str, str]:
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    parts = re.split(r"^### `(src/servescope/[^`]*)`$", text, flags=re.MULTILINE)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def test_layout_names_every_module_under_its_package() -> None:
    sections = _layout_sections()
    unnamed = []
    for folder in [PACKAGE, *sorted(p for p in PACKAGE.rglob("*") if p.is_dir())]:
        modules = sorted(folder.glob("*.py"))
        if not modules or "__pycache__" in folder.parts:
            continue
        key = "src/servescope/" + "".join(f"{part}/" for part in folder.relative_to(PACKAGE).parts)
        body = sections.get(key, "")
        named = set(re.findall(r"^- `([^`]+)`", body, flags=re.MULTILINE))
        unnamed += [f"{key}{m.name}" for m in modules if m.name != "__init__.py" and m.name not in named]
        unnamed += [f"{key}{d.name}/" for d in folder.iterdir() if folder != PACKAGE and d.is_dir() and any(d.glob("*.py")) and f"{d.name}/" not in named]
    assert not unnamed, f"docs/layout.md does not name {unnamed}"


def test_the_records_files_named_in_docstrings_are_the_files_written() -> None:
    written = {"records.jsonl", *(p.name for p in index_paths(Path("records.jsonl")))}
    for module in (records, recover):
        named = set(re.findall(r"(?<![/\w])records(?:\.[a-z]+)+", module.__doc__ or ""))
        assert named <= written, f"{module.__name__} names {sorted(named - written)}; written: {sorted(written)}"
        assert named or module is not records  # the format's own module names its files


def test_compare_plot_help_names_what_draws_the_images() -> None:
    from servescope import cli

    hints = typing.get_type_hints(cli.compare, include_extras=True)
    help_text = next(m.help for m in hints["plot"].__metadata__ if hasattr(m, "help"))
    assert "kaleido" not in help_text and "matplotlib" in help_text


def _all_modules() -> list[str]:
    return [m.name for m in pkgutil.walk_packages(servescope.__path__, "servescope.") if not m.name.endswith("__main__")]


def test_every_servescope_error_is_defined_in_errors_py_and_in_its_tree() -> None:
    for name in _all_modules():
        importlib.import_module(name)
    found: set[type] = set()
    todo = [errors.ServescopeError]
    while todo:
        cls = todo.pop()
        found.add(cls)
        todo += cls.__subclasses__()
    elsewhere = sorted(f"{c.__module__}.{c.__qualname__}" for c in found if c.__module__ != "servescope.errors" and c.__module__.startswith("servescope"))
    assert not elsewhere, f"ServescopeErrors defined outside errors.py: {elsewhere}"
    tree = errors.__doc__ or ""
    not_in_tree = sorted(c.__name__ for c in found if c.__module__ == "servescope.errors" and c.__name__ not in tree)
    assert not not_in_tree, f"errors.py's tree omits {not_in_tree}"
    assert set(errors.__all__) == {c.__name__ for c in found if c.__module__ == "servescope.errors"}
    assert inspect.getmodule(errors.ServescopeError) is errors


# --- every code block of the README and docs/ (issue 31) --------------------------------

README_MAX_LINES = 250
BLOCK_TIMEOUT_S = 300
VENV_BIN = Path(sys.executable).parent
# Read-only inputs some examples name by their path in a checkout (the source, fixtures, the baseline).
CHECKOUT_INPUTS = ("src", "tests", "baselines", "scripts")


def _page_blocks(page: Path) -> list[Block]:
    blocks, problems = parse_blocks(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))
    assert not problems, problems
    return blocks


def test_readme_is_short_and_every_docs_page_is_linked_from_the_index() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail into docs/"
    index = (ROOT / "docs" / "index.md").read_text(encoding="utf-8")
    unlinked = [p.name for p in (ROOT / "docs").glob("*.md") if p.name != "index.md" and f"]({p.name})" not in index]
    assert not unlinked, f"docs/index.md does not link {unlinked}"


@pytest.mark.parametrize("page", markdown_pages(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_every_block_is_run_validated_or_marked_with_a_reason(page: Path) -> None:
    blocks, problems = parse_blocks(page.read_text(encoding="utf-8"), str(page.relative_to(ROOT)))
    problems += block_problems(blocks)
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("page", sorted((ROOT / "docs").glob("*.md")), ids=lambda p: p.name)
def test_each_docs_page_starts_with_a_short_summary_and_a_runnable_example(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    assert text.startswith("# "), f"{page.name} starts with its title"
    summary = text.split("\n\n")[1]
    assert 1 <= len(summary.splitlines()) <= 3 and not summary.startswith(("```", "<!--", "#")), f"{page.name}: summary {summary!r}"
    first = _page_blocks(page)[0]
    assert first.lang in RUN_LANGS and first.verb != "skip", f"{page.name}: the first block ({first.where}) is not a runnable example"


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")


@pytest.mark.parametrize("page", markdown_pages(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_and_their_anchors_resolve(page: Path) -> None:
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.DOTALL)
    broken = []
    for target in re.findall(r"\]\(([^)\s]+)\)", text):
        if re.match(r"[a-z]+://", target):
            continue
        path, _, anchor = target.partition("#")
        file = (page.parent / path).resolve() if path else page
        if not file.exists():
            broken.append(target)
        elif anchor and file.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", re.sub(r"```.*?```", "", file.read_text(encoding="utf-8"), flags=re.DOTALL), flags=re.MULTILINE)
            if anchor not in {_slug(h) for h in headings}:
                broken.append(target)
    assert not broken, f"{page.name}: broken links {broken}"


def _written_paths(block: Block) -> list[str]:
    """Paths a run block's commands write, as given (globs and variables left out)."""
    if block.verb == "file":
        return [block.arg.split()[0]]
    if block.lang not in RUN_LANGS or block.verb == "skip":
        return []
    found = re.findall(r"(?:--out|-o|--plot)[ =]+(\S+)|(?:^|\s)> *([\w./-]+)", block.text, flags=re.MULTILINE)
    return [a or b for a, b in found if not re.search(r"[*$]", a or b)]


def test_every_path_the_examples_write_is_ignored_by_git() -> None:
    written = sorted({(path, b.where) for page in markdown_pages(ROOT) for b in _page_blocks(page) for path in _written_paths(b)})
    assert written, "the examples write nothing?"
    tracked = {"schemas"}  # `servescope schema --out schemas` rewrites the tracked schemas, unchanged
    paths = [p for p, _ in written if p.rstrip("/") not in tracked]
    done = subprocess.run(["git", "check-ignore", "--no-index", *paths], cwd=ROOT, capture_output=True, text=True, check=False)
    ignored = set(done.stdout.splitlines())
    not_ignored = [f"{p} ({where})" for p, where in written if p in paths and p not in ignored]
    assert not not_ignored, f".gitignore does not ignore what the docs' examples write: {not_ignored}"


def test_the_marker_checks_catch_what_they_are_for() -> None:
    """The parser itself: an unmarked text block, a reasonless skip and a missing expected line are problems."""
    page = "<!-- docs-test: skip -->\n```bash\nx\n```\n\n```text\nout\n```\n\n<!-- docs-test: frobnicate -->\n```bash\ny\n```\n"
    blocks, problems = parse_blocks(page, "p.md")
    assert any("needs a reason" in p for p in problems) and any("unknown docs-test verb" in p for p in problems)
    assert any("p.md:6" in p for p in block_problems(blocks))
    assert expected_lines_missing("a ... c\nd", "a b c\n") == ["d"]
    assert expected_lines_missing("x 1.0 ...", "x 1.0 ms") == []


def _docs_env(cache: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SERVESCOPE_")}
    return env | {
        "PATH": f"{VENV_BIN}{os.pathsep}{os.environ.get('PATH', '')}",
        "PYTHONPATH": str(ROOT / "src"),
        "SERVESCOPE_CACHE_DIR": str(cache),
        "COLUMNS": "160",
        "NO_COLOR": "1",
    }


@pytest.fixture(scope="session")
def docs_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """A cache of its own (logs, the background engine's pid file) whose models/ is the
    user's, where SmolLM2 was fetched once per machine and the tiny model is generated."""
    from servescope.bench.engine.paths import default_cache_dir

    cache = tmp_path_factory.mktemp("docs-cache")
    models = default_cache_dir() / "models"
    models.mkdir(parents=True, exist_ok=True)
    (cache / "models").symlink_to(models, target_is_directory=True)
    yield cache
    # A page that failed between `engine start` and `engine stop` leaves no engine behind.
    subprocess.run([str(VENV_BIN / "servescope"), "engine", "stop"], env=_docs_env(cache), capture_output=True, check=False, timeout=60)


@pytest.fixture(scope="session")
def shared_setups() -> dict[str, tuple[Path, str]]:
    """Setup blocks already run this session: their text -> (their folder, their output)."""
    return {}


def _run_script(text: str, cwd: Path, env: dict[str, str], where: str) -> str:
    done = subprocess.run(
        ["bash", "-euo", "pipefail", "-c", text],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        timeout=BLOCK_TIMEOUT_S,
        check=False,
    )
    assert done.returncode == 0, f"{where}: exit code {done.returncode}\n{text}\n--- output ---\n{done.stdout[-4000:]}"
    return done.stdout


def _validate(path: Path, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(VENV_BIN / "servescope"), "validate", str(path)], cwd=cwd, env=env, capture_output=True, text=True, check=False)


def _prepare_folder(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    for name in CHECKOUT_INPUTS:
        (folder / name).symlink_to(ROOT / name, target_is_directory=True)


@pytest.mark.integration
@pytest.mark.parametrize("page", markdown_pages(ROOT), ids=lambda p: str(p.relative_to(ROOT)))
def test_the_page_s_examples_run_as_written(
    page: Path, tmp_path: Path, tmp_path_factory: pytest.TempPathFactory, docs_cache: Path, shared_setups: dict[str, tuple[Path, str]]
) -> None:
    env = _docs_env(docs_cache)
    work = tmp_path / "work"
    _prepare_folder(work)
    output: str | None = None
    for n, block in enumerate(_page_blocks(page)):
        if block.verb == "skip":
            continue
        if block.verb == "expect":
            assert output is not None, f"{block.where}: an expect block with no run block above it"
            missing = expected_lines_missing(block.text, output)
            assert not missing, f"{block.where}: not in the output of the block above: {missing}\n--- output ---\n{output[-4000:]}"
        elif block.verb == "file":
            name, *flags = block.arg.split()
            target = work / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.text, encoding="utf-8")
            done = _validate(target, work, env)
            if flags:
                assert done.returncode == 1, f"{block.where}: meant to be invalid, validate said {done.returncode}: {done.stdout}{done.stderr}"
            else:
                assert done.returncode == 0, f"{block.where}: {name} is not valid: {done.stdout}{done.stderr}"
        elif block.lang in DOCUMENT_LANGS:
            doc = tmp_path / f"block-{n}.{block.lang}"
            doc.write_text(block.text, encoding="utf-8")
            done = _validate(doc, tmp_path, env)
            assert done.returncode == 0, f"{block.where}: not a valid document: {done.stdout}{done.stderr}"
        elif block.verb == "setup":
            if block.text not in shared_setups:
                folder = tmp_path_factory.mktemp("docs-setup")
                _prepare_folder(folder)
                shared_setups[block.text] = (folder, _run_script(block.text, folder, env, block.where))
            folder, output = shared_setups[block.text]
            shutil.copytree(folder, work, symlinks=True, dirs_exist_ok=True, ignore=shutil.ignore_patterns(*CHECKOUT_INPUTS))
        elif block.lang in RUN_LANGS:
            output = _run_script(block.text, work, env, block.where)
