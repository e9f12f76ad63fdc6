"""The report of a real run (what `make demo` ends with, on a test-sized sweep):
measured on the llama.cpp server, written by `servescope report`, opened from disk
in headless Chromium with no console errors and no network requests."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from servescope.bench.engine import LlamaServer
from servescope.bench.run import RunOptions, run_workload
from servescope.catalog.store import Catalog
from tests.report.browser import chromium

pytestmark = pytest.mark.integration


def test_report_of_a_real_sweep_opens_clean_in_chromium(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    run_workload(RunOptions("sweep-itest-1-4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path / "runs"), catalog=itest_catalog)
    import os

    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1])}
    proc = subprocess.run(
        [sys.executable, "-m", "servescope", "report", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "site")],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    index = Path(proc.stdout.strip().splitlines()[-1])
    assert index == (tmp_path / "site" / "index.html").resolve()
    with chromium(tmp_path / "profile") as (context, watch):
        page = context.new_page()
        page.goto(index.as_uri())
        c = page.locator('.facet[data-workload="sweep-itest-1-4-v1"] td.cell[data-model="servescope-tiny-llama"]')
        assert c.get_attribute("data-status") == "measured"
        page.get_by_role("link", name="sweep-itest-1-4-v1", exact=True).first.click()
        page.wait_for_selector(".chart .main-svg")
        assert page.locator(".chart").first.locator(".scatterlayer .point").count() == 3  # concurrency 1, 2, 4
        page.locator("a.run").first.click()
        page.wait_for_load_state("load")
        assert page.locator("h1").inner_text().startswith("Result sweep-itest-1-4-v1-")
        page.screenshot(path=str(tmp_path / "run.png"), full_page=True)
        watch.assert_clean()
        assert watch.requests and all(u.startswith("file://") for u in watch.requests)


def test_a_partial_run_is_reported_from_its_records(llama: LlamaServer, itest_catalog: Catalog, tmp_path: Path) -> None:
    import os
    import shutil

    run_workload(RunOptions("serve-itest-c4-v1", endpoint=llama.openai_base_url, out_dir=tmp_path / "runs"), catalog=itest_catalog)
    [run_dir] = list((tmp_path / "runs").iterdir())
    for name in ("result.json", "evaluation-run.json"):  # as if it had been killed before writing them
        (run_dir / name).unlink()
    env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(itest_catalog.roots[-1])}
    proc = subprocess.run(
        [sys.executable, "-m", "servescope", "report", "--in", str(tmp_path / "runs"), "--out", str(tmp_path / "site")],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"{run_dir / 'records.jsonl'}: partial run, reported from its records" in proc.stdout
    [page] = list((tmp_path / "site" / "runs").glob("serve-itest-c4-v1-*.html"))
    assert "records.jsonl" in page.read_text(encoding="utf-8")
    shutil.rmtree(tmp_path / "runs")
