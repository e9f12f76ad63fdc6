"""A server that reports impossible token counts (the timing-truth server's
``usage_fields``): each such request is a ``malformed-output`` failure, the run
ends with its Result, and summarize rebuilds the records."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from servescope.bench.collect import collect_results
from servescope.bench.records import read_records
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from servescope.testing.truth.server import TruthServer

pytestmark = pytest.mark.integration


@pytest.mark.parametrize(
    ("fields", "phrase"),
    [
        ({"completion_tokens": -5}, "usage.completion_tokens is -5, below 0"),
        ({"prompt_tokens": -1}, "usage.prompt_tokens is -1, below 0"),
        ({"completion_tokens": 2.5}, "usage.completion_tokens is 2.5, not a whole number"),
        ({"prompt_tokens": "12"}, "usage.prompt_tokens is '12', not a whole number"),
        ({"completion_tokens": True}, "usage.completion_tokens is True, not a whole number"),
        ({"completion_tokens": 100_000}, "more than max_tokens 16 allows"),
        ({"prompt_tokens_details": {"cached_tokens": -3}}, "usage.prompt_tokens_details.cached_tokens is -3, below 0"),
        ({"prompt_tokens": 4, "prompt_tokens_details": {"cached_tokens": 9}}, "cached_tokens is 9, more than prompt_tokens 4"),
    ],
)
def test_impossible_usage_is_a_malformed_output_failure_and_the_run_keeps_its_result(
    itest_catalog: Catalog, tmp_path: Path, fields: dict[str, Any], phrase: str
) -> None:
    with TruthServer(ttft_ms=1, itl_ms=1, usage_fields=fields) as srv:  # every request fails: no fail-fast, each is judged
        opts = RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False, fail_fast=False)
        art = run_workload(opts, catalog=itest_catalog)
    records = list(read_records(art.records_path))
    assert len(records) == 14  # 2 warmup + 12 measured, each recorded
    assert {(r.ok, r.stage, r.category) for r in records} == {(False, "stream", "malformed-output")}
    assert all(phrase in (r.error or "") for r in records), records[0].error
    assert all(r.output_tokens is None and r.input_tokens is None for r in records)  # nothing of the bad block kept
    assert art.result.metrics.failed_requests == 12
    assert art.result.blocked_by_reason_code == {"malformed-output": 12}
    (art.run_dir / "result.json").unlink()  # as if killed before the end: summarize rebuilds it from the records
    found = collect_results([tmp_path], itest_catalog)
    assert found.problems == [] and found.dropped == {}
    [rebuilt] = found.results
    assert rebuilt.metrics.failed_requests == 12


def test_plausible_usage_is_kept(itest_catalog: Catalog, tmp_path: Path) -> None:
    """The control: counts within max_tokens (+ the slack an engine may take) are used as they are."""
    with TruthServer(ttft_ms=1, itl_ms=1, usage_fields={"completion_tokens": 17, "prompt_tokens": 0}) as srv:
        art = run_workload(RunOptions("serve-itest-c4-v1", endpoint=srv.base_url, out_dir=tmp_path, scrape_metrics=False), catalog=itest_catalog)
    records = list(read_records(art.records_path))
    assert all(r.ok and r.output_tokens == 17 and r.input_tokens == 0 for r in records)


def test_negative_counts_from_the_cli_end_in_a_result_not_an_internal_error(itest_catalog: Catalog, tmp_path: Path) -> None:
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1])}
    with TruthServer(ttft_ms=1, itl_ms=1, usage_fields={"completion_tokens": -5}) as srv:
        proc = subprocess.run(
            [sys.executable, "-m", "servescope", "run", "serve-itest-c4-v1", "--endpoint", srv.base_url, "--no-scrape", "--out", str(tmp_path / "runs")],
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
    assert proc.returncode == 4, proc.stderr  # ran, recorded, failed its bar
    assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr
    assert len(list((tmp_path / "runs").glob("*/result.json"))) == 1
