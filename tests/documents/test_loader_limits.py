"""Hostile documents end in one clear line, in bounded time and memory (servescope.limits)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from servescope import limits
from servescope.catalog.store import Catalog
from servescope.documents import load
from servescope.documents.base import error
from servescope.documents.loader import cap_issues
from servescope.errors import CatalogError
from tests.documents.conftest import SEED_EVALUATION_RUN_YAML, WriteFn
from tests.measure import PEAK_KB


def alias_bomb(levels: int = 18, width: int = 9) -> str:
    """The "billion laughs": each level is a list of ``width`` aliases of the level below."""
    lines = ["kind: EvaluationRun", "a0: &a0 [" + ",".join(['"lol"'] * width) + "]"]
    for level in range(1, levels):
        lines.append(f"a{level}: &a{level} [" + ",".join([f"*a{level - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


_MEASURE = (
    PEAK_KB
    + """
import json, sys, time
t = time.perf_counter()
from servescope.documents import load
loaded = load(sys.argv[1])
print(json.dumps({"s": time.perf_counter() - t, "rss_mb": peak_kb() / 1024,
                  "issues": [i.message for i in loaded.issues]}))
"""
)


def _measure_load(path: Path) -> dict[str, object]:
    """Load ``path`` in a fresh interpreter; its own time and peak RSS (the whole process)."""
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, timeout=30, check=True)
    return json.loads(proc.stdout)


def test_a_1kb_alias_bomb_answers_in_under_2_s_and_200_mb(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(), encoding="utf-8")
    assert 900 <= path.stat().st_size <= 1024  # 9^18 (1.5e17) "lol"s in under 1 KB
    got = _measure_load(path)
    assert got["s"] < 2.0
    assert got["rss_mb"] < 200
    [message] = got["issues"]
    assert "expands to more than" in message and "SERVESCOPE_MAX_DOCUMENT_NODES" in message


def test_the_bomb_through_validate_is_one_line_and_exit_1(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(), encoding="utf-8")
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "servescope", "validate", str(path)], capture_output=True, text=True, timeout=30)
    assert time.perf_counter() - t < 10
    assert proc.returncode == 1
    assert "Traceback" not in proc.stderr + proc.stdout
    assert proc.stderr.count(str(path)) == 1


def test_merge_keys_and_small_aliases_still_load(write: WriteFn) -> None:
    text = (
        "kind: EvaluationRun\nname: n\nscenario: s\nharness: h\nengine_version: '1'\n"
        "points:\n  - &first\n    concurrency: 1\n    ttft_ms: 5.0\n  - <<: *first\n    concurrency: 2\n"
    )
    assert load(write("run.yaml", text)).ok


def test_a_long_list_is_refused_before_it_is_built(write: WriteFn) -> None:
    path = write("big.yaml", "kind: Workload\nitems:\n" + "- 1\n" * (limits.MAX_LIST_ITEMS + 1))
    [issue] = load(path).issues
    assert "list of more than" in issue.message and "SERVESCOPE_MAX_LIST_ITEMS" in issue.message


def test_a_long_json_list_is_refused(write: WriteFn) -> None:
    path = write("big.json", json.dumps({"kind": "Workload", "items": [0] * (limits.MAX_LIST_ITEMS + 1)}))
    [issue] = load(path).issues
    assert "list of more than" in issue.message


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_deep_nesting_is_refused_with_the_limit_named(write: WriteFn, suffix: str) -> None:
    depth = limits.MAX_DOCUMENT_DEPTH + 1
    text = '{"kind": "Workload", "x": ' + "[" * depth + "]" * depth + "}"
    [issue] = load(write(f"deep{suffix}", text)).issues
    assert "nested too deeply" in issue.message and "SERVESCOPE_MAX_DOCUMENT_DEPTH" in issue.message


def test_the_limits_can_be_raised_by_environment(tmp_path: Path) -> None:
    path = tmp_path / "bomb.yaml"
    path.write_text(alias_bomb(levels=4), encoding="utf-8")  # 9^4 = 6561 values + lists
    env = {**os.environ, "SERVESCOPE_MAX_DOCUMENT_NODES": "100"}
    proc = subprocess.run([sys.executable, "-c", _MEASURE, str(path)], capture_output=True, text=True, timeout=30, env=env, check=True)
    assert "more than 100 values" in json.loads(proc.stdout)["issues"][0]
    assert "expands" not in " ".join(i.message for i in load(path).issues)  # at the default it is only an unknown field


def test_a_bad_limit_setting_is_one_line_and_exit_2(tmp_path: Path) -> None:
    env = {**os.environ, "SERVESCOPE_MAX_LIST_ITEMS": "lots"}
    proc = subprocess.run([sys.executable, "-m", "servescope", "validate", str(tmp_path)], capture_output=True, text=True, timeout=30, env=env)
    assert proc.returncode == 2
    assert "SERVESCOPE_MAX_LIST_ITEMS='lots': give a positive integer" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_errors_are_capped_with_a_count_of_the_rest(write: WriteFn) -> None:
    points = "".join(f"  - concurrency: 1\n    ttft_ms: {i}.0\n" for i in range(500))
    text = SEED_EVALUATION_RUN_YAML.split("points:")[0] + "points:\n" + points
    issues = load(write("run.yaml", text)).issues
    assert len(issues) == limits.MAX_ISSUES_PER_FILE + 1
    assert issues[-1].message.startswith(f"... and {499 - limits.MAX_ISSUES_PER_FILE} more errors")


def test_cap_keeps_short_lists_whole() -> None:
    issues = [error(f"x[{i}]", "bad") for i in range(3)]
    assert cap_issues(issues, 3) == issues
    capped = cap_issues(issues, 2)
    assert [i.path for i in capped[:2]] == ["x[0]", "x[1]"] and "1 more error " in capped[2].message


def test_a_bomb_in_a_user_catalog_is_skipped_and_named(tmp_path: Path) -> None:
    (tmp_path / "workloads").mkdir()
    bomb = tmp_path / "workloads" / "bomb.yaml"
    bomb.write_text(alias_bomb(), encoding="utf-8")
    t = time.perf_counter()
    cat = Catalog.load([tmp_path])
    assert time.perf_counter() - t < 10
    assert cat.broken == [bomb]
    assert "expands to more than" in cat.broken_lines()[0]
    assert cat.ids("workloads")  # the packaged ones are all there
    with pytest.raises(CatalogError, match=r"skipped as invalid, e\.g\. .*bomb\.yaml"):
        cat.workload("bomb")


def test_a_bomb_on_the_catalog_path_does_not_stall_catalog_list(tmp_path: Path) -> None:
    (tmp_path / "workloads").mkdir()
    (tmp_path / "workloads" / "bomb.yaml").write_text(alias_bomb(), encoding="utf-8")
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-m", "servescope", "catalog", "list"], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0
    assert "bomb.yaml: skipped: expands to more than" in proc.stderr
    assert "serve-chat-c8-i1k-o256-v1" in proc.stdout
