"""``dealerassist demo`` as a process: every game's rounds dealt, settled and audited; random logins
that work on the dashboard while it runs; Ctrl-C ends it cleanly with the audit command to run."""

from __future__ import annotations

import http.cookiejar
import json
import re
import signal
import subprocess
import sys
import threading
import urllib.parse
import urllib.request
from collections import Counter
from pathlib import Path

from dealerassist.simulation.demo import demo_games
from dealerassist.storage.eventlog import EventLog
from dealerassist.web.users import UserStore
from tests.station.helpers import wait_for

CLI = [sys.executable, "-m", "dealerassist"]
ACCOUNT = re.compile(r"^\s+(demo-(?:dealer|supervisor|surveillance|admin))\s+(\S+)$", re.M)


def _audit(db: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [*CLI, "audit", "verify", "--db", str(db)], capture_output=True, text=True, timeout=60
    )


def test_demo_deals_settles_and_audits_every_game(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    args = ["demo", "--pace", "fast", "--rounds", "3", "--no-camera", "--port", "0", "--seed", "11"]
    done = subprocess.run(
        [*CLI, *args, "--data-dir", str(data)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
    assert re.search(r"dashboard:\s+http://127\.0\.0\.1:\d+/", done.stdout)
    accounts = dict(ACCOUNT.findall(done.stdout))
    assert sorted(accounts) == ["demo-admin", "demo-dealer", "demo-supervisor", "demo-surveillance"]
    assert len(set(accounts.values())) == 4 and all(len(p) >= 16 for p in accounts.values())
    users = UserStore(data / "users.sqlite3")
    try:
        for name, password in accounts.items():
            user = users.authenticate(name, password)
            assert user is not None and user.role == name.removeprefix("demo-")
    finally:
        users.close()
    db = data / "events.sqlite3"
    assert f"dealerassist audit verify --db {db}" in done.stdout
    audit = _audit(db)
    assert audit.returncode == 0 and audit.stdout.startswith("ok:"), audit.stdout + audit.stderr

    log = EventLog(db)
    try:
        records = list(log.records())
    finally:
        log.close()
    ended = Counter(r.event.table for r in records if r.event.kind in ("round-settled", "round-voided"))
    settled = Counter(r.event.table for r in records if r.event.kind == "round-settled")
    games = {r.event.table: r.event for r in records if r.event.kind == "table-config"}
    assert len(games) == len(demo_games()) == 5
    for table in games:
        assert ended[table] == 3, f"{table}: {ended[table]} rounds ended"
        assert settled[table] >= 1, f"{table}: no settlement"
    for record in records:
        if record.event.kind == "round-settled":
            assert record.event.results, "a settlement without results"
    wagers = [r.event for r in records if r.event.kind == "wager"]
    assert wagers and {w.user for w in wagers} == {"demo-dealer"}
    closed = Counter(r.event.table for r in records if r.event.kind == "round-close")
    assert all(closed[t] == 3 for t in games)


def _login(base: str, name: str, password: str) -> urllib.request.OpenerDirector:
    jar = http.cookiejar.CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    page = opener.open(base + "login", timeout=10).read().decode()
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    form = urllib.parse.urlencode({"name": name, "password": password, "csrf_token": token.group(1)})
    response = opener.open(base + "login", data=form.encode(), timeout=10)
    assert response.status == 200 and "/login" not in response.url
    return opener


def test_ctrl_c_stops_a_running_demo_cleanly_and_a_supervisor_can_log_in(tmp_path: Path) -> None:
    data = tmp_path / "demo"
    proc = subprocess.Popen(
        [*CLI, "demo", "--game", "three-card-poker", "--no-camera", "--port", "0", "--data-dir", str(data)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(proc.stdout or []), daemon=True)
    reader.start()
    try:
        base = wait_for(
            lambda: next((m.group(1) for x in lines if (m := re.search(r"dashboard:\s+(\S+)", x))), None),
            timeout=30,
            what="the dashboard URL",
        )
        accounts = wait_for(lambda: len(found := dict(ACCOUNT.findall("".join(lines)))) == 4 and found)
        supervisor = _login(base, "demo-supervisor", accounts["demo-supervisor"])
        round_open = wait_for(
            lambda: json.load(supervisor.open(base + "api/tables/tcp-1/snapshot", timeout=10))["snapshot"],
            what="the dealer's first round",
        )
        assert round_open["table"] == "tcp-1"
        health = json.load(urllib.request.urlopen(base + "healthz", timeout=10))
        assert health["tables"]["tcp-1"]["devices"]["shoe"]["up"] is True
    finally:
        proc.send_signal(signal.SIGINT)
        code = proc.wait(timeout=30)
        reader.join(timeout=5)
    stderr = proc.stderr.read() if proc.stderr else ""
    out = "".join(lines)
    assert code == 0, out + stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    assert "stopping (Ctrl-C)" in out
    assert f"Data dir: {data}" in out
    assert _audit(data / "events.sqlite3").returncode == 0


def test_an_unknown_game_or_round_count_is_refused_before_anything_starts(tmp_path: Path) -> None:
    for args, message in (
        (["--game", "baccarat"], "--game: unknown game 'baccarat' (known: all, face-up-pai-gow"),
        (["--rounds", "0"], "--rounds: must be 1 or more"),
    ):
        done = subprocess.run(
            [*CLI, "demo", "--data-dir", str(tmp_path / "demo"), *args],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 1 and message in done.stderr
    assert not (tmp_path / "demo").exists()
