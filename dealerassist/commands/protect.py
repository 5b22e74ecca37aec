"""``dealerassist protect``: game-protection flags (hole-carding, counting, dealer incidents) from the log.

Read-only: the log is opened read-only and nothing is written. Each flag prints its statistic, the
rounds to review with ``dealerassist replay`` or the surveillance timeline, and who looked at or
cleared it on the dashboard's game-protection page (its ``protection-review`` records).
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from dealerassist.errors import DealerAssistError
from dealerassist.events import PIT_WIDE
from dealerassist.protection.records import read_rounds
from dealerassist.protection.report import ProtectionReport, Settings, protect
from dealerassist.protection.reviews import ReviewBook, ReviewedFlag
from dealerassist.storage.eventlog import EventLog, default_db, parse_instant


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("protect", help="game protection: hole-card, counting and dealer flags from the log")
    p.add_argument("--db", default=None, help="event log file (default: $DEALERASSIST_DB or var/events.db)")
    p.add_argument("--from", dest="since", default=None, help="first instant, ISO-8601 (UTC unless it says)")
    p.add_argument("--to", dest="until", default=None, help="end instant (exclusive), ISO-8601")
    p.add_argument("--table", default=None, help="only this table")
    p.add_argument(
        "--alpha",
        type=float,
        default=Settings.hole_card_alpha,
        help="significance of the player tests: false-alarm chance per session (default 1e-4)",
    )
    p.add_argument(
        "--dealer-alpha",
        type=float,
        default=Settings.dealer_alpha,
        help="significance of the dealer tests, over all of them together (default 1e-3)",
    )
    p.add_argument(
        "--shift-hours",
        type=float,
        default=Settings.shift_hours,
        help="longest dealer shift: a dealer longer at one table starts a new one (default 8)",
    )
    p.add_argument("--json", action="store_true", help="the whole report as JSON")
    p.set_defaults(handler=_protect)


def _protect(args: argparse.Namespace) -> int:
    for name in ("alpha", "dealer_alpha"):
        value = getattr(args, name)
        if not 0.0 < value < 1.0:
            raise DealerAssistError(f"--{name.replace('_', '-')}: must be between 0 and 1, got {value}")
    if not args.shift_hours > 0:
        raise DealerAssistError(f"--shift-hours: must be more than 0, got {args.shift_hours}")
    since = parse_instant(args.since, "--from") if args.since else None
    until = parse_instant(args.until, "--to") if args.until else None
    with EventLog(args.db or default_db(), readonly=True) as log:
        log.check_table(args.table)
        rounds = read_rounds(log, since, until)
        reviews = ReviewBook().take_all(log.records(table=PIT_WIDE))
    if args.table:
        rounds = [r for r in rounds if r.table == args.table]
    settings = Settings(
        hole_card_alpha=args.alpha,
        counting_alpha=args.alpha,
        dealer_alpha=args.dealer_alpha,
        shift_hours=args.shift_hours,
    )
    report = protect(rounds, settings)
    flags = reviews.reviewed(report.flags)
    if args.json:
        print(json.dumps({**report.to_dict(), "flags": [f.to_dict() for f in flags]}, indent=2, default=str))
    else:
        print(render(report, flags, len(rounds)))
    return 0


def render(report: ProtectionReport, flags: list[ReviewedFlag], rounds: int) -> str:
    lines = [
        f"{rounds} rounds, {len(report.sessions)} player sessions, {len(report.dealers)} dealer tests: "
        f"{len(report.flags)} flag(s)"
    ]
    for reviewed in flags:
        flag = reviewed.flag
        lines.append(f"FLAG {flag.kind:<9} {flag.subject}  p={flag.p_value:.2e}")
        lines.append(f"     {_stats(flag.statistic)}")
        lines.append(f"     rounds: {' '.join(map(str, flag.rounds)) or '-'}")
        for review in reviewed.history:
            note = f": {review.event.note}" if review.event.note else ""
            lines.append(f"     {review.event.action} by {review.event.user} at {review.at}{note}")
        if reviewed.status != "open":
            lines.append(f"     status: {reviewed.status}")
    return "\n".join(lines)


def _stats(statistic: dict[str, Any]) -> str:
    return ", ".join(f"{k}={v:.3g}" if isinstance(v, float) else f"{k}={v}" for k, v in statistic.items())
