"""``dealerassist run`` starts again after every kind of dashboard action, and the audit reads the log.

Each action writes its own records (a ``user-action``, a ``refused``, a tracker input); the table
replays them at the next start in a process that has not loaded the dashboard yet.
"""

from __future__ import annotations

import json
import subprocess
import urllib.error
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.commands.test_run import CLI, Process
from tests.station.helpers import table_data, write_table
from tests.web.dashboard_http import HttpUser

PASSWORDS = {"dee": ("dealer", "dealer password 1"), "sam": ("supervisor", "supervisor password 1")}
TABLE = "tcp-1"


def add_accounts(users: Path, accounts: dict[str, tuple[str, str]] = PASSWORDS) -> None:
    """Accounts (name -> role, password) made by ``dealerassist users add``, as an operator would."""
    for name, (role, password) in accounts.items():
        done = subprocess.run(
            [*CLI, "users", "add", name, "--role", role, "--users", str(users)],
            input=password + "\n",
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr


def _form(user: HttpUser, path: str, page: str | None = None, **fields: str) -> None:
    """Post a dashboard form the way its page does (with the page's CSRF token)."""
    user.get(page or path)
    data = urllib.parse.urlencode({**fields, "csrf_token": user.csrf}).encode()
    user.opener.open(user.base + path, data=data, timeout=10).read()


def _refused_login(user: HttpUser) -> None:
    with pytest.raises(urllib.error.HTTPError) as refused:
        user.login("dee", "wrong password")
    assert refused.value.code == 401


def _alarm_id(user: HttpUser) -> str:
    body = json.load(user.get(f"/api/tables/{TABLE}/snapshot"))
    return str(body["snapshot"]["alarms"][0]["alarm_id"])


def test_run_starts_again_after_every_kind_of_dashboard_action(tmp_path: Path) -> None:
    # The shoe's port answers nothing: its link is down from the start, an alarm to acknowledge.
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", "socket://127.0.0.1:9"))
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    add_accounts(data_dir / "users.sqlite3")
    args = [str(table), "--data-dir", str(data_dir), "--port", "0"]
    dealer, supervisor = PASSWORDS["dee"][1], PASSWORDS["sam"][1]

    def expect(status: int) -> Callable[[tuple[int, dict]], None]:
        def check(answer: tuple[int, dict]) -> None:
            assert answer[0] == status, answer

        return check

    steps: list[tuple[str, Callable[[HttpUser, HttpUser], object]]] = [
        ("login refused", lambda d, s: _refused_login(d)),
        ("dealer login", lambda d, s: d.login("dee", dealer)),
        ("round opened", lambda d, s: expect(200)(d.act(TABLE, "round-open"))),
        (
            "wager of 'ten' refused",
            lambda d, s: expect(422)(d.act(TABLE, "wager", seat=1, bet="ante", amount="ten")),
        ),
        ("wager", lambda d, s: expect(200)(d.act(TABLE, "wager", seat=1, bet="ante", amount=1000))),
        (
            "wager over the limit",
            lambda d, s: expect(409)(d.act(TABLE, "wager", seat=2, bet="ante", amount=10**7)),
        ),
        ("dealer may not void", lambda d, s: expect(403)(d.act(TABLE, "approve-void", reason="x"))),
        ("supervisor login", lambda d, s: s.login("sam", supervisor)),
        (
            "alarm acknowledged",
            lambda d, s: expect(200)(s.act(TABLE, "ack-alarm", alarm_id=_alarm_id(s), reason="seen")),
        ),
        ("void approved", lambda d, s: expect(200)(s.act(TABLE, "approve-void", reason="shoe down"))),
        ("round closed", lambda d, s: expect(200)(d.act(TABLE, "round-close"))),
        (
            "password changed",
            lambda d, s: _form(d, "/account/password", current=dealer, new=dealer + "x", again=dealer + "x"),
        ),
        ("logout", lambda d, s: _form(d, "/logout", page="/account/password")),
    ]
    process = Process(args)
    try:
        base = process.url()
        dee, sam = HttpUser(base), HttpUser(base)
        for what, step in steps:
            step(dee, sam)
            code, stderr = process.stop()
            assert code == 0 and "Traceback" not in stderr, f"after {what}: {stderr}"
            process = Process(args)
            base = process.url()  # it started again: the dashboard is up
            dee.base = sam.base = base
    finally:
        code, stderr = process.stop()
    assert code == 0, stderr

    db = str(data_dir / "events.sqlite3")
    verify = subprocess.run([*CLI, "audit", "verify", "--db", db], capture_output=True, text=True, timeout=60)
    assert verify.returncode == 0 and verify.stdout.startswith("ok:"), verify.stdout + verify.stderr
    rounds = subprocess.run(
        [*CLI, "audit", "rounds", "--db", db, "--json"], capture_output=True, text=True, timeout=60
    )
    assert rounds.returncode == 0, rounds.stderr
    [summary] = [json.loads(line) for line in rounds.stdout.splitlines()]
    assert summary["outcome"] == "voided" and summary["refused"] == 1 and "device-link" in summary["alarms"]
    exported = subprocess.run([*CLI, "export", "--db", db], capture_output=True, text=True, timeout=60)
    events = [json.loads(line)["event"] for line in exported.stdout.splitlines()]
    actions = [e["action"] for e in events if e["kind"] == "user-action"]
    assert actions == ["login-failed", "login", "rejected-input", "login", "password-changed", "logout"]
    kinds = {e["kind"] for e in events}
    assert {"ack-alarm", "alarm-cleared", "approve-void", "round-voided", "refused", "round-close"} <= kinds
