"""Joining a Ray cluster that uses Ray's token authentication: nothing of Ray's in the terminal when the
join works (``auto``), one line saying what to set when the cluster refuses an explicit address for
want of the token, for ``run --ray`` and ``search --ray`` alike (exit code 2: the address is input)."""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from servescope.ray_join import TOKEN_ADVICE
from servescope.testing.truth.server import TruthServer
from tests.integration.test_run_workers import loopback_ray_head

pytestmark = pytest.mark.integration

SEARCH = ["search", "--model", "llama-3.1-8b", "--hardware", "h100-sxm", "--gpus", "2", "--slo", "ttft_ms<=500", "--isl", "128", "--osl", "16", "--concurrency", "4"]  # fmt: skip


@pytest.fixture(scope="module")
def token_head() -> Iterator[tuple[str, dict[str, str]]]:
    """A loopback Ray head that asks for a token (its own, in the environment: no token file written),
    and the environment a client on this host has: the token, the mode unset."""
    pytest.importorskip("ray")
    temp = tempfile.mkdtemp(prefix="ssrayt-")  # short: Ray's socket paths live under it
    base = {k: v for k, v in os.environ.items() if not k.startswith("RAY_")}
    client = {**base, "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0", "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_TOKEN": secrets.token_hex(16)}
    with loopback_ray_head(temp, {**client, "RAY_AUTH_MODE": "token"}) as address:
        yield address, client


def _cli(*args: str, env: dict[str, str], cwd: Path | None = None) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-m", "servescope", *args], env=env, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_a_join_that_works_leaves_nothing_of_rays_in_the_terminal(token_head: tuple[str, dict[str, str]]) -> None:
    """``auto`` sends the token; Ray's "Token authentication is enabled" warning stays out. ``auto`` finds
    the cluster ``ray start`` noted in Ray's temp folder (here a folder of the test's own: RAY_TMPDIR)."""
    address, env = token_head
    noted = Path(tempfile.mkdtemp(prefix="ssrayn-"))
    (noted / "ray").mkdir()
    (noted / "ray" / "ray_current_cluster").write_text(address)
    proc = _cli(*SEARCH, "--ray", "auto", env={**env, "RAY_TMPDIR": str(noted)})
    stdout, stderr = proc.communicate(timeout=300)
    assert proc.returncode == 0, stdout + stderr
    assert stderr == "", stderr
    assert "10 configurations" in stdout


def test_an_address_refused_for_want_of_the_token_is_one_line_for_run_and_search(token_head: tuple[str, dict[str, str]], tmp_path: Path) -> None:
    address, env = token_head
    with TruthServer(ttft_ms=1.0, itl_ms=1.0) as srv:
        # both at once: Ray retries a refused client for about 20 s before it gives up
        search = _cli(*SEARCH, "--ray", address, env=env)
        run = _cli("run", "--isl", "32", "--osl", "8", "--num-requests", "8", "--concurrency", "2", "--endpoint", srv.base_url, "--no-scrape",
                   "--workers", "2", "--ray", address, "--out", str(tmp_path / "runs"), env=env)  # fmt: skip
        outs = {name: (p, *p.communicate(timeout=300)) for name, p in (("search", search), ("run", run))}
    for name, (proc, stdout, stderr) in outs.items():
        assert proc.returncode == 2, (name, stdout, stderr)
        assert [line for line in stderr.splitlines() if "━" not in line] == [f"error: --ray {address}: {TOKEN_ADVICE}"], (name, stderr)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
