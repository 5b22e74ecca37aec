"""``dealerassist backup``: copy live SQLite event logs with SQLite's online backup API.

The copy is consistent even while tables keep appending: in WAL mode the backup reads one snapshot
in a single step without blocking writers. Each copy is one self-contained file in rollback-journal
mode (readable from read-only media, on any machine) and is checked with ``PRAGMA integrity_check``
before it is kept.
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import time
from pathlib import Path

from dealerassist.errors import DealerAssistError


class BackupError(DealerAssistError):
    """A backup that could not be made or did not check out."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("backup", help="online backup of SQLite event logs (safe while tables run)")
    source = p.add_mutually_exclusive_group(required=True)
    source.add_argument("--db", type=Path, help="one database file")
    source.add_argument("--data-dir", type=Path, help="every *.sqlite3 file in this directory")
    p.add_argument("--out", type=Path, required=True, help="directory for the timestamped copies")
    p.set_defaults(handler=_run)


def backup_database(source: Path, out_dir: Path, stamp: str | None = None) -> Path:
    """Copy ``source`` into ``out_dir`` as ``<stem>-<UTC stamp>.sqlite3`` and check the copy."""
    if not source.is_file():
        raise BackupError(f"{source}: no such database file")
    if out_dir.exists() and not out_dir.is_dir():
        raise BackupError(f"--out {out_dir}: is a file; name a folder for the copies")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise BackupError(f"--out {out_dir}: cannot create the folder: {exc.strerror or exc}") from None
    stamp = stamp or time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
    target = out_dir / f"{source.stem}-{stamp}.sqlite3"
    partial = target.with_suffix(".partial")
    src = sqlite3.connect(f"file:{source}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(partial)
        try:
            src.backup(dst)
            # The copy keeps the source's WAL mode, which a reader cannot open on read-only media:
            # a rollback journal makes it one self-contained file that opens read-only anywhere.
            dst.execute("PRAGMA journal_mode=DELETE")
            verdict = dst.execute("PRAGMA integrity_check").fetchone()[0]
        finally:
            dst.close()
    except sqlite3.DatabaseError as exc:
        partial.unlink(missing_ok=True)
        raise BackupError(f"{source}: backup failed: {exc}") from None
    finally:
        src.close()
    if verdict != "ok":
        partial.unlink(missing_ok=True)
        raise BackupError(f"{source}: the copy failed its integrity check: {verdict}")
    partial.replace(target)
    return target


def _run(args: argparse.Namespace) -> int:
    if args.data_dir and not args.data_dir.is_dir():
        raise BackupError(f"--data-dir {args.data_dir}: no such folder")
    sources = [args.db] if args.db else sorted(args.data_dir.glob("*.sqlite3"))
    if not sources:
        raise BackupError(f"{args.data_dir}: no *.sqlite3 event logs to back up")
    failed: list[str] = []
    for source in sources:
        try:
            print(backup_database(source, args.out))
        except BackupError as exc:
            if len(sources) == 1:
                raise
            print(f"dealerassist: error: {exc}", file=sys.stderr)
            failed.append(str(source))
    if failed:
        raise BackupError(f"{len(failed)} of {len(sources)} logs not backed up: {', '.join(failed)}")
    return 0
