"""servescope's one cache folder (the embedded engine's files, the compiled simulator),
overridable by environment."""

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
