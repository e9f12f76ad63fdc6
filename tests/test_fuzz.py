"""Fuzzing the two doors hostile input comes through: document files and SSE byte streams.

Asserted for every input: no exception escapes (the loader and the client turn
everything into issues or failure records), the CLI exits with 0, 1, 2 or 4 and never
prints a traceback, and memory stays bounded (issue 13).
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, get_args

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from servescope.bench.client import make_session, send
from servescope.bench.endpoint import Endpoint
from servescope.catalog.store import document_files, packaged_root
from servescope.documents import DOCUMENT_KINDS, load, parse_document
from servescope.documents.record import RequestRecord
from servescope.documents.result import FailureCategory
from tests.bench.hostile import hostile_server
from tests.documents.test_loader_limits import alias_bomb
from tests.measure import RUN_CLI_MEASURED

CLI_EXIT_CODES = {0, 1, 2, 4}
KINDS = sorted(DOCUMENT_KINDS)

scalars = st.none() | st.booleans() | st.integers(min_value=-(2**70), max_value=2**70) | st.floats(allow_nan=True, allow_infinity=True) | st.text(max_size=30)
json_values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=12), inner, max_size=4), max_leaves=20)


@st.composite
def documents(draw: st.DrawFn) -> dict[str, Any]:
    """A mapping of one kind whose keys are mostly that kind's own fields, with any values."""
    kind = draw(st.sampled_from(KINDS))
    fields = sorted(DOCUMENT_KINDS[kind].model_fields)
    keys = st.sampled_from(fields) | st.text(max_size=12)
    return {**draw(st.dictionaries(keys, json_values, max_size=8)), "kind": kind}


def _packaged_examples() -> list[dict[str, Any]]:
    out = []
    for path in document_files(packaged_root()):
        loaded = load(path)
        if loaded.ok and isinstance(loaded.data, dict):
            out.append(loaded.data)
    return out


PACKAGED = _packaged_examples()


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix] if prefix else []
    if isinstance(value, dict):
        for k, v in value.items():
            found += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value[:5]):
            found += _paths(v, (*prefix, i))
    return found


def mutate(doc: dict[str, Any], where: int, value: Any) -> dict[str, Any]:
    """``doc`` with the value at one of its paths replaced (a valid document made a little wrong)."""
    out = copy.deepcopy(doc)
    paths = _paths(out)
    if not paths:
        return out
    path = paths[where % len(paths)]
    target: Any = out
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = value
    return out


# --- documents, in process: every input is issues, never an exception -----------------------------


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(documents())
def test_any_mapping_of_any_kind_validates_without_raising(doc: dict[str, Any]) -> None:
    parsed, issues = parse_document(doc)
    assert parsed is not None or issues
    assert all("\n" not in i.message and "Traceback" not in i.message for i in issues)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(range(len(PACKAGED))), st.integers(min_value=0), json_values)
def test_a_packaged_document_with_one_value_changed_validates_without_raising(index: int, where: int, value: Any) -> None:
    parsed, issues = parse_document(mutate(PACKAGED[index], where, value))
    assert parsed is not None or issues


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=400) | st.text(max_size=400).map(str.encode), st.sampled_from([".yaml", ".json"]))
def test_any_bytes_in_a_file_load_without_raising(tmp_path: Path, raw: bytes, suffix: str) -> None:
    path = tmp_path / f"doc{suffix}"
    path.write_bytes(raw)
    loaded = load(path)
    assert loaded.document is not None or loaded.issues


# --- documents through the CLI: exit codes, no traceback, bounded memory ---------------------------


def _cli_measured(*args: str, cwd: Path) -> tuple[int, str, float]:
    proc = subprocess.run([sys.executable, "-c", RUN_CLI_MEASURED, *args], capture_output=True, text=True, timeout=300, cwd=cwd)
    rss = [ln for ln in proc.stderr.splitlines() if ln.startswith("maxrss_kb=")]
    return proc.returncode, proc.stdout + proc.stderr, int(rss[-1].split("=")[1]) / 1024 if rss else float("inf")


def _hostile_files(folder: Path, n: int = 150, seed: int = 0) -> None:
    """Mutated packaged documents of every kind, plus the known-hostile shapes."""
    rng = random.Random(seed)
    values: list[Any] = [None, -1, 0, 2**64, 1e308, float("nan"), "", "x" * 5000, [], {}, [[[[]]]], True, "2026-13-45"]
    for i in range(n):
        doc = mutate(rng.choice(PACKAGED), rng.randrange(10**6), rng.choice(values))
        text = json.dumps(doc) if i % 2 else yaml.safe_dump(doc)
        (folder / f"m{i:03d}.{'json' if i % 2 else 'yaml'}").write_text(text, encoding="utf-8")
    (folder / "bomb.yaml").write_text(alias_bomb(), encoding="utf-8")
    (folder / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (folder / "long.yaml").write_text("kind: Workload\nx:\n" + "- 1\n" * 300_000)
    (folder / "binary.json").write_bytes(bytes(range(256)) * 10)
    (folder / "latin1.yaml").write_bytes("kind: Model\nname: caf\xe9\n".encode("latin-1"))
    (folder / "errors.json").write_text(json.dumps({"kind": "EvaluationRun", "points": [{"concurrency": "x"}] * 5000}))


@pytest.mark.integration
def test_validate_regress_and_compare_over_hostile_files_exit_cleanly_in_bounded_memory(tmp_path: Path) -> None:
    folder = tmp_path / "docs"
    folder.mkdir()
    _hostile_files(folder)
    t = time.perf_counter()
    code, text, rss_mb = _cli_measured("validate", "docs", cwd=tmp_path)
    assert code == 1  # some are invalid
    assert "Traceback" not in text and "internal error" not in text
    assert rss_mb < 300
    assert text.count("more errors") >= 1  # errors.json: capped
    assert time.perf_counter() - t < 120
    for args in (["regress", "--baseline", "docs", "--results", "docs"], ["compare", "docs/m001.json", "docs/m003.json"],
                 ["validate", "docs/bomb.yaml", "--format", "json"]):  # fmt: skip
        code, text, rss_mb = _cli_measured(*args, cwd=tmp_path)
        assert code in CLI_EXIT_CODES, text
        assert "Traceback" not in text and "internal error" not in text, text
        assert rss_mb < 300


# --- SSE byte streams through the real client ----------------------------------------------------

_CATEGORIES = set(get_args(FailureCategory))
_EVENT = st.sampled_from([
    b'data: {"choices":[{"delta":{"content":"a"}}]}\n\n', b"data: [DONE]\n\n", b"data:\n\n", b": keep-alive\n\n",
    b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n', b'data: {"error":{"message":"boom"}}\n\n',
    b"event: error\ndata: x\n\n", b"data: {\n", b"\r\n", b"\r", b"data: \xff\xfe\n\n", b'data: {"usage":{"completion_tokens":-1}}\n\n',
])  # fmt: skip


@pytest.mark.integration
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_EVENT | st.binary(max_size=60), max_size=12))
def test_any_sse_byte_stream_ends_in_a_record_never_an_exception(pieces: list[bytes]) -> None:
    with hostile_server("raw") as srv:
        srv.raw_body = b"".join(pieces)
        endpoint = Endpoint(srv.base_url, "hostile")

        async def go() -> RequestRecord:
            async with make_session() as session:
                rec = RequestRecord(request_id="f")
                return await send(session, endpoint, endpoint.body("hi", 4), rec, t0_ns=time.perf_counter_ns(), timeout_s=10)

        rec = asyncio.run(go())
    assert rec.ok or rec.category in _CATEGORIES
    assert rec.end_ns is not None
