"""``dealerassist demo``: a complete simulated pit on loopback, one table per game by default.

Shoe and sign emulators, the real drivers, the tracker and its event log, progressives, the
synthetic camera through the real vision pipeline, a simulated dealer and players, and the
dashboard. Ctrl-C (or SIGTERM) stops everything and prints how to audit the log just written.
"""

from __future__ import annotations

import argparse
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the simulation pulls in the vision stack: imported only when the demo runs
    from dealerassist.simulation.demo import Demo

DEFAULT_DATA_DIR = Path("var") / "demo"


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "demo",
        help="run a simulated table (or one per game) on loopback with the dashboard",
        description="Start shoe and sign emulators, the tracker, progressives, a synthetic camera, a "
        "simulated dealer and players, and the dashboard. Ctrl-C stops it.",
    )
    p.add_argument("--game", default="all", help="game slug, or 'all' for one table per game (default)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080; 0 picks a free one)")
    p.add_argument("--host", default="127.0.0.1", help="dashboard address (default 127.0.0.1)")
    p.add_argument(
        "--data-dir",
        help="log, accounts, snapshots: a new or empty folder, never one an earlier run left data in "
        f"(default {DEFAULT_DATA_DIR}, or the first free {DEFAULT_DATA_DIR}-2, -3 ...)",
    )
    p.add_argument(
        "--pace",
        default="table",
        choices=("table", "fast"),
        help="'table': a round every 10-20 s; 'fast': as quick as the devices allow (tests)",
    )
    p.add_argument(
        "--rounds", type=int, help="stop after this many rounds per table (default: run until Ctrl-C)"
    )
    p.add_argument(
        "--auto-supervisor",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="let 'demo-supervisor' ack alarms, void stuck rounds and confirm jackpots after a delay "
        "(default on; --no-auto-supervisor waits for you on the dashboard)",
    )
    p.add_argument(
        "--camera",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="read layouts with the synthetic camera and the real vision pipeline (default on)",
    )
    p.add_argument("--seed", type=int, help="seed for shuffles and players (default: random)")
    p.add_argument(
        "--floor", default=None, help="ship the log to this floor store (PostgreSQL URL, no password)"
    )
    p.set_defaults(handler=_demo)


def _say(text: str) -> None:
    print(text, flush=True)


def _demo(args: argparse.Namespace) -> int:
    from dealerassist.commands.run import configure_logging
    from dealerassist.simulation.demo import Demo, DemoOptions, demo_games, unused_beside
    from dealerassist.station.signals import stop_on_signals

    configure_logging("WARNING")  # alarms and link changes on the console, next to the dealers' news

    if args.rounds is not None and args.rounds < 1:
        from dealerassist.simulation.demo import DemoError

        raise DemoError("--rounds: must be 1 or more")
    games = demo_games() if args.game == "all" else [args.game]
    options = DemoOptions(
        games=games,
        data_dir=Path(args.data_dir) if args.data_dir else unused_beside(DEFAULT_DATA_DIR),
        host=args.host,
        port=args.port,
        pace=args.pace,
        rounds=args.rounds,
        auto_supervisor=args.auto_supervisor,
        camera=args.camera,
        seed=args.seed,
        floor=args.floor,
    )
    if args.camera:
        from dealerassist.vision.process import prepare_for_reading

        prepare_for_reading()
    demo = Demo(options, say=_say)
    with stop_on_signals(threading.Event()) as stop:
        demo.stop_event = stop
        try:
            demo.start()
            if args.camera:
                from dealerassist.vision.process import set_aside_what_is_loaded

                set_aside_what_is_loaded()
            _welcome(demo)
            demo.wait()
        finally:
            if stop.is_set():
                _say("stopping (Ctrl-C) ...")
            demo.stop()
    _farewell(demo)
    return 0 if all(not t.stopped_by for t in demo.tallies().values()) else 1


def _welcome(demo: Demo) -> None:
    assert demo.server is not None and demo.station is not None  # set by a successful start()
    lines = [
        "",
        f"dealerassist demo: {len(demo.dealers)} table(s): "
        + ", ".join(f"{t.table_id} ({t.config.rules.game})" for t in demo.station.tables),
        f"  dashboard:  {demo.server.url}",
        "  log in with one of these accounts (passwords are random and shown only now):",
    ]
    lines += [f"    {name:20} {password}" for name, password in demo.passwords.items()]
    lines += [
        f"  health:     {demo.server.url}healthz",
        f"  data dir:   {demo.options.data_dir}",
        "  supervisor: "
        + (
            "demo-supervisor acts after a short delay"
            if demo.options.auto_supervisor
            else "you (--no-auto-supervisor)"
        ),
        "  Ctrl-C stops the demo.",
        "",
    ]
    _say("\n".join(lines))


def _farewell(demo: Demo) -> None:
    for table, tally in demo.tallies().items():
        extra = f"; stopped: {tally.stopped_by}" if tally.stopped_by else ""
        _say(
            f"{table}: {tally.rounds} round(s), {tally.settled} settled, {tally.voided} voided, "
            f"{tally.jackpots} stacked jackpot(s), {tally.misreads} misread(s), "
            f"{tally.exposures} exposure(s){extra}"
        )
    _say(f"demo stopped. Data dir: {demo.options.data_dir}")
    _say(f"check the log with: dealerassist audit verify --db {demo.db_path}")
    sys.stdout.flush()
