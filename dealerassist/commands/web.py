"""``dealerassist web serve`` and ``dealerassist users add``: the dashboard and its accounts.

There is no default account and no default password: the first admin is made here, with the
password typed at a prompt (twice) or read from standard input for scripts.
"""

from __future__ import annotations

import argparse
import getpass
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from dealerassist.errors import ConfigError, DealerAssistError

DEFAULT_USERS = Path("var") / "users.sqlite3"


class WebError(DealerAssistError):
    """A dashboard command that cannot run as asked."""


def register(sub: argparse._SubParsersAction) -> None:
    web = sub.add_parser("web", help="the web dashboard")
    web_sub = web.add_subparsers(dest="web_command", metavar="COMMAND")
    serve = web_sub.add_parser("serve", help="run the dashboard for one or more tables")
    serve.add_argument("--db", required=True, help="event log file (SQLite), created if missing")
    serve.add_argument(
        "--table",
        action="append",
        required=True,
        help="table file or a configured table's name, e.g. three-card-poker",
    )
    serve.add_argument("--users", default=str(DEFAULT_USERS), help=f"accounts file (default {DEFAULT_USERS})")
    serve.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="port (default 8080)")
    serve.add_argument("--snapshots", help="directory of camera snapshots to show in round timelines")
    serve.add_argument(
        "--trusted-proxy",
        action="append",
        default=[],
        metavar="ADDR",
        help="address or network of a reverse proxy in front (repeatable, e.g. 127.0.0.1 behind nginx): "
        "its X-Forwarded-For and X-Forwarded-Proto are believed",
    )
    serve.set_defaults(handler=_serve)
    web.set_defaults(handler=lambda _args: web.print_help() or 2)

    users = sub.add_parser("users", help="dashboard accounts")
    users_sub = users.add_subparsers(dest="users_command", metavar="COMMAND")
    add = users_sub.add_parser("add", help="create an account (password prompted, or read from stdin)")
    add.add_argument("name", help="account name: lower-case letters, digits, . _ -")
    add.add_argument("--role", required=True, choices=("dealer", "supervisor", "surveillance", "admin"))
    add.add_argument("--users", default=str(DEFAULT_USERS), help=f"accounts file (default {DEFAULT_USERS})")
    add.set_defaults(handler=_users_add)
    listing = users_sub.add_parser("list", help="list accounts")
    listing.add_argument(
        "--users", default=str(DEFAULT_USERS), help=f"accounts file (default {DEFAULT_USERS})"
    )
    listing.set_defaults(handler=_users_list)
    users.set_defaults(handler=lambda _args: users.print_help() or 2)


def _read_password(name: str) -> str:
    """Twice at a terminal; one line from standard input otherwise."""
    if sys.stdin.isatty():
        first = getpass.getpass(f"Password for {name}: ")
        if getpass.getpass("Again: ") != first:
            raise WebError("password: the two entries differ")
        return first
    line = sys.stdin.readline()
    if not line:
        raise WebError("password: nothing on standard input (pipe the password in, or run at a terminal)")
    return line.rstrip("\r\n")


def _users_add(args: argparse.Namespace) -> int:
    from dealerassist.web.users import UserStore

    store = UserStore(args.users)
    try:
        user = store.add(args.name, args.role, _read_password(args.name))
    except ValueError as exc:
        raise WebError(str(exc)) from None
    finally:
        store.close()
    print(f"created {user.role} account {user.name!r} in {args.users}")
    return 0


def _users_list(args: argparse.Namespace) -> int:
    from dealerassist.web.users import UserStore

    if not Path(args.users).exists():
        raise WebError(
            f"{args.users}: no accounts file (create the first admin with 'dealerassist users add')"
        )
    store = UserStore(args.users)
    try:
        for user in store.all():
            print(f"{user.name:24} {user.role:13} {'active' if user.active else 'disabled'}")
    finally:
        store.close()
    return 0


def build_table_app(
    db: str,
    tables: Sequence[str],
    users_path: str,
    *,
    snapshots: str | None = None,
    proxies: Sequence[str] = (),
) -> tuple[Any, list[Any]]:
    """The dashboard over a fresh pit for ``tables`` (with their progressives); returns the app and
    the objects to stop at exit."""
    from dealerassist.progressive.controller import ProgressiveController
    from dealerassist.progressive.params import params_from_table
    from dealerassist.storage.eventlog import EventLog
    from dealerassist.tablefiles.tables import load_table
    from dealerassist.tracker.pit import Pit
    from dealerassist.web.app import create_app
    from dealerassist.web.users import UserStore

    configs = [load_table(path) for path in tables]
    seen: dict[str, str] = {}
    for path, config in zip(tables, configs, strict=True):
        if config.table_id in seen:
            raise ConfigError(
                path, "table.id", f"{config.table_id!r} is already the id of {seen[config.table_id]}"
            )
        seen[config.table_id] = path
    log = EventLog(db)
    opened: list[Any] = [log]
    try:
        reader = EventLog(db, readonly=True)  # surveillance reads never write
        opened.insert(0, reader)
        pit = Pit(log, configs)
        controllers: dict[str, Any] = {}
        for config in configs:
            params = params_from_table(config)
            if params is not None:
                controller = ProgressiveController(config.table_id, params, log)
                controller.attach(pit.tracker(config.table_id))
                controller.start()
                opened.insert(0, controller)
                controllers[config.table_id] = controller
        users = UserStore(users_path)
        opened.insert(-1, users)
        app = create_app(
            pit=pit,
            log=log,
            progressive=controllers or None,
            users=users,
            config={"SNAPSHOT_DIR": snapshots, "TRUSTED_PROXIES": list(proxies)},
            reader=reader,
        )
    except BaseException:
        _close(opened)  # nothing serves: stop the meters and close the log before the error shows
        raise
    return app, opened


def _close(opened: Sequence[Any]) -> None:
    """Stop progressive controllers, then close the accounts file and the log (in that order)."""
    for thing in opened:
        getattr(thing, "stop", getattr(thing, "close", lambda: None))()


def serve_in_thread(app: Any, host: str, port: int) -> Any:
    """A started ``DashboardServer`` (tests and benchmarks drive it directly).

    Call ``server.shutdown()`` to stop it; ``server.port`` is the bound port (useful with ``port=0``).
    """
    from dealerassist.station.dashboard import DashboardServer

    server = DashboardServer(app, host, port)
    server.start()
    return server


def _serve(args: argparse.Namespace) -> int:
    from dealerassist.station.dashboard import DashboardServer
    from dealerassist.station.signals import stop_on_signals
    from dealerassist.web.proxies import parse_proxies
    from dealerassist.web.users import UserStore

    try:
        parse_proxies(args.trusted_proxy, "--trusted-proxy")
    except ValueError as exc:
        raise WebError(str(exc)) from None
    users = UserStore(args.users)
    try:
        if users.count() == 0:
            raise WebError(
                f"{args.users}: no accounts yet. Create the first admin: "
                f"dealerassist users add NAME --role admin --users {args.users}"
            )
    finally:
        users.close()
    app, to_close = build_table_app(
        args.db, args.table, args.users, snapshots=args.snapshots, proxies=args.trusted_proxy
    )
    try:
        try:
            server = DashboardServer(app, args.host, args.port)
        except OSError as exc:
            raise WebError(f"cannot listen on {args.host}:{args.port}: {exc} (try --port)") from None
        server.start()
        print(f"dashboard on {server.url} (Ctrl-C stops)", flush=True)
        with stop_on_signals(threading.Event()) as stop:
            while not stop.wait(1.0):
                pass
        server.stop()
    finally:
        _close(to_close)
    return 0
