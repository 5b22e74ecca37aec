"""The floor-wide search options ``export`` and ``audit rounds`` share, and the query they make."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from datetime import datetime

from dealerassist.events import EventError
from dealerassist.storage.eventlog import LogRecord, decode_row

FILTERS = ("seat", "card", "user", "kind")


def add_floor_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--floor", metavar="URL", help="read the floor store (every table) instead of a log file")
    p.add_argument("--seat", type=int, help="with --floor: rounds in which this seat played")
    p.add_argument("--card", help="with --floor: rounds in which this card was dealt (e.g. AS)")
    p.add_argument("--user", help="with --floor: rounds in which this dealer or supervisor acted")
    p.add_argument(
        "--kind",
        action="append",
        default=[],
        help="with --floor: only voids, jackpots, alarms, or an event kind (repeatable)",
    )


def check_local(args: argparse.Namespace) -> None:
    """Refuse floor-only filters on a log file instead of silently ignoring them."""
    used = [f"--{name}" for name in FILTERS if getattr(args, name)]
    if used and not args.floor:
        raise EventError(f"{', '.join(used)}: searches the floor store; add --floor URL")


def floor_rows(args: argparse.Namespace, since: str | None, until: str | None) -> list[tuple]:
    """The records the options ask for, from the floor store (log row form, time order)."""
    from dealerassist.floor.store import FloorQuery, FloorStore

    query = FloorQuery(
        tables=[args.table] if args.table else [],
        since=_instant(since),
        until=_instant(until),
        seat=args.seat,
        card=args.card.upper() if args.card else None,
        user=args.user,
        kinds=args.kind,
    )
    with FloorStore(args.floor) as store:
        return store.search(query)


def floor_records(rows: list[tuple]) -> Iterator[LogRecord]:
    return (decode_row(row) for row in rows)


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None
