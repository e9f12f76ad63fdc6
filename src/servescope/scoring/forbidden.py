"""Forbidden constructs in generated code, found in its syntax tree (``ast``), never by text search.

A row whose prompt forbids something ("without using max()", "do not import anything") says so
in a structured field, ``score_args.forbidden``: a list of entries, each

* a Python identifier (``"max"``, ``"sorted"``, ``"sort"``): the code may not *use* that name —
  not as a name it reads (``max(xs)``, ``f = max``), not as an attribute (``xs.sort()``,
  ``builtins.max``), not imported (``from builtins import max as m``), and not through a string
  handed to ``getattr`` or a namespace's dict (``getattr(builtins, "max")``, ``__builtins__["max"]``).
  A function, parameter or variable of its own with that name is the code's own, not the builtin
  (``max = xs[0]`` in a loop is the answer doing what it was asked), and the answer's own checks
  outside its functions (``assert maximum(xs) == max(xs)``, ``print(max(xs))``) only compare against it;
* ``"import"``: no ``import`` statement of any kind and no ``__import__``/``importlib`` call.

Code handed to ``eval``/``exec``/``compile`` as a string literal is checked as code; a string built
at run time cannot be, so with anything forbidden such a call is a violation itself. The scorer
reads the list; the prompt's prose is never parsed at scoring time. Comments and strings that
merely mention the name (``# no max() here``) are not uses.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable

IMPORT = "import"


def malformed(forbidden: object) -> str | None:
    """Why a row's ``score_args.forbidden`` cannot be read, or None when it can."""
    if forbidden is None:
        return None
    if not isinstance(forbidden, list) or not all(isinstance(x, str) for x in forbidden):
        return f'score_args.forbidden must be a list of names (e.g. ["max"]), got {forbidden!r}'
    bad = [x for x in forbidden if x != IMPORT and not x.isidentifier()]
    if bad:
        return f'score_args.forbidden: {bad[0]!r} is neither a Python identifier nor "import"'
    return None


def _own_definitions(tree: ast.AST) -> set[str]:
    """Names the code defines itself (def, class, assignment target, parameter)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return names


def _is_namespace(node: ast.expr) -> bool:
    """``__builtins__``, ``vars(...)``/``globals()``/``locals()``, ``x.__dict__``: where a name is a dict key."""
    if isinstance(node, ast.Name):
        return node.id == "__builtins__"
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
        return node.func.id in {"vars", "globals", "locals"}
    return isinstance(node, ast.Attribute) and node.attr == "__dict__"


def _string_lookups(tree: ast.AST) -> Iterable[tuple[str, int]]:
    """Names fetched by string: ``getattr(x, "max")``, ``__builtins__["max"]``, ``vars(builtins)["max"]``."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"getattr", "hasattr"} and len(node.args) >= 2:
            arg = node.args[1]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                yield arg.value, node.lineno
        elif isinstance(node, ast.Subscript) and _is_namespace(node.value) and isinstance(node.slice, ast.Constant) and isinstance(node.slice.value, str):
            yield node.slice.value, node.lineno


def _self_checks(tree: ast.Module) -> set[int]:
    """The nodes of the answer's own checks outside its functions — ``assert maximum(xs) == max(xs)``,
    ``print(maximum(xs), max(xs))`` at the top level or under ``if __name__ == "__main__":`` — which
    compare against the forbidden builtin without the function using it. They only read (a walrus
    ``:=`` in one makes it count again), so they cannot hand the builtin to the function the tests call."""
    body = list(tree.body)
    for stmt in tree.body:
        if isinstance(stmt, ast.If) and "__main__" in ast.unparse(stmt.test) and "__name__" in ast.unparse(stmt.test):
            body += stmt.body
    skipped: set[int] = set()
    for stmt in body:
        check = isinstance(stmt, ast.Assert) or (
            isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call) and isinstance(stmt.value.func, ast.Name) and stmt.value.func.id == "print"
        )
        inner = list(ast.walk(stmt))
        if check and not any(isinstance(n, ast.NamedExpr) for n in inner):
            skipped |= {id(n) for n in inner}
    return skipped


def violations(code: str, forbidden: list[str]) -> list[str]:
    """One line per forbidden use in ``code`` (empty: none, or code that does not parse — running it says why)."""
    if not forbidden:
        return []
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError):
        return []
    found: list[str] = []
    names = {x for x in forbidden if x != IMPORT}
    own = _own_definitions(tree)
    checks_only = _self_checks(tree)
    for node in ast.walk(tree):
        if id(node) in checks_only:
            continue
        line = getattr(node, "lineno", 0)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id in names:
            if node.id not in own:  # a variable or function of its own called max is not the builtin
                found.append(f"uses {node.id} (line {line})")
        elif isinstance(node, ast.Attribute) and node.attr in names:
            found.append(f"uses .{node.attr} (line {line})")
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            if IMPORT in forbidden:
                found.append(f"imports (line {line})")
            else:
                found += [f"imports {a.name} (line {line})" for a in node.names if a.name in names]
        elif IMPORT in forbidden and isinstance(node, ast.Name) and node.id in {"__import__", "importlib"}:
            found.append(f"imports through {node.id} (line {line})")
    found += [f"looks up {name!r} by string (line {line})" for name, line in _string_lookups(tree) if name in names]
    found += _evaluated(tree, forbidden)
    return found


def _evaluated(tree: ast.AST, forbidden: list[str]) -> list[str]:
    """Code handed to ``eval``/``exec``/``compile`` as a string is checked as code too ("eval('max(xs)')")."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in {"eval", "exec", "compile"} and node.args:
            arg = node.args[0]
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found += [f"{v} inside {node.func.id}() (line {node.lineno})" for v in violations(arg.value, forbidden)]
            elif not isinstance(arg, ast.Constant):
                found.append(f"runs code built at run time through {node.func.id}() (line {node.lineno}), which cannot be checked")
    return found
