"""benchmarks/README.md is a summary that points into benchmarks/docs/ (issue 31): its links and
anchors resolve, every benchmark script is documented, every detail file is reachable from the
summary, and the results files the docs name are the ones the scripts write and the repository holds."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BENCH = ROOT / "benchmarks"
SUMMARY = BENCH / "README.md"
DOCS = sorted((BENCH / "docs").glob("*.md"))
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
# A script whose results file is named from its arguments: the files it writes by default.
DERIVED_OUTPUTS = {"fit_gpu_defaults.py": {"fit_gpu_defaults_vllm.json", "fit_gpu_defaults_trt-llm.json"}}


def _prose(path: Path) -> list[str]:
    """The file's lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("```"):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def _anchors(path: Path) -> set[str]:
    """GitHub's heading ids: lower case, punctuation dropped, spaces to hyphens, repeats numbered."""
    seen: dict[str, int] = {}
    out = set()
    for line in _prose(path):
        m = re.match(r"#{1,6} (.*)", line)
        if not m:
            continue
        slug = re.sub(r"[^\w\- ]", "", m.group(1).strip().lower()).replace(" ", "-")
        n = seen.get(slug, 0)
        seen[slug] = n + 1
        out.add(slug if n == 0 else f"{slug}-{n}")
    return out


def _links(path: Path) -> list[str]:
    return [t for line in _prose(path) for t in LINK.findall(line) if not re.match(r"[a-z]+:", t)]


def _all_docs_text() -> str:
    return "\n".join(p.read_text(encoding="utf-8") for p in [SUMMARY, *DOCS])


def _expand_braces(name: str) -> list[str]:
    parts = re.split(r"\{([^{}]*)\}", name)
    choices = [[p] if i % 2 == 0 else p.split(",") for i, p in enumerate(parts)]
    return ["".join(c) for c in itertools.product(*choices)]


def _name(path: Path) -> str:
    return str(path.relative_to(ROOT)) if path.is_relative_to(ROOT) else path.name


def _broken_links(paths: list[Path]) -> list[str]:
    broken = []
    for doc in paths:
        for target in _links(doc):
            file_part, _, anchor = target.partition("#")
            dest = (doc.parent / file_part).resolve() if file_part else doc
            if not dest.exists():
                broken.append(f"{_name(doc)}: {target} (no such file)")
            elif anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                broken.append(f"{_name(doc)}: {target} (no such heading in {dest.name})")
    return broken


def test_every_link_and_anchor_in_the_benchmark_docs_resolves() -> None:
    assert DOCS, "benchmarks/docs/ holds no detail files"
    broken = _broken_links([SUMMARY, *DOCS])
    assert not broken, "broken links:\n" + "\n".join(broken)


def test_a_link_to_a_missing_heading_is_caught(tmp_path: Path) -> None:
    (tmp_path / "a.md").write_text("# Client timing — `x.py` (2026)\n\n## Results\n\n## Results\n", encoding="utf-8")
    good = "[x](a.md#client-timing--xpy-2026) [y](a.md#results-1) [z](#here)\n\n# Here\n"
    (tmp_path / "good.md").write_text(good, encoding="utf-8")
    (tmp_path / "bad.md").write_text("[x](a.md#client-timing) [y](b.md)\n", encoding="utf-8")
    assert _broken_links([tmp_path / "good.md"]) == []
    assert len(_broken_links([tmp_path / "bad.md"])) == 2


def test_the_summary_is_short_and_each_headline_row_links_to_its_details() -> None:
    lines = SUMMARY.read_text(encoding="utf-8").splitlines()
    assert len(lines) <= 200, f"benchmarks/README.md has {len(lines)} lines; details belong in benchmarks/docs/"
    table = lines[lines.index("## Headline figures") :]
    rows = [line for line in table[: next(i for i, line in enumerate(table) if i > 2 and not line.startswith("|") and line.strip())] if line.startswith("| ")]
    body = rows[2:] if rows and rows[1].startswith("| ---") else rows[1:]
    assert len(body) >= 15, "the headline table lost its rows"
    for row in body:
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", row)[1:-1]]
        assert len(cells) == 5, f"a headline row has {len(cells)} cells, not 5: {row[:80]}"
        assert all(cells), f"a headline row has an empty cell: {row[:80]}"
        assert "(docs/" in cells[4], f"a headline row does not link to a detail file: {row[:80]}"


def test_every_detail_file_is_linked_from_the_summary() -> None:
    linked = {(SUMMARY.parent / t.partition("#")[0]).resolve() for t in _links(SUMMARY)}
    orphans = [p.name for p in DOCS if p.resolve() not in linked]
    assert not orphans, f"detail files the summary does not link: {orphans}"


def test_every_benchmark_script_is_documented() -> None:
    text = _all_docs_text()
    scripts = sorted(p.name for p in BENCH.glob("*.py"))
    assert scripts
    undocumented = [s for s in scripts if not re.search(rf"(?<![\w/]){re.escape(s)}\b|benchmarks/{re.escape(s)}", text)]
    assert not undocumented, f"benchmark scripts no doc in benchmarks/ mentions: {undocumented}"


def test_the_results_files_the_docs_name_exist_and_every_results_file_is_documented() -> None:
    text = _all_docs_text()
    named = {n for m in re.findall(r"results/([\w{},.-]+\.json)", text) for n in _expand_braces(m)}
    held = {p.name for p in (BENCH / "results").glob("*.json")}
    assert not named - held, f"the docs name results files that benchmarks/results/ does not hold: {sorted(named - held)}"
    mentioned = {n for m in re.findall(r"(?<![\w-])([\w{},.-]+\.json)", text) for n in _expand_braces(m)}
    undocumented = held - mentioned
    assert not undocumented, f"results files no doc names: {sorted(undocumented)}"


def test_each_script_writes_its_default_results_file_where_the_docs_say() -> None:
    text = _all_docs_text()
    named = {n for m in re.findall(r"([\w{},.-]+\.json)", text) for n in _expand_braces(m)}
    wrong = []
    for script in sorted(BENCH.glob("*.py")):
        source = script.read_text(encoding="utf-8")
        defaults = DERIVED_OUTPUTS.get(script.name) or set(
            re.findall(r'"results"\s*/\s*"([\w.-]+\.json)"', source) + re.findall(r'"benchmarks/results/([\w.-]+\.json)"', source)
        )
        wrong += [f"{script.name} -> results/{d}" for d in sorted(defaults) if d not in named]
    assert not wrong, f"default results files the docs do not name: {wrong}"
