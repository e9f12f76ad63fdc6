"""Marked ``sleep`` processes: what a test's untrusted code starts to outlive its run.

The code runs ``sleep MARK`` with a mark unique to the test, so the test finds exactly
its own leftovers in /proc (never another test's or another user's) and kills them by
pid, whatever the outcome.
"""

from __future__ import annotations

import contextlib
import os
import signal
import uuid
from pathlib import Path


def unique_mark() -> str:
    """A ``sleep`` argument no other test uses: a number of seconds, above 1000 so the
    sleeper outlives any run that should have killed it."""
    return f"{1000 + uuid.uuid4().int % 1000}.{uuid.uuid4().int % 10**6}"


def sleepers(mark: str) -> list[int]:
    """Pids of the ``sleep MARK`` processes now running."""
    pids = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                if Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", mark.encode()]:
                    pids.append(int(pid))
            except OSError:
                pass  # it ended while we looked
    return pids


def kill_sleepers(mark: str) -> list[int]:
    """Kill the ``sleep MARK`` processes now running; their pids (none when nothing leaked)."""
    pids = sleepers(mark)
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):  # it ended by itself meanwhile
            os.kill(pid, signal.SIGKILL)
    return pids
