"""The simulator compiled to C by mypyc: built once per version of its sources, kept in the
cache folder, used when present, pure Python otherwise.

Why: the event loop (``sim/``, ~2,200 lines of typed Python) is ~90 % of a ``search`` and of a
large ``predict``, and its profile is flat (no line above 2 %), so no Python rewrite halves it;
compiled by mypyc the same source runs ~2.4x faster (benchmarks/docs/predict-speed.md).

Which one runs: ``sim/__init__`` calls :func:`activate` with its ``__path__``. When a build of
these exact sources - a SHA-256 of every ``sim`` module and of the two modules whose types they
compile against (``deployment``, ``step_time``), with the interpreter's tag and the machine - is
in ``<cache>/native-sim/<key>/``, that folder goes first on the package's path, so
``import servescope.predict.sim.simulator`` loads the extension. An edit to any of those sources
changes the key: the edited Python runs until it is built again, never a stale build.
``SERVESCOPE_PURE_PYTHON=1`` keeps pure Python whatever is built. The two give the same
predictions, byte for byte (``tests/predict/test_native.py``).

Build: ``python -m servescope.native_sim`` (``make`` runs it). It needs mypy, which ships
mypyc (the ``dev`` and ``fast`` extras), and a C compiler with Python's headers; without them it
says so in one line and exits 0, and predictions run in pure Python.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from servescope.cache_dir import default_cache_dir

PURE_ENV = "SERVESCOPE_PURE_PYTHON"
#: the modules compiled, all of ``sim/`` but its ``__init__``
SIM_MODULES = ("events", "kv_cache", "load", "replica", "request", "router", "scheduler", "sglang_scheduler", "simulator")
#: compiled against, not compiled: their sources are part of the key
TYPED_AGAINST = ("deployment.py", "step_time.py")
#: the shared library's module: ``servescope/predict/sim/_native__mypyc.*.so``
GROUP = "servescope.predict.sim._native"
COMPLETE = "complete"

_PREDICT = Path(__file__).resolve().parent / "predict"
_SIM = _PREDICT / "sim"


def source_key() -> str:
    """What a build is valid for: its sources, the interpreter's ABI tag and the machine."""
    digest = hashlib.sha256()
    digest.update(f"{sys.implementation.cache_tag} {platform.machine()}\n".encode())
    for path in [_SIM / f"{name}.py" for name in SIM_MODULES] + [_PREDICT / name for name in TYPED_AGAINST]:
        digest.update(path.name.encode() + b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return f"{sys.implementation.cache_tag}-{digest.hexdigest()[:24]}"


def build_root() -> Path:
    return default_cache_dir() / "native-sim"


def built_dir() -> Path | None:
    """The complete build of these sources, or None."""
    try:
        folder = build_root() / source_key()
    except OSError:  # (a source unreadable: run what imports)
        return None
    return folder if (folder / COMPLETE).is_file() else None


def _pure() -> bool:
    return os.environ.get(PURE_ENV, "").strip() not in ("", "0")


def activate(package_path: list[str]) -> bool:
    """Put the compiled modules first on ``sim``'s path when a build of these sources exists."""
    if _pure():
        return False
    folder = built_dir()
    if folder is None:
        return False
    package_path.insert(0, str(folder / "servescope" / "predict" / "sim"))
    return True


_SETUP = """
import sys
from setuptools import setup
from mypyc.build import mypycify
setup(name="servescope-native-sim", script_args=["build_ext", "--inplace"],
      ext_modules=mypycify(sys.argv[1:], group_name={group!r}, opt_level="3"))
"""


class BuildError(Exception):
    """The build could not run or failed; its message is one line."""


def build(*, force: bool = False, log: Path | None = None) -> Path:
    """Compile ``sim/`` with mypyc into the cache (a no-op when this key is built)."""
    key = source_key()
    final = build_root() / key
    if (final / COMPLETE).is_file() and not force:
        return final
    try:
        import mypyc  # noqa: F401
    except ImportError:
        raise BuildError("mypyc is not installed (it ships with mypy: pip install mypy)") from None
    if shutil.which(os.environ.get("CC", "cc").split()[0]) is None and shutil.which("gcc") is None:
        raise BuildError("no C compiler found (install gcc, or set CC)")
    root = build_root()
    root.mkdir(parents=True, exist_ok=True)
    log = log or root / f"{key}.log"
    with tempfile.TemporaryDirectory(prefix="native-sim-", dir=root) as tmp:
        work = Path(tmp) / "src"
        # the whole package, so mypy sees every type the simulator uses; the .so files land here
        shutil.copytree(_PREDICT.parent, work / "servescope", ignore=shutil.ignore_patterns("__pycache__", "*.so", "data"))
        paths = [f"servescope/predict/sim/{name}.py" for name in SIM_MODULES]
        started = time.monotonic()
        with log.open("wb") as out:
            done = subprocess.run(
                [sys.executable, "-c", _SETUP.format(group=GROUP), "--ignore-missing-imports", *paths], cwd=work, stdout=out, stderr=subprocess.STDOUT
            )
        if done.returncode != 0:
            raise BuildError(f"mypyc failed (exit {done.returncode}); its output is in {log}")
        built = sorted((work / "servescope" / "predict" / "sim").glob("*.so"))
        if len(built) < len(SIM_MODULES) + 1:
            raise BuildError(f"mypyc wrote {len(built)} extensions, not {len(SIM_MODULES) + 1}; its output is in {log}")
        staged = Path(tmp) / "out"
        target = staged / "servescope" / "predict" / "sim"
        target.mkdir(parents=True)
        for so in built:
            shutil.copy2(so, target / so.name)
        (staged / COMPLETE).write_text(f"built in {time.monotonic() - started:.0f} s by {sys.executable}\n")
        if final.exists():
            shutil.rmtree(final)
        os.replace(staged, final)
    _check(final)
    return final


def _check(folder: Path) -> None:
    """Import the build in a fresh interpreter: a build that does not load is removed."""
    probe = "import servescope.predict.sim.simulator as m, sys; sys.exit(0 if not m.__file__.endswith('.py') else 3)"
    env = {k: v for k, v in os.environ.items() if k != PURE_ENV}
    done = subprocess.run([sys.executable, "-c", probe], env=env, capture_output=True, text=True)
    if done.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        last = (done.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise BuildError(f"the build did not load ({last}); removed")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m servescope.native_sim",
        description="Compile the simulator with mypyc into servescope's cache folder (predictions then run ~2.4x faster).",
        epilog="Example: python -m servescope.native_sim            # build, unless these sources are built\n"
        "         python -m servescope.native_sim --status   # which simulator predictions use",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--force", action="store_true", help="build again even when these sources are built")
    parser.add_argument("--status", action="store_true", help="say which simulator runs, build nothing")
    args = parser.parse_args(argv)
    if args.status:
        folder = built_dir()
        if folder is None:
            print(f"pure Python: no compiled simulator for these sources in {build_root()} (python -m servescope.native_sim builds it)")
        elif _pure():
            print(f"pure Python: {PURE_ENV} is set (a compiled simulator is in {folder})")
        else:
            print(f"compiled: {folder}")
        return 0
    started = time.monotonic()
    if built_dir() is None or args.force:
        print("servescope: compiling the simulator with mypyc (a few minutes, once per version of its sources)...", flush=True)
    try:
        folder = build(force=args.force)
    except BuildError as exc:
        print(f"servescope: the compiled simulator was not built: {exc}; predictions run in pure Python (slower, the same results)")
        return 0
    print(f"servescope: compiled simulator in {folder} ({time.monotonic() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
