"""The dealer's page on a real ``dealerassist run`` at a six-deck blackjack table, in headless
Chromium: the dealer presses New shoe between rounds and names seat 2's player; both land in the
log (``audit verify`` holds), ``dealerassist protect`` counts the shoe from that press and follows
the player, a New shoe pressed on a stale screen while a round is in play is refused on the page,
and the dealer's page shows no protection data."""

from __future__ import annotations

import json
import random
import subprocess
from pathlib import Path

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import Select

from dealerassist.protection.counting import counts_before
from dealerassist.protection.records import read_rounds
from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev
from tests.commands.test_run import CLI, Process
from tests.commands.test_run_restart import add_accounts
from tests.station.helpers import table_data, write_table
from tests.web.browser import chromium, wait
from tests.web.dashboard_http import HttpUser

TABLE = "ppbj-1"
PLAYER = "4417-0021"
ACCOUNTS = {"dee": ("dealer", "dealer password 1"), "sam": ("supervisor", "supervisor password 1")}
NO_STREAM = "window.EventSource = undefined;"  # a screen that is never redrawn: a stale one


def _play(db: Path, rounds: int, seed: int, *, record_shuffle: bool) -> None:
    """``rounds`` rounds at ppbj-1 through the real tracker (resumed from the log), seats 1 and 2,
    from a freshly shuffled shoe: recorded by the simulated dealer, or (``record_shuffle`` false)
    with no record of its own, as when the dealer pressed New shoe on the page."""
    with EventLog(db) as log:
        tracker = Tracker(load_table("perfect-pairs-blackjack"), log)
        players = {seat: seated("perfect", random.Random(seed + seat)) for seat in (1, 2)}
        rng = random.Random(seed)
        session = TableSession(tracker, players, rng)
        if not record_shuffle:
            session.shoe = tracker.rules.deck.cards()
            rng.shuffle(session.shoe)
        if tracker.snapshot()["status"] == "open":  # left open at the station: voided by a supervisor
            tracker.handle(ev.ApproveVoid(table=TABLE, user="sam", role="supervisor", reason="test over"))
            tracker.handle(ev.RoundClose(table=TABLE, user="sam"))
        for _ in range(rounds):
            session.play_round()


def _sign_in(driver, base: str, name: str) -> None:  # type: ignore[no-untyped-def]
    driver.get(base + "/login")
    driver.find_element(By.ID, "name").send_keys(name)
    driver.find_element(By.ID, "password").send_keys(ACCOUNTS[name][1])
    driver.find_element(By.ID, "sign-in").click()
    wait(driver, lambda: "/login" not in driver.current_url, f"{name} signed in")


def _logged(db: Path, kind: str) -> list[dict]:
    with EventLog(db, readonly=True) as log:
        return [r.event.to_dict() for r in log.records() if r.event.kind == kind]


def test_the_dealer_presses_new_shoe_and_names_a_player_and_protect_counts_from_it(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    data_dir.mkdir()
    db = data_dir / "events.sqlite3"
    _play(db, 3, seed=11, record_shuffle=True)  # a shoe already in play: three rounds dealt from it
    add_accounts(data_dir / "users.sqlite3", ACCOUNTS)
    table = write_table(tmp_path / "ppbj.toml", table_data("perfect-pairs-blackjack", "socket://127.0.0.1:9"))
    process = Process([str(table), "--data-dir", str(data_dir), "--port", "0"])
    try:
        base = process.url().rstrip("/")
        with chromium() as driver:
            _sign_in(driver, base, "dee")
            driver.get(f"{base}/tables/{TABLE}")
            shoe = wait(
                driver, lambda: driver.find_element(By.CSS_SELECTOR, "button[data-kind='new-shoe']"), ""
            )
            shoe.click()
            wait(driver, lambda: _logged(db, "new-shoe"), "the new shoe in the log")
            Select(
                driver.find_element(By.CSS_SELECTOR, "form.act select[name='seat']")
            ).select_by_visible_text("Seat 2")
            driver.find_element(By.CSS_SELECTOR, "form.act input[name='player']").send_keys(PLAYER)
            driver.find_element(By.CSS_SELECTOR, "button[data-kind='seat-player']").click()
            wait(driver, lambda: _logged(db, "seat-player"), "the player in the log")
            wait(
                driver, lambda: driver.find_element(By.NAME, "player").get_property("value") == "", "cleared"
            )
            assert not driver.find_element(By.ID, "action-error").is_displayed()
            named_at = wait(
                driver, lambda: driver.find_elements(By.CSS_SELECTOR, "#seat-2 .player"), "the name at seat 2"
            )
            assert named_at[0].text == PLAYER  # the dealer sees who was entered where
            assert not driver.find_elements(By.CSS_SELECTOR, "#seat-1 .player")
            page = driver.page_source
            for word in ("protection", "hole-card", "counting", "surveillance"):
                assert word not in page.lower(), word

            # A stale screen (never redrawn) still offers New shoe after a round opened elsewhere.
            driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": NO_STREAM})
            driver.get(f"{base}/tables/{TABLE}")
            wait(driver, lambda: driver.find_element(By.CSS_SELECTOR, "button[data-kind='new-shoe']"), "")
            other = HttpUser(base)
            other.login("dee", ACCOUNTS["dee"][1])
            assert other.act(TABLE, "round-open")[0] == 200
            driver.find_element(By.CSS_SELECTOR, "button[data-kind='new-shoe']").click()
            box = wait(
                driver,
                lambda: (b := driver.find_element(By.ID, "action-error")).is_displayed() and b,
                "the refusal on the page",
            )
            assert "round 4 is in play" in box.text, box.text
    finally:
        code, errors = process.stop()
    assert code == 0, errors
    shoes, named = _logged(db, "new-shoe"), _logged(db, "seat-player")
    assert [(s["user"], s["role"]) for s in shoes] == [("dee", "dealer")]  # the refused press left no record
    assert [(n["seat"], n["player"], n["user"]) for n in named] == [(2, PLAYER, "dee")]

    _play(db, 3, seed=12, record_shuffle=False)  # rounds 5-7 from the shoe the dealer put in
    with EventLog(db, readonly=True) as log:
        rounds = read_rounds(log)
    assert [(r.round_id, r.outcome, r.shuffled_before) for r in rounds] == [
        (1, "settled", True),
        (2, "settled", False),
        (3, "settled", False),
        (4, "voided", True),
        (5, "settled", False),
        (6, "settled", False),
        (7, "settled", False),
    ]
    counts = counts_before(rounds)
    assert counts[3].cards_seen > 0  # the first shoe's count ran on ...
    assert (counts[4].cards_seen, counts[5].cards_seen, counts[5].running) == (
        0,
        0,
        0,
    )  # ... the press reset it
    assert counts[6].cards_seen == len(rounds[4].all_cards())
    assert all(r.players == {2: PLAYER} for r in rounds[4:])

    verified = subprocess.run(
        [*CLI, "audit", "verify", "--db", str(db)], capture_output=True, text=True, timeout=120
    )
    assert verified.returncode == 0, verified.stdout + verified.stderr
    done = subprocess.run(
        [*CLI, "protect", "--db", str(db), "--json"], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    [named] = [s for s in json.loads(done.stdout)["sessions"] if s.get("player") == PLAYER]
    assert (named["rounds"], named["counting"]["rounds"]) == ([5, 7], 3)
