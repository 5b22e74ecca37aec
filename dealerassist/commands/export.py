"""``dealerassist export``: write the surveillance record (a time window of the log) as JSONL or CSV.

JSONL lines are whole records (sequence, time, hashes, event) and replay as they are:
``dealerassist replay export.jsonl`` runs the exported rounds again and must settle them the same.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from collections.abc import Callable, Iterator
from typing import IO

from dealerassist.events import EVENT_FORMAT_VERSION, EventError
from dealerassist.floor.search import add_floor_options, check_local, floor_rows
from dealerassist.storage.eventlog import EventLog, default_db, parse_instant

CSV_COLUMNS = ("seq", "recorded_at", "table", "round_id", "kind", "user", "event", "prev_hash", "hash")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("export", help="write the surveillance record of a time window (JSONL or CSV)")
    p.add_argument("--db", default=None, help="event log file (default: $DEALERASSIST_DB or var/events.db)")
    p.add_argument("--from", dest="since", default=None, help="first instant, ISO-8601 (UTC unless it says)")
    p.add_argument("--to", dest="until", default=None, help="end instant (exclusive), ISO-8601")
    p.add_argument("--table", default=None, help="only this table")
    p.add_argument("--format", choices=("jsonl", "csv"), default="jsonl")
    p.add_argument("--output", "-o", default="-", help="file to write (default: standard output)")
    add_floor_options(p)
    p.set_defaults(handler=_export)


def write_jsonl(rows: Iterator[tuple], out: IO[str]) -> int:
    count = 0
    for seq, recorded_at, _table, _kind, _round, body, prev_hash, digest in rows:
        line = {
            "format": EVENT_FORMAT_VERSION,
            "seq": seq,
            "recorded_at": recorded_at,
            "prev_hash": prev_hash,
            "hash": digest,
            "event": json.loads(body),
        }
        out.write(json.dumps(line, sort_keys=True, ensure_ascii=False) + "\n")
        count += 1
    return count


def write_csv(rows: Iterator[tuple], out: IO[str]) -> int:
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    count = 0
    for seq, recorded_at, table, kind, round_id, body, prev_hash, digest in rows:
        user = json.loads(body).get("user", "")
        writer.writerow(
            (
                seq,
                recorded_at,
                table,
                "" if round_id is None else round_id,
                kind,
                user,
                body,
                prev_hash,
                digest,
            )
        )
        count += 1
    return count


def _export(args: argparse.Namespace) -> int:
    since = parse_instant(args.since, "--from") if args.since else None
    until = parse_instant(args.until, "--to") if args.until else None
    if since and until and since >= until:
        raise EventError(f"--from {args.since} is not before --to {args.until}: the window holds nothing")
    writer = write_jsonl if args.format == "jsonl" else write_csv
    check_local(args)
    if args.floor:
        count = _write(writer, iter(floor_rows(args, since, until)), args.output)
    else:
        with EventLog(args.db or default_db(), readonly=True) as log:
            log.check_table(args.table)
            count = _write(writer, log.rows(table=args.table, since=since, until=until), args.output)
    print(f"exported {count} records", file=sys.stderr)
    return 0


def _write(writer: Callable[[Iterator[tuple], IO[str]], int], rows: Iterator[tuple], output: str) -> int:
    if output == "-":
        return writer(rows, sys.stdout)
    try:
        out = open(output, "w", encoding="utf-8", newline="")
    except OSError as exc:
        raise EventError(f"--output {output}: cannot write: {exc.strerror or exc}") from None
    with out:
        return writer(rows, out)
