"""The import graph of src/ has no cycles, and documents never import upward
(shared/DESIGN.md: dependencies flow one way). Every import counts: module-level,
inside functions and under TYPE_CHECKING."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "servescope"


def _graph() -> dict[str, set[str]]:
    mods: dict[str, Path] = {}
    for p in PACKAGE.rglob("*.py"):
        parts = p.relative_to(PACKAGE.parent).with_suffix("").parts
        mods[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, p in mods.items():
        pkg = m if p.name == "__init__.py" else m.rsplit(".", 1)[0]
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                graph[m] |= {a.name for a in node.names if a.name in mods}
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    up = pkg.split(".")[: len(pkg.split(".")) - node.level + 1]
                    base = ".".join(up + ([base] if base else []))
                for a in node.names:
                    target = f"{base}.{a.name}" if f"{base}.{a.name}" in mods else base
                    if target in mods and target != m:
                        graph[m].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    out: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            v, children = work[-1]
            for w in children:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on_stack.add(w)
                    work.append((w, iter(sorted(graph[w]))))
                    break
                if w in on_stack:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    comp = []
                    while True:
                        w = stack.pop()
                        on_stack.discard(w)
                        comp.append(w)
                        if w == v:
                            break
                    if len(comp) > 1:
                        out.append(sorted(comp))
    return out


def test_no_import_cycles() -> None:
    assert _cycles(_graph()) == []


def test_the_scan_finds_a_cycle_when_there_is_one() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_documents_import_nothing_of_ours_but_documents_and_the_leaves() -> None:
    # the leaves: errors, limits (the size limits every loader shares), redaction
    leaves = ("servescope.documents", "servescope.errors", "servescope.limits", "servescope.redaction")
    upward = {
        (m, t) for m, targets in _graph().items() if m.startswith("servescope.documents") for t in targets if not t.startswith(leaves) and t != "servescope"
    }
    assert not upward, sorted(upward)


def test_the_product_never_imports_its_test_tooling() -> None:
    users = sorted(m for m, targets in _graph().items() if not m.startswith("servescope.testing") and any(t.startswith("servescope.testing") for t in targets))
    assert not users, users


def test_workload_depends_on_documents_only() -> None:
    wrong = sorted(
        (m, t)
        for m, targets in _graph().items()
        if m.startswith("servescope.workload")
        for t in targets
        # and the leaves documents may use too: errors, limits (a trace's or prompt file's bounds)
        if not t.startswith(("servescope.workload", "servescope.documents", "servescope.catalog", "servescope.errors", "servescope.limits"))
    )
    assert not wrong, wrong


def test_bench_and_predict_build_no_document_themselves() -> None:
    # Result / EvaluationRun / Prediction are made by analysis.results, the one builder
    makers = re.compile(
        r"\b(Result|EvaluationRun|Prediction|PredictionPoint|EvaluationPoint)(\.model_validate)?\(|\"kind\": \"(Result|EvaluationRun|Prediction)\""
    )
    found = [
        f"{p.relative_to(PACKAGE)}:{i}"
        for sub in ("bench", "predict")
        for p in sorted((PACKAGE / sub).rglob("*.py"))
        for i, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1)
        if makers.search(line)
    ]
    assert not found, found
