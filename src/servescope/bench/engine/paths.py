"""Where the embedded engine keeps its files: one cache folder, overridable by environment."""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "SERVESCOPE_CACHE_DIR"


def default_cache_dir() -> Path:
    """``$SERVESCOPE_CACHE_DIR``, else ``$XDG_CACHE_HOME/servescope``, else ``~/.cache/servescope``."""
    explicit = os.environ.get(CACHE_DIR_ENV, "").strip()
    if explicit:
        return Path(explicit).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME", "").strip()
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "servescope"


def resolve_cache_dir(cache_dir: str | os.PathLike[str] | None) -> Path:
    """The given folder, or the default one."""
    return Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
