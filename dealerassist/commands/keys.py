"""``dealerassist keys``: create, rotate and identify the per-table keys that MAC the log's records."""

from __future__ import annotations

import argparse

from dealerassist.storage.chain import GENESIS_HASH
from dealerassist.storage.eventlog import EventLog, default_db
from dealerassist.storage.events import KeyRotated
from dealerassist.storage.keys import (
    create_key_file,
    key_path,
    keys_dir,
    load_key_file,
    rotate_key_file,
)

_KEYS_HELP = "directory of table key files (default: $DEALERASSIST_KEYS or /etc/dealerassist/keys)"


def register(sub: argparse._SubParsersAction) -> None:
    keys = sub.add_parser("keys", help="per-table secret keys that MAC the event log's records")
    verbs = keys.add_subparsers(dest="keys_command", metavar="VERB", required=True)
    p = verbs.add_parser("create", help="make a table's first key (run as the service user, station stopped)")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--keys", default=None, help=_KEYS_HELP)
    p.add_argument(
        "--db", default=None, help="the table's event log, if it exists: keying starts at its head"
    )
    p.set_defaults(handler=_create)
    p = verbs.add_parser("rotate", help="add a new current key and log the rotation as a record")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--keys", default=None, help=_KEYS_HELP)
    p.add_argument("--db", default=None, help="event log file (default: $DEALERASSIST_DB or var/events.db)")
    p.set_defaults(handler=_rotate)
    p = verbs.add_parser("show-id", help="print a table's key ids (never the secrets)")
    p.add_argument("--table", required=True, help="table id")
    p.add_argument("--keys", default=None, help=_KEYS_HELP)
    p.set_defaults(handler=_show)


def _create(args: argparse.Namespace) -> int:
    directory = keys_dir(args.keys)
    anchor = (0, GENESIS_HASH)
    if args.db:
        with EventLog(args.db, readonly=True) as log:
            report = log.verify()
            if not report.ok:
                print(f"refused: the log does not verify ({report.problem}); a key must not seal a bad chain")
                return 1
            head = next(log.rows(after=report.checked - 1), None) if report.checked else None
            anchor = (head[0], head[7]) if head else anchor
    path = key_path(directory, args.table)
    keys = create_key_file(path, args.table, anchor)
    if args.db:
        with EventLog(args.db, keys=directory) as log:
            log.append(KeyRotated(table=args.table, key_id=keys.current.id))
    print(f"created key {keys.current.id} for {args.table} in {path} (records after {anchor[0]} are MACed)")
    return 0


def _rotate(args: argparse.Namespace) -> int:
    directory = keys_dir(args.keys)
    path = key_path(directory, args.table)
    db = args.db or default_db()
    with EventLog(db, readonly=True):
        pass  # the log must exist before the key file changes
    keys, old = rotate_key_file(path)
    with EventLog(db, keys=directory) as log:
        record = log.append(KeyRotated(table=args.table, key_id=keys.current.id, previous=old.id))
    print(f"rotated {args.table}: {old.id} -> {keys.current.id}, logged as record {record.seq} in {db}")
    return 0


def _show(args: argparse.Namespace) -> int:
    path = key_path(keys_dir(args.keys), args.table)
    keys = load_key_file(path)
    for key in keys.keys:
        mark = "current" if key is keys.current else "retired"
        print(f"{key.id}  {mark}  created {key.created}")
    print(f"anchor: records after {keys.anchor_seq} are MACed ({path})")
    return 0
