"""The fenced code blocks of the README and docs/, and what tests/test_docs.py does with each.

A block is *run* (``bash``/``console``/``sh``: in order, per page, in one working folder),
*validated* (``yaml``/``json``: a document, checked with ``servescope validate``) or
*marked* by an HTML comment on the line above its fence::

    <!-- docs-test: skip (why it is not run) -->       not run; the reason is required
    <!-- docs-test: setup (why it is shared) -->       run once per session for every page that
                                                       shows the same text; its folder is copied
    <!-- docs-test: expect -->                        each line must appear in the output of the
                                                       page's previous run block (``...`` = anything)
    <!-- docs-test: file NAME -->                     written to NAME in the page's folder and
                                                       validated; ``file NAME invalid``: must fail

Anything else (a ``text`` block without a marker, a skip without a reason, an unknown
verb) is a problem the test names by page and line.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

RUN_LANGS = frozenset({"bash", "console", "sh", "shell"})
DOCUMENT_LANGS = frozenset({"yaml", "yml", "json"})
VERBS = frozenset({"skip", "setup", "expect", "file"})

_FENCE = re.compile(r"^(?P<fence>```+|~~~+)\s*(?P<lang>[\w+-]*)\s*$")
_MARKER = re.compile(r"^<!--\s*docs-test:\s*(?P<verb>[\w-]+)(?P<rest>.*?)\s*-->\s*$")
_REASON = re.compile(r"^\((?P<reason>.*)\)$")


@dataclass(frozen=True)
class Block:
    page: str
    line: int  # 1-based line of the opening fence
    lang: str
    text: str
    verb: str | None = None  # the marker's verb, None when unmarked
    arg: str = ""  # skip/setup: the reason; file: "NAME" or "NAME invalid"

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def parse_blocks(text: str, page: str) -> tuple[list[Block], list[str]]:
    """Every fenced block of ``text`` with its marker, and the problems found while reading."""
    blocks: list[Block] = []
    problems: list[str] = []
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        start, fence, lang = i, m["fence"], m["lang"].lower()
        body: list[str] = []
        i += 1
        while i < len(lines) and lines[i].strip() != fence:
            body.append(lines[i])
            i += 1
        if i == len(lines):
            problems.append(f"{page}:{start + 1}: code block never closed")
        i += 1
        verb, arg = _marker_before(lines, start, page, problems)
        blocks.append(Block(page, start + 1, lang, "\n".join(body) + "\n", verb, arg))
    return blocks, problems


def _marker_before(lines: list[str], fence_index: int, page: str, problems: list[str]) -> tuple[str | None, str]:
    j = fence_index - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or "docs-test" not in lines[j]:
        return None, ""
    m = _MARKER.match(lines[j].strip())
    if not m:
        problems.append(f"{page}:{j + 1}: malformed docs-test marker {lines[j].strip()!r}")
        return None, ""
    verb, rest = m["verb"], m["rest"].strip()
    if verb not in VERBS:
        problems.append(f"{page}:{j + 1}: unknown docs-test verb {verb!r} (one of {sorted(VERBS)})")
        return None, ""
    if verb in ("skip", "setup"):
        reason = _REASON.match(rest)
        if not reason or not reason["reason"].strip():
            problems.append(f"{page}:{j + 1}: docs-test {verb} needs a reason in parentheses, e.g. '{verb} (needs a GPU)'")
            return None, ""
        return verb, reason["reason"].strip()
    if verb == "file" and (not rest or rest.split()[1:] not in ([], ["invalid"])):
        problems.append(f"{page}:{j + 1}: docs-test file needs a relative path, optionally followed by 'invalid'")
        return None, ""
    return verb, rest


def block_problems(blocks: list[Block]) -> list[str]:
    """Blocks that are neither run, validated nor marked with a reason."""
    problems = []
    for b in blocks:
        if b.verb is None and b.lang not in RUN_LANGS | DOCUMENT_LANGS:
            problems.append(
                f"{b.where}: a {b.lang or 'plain'} block that is not run: run it (bash), mark it 'docs-test: expect' under the block whose output it shows, or 'docs-test: skip (reason)'"
            )
        if b.verb == "file" and b.lang not in DOCUMENT_LANGS:
            problems.append(f"{b.where}: docs-test file is for yaml/json documents, not {b.lang or 'plain'}")
        if b.verb in ("setup",) and b.lang not in RUN_LANGS:
            problems.append(f"{b.where}: docs-test setup marks a command block, not {b.lang or 'plain'}")
    return problems


def expected_lines_missing(expected: str, output: str) -> list[str]:
    """Lines of ``expected`` (``...`` matching anything) that no line of ``output`` contains."""
    out_lines = output.splitlines()
    missing = []
    for line in expected.splitlines():
        want = line.rstrip()
        if not want.strip() or want.strip() == "...":
            continue
        pattern = re.compile(".*".join(re.escape(part) for part in want.split("...")))
        if not any(pattern.search(got) for got in out_lines):
            missing.append(want)
    return missing


def markdown_pages(root: Path) -> list[Path]:
    return [root / "README.md", *sorted((root / "docs").glob("**/*.md"))]
