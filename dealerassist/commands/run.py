"""``dealerassist run``: the tables of one process on real devices, with the dashboard and /healthz.

Every table file is checked (game, limits, pay tables, device URLs and line settings, progressive)
before any device is opened; an error names the file, the key and the problem. Logs go to standard
output as plain ``LEVEL name: message`` lines (journald and container logs add the time).
"""

from __future__ import annotations

import argparse
import logging
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from dealerassist.errors import DealerAssistError

if TYPE_CHECKING:  # drivers and the web stack load only when a station really runs
    from dealerassist.station.station import Station

DEFAULT_DATA_DIR = Path("var")
log = logging.getLogger("dealerassist.run")


class RunError(DealerAssistError):
    """The station cannot start as asked."""


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "run",
        help="run tables on real devices (shoe, sign, camera by URL) with the dashboard",
        description="Run one or several tables in this process. Table files may be given with --table, "
        "as positional arguments, or as a directory of *.toml files.",
    )
    p.add_argument("tables", nargs="*", metavar="TABLE", help="table file or directory of table files")
    p.add_argument("--table", action="append", default=[], metavar="FILE", help="table file (repeatable)")
    p.add_argument(
        "--data-dir",
        default=str(DEFAULT_DATA_DIR),
        help=f"event log, accounts and camera snapshots (default {DEFAULT_DATA_DIR})",
    )
    p.add_argument("--host", default="127.0.0.1", help="dashboard address (default 127.0.0.1)")
    p.add_argument("--port", type=int, default=8080, help="dashboard port (default 8080)")
    p.add_argument("--check", action="store_true", help="only check the table files and exit")
    p.add_argument("--log-level", default="INFO", choices=("DEBUG", "INFO", "WARNING", "ERROR"))
    p.set_defaults(handler=_run)


def configure_logging(level: str) -> None:
    """Plain lines on standard output: no colours, no timestamps (the journal adds its own)."""
    logging.basicConfig(
        level=getattr(logging, level),
        stream=sys.stdout,
        format="%(levelname)s %(name)s: %(message)s",
        force=True,
    )
    logging.getLogger("werkzeug").setLevel(logging.WARNING)


def _run(args: argparse.Namespace) -> int:
    from dealerassist.station.dashboard import DashboardServer, build_dashboard
    from dealerassist.station.signals import stop_on_signals
    from dealerassist.station.station import Station
    from dealerassist.station.tables import load_tables

    tables = load_tables([*args.table, *args.tables])
    if args.check:
        for table in tables:
            devices = ", ".join(f"{n}={d.url}" for n, d in table.serial.items()) or "no serial devices"
            print(f"{table.config.path}: {table.table_id} ({table.config.rules.game}) ok: {devices}")
        return 0
    configure_logging(args.log_level)
    station = Station(tables, args.data_dir)
    # Signals are caught from the start: a stop asked for while the station starts ends it cleanly.
    with stop_on_signals(threading.Event()) as stop:
        try:
            station.start()  # inside the try: a device that fails to open must not leave the others running
            app = build_dashboard(station)
            try:
                server = DashboardServer(app, args.host, args.port)
            except OSError as exc:
                raise RunError(f"cannot listen on {args.host}:{args.port}: {exc} (try --port)") from None
            server.start()
            station.on_stop(server.stop)
            log.info("dashboard on %s, health at %shealthz", server.url, server.url)
            if not station.users_path.exists() or _no_accounts(station):
                log.warning(
                    "no dashboard accounts yet: create the first admin with "
                    "'dealerassist users add NAME --role admin --users %s'",
                    station.users_path,
                )
            while not stop.wait(1.0):
                pass
            log.info("stopping")
        finally:
            station.stop()
    log.info("stopped; check the log with: dealerassist audit verify --db %s", station.db_path)
    return 0


def _no_accounts(station: Station) -> bool:
    from dealerassist.web.users import UserStore

    store = UserStore(station.users_path)
    try:
        return store.count() == 0
    finally:
        store.close()
