"""The floor-wide search options ``export`` and ``audit rounds`` share, and the query they make.

The dashboard's floor search takes the same filters; ``card_code`` and ``check_kinds`` are the
checks both apply to what a person typed."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from datetime import datetime
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.errors import CardError
from dealerassist.events import EventError, event_types
from dealerassist.storage.eventlog import LogRecord, decode_row

FILTERS = ("seat", "card", "user", "kind")
# What surveillance asks for by name; anything else must be an event kind.
KIND_GROUPS = {
    "voids": ("round-voided",),
    "jackpots": ("progressive-hit", "progressive-paid"),
    "alarms": ("alarm", "alarm-cleared"),
}


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
        card=_checked(card_code, args.card, "--card") if args.card else None,
        user=args.user,
        kinds=_checked(check_kinds, args.kind, "--kind"),
    )
    with FloorStore(args.floor) as store:
        return store.search(query)


def card_code(text: str) -> str:
    """A card as the floor's index holds it (``10h``, ``th`` and ``TH`` are one card), or
    ``ValueError`` saying why it is none."""
    try:
        return str(Card.parse(text.strip()))
    except CardError as exc:
        raise ValueError(str(exc)) from None


def check_kinds(names: list[str]) -> list[str]:
    """``names`` if each is a kind group or an event kind, else ``ValueError`` naming the first
    that is not (a typo would otherwise find nothing, silently)."""
    for name in names:
        if name not in KIND_GROUPS and name not in event_types():
            raise ValueError(f"{name[:40]!r} is neither {', '.join(KIND_GROUPS)} nor an event kind")
    return names


def _checked(check: Any, value: Any, option: str) -> Any:
    try:
        return check(value)
    except ValueError as exc:
        raise EventError(f"{option}: {exc}") from None


def floor_records(rows: list[tuple]) -> Iterator[LogRecord]:
    return (decode_row(row) for row in rows)


def _instant(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text.replace("Z", "+00:00")) if text else None
