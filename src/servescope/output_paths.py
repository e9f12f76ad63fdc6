"""Where a command may write, checked before it does any work.

Every option that names an output (``--out``, ``--plot``, a catalog root that gets a
lock file) goes through ``check_output_folder`` or ``check_output_file``: a file where
a folder is wanted (or a path under a file), a folder where a file is wanted, a
symlink that leads nowhere, and a place the process cannot create files in are each
one ``UsageError`` line naming the option, the path and what is wrong (exit 2).

Permission bits are not enough to know: root ignores them, and a read-only mount or
``/proc`` refuses a create whatever ``os.access`` says. So the nearest existing
folder is also tried with a real create (a temporary file, removed at once).

It imports ``errors`` (and ``documents.walk`` when called, so importing it costs the
CLI's start nothing), so every layer above documents may use it.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

from servescope.errors import UsageError


def _exists(path: Path) -> bool:
    return os.path.lexists(path)


def _can_create_in(folder: Path) -> str | None:
    """None when a file can be created in ``folder``; else why not (one phrase)."""
    if not os.access(folder, os.W_OK | os.X_OK):
        return "is not writable"
    try:
        fd, name = tempfile.mkstemp(prefix=".servescope-write-check-", dir=folder)
    except OSError as exc:
        return f"refuses new files ({exc.strerror or exc})"
    os.close(fd)
    with contextlib.suppress(OSError):  # a leftover empty hidden file, if the folder allows creates but not deletes
        os.unlink(name)
    return None


def _check_folder_chain(path: Path, flag: str, shown: str, advice: str) -> None:
    """``path`` is a usable folder or can become one: no file in the way, writable."""
    from servescope.documents.walk import file_type

    for folder in (path, *path.parents):
        if not _exists(folder):
            continue
        where = "" if str(folder) == shown else f"{folder} "  # the path given, or a folder above it
        odd = file_type(folder)
        if odd is not None:
            raise UsageError(f"{flag} {shown}: {where}is {odd}, not a folder; {advice}")
        if not folder.is_dir():
            raise UsageError(f"{flag} {shown}: {where}is a file, not a folder; {advice}")
        why = _can_create_in(folder)
        if why is not None:
            raise UsageError(f"{flag} {shown}: {folder} {why}; {advice}")
        return


def check_output_folder(path: Path, flag: str = "--out") -> None:
    """``path`` is a folder the command can write into, or can be created as one."""
    if str(path) == "-":
        raise UsageError(f"{flag} -: give a folder (this option does not write to standard output)")
    _check_folder_chain(path, flag, str(path), "give a folder you can write to (it is created if missing)")


def check_output_file(path: Path, flag: str = "--out") -> None:
    """``path`` is a file the command can create or overwrite, in a folder it can write into."""
    if str(path) in ("-", "", "."):
        raise UsageError(f"{flag} {str(path)!r}: give a file name (this option does not write to standard output)")
    if _exists(path):
        from servescope.documents.walk import file_type

        odd = file_type(path)
        if odd is not None:
            raise UsageError(f"{flag} {path}: is {odd}, not a regular file; give a file name to write")
        if path.is_dir():
            raise UsageError(f"{flag} {path}: is a folder; give a file name to write (e.g. {path / 'out.json'})")
        if not os.access(path, os.W_OK):
            raise UsageError(f"{flag} {path}: the file exists and is not writable; give another file name")
    _check_folder_chain(path.parent, flag, str(path), "give a file in a folder you can write to")


def check_file_name(name: str, flag: str) -> None:
    """A name for a file inside an output folder: no path separator, no ``..``, not empty."""
    seps = {"/", os.sep} | ({os.altsep} if os.altsep else set())
    if not name.strip() or name in (".", "..") or any(s in name for s in seps) or "\x00" in name:
        raise UsageError(f"{flag} {name!r}: give a plain file name (no folder, no '/' or '..'); the files go into --out")


__all__ = ["check_file_name", "check_output_file", "check_output_folder"]
