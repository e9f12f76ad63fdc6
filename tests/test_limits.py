"""servescope.limits: one registry, documented in docs/limits.md."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from servescope import limits

LIMITS_PAGE = (Path(__file__).resolve().parents[1] / "docs" / "limits.md").read_text(encoding="utf-8")


def test_every_limit_is_registered_and_in_the_limits_page() -> None:
    names = {n for n in dir(limits) if n.startswith("MAX_")}
    registered = {limit.name for limit in limits.registry()}
    assert names == registered
    for limit in limits.registry():
        assert f"| `{limit.env}` | {limit.default:,} |" in LIMITS_PAGE, limit.env


def test_a_limit_is_read_from_its_environment_variable() -> None:
    env = {**os.environ, "SERVESCOPE_MAX_RESPONSE_BYTES": "1_000"}
    code = "from servescope import limits; print(limits.MAX_RESPONSE_BYTES)"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "1000"
