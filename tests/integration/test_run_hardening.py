"""`servescope run` against a hostile server: bounded memory, no key on disk or screen."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from servescope.catalog.store import Catalog
from tests.bench.hostile import hostile_server
from tests.measure import RUN_CLI_MEASURED

pytestmark = pytest.mark.integration

KEY = "sk-hostile-test-0a1b2c3d4e5f6789"


def run_measured(*args: str, catalog: Catalog, env: dict[str, str] | None = None, timeout: float = 120) -> tuple[int, str, str, float]:
    full_env = {**os.environ, "SERVESCOPE_CATALOG_PATH": str(catalog.roots[-1]), **(env or {})}
    proc = subprocess.run([sys.executable, "-c", RUN_CLI_MEASURED, *args], env=full_env, capture_output=True, text=True, timeout=timeout)
    rss_line = [ln for ln in proc.stderr.splitlines() if ln.startswith("maxrss_kb=")]
    return proc.returncode, proc.stdout, proc.stderr, int(rss_line[-1].split("=")[1]) / 1024


def _records(out: Path) -> list[dict[str, object]]:
    [path] = out.glob("*/records.jsonl")
    lines = [json.loads(ln) for ln in path.read_text().splitlines()]
    return [ln for ln in lines if "request_id" in ln]


def test_endless_data_lines_end_every_request_in_bounded_memory(itest_catalog: Catalog, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    with hostile_server("endless-data-lines") as srv:
        code, _stdout, stderr, rss_mb = run_measured(
            "run",
            "serve-itest-c4-v1",
            "--endpoint",
            srv.base_url,
            "--model",
            "hostile",
            "--no-scrape",
            "--no-fail-fast",  # every request meets the endless lines: each must end in bounded memory
            "--out",
            str(out),
            catalog=itest_catalog,
        )
    assert code == 4, stderr  # ran, recorded, failed its bar: no request completed
    assert "Traceback" not in stderr
    assert rss_mb < 300
    records = _records(out)
    assert len(records) == 14  # 2 warmup + 12 measured: every one recorded
    assert {(r["stage"], r["category"]) for r in records} == {("stream", "malformed-output")}
    result = json.loads(next(out.glob("*/result.json")).read_text())
    assert result["blocked_by_reason_code"] == {"malformed-output": 12}


def test_a_key_echoed_by_the_server_is_in_no_file_and_no_stream(itest_catalog: Catalog, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    seen: list[str] = []
    for mode in ("echo-headers", "echo-headers-in-stream"):
        with hostile_server(mode) as srv:
            code, stdout, stderr, _ = run_measured(
                "run",
                "serve-itest-c4-v1",
                "--endpoint",
                srv.base_url,
                "--model",
                "hostile",
                "--api-key-env",
                "HOSTILE_KEY",
                "--no-scrape",
                "--out",
                str(out / mode),
                catalog=itest_catalog,
                env={"HOSTILE_KEY": KEY},
            )
            assert any(h.get("authorization") == f"Bearer {KEY}" for h in srv.seen_headers)  # it was sent and echoed
        assert code == 4, stderr
        seen += [stdout, stderr]
        files = [p for p in (out / mode).rglob("*") if p.is_file()]
        assert {p.name for p in files} >= {"records.jsonl", "result.json", "evaluation-run.json"}
        seen += [p.read_bytes().decode("utf-8", errors="replace") for p in files]
        assert "<redacted>" in (out / mode).joinpath(files[0].parent.name, "records.jsonl").read_text()
    leaks = [i for i, text in enumerate(seen) if KEY in text or KEY[8:20] in text]
    assert leaks == []


@pytest.mark.parametrize("url", ["ftp://alice:hunter2-secret@127.0.0.1:9/v1", "http://alice:hunter2-secret@127.0.0.1:9/v1"])
def test_credentials_in_an_endpoint_url_are_never_echoed(itest_catalog: Catalog, tmp_path: Path, url: str) -> None:
    code, stdout, stderr, _ = run_measured("run", "serve-itest-c4-v1", "--endpoint", url, "--out", str(tmp_path), catalog=itest_catalog)
    assert code in (1, 2)
    assert "hunter2" not in stdout + stderr and "alice" not in stdout + stderr
    assert len([ln for ln in stderr.splitlines() if ln.startswith("error:")]) == 1
    assert not any(tmp_path.rglob("*.json*"))
