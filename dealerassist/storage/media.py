"""What an SQLite error says about the disk under a file: full, read-only, or failing.

A full or read-only disk is not a damaged log and must not be reported as one: the file is fine
and becomes writable again when space returns or the media is remounted. ``storage_problem``
tells these apart from real damage so every caller can say which it is in one line.
"""

from __future__ import annotations

import os
import sqlite3
from pathlib import Path

_FULL = sqlite3.SQLITE_FULL
_READONLY = sqlite3.SQLITE_READONLY
_CANTOPEN = sqlite3.SQLITE_CANTOPEN
_IOERR = sqlite3.SQLITE_IOERR


def storage_problem(exc: BaseException, path: Path) -> str | None:
    """``"the disk is full"``, ``"the folder is read-only"``, ``"the disk fails (...)"``; None for
    anything else (a damaged or foreign file is a different problem)."""
    if isinstance(exc, OSError):
        code = {28: "the disk is full", 30: "the folder is read-only", 13: "this user may not write there"}
        return code.get(exc.errno or 0)
    if not isinstance(exc, sqlite3.Error):
        return None
    primary = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    if primary == _FULL:
        return "the disk is full"
    if primary == _READONLY or (primary == _CANTOPEN and not _writable(path)):
        return "the folder is read-only"
    if primary == _IOERR:
        return f"the disk fails ({exc})"
    return None


def _writable(path: Path) -> bool:
    """Can this process create files beside ``path`` (a read-only mount says no, even to root)?"""
    folder = path.parent if str(path.parent) else Path(".")
    return os.access(folder, os.W_OK) and (not path.exists() or os.access(path, os.W_OK))
