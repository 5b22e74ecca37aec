"""``dealerassist floor``: set up the floor store and look at what it received and refused."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from dealerassist.storage.keys import key_path, keys_dir, load_key_file

if TYPE_CHECKING:  # psycopg loads only when a floor command runs
    from dealerassist.floor.store import FloorStore

_URL_HELP = (
    "floor database (PostgreSQL URL or conninfo; the password from PGPASSWORD, ~/.pgpass or a service)"
)


def register(sub: argparse._SubParsersAction) -> None:
    floor = sub.add_parser(
        "floor", help="the floor store: every station's records in one PostgreSQL database"
    )
    verbs = floor.add_subparsers(dest="floor_command", metavar="VERB", required=True)
    p = verbs.add_parser("init", help="create the floor tables, checks, roles and grants (as the DB owner)")
    p.add_argument("--floor", required=True, metavar="URL", help=_URL_HELP)
    p.set_defaults(handler=_init)
    p = verbs.add_parser("add-station", help="a login role for one station: may insert records, nothing else")
    p.add_argument("--floor", required=True, metavar="URL", help=_URL_HELP)
    p.add_argument("role", help="the station's database role name")
    p.set_defaults(handler=_add_station)
    p = verbs.add_parser("add-keys", help="give the floor a table's keys so ingest checks its MACs")
    p.add_argument("--floor", required=True, metavar="URL", help=_URL_HELP)
    p.add_argument("--table", required=True, help="table id")
    p.add_argument(
        "--keys", default=None, help="table key files (default: $DEALERASSIST_KEYS or /etc/dealerassist/keys)"
    )
    p.set_defaults(handler=_add_keys)
    p = verbs.add_parser("status", help="each station log on the floor: its head and when it last shipped")
    p.add_argument("--floor", required=True, metavar="URL", help=_URL_HELP)
    p.set_defaults(handler=_status)
    p = verbs.add_parser("alarms", help="records the floor refused: gaps, forks, bad hashes or MACs")
    p.add_argument("--floor", required=True, metavar="URL", help=_URL_HELP)
    p.add_argument("--table", action="append", default=[], help="only this table (repeatable)")
    p.set_defaults(handler=_alarms)


def _connect(url: str) -> FloorStore:
    from dealerassist.floor.store import FloorStore

    return FloorStore(url)


def _init(args: argparse.Namespace) -> int:
    from dealerassist.floor import schema

    with _connect(args.floor) as store:
        schema.install(store.conn)
    print(f"floor store ready at {store.display}: stations insert as members of {schema.STATION_ROLE}")
    return 0


def _add_station(args: argparse.Namespace) -> int:
    from dealerassist.floor import schema

    with _connect(args.floor) as store:
        schema.add_station(store.conn, args.role)
    print(f"role {args.role} may insert records (member of {schema.STATION_ROLE}); set its password apart")
    return 0


def _add_keys(args: argparse.Namespace) -> int:
    from dealerassist.floor import schema

    keys = load_key_file(key_path(keys_dir(args.keys), args.table))
    with _connect(args.floor) as store:
        added = schema.add_keys(store.conn, args.table, [(k.id, k.secret) for k in keys.keys])
    print(f"{args.table}: {added} new key(s) on the floor ({', '.join(k.id for k in keys.keys)})")
    return 0


def _status(args: argparse.Namespace) -> int:
    with _connect(args.floor) as store:
        rows = store.conn.execute(
            "SELECT stream, head_seq, tables, received_at FROM floor_streams ORDER BY stream"
        ).fetchall()
    for stream, head, tables, received in rows:
        when = f"{received:%Y-%m-%d %H:%M:%S}" if received else "never"
        print(f"{stream}: {head} records, tables {', '.join(tables)}, last received {when}")
    return 0


def _alarms(args: argparse.Namespace) -> int:
    with _connect(args.floor) as store:
        alarms = store.alarms(tables=args.table)
    for stream, seq, table, problem, detail, raised_at in alarms:
        print(f"{raised_at:%Y-%m-%d %H:%M:%S} {stream} record {seq} ({table}): {problem}: {detail}")
    if not alarms:
        print("no floor alarms")
    return 1 if alarms else 0
