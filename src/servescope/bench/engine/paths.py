"""Where the embedded engine keeps its files: one cache folder, overridable by environment."""

from __future__ import annotations

import os
from pathlib import Path

from servescope.cache_dir import CACHE_DIR_ENV, default_cache_dir

__all__ = ["CACHE_DIR_ENV", "default_cache_dir", "resolve_cache_dir"]


def resolve_cache_dir(cache_dir: str | os.PathLike[str] | None) -> Path:
    """The given folder, or the default one."""
    return Path(cache_dir).expanduser() if cache_dir is not None else default_cache_dir()
