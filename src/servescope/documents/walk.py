"""A folder searched for files, saying what it could not use.

``Path.rglob`` passes over a symlink loop, a broken symlink, a FIFO, a device or a
folder it cannot list as if it were not there, never enters a symlinked folder, and
raises on some of /proc's entries. Every command that takes a
folder (validate, summarize, report, catalog lock) walks it here instead, and prints
one line per path it skipped: a document the user put there and never sees counted
is lost without a word otherwise.
"""

from __future__ import annotations

import errno
import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

DOCUMENT_SUFFIXES = (".json", ".yaml", ".yml")


def file_type(path: Path) -> str | None:
    """What a path that is neither a regular file nor a folder is ("a FIFO", "a symlink
    loop", ...), or None for a regular file, a folder or nothing at all."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return None
    if stat.S_ISLNK(mode):
        try:
            mode = os.stat(path).st_mode
        except OSError as exc:
            return "a symlink loop" if exc.errno == errno.ELOOP else "a broken symlink (its target does not exist)"
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    for test, name in (
        (stat.S_ISFIFO, "a FIFO (named pipe)"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


@dataclass
class Walked:
    """The regular files wanted, in a stable order, and one line per path skipped."""

    files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)  # (path, why)

    def skipped_lines(self) -> list[str]:
        """``PATH: why (skipped)``, one per path."""
        return [f"{path}: {why} (skipped)" for path, why in self.skipped]


def is_document_name(path: Path) -> bool:
    return path.suffix.lower() in DOCUMENT_SUFFIXES


def walk(root: Path, wanted: Callable[[Path], bool] = is_document_name) -> Walked:
    """Regular files under ``root`` (recursively) whose name ``wanted`` accepts.

    Skipped, each with a line: a wanted name that is not a regular file (FIFO, device,
    socket, symlink loop, broken symlink), a symlink with no suffix that leads nowhere
    (it may have been meant as a folder), a symlinked folder (not followed: a link back
    up would walk forever; name the folder itself to include it), and a folder that
    cannot be listed (permissions, or /proc's entries that refuse it)."""
    out = Walked()
    found: list[Path] = []

    def unreadable(exc: OSError) -> None:
        out.skipped.append((Path(exc.filename or root), f"cannot be listed ({exc.strerror or exc})"))

    for folder, dirs, names in os.walk(root, onerror=unreadable):
        here = Path(folder)
        for name in dirs:
            if (here / name).is_symlink():
                found.append(here / name)
        found.extend(here / name for name in names)
    for path in sorted(found):
        odd = file_type(path)
        if odd is not None:
            if wanted(path) or not path.suffix:
                out.skipped.append((path, f"is {odd}, not a regular file"))
        elif path.is_dir():  # only symlinks to folders are listed here
            out.skipped.append((path, f"is a symlink to a folder, not followed (name {path.resolve()} itself to include it)"))
        elif wanted(path):
            out.files.append(path)
    out.skipped.sort()
    return out


__all__ = ["DOCUMENT_SUFFIXES", "Walked", "file_type", "is_document_name", "walk"]
