"""``dealerassist audit``: check the event log's hash chain and list round summaries from it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dealerassist.core.money import format_amount
from dealerassist.events import EventError
from dealerassist.floor.search import add_floor_options, check_local, floor_records, floor_rows
from dealerassist.storage.eventlog import ChainReport, EventLog, default_db, parse_instant, verify_exported
from dealerassist.storage.keys import Keyring, keys_dir
from dealerassist.storage.projection import round_summaries
from dealerassist.storage.seal import verify_macs


def register(sub: argparse._SubParsersAction) -> None:
    audit = sub.add_parser("audit", help="check the tamper-evident event log")
    verbs = audit.add_subparsers(dest="audit_command", metavar="VERB", required=True)
    p = verbs.add_parser("verify", help="check every record's hash and link; exit 1 naming the first bad one")
    p.add_argument("--db", default=None, help="event log file (default: $DEALERASSIST_DB or var/events.db)")
    p.add_argument("--json", action="store_true", help="print the report as JSON")
    p.add_argument(
        "--keys", default=None, help="table key files (default: $DEALERASSIST_KEYS or /etc/dealerassist/keys)"
    )
    p.add_argument(
        "--against", metavar="URL", help="also compare the file record for record with its floor copy"
    )
    p.add_argument("--floor", metavar="URL", help="verify the floor copy alone (with --table or --stream)")
    p.add_argument("--table", default=None, help="with --floor: the table whose station log to verify")
    p.add_argument(
        "--stream", default=None, help="the station log's name on the floor (default: found by table)"
    )
    p.set_defaults(handler=_verify)
    p = verbs.add_parser(
        "verify-export", help="check an exported JSONL file's records and links on their own"
    )
    p.add_argument("file", help="a file written by 'dealerassist export --format jsonl'")
    p.set_defaults(handler=_verify_export)
    p = verbs.add_parser("rounds", help="round summaries rebuilt from the log")
    p.add_argument("--db", default=None, help="event log file (default: $DEALERASSIST_DB or var/events.db)")
    p.add_argument("--table", default=None, help="only this table")
    p.add_argument("--json", action="store_true", help="one JSON object per round")
    p.add_argument("--from", dest="since", default=None, help="with --floor: first instant, ISO-8601")
    p.add_argument("--to", dest="until", default=None, help="with --floor: end instant (exclusive)")
    add_floor_options(p)
    p.set_defaults(handler=_rounds)


def _verify(args: argparse.Namespace) -> int:
    """The hash chain, then the MACs under the keys held here (or a plain word that they were not),
    then, with ``--against``, the floor copy record for record."""
    if args.floor:
        return _verify_floor(args)
    path = args.db or default_db()
    directory = keys_dir(args.keys)
    with EventLog(path, readonly=True) as log:
        report = log.verify()
        tables = log.tables()
        # The MACs are checked on their own: over the whole file when the chain is broken.
        macs_upto = report.checked if report.ok else log.last_seq()
    macs = verify_macs(path, Keyring(directory), macs_upto)
    floor = None
    if args.against:
        from dealerassist.floor.audit import compare_with_floor, pick_stream
        from dealerassist.floor.store import FloorStore

        with FloorStore(args.against) as store:
            stream = pick_stream(store, tables, args.stream)
            floor = compare_with_floor(path, store, stream)
    if args.json:
        extra = {"floor": floor.__dict__} if floor else {}
        print(json.dumps({"db": path, **report.__dict__, "mac": macs.__dict__, **extra}))
    else:
        if report.ok:
            print(f"ok: {report.checked} records, chain intact ({path})")
        else:
            print(f"TAMPERED: first bad record {report.first_bad}: {report.problem} ({path})")
        print(macs.line(directory))
        if floor is not None:
            _floor_line(floor, f"stream {stream}")
    return 0 if report.ok and macs.ok and (floor is None or floor.ok) else 1


def _floor_line(report: ChainReport, where: str) -> None:
    if report.ok:
        print(f"floor: the same {report.checked} records as the floor copy ({where})")
    else:
        print(f"DIFFERS FROM FLOOR: first differing record {report.first_bad}: {report.problem} ({where})")


def _verify_floor(args: argparse.Namespace) -> int:
    """The floor copy of one station log alone: chain, MACs with the keys held, ingest alarms."""
    if args.table is None and args.stream is None:
        raise EventError("--floor: name the table (--table ID) or the station log (--stream NAME)")
    from dealerassist.floor.audit import pick_stream, verify_floor
    from dealerassist.floor.store import FloorStore

    directory = keys_dir(args.keys)
    with FloorStore(args.floor) as store:
        stream = pick_stream(store, [args.table] if args.table else [], args.stream)
        report, unkeyed, alarms = verify_floor(store, stream, Keyring(directory))
    if report.ok:
        print(f"ok: {report.checked} records on the floor, chain intact (stream {stream})")
    else:
        print(f"TAMPERED: first bad floor record {report.first_bad}: {report.problem} (stream {stream})")
    if unkeyed:
        print(f"MAC NOT CHECKED for {', '.join(unkeyed)}: no key in {directory}")
    for stream_name, seq, table, problem, detail, raised_at in alarms:
        print(
            f"ALARM {raised_at:%Y-%m-%d %H:%M:%S} {stream_name} record {seq} ({table}): {problem}: {detail}"
        )
    return 0 if report.ok and not alarms else 1


def _verify_export(args: argparse.Namespace) -> int:
    path = Path(args.file)
    if not path.is_file():
        raise EventError(f"{path}: no such export file")
    with path.open(encoding="utf-8") as fh:
        report = verify_exported(fh)
    if report.ok:
        print(f"ok: {report.checked} exported records, hashes and links intact ({path})")
    else:
        print(f"TAMPERED: {report.problem} ({path})")
    return 0 if report.ok else 1


def _rounds(args: argparse.Namespace) -> int:
    check_local(args)
    if args.floor:
        since = parse_instant(args.since, "--from") if args.since else None
        until = parse_instant(args.until, "--to") if args.until else None
        summaries = round_summaries(floor_records(floor_rows(args, since, until)))
    else:
        if args.since or args.until:
            raise EventError("--from/--to: searches the floor store; add --floor URL (or use 'export')")
        with EventLog(args.db or default_db(), readonly=True) as log:
            log.check_table(args.table)
            summaries = round_summaries(log.records(table=args.table))
    for summary in summaries:
        if args.json:
            print(json.dumps(summary.to_dict(), sort_keys=True))
            continue
        alarms = f"  alarms: {', '.join(summary.alarms)}" if summary.alarms else ""
        print(
            f"{summary.table} round {summary.round_id}: {summary.outcome:8} "
            f"staked {format_amount(summary.staked)}  paid {format_amount(summary.paid)}  "
            f"house {format_amount(summary.house_net)}{alarms}"
        )
    return 0
