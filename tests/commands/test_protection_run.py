"""Game protection on a real ``dealerassist run``: surveillance finds a hole-carder, reviews the
flag in a real browser and over the API, the station is SIGKILLed and started again, and the
clear is still there, in the chain (``audit verify``) and in ``protect --json``; a dealer and a
supervisor get 403 and no link."""

from __future__ import annotations

import json
import random
import signal
import subprocess
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from selenium.webdriver.common.by import By

from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from tests.commands.test_run import CLI, Process
from tests.commands.test_run_restart import add_accounts
from tests.station.helpers import table_data, write_table
from tests.web.browser import chromium, wait
from tests.web.dashboard_http import HttpUser

ACCOUNTS = {
    "sue": ("surveillance", "surveillance password 1"),
    "dee": ("dealer", "dealer password 1"),
    "sam": ("supervisor", "supervisor password 1"),
}
FLAG = "hole-card:tcp-1:seat-2:1-40"


def _hole_carder_log(db: Path) -> None:
    """40 rounds of Three Card Poker at tcp-1 through the real tracker; seat 2 sees the dealer's cards."""
    with EventLog(db) as log:
        tracker = Tracker(load_table("three-card-poker"), log)
        players = {
            seat: seated(kind, random.Random(3 + seat))
            for seat, kind in {1: "perfect", 2: "hole-carder"}.items()
        }
        session = TableSession(tracker, players, random.Random(3))
        for _ in range(40):
            session.play_round()


def _call(user: HttpUser, path: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    data = json.dumps(body).encode() if body is not None else None
    headers = {"Content-Type": "application/json", "X-CSRF-Token": user.csrf} if body is not None else {}
    request = urllib.request.Request(user.base + path, data=data, headers=headers)
    try:
        with user.opener.open(request, timeout=60) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def _signed_in(base: str, name: str) -> HttpUser:
    user = HttpUser(base)
    user.login(name, ACCOUNTS[name][1])
    return user


def _browser_marks_looked(base: str) -> None:
    """Surveillance signs in at Chromium, finds the flag on the page and marks it looked."""
    with chromium() as driver:
        driver.get(base + "/login")
        driver.find_element(By.ID, "name").send_keys("sue")
        driver.find_element(By.ID, "password").send_keys(ACCOUNTS["sue"][1])
        driver.find_element(By.ID, "sign-in").click()
        wait(driver, lambda: "/login" not in driver.current_url, "sue signed in")
        driver.find_element(By.LINK_TEXT, "Protection").click()
        row = wait(
            driver, lambda: driver.find_elements(By.CSS_SELECTOR, f"tr[data-flag='{FLAG}']"), "the flag"
        )[0]
        assert "tcp-1 seat 2 rounds 1-40" in row.text and "open" in row.text
        assert row.find_elements(By.CSS_SELECTOR, "td.rounds a")  # the evidence, linked to timelines
        row.find_element(By.NAME, "note").send_keys("watching seat 2")
        row.find_element(By.CSS_SELECTOR, "button[value='looked']").click()
        wait(
            driver,
            lambda: "watching seat 2" in driver.find_element(By.CSS_SELECTOR, f"tr[data-flag='{FLAG}']").text,
            "the look on the page",
        )
        assert "looked" in driver.find_element(By.CSS_SELECTOR, f"tr[data-flag='{FLAG}'] .status").text


def test_a_cleared_hole_card_flag_survives_a_killed_station(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = data_dir / "events.sqlite3"
    _hole_carder_log(db)
    add_accounts(data_dir / "users.sqlite3", ACCOUNTS)
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", "socket://127.0.0.1:9"))
    args = [str(table), "--data-dir", str(data_dir), "--port", "0"]

    process = Process(args)
    try:
        base = process.url().rstrip("/")
        sue = _signed_in(base, "sue")
        code, body = _call(sue, "/api/protection")
        assert code == 200, body
        [flag] = body["flags"]
        assert flag["id"] == FLAG and flag["p_value"] < 1e-4 and flag["review"]["status"] == "open"
        assert [t["url"] for t in flag["timelines"]] == [
            f"/surveillance/rounds/tcp-1/{r}" for r in flag["rounds"]
        ]
        timeline = sue.get(flag["timelines"][0]["url"])
        assert f"Round {flag['rounds'][0]}" in timeline and "seat-2" in timeline

        for name in ("dee", "sam"):
            other = _signed_in(base, name)
            assert "/surveillance/protection" not in other.get("/status")
            for path, payload in (
                ("/api/protection", None),
                ("/api/protection/reviews", {"flag": FLAG, "action": "cleared"}),
            ):
                assert _call(other, path, payload)[0] == 403, (name, path)
            try:
                other.get("/surveillance/protection")
                raise AssertionError(f"{name} reached the protection page")
            except urllib.error.HTTPError as exc:
                assert exc.code == 403

        _browser_marks_looked(base)
        code, done = _call(
            sue, "/api/protection/reviews", {"flag": FLAG, "action": "cleared", "note": "known AP"}
        )
        assert code == 200 and done["review"]["action"] == "cleared", done
        code, again = _call(sue, "/api/protection/reviews", {"flag": FLAG, "action": "cleared"})
        assert code == 409 and "already cleared by sue" in again["message"]
    finally:
        process.proc.send_signal(signal.SIGKILL)
        process.proc.wait(timeout=20)

    process = Process(args)
    try:
        sue = _signed_in(process.url().rstrip("/"), "sue")
        code, body = _call(sue, "/api/protection")
        [flag] = body["flags"]
        review = flag["review"]
        assert (review["status"], review["cleared_by"]) == ("cleared", "sue")
        assert [(h["action"], h["user"], h["note"]) for h in review["history"]] == [
            ("looked", "sue", "watching seat 2"),
            ("cleared", "sue", "known AP"),
        ]
        assert "cleared by sue" in sue.get("/surveillance/protection")
    finally:
        code, stderr = process.stop()
    assert code == 0 and "Traceback" not in stderr, stderr

    verify = subprocess.run(
        [*CLI, "audit", "verify", "--db", str(db)], capture_output=True, text=True, timeout=60
    )
    assert verify.returncode == 0 and verify.stdout.startswith("ok:"), verify.stdout + verify.stderr
    protect = subprocess.run(
        [*CLI, "protect", "--db", str(db), "--json"], capture_output=True, text=True, timeout=120
    )
    assert protect.returncode == 0, protect.stderr
    [flag] = json.loads(protect.stdout)["flags"]
    assert (
        flag["id"] == FLAG and flag["review"]["status"] == "cleared" and flag["review"]["cleared_by"] == "sue"
    )
    text = subprocess.run([*CLI, "protect", "--db", str(db)], capture_output=True, text=True, timeout=120)
    assert "cleared by sue" in text.stdout and "status: cleared" in text.stdout
