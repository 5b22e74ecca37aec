"""``dealerassist audit``: check the event log's hash chain and list round summaries from it."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from dealerassist.core.money import format_amount
from dealerassist.events import EventError
from dealerassist.storage.eventlog import EventLog, default_db, verify_exported
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
    p.set_defaults(handler=_rounds)


def _verify(args: argparse.Namespace) -> int:
    """The hash chain, then the MACs under the keys held here (or a plain word that they were not)."""
    path = args.db or default_db()
    directory = keys_dir(args.keys)
    with EventLog(path, readonly=True) as log:
        report = log.verify()
    macs = verify_macs(path, Keyring(directory), report.checked)
    if args.json:
        print(json.dumps({"db": path, **report.__dict__, "mac": macs.__dict__}))
    else:
        if report.ok:
            print(f"ok: {report.checked} records, chain intact ({path})")
        else:
            print(f"TAMPERED: first bad record {report.first_bad}: {report.problem} ({path})")
        print(macs.line(directory))
    return 0 if report.ok and macs.ok else 1


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
    path = args.db or default_db()
    with EventLog(path, readonly=True) as log:
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
