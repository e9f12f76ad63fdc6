"""Shared helpers for the document tests: write a file, load it, look at the issues."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from servescope.documents import Issue, Loaded, load, parse_document

# The example of shared/seeds/evaluation-run.txt, verbatim.
SEED_EVALUATION_RUN_YAML = """\
kind: EvaluationRun
name: llama-3.1-8b-on-h100-tp2-dp4
scenario: llama-3.1-8b-on-h100
harness: aiperf
engine_version: "0.29.0"
date: "2026-09-20"
points:
  - concurrency: 1
    completed_requests: 96
    output_tokens_per_sec: 157.3
    input_tokens_per_sec: 2543.0
    ttft_ms: 168.6
    itl_ms: 6.0
    mean_isl: 8015
    mean_osl: 496
    kv_utilization: 0.10
  - concurrency: 8
    completed_requests: 640
    output_tokens_per_sec: 1084.2
    ttft_ms: 212.4
    itl_ms: 7.1
    kv_utilization: 0.62
    prefix_cache_hit_rate: 0.54
"""


def triples(issues: list[Issue]) -> list[tuple[str, str]]:
    """(level, path) of each issue, in order."""
    return [(i.level, i.path) for i in issues]


def errors(issues: list[Issue]) -> list[Issue]:
    return [i for i in issues if i.level == "error"]


def issues_of(data: Any) -> list[Issue]:
    """Validate plain data as a document (no file involved)."""
    return parse_document(data)[1]


WriteFn = Callable[[str, "str | bytes | dict[str, Any]"], Path]


@pytest.fixture
def write(tmp_path: Path) -> WriteFn:
    """write(name, content) -> path; a dict is written as JSON."""

    def _write(name: str, content: str | bytes | dict[str, Any]) -> Path:
        path = tmp_path / name
        if isinstance(content, dict):
            path.write_text(json.dumps(content), encoding="utf-8")
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
        return path

    return _write


@pytest.fixture
def load_text(write: WriteFn) -> Callable[..., Loaded]:
    """load_text(text, name='doc.yaml') -> Loaded."""

    def _load(text: str | bytes, name: str = "doc.yaml") -> Loaded:
        return load(write(name, text))

    return _load
