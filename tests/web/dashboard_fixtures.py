"""Helpers for the dashboard tests: a real pit (event log + trackers) behind the dashboard, and
signed-in test clients per role. Named uniquely so no other test folder's module shadows it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from flask import Flask
from flask.testing import FlaskClient

from dealerassist.core.cards import Card
from dealerassist.events import CardRead
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.params import params_from_table
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table, table_from_mapping
from dealerassist.tracker.pit import Pit
from dealerassist.web.app import create_app
from dealerassist.web.security import LoginThrottle
from dealerassist.web.users import UserStore

PASSWORDS = {
    "dana": ("dealer", "dealer-pass-1"),
    "sam": ("supervisor", "super-pass-1"),
    "sue": ("surveillance", "watch-pass-1"),
    "ada": ("admin", "admin-pass-1"),
}
TCP = "tcp-1"
_CSRF = re.compile(r'name="csrf-token" content="([^"]+)"')


class Clock:
    """A hand-set monotonic clock for throttling tests."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class Dashboard:
    app: Flask
    pit: Pit
    log: EventLog
    users: UserStore
    clock: Clock

    @property
    def runtime(self) -> Any:
        return self.app.extensions["dealerassist"]

    def client(self, name: str | None = None) -> Session:
        session = Session(self.app.test_client())
        if name is not None:
            session.login(name, PASSWORDS[name][1])
        return session

    def shoe(self, table: str, *codes: str) -> None:
        """Cards out of the shoe, as the shoe driver would hand them to the pit."""
        for code in codes:
            self.pit.handle(table, CardRead(table=table, source="shoe", card=Card.parse(code)))

    def kinds(self, after: int = 0) -> list[str]:
        return [r.event.kind for r in self.log.records(after=after)]


class Session:
    """A test client that keeps the page's CSRF token like the browser script does."""

    def __init__(self, client: FlaskClient) -> None:
        self.http = client
        self.csrf = ""

    def get(self, path: str, **kwargs: Any) -> Any:
        response = self.http.get(path, **kwargs)
        found = _CSRF.search(response.get_data(as_text=True)) if response.mimetype == "text/html" else None
        if found:
            self.csrf = found.group(1)
        return response

    def login(self, name: str, password: str) -> Any:
        """Sign in; on success load the landing page, since signing in rotates the CSRF token."""
        self.get("/login")
        response = self.http.post(
            "/login", data={"name": name, "password": password, "csrf_token": self.csrf}
        )
        if response.status_code == 302:
            self.get(response.headers["Location"], follow_redirects=True)
        return response

    def post_form(self, path: str, data: dict[str, Any]) -> Any:
        return self.http.post(path, data={**data, "csrf_token": self.csrf})

    def post_json(self, path: str, body: Any) -> Any:
        return self.http.post(path, json=body, headers={"X-CSRF-Token": self.csrf})

    def act(self, table: str, kind: str, **body: Any) -> Any:
        return self.post_json(f"/api/tables/{table}/actions/{kind}", body)


def pai_gow_with_progressive() -> Any:
    """The shipped Face Up Pai Gow table with a [progressive] section, so the sign has a meter."""
    config = load_table("face-up-pai-gow")
    raw = dict(config.raw)
    raw["progressive"] = {
        "name": "fortune-link",
        "bet": "progressive",
        "wager": "1",
        "base": "10000",
        "increment": "15",
        "reserve": "5",
    }
    return table_from_mapping(raw, str(config.path))


def attach_progressive(board: Dashboard, table_config: Any) -> ProgressiveController:
    """A progressive controller following the table's tracker, shown by the dashboard."""
    controller = ProgressiveController(table_config.table_id, params_from_table(table_config), board.log)
    controller.attach(board.pit.tracker(table_config.table_id))
    board.runtime.progressive = {**(board.runtime.progressive or {}), table_config.table_id: controller}
    controller.subscribe(board.runtime.fanout.catch_up)
    return controller


def make_dashboard(tmp_path: Path, tables: list[Any], **kwargs: Any) -> Dashboard:
    users = UserStore(tmp_path / "users.sqlite3", scrypt_n=2**10)
    for name, (role, password) in PASSWORDS.items():
        users.add(name, role, password)
    log = EventLog(tmp_path / "log.sqlite3")
    pit = Pit(log, tables)
    clock = Clock()
    app = create_app(
        pit=pit,
        log=log,
        users=users,
        config={"TESTING": True, "LOGIN_THROTTLE": LoginThrottle(clock=clock), **kwargs.pop("config", {})},
        **kwargs,
    )
    return Dashboard(app, pit, log, users, clock)


def play_tcp_round(dash: Dashboard, dealer: Session) -> None:
    """Seat 1 Ante $10 and seat 2 Ante $25 + Pair Plus $5; both play; dealer does not qualify."""
    assert dealer.act(TCP, "round-open").status_code == 200
    assert dealer.act(TCP, "wager", seat=1, bet="ante", amount=1000).status_code == 200
    assert dealer.act(TCP, "wager", seat=2, bet="ante", amount="25").status_code == 200
    assert dealer.act(TCP, "wager", seat=2, bet="pair-plus", amount="$5.00").status_code == 200
    assert dealer.act(TCP, "betting-closed").status_code == 200
    dash.shoe(TCP, "AS", "KS", "QS", "2H", "3H", "4H", "5D", "9C", "JD")
    assert dealer.act(TCP, "decision", position="seat-1", action="play").status_code == 200
    assert dealer.act(TCP, "decision", position="seat-2", action="play").status_code == 200
