"""What the scoring tests share: the machine's working sandbox."""

from __future__ import annotations

import pytest

from servescope.errors import UsageError
from servescope.scoring.sandbox import BwrapRunner, find_sandbox


def working_sandbox() -> BwrapRunner:
    """The bubblewrap sandbox this machine runs code in; a test that needs it fails
    (never skips) where there is none: every machine kind the suite runs on has one."""
    try:
        runner = find_sandbox()
    except UsageError as exc:
        pytest.fail(f"no working sandbox on this machine kind: {exc}")
    assert isinstance(runner, BwrapRunner)
    return runner
