"""What the docs say about the code is what the code is (issue 12 bug 4): the README's
Layout, the records file names in the docstrings, the help of `compare --plot`, and
the exception tree of errors.py."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import typing
from pathlib import Path

import servescope
from servescope import errors
from servescope.bench import records, recover
from servescope.bench.records import index_paths

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "servescope"


def _layout_block() -> list[str]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    block = text.split("## Layout", 1)[1].split("```", 2)[1]
    return [line for line in block.splitlines() if line.strip()]


def test_readme_layout_names_paths_that_exist_where_it_puts_them() -> None:
    parent: Path | None = None
    named = []
    for line in _layout_block():
        name = line.split()[0]
        if not line.startswith(" "):
            parent = ROOT / name
            named.append(parent)
        elif not line.startswith("               "):  # an indented entry (not a wrapped description)
            assert parent is not None
            named.append(parent / name)
    missing = [str(p.relative_to(ROOT)) for p in named if not p.exists()]
    assert not missing, f"README Layout names paths that do not exist: {missing}"
    assert "later" not in "\n".join(_layout_block())


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
