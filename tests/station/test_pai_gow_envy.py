"""Face Up Pai Gow's Envy end to end: cards through the shoe emulator over TCP, the station's
tracker settling to the log, a restart, and the audit command verifying the chain. Seats with a $5
Fortune bet are paid Envy once per other player's four of a kind, with no Envy chip anywhere."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from dealerassist.core.cards import Card
from dealerassist.station.station import Station
from dealerassist.station.tables import check_table
from dealerassist.tablefiles.tables import table_from_mapping
from dealerassist.tracker import events as ev
from firmware_bridge.emulators.shoe import ShoeEmulator
from tests.station.helpers import shoe_on_tcp, table_data, wait_for

TABLE = "fupg-1"
# Dice 9 deal the dealer first, then seats 1 to 3 (rules: the dealer's place counts 1).
HANDS = {
    "dealer": "AS AH AD AC JK KC KD",
    "seat-1": "9S 9H 9D 9C KS 2D 3H",
    "seat-2": "8S 8H 8D 8C QS 4D 5H",
    "seat-3": "2S 2H 6D 7C JD TC 3C",
}
FRONTS = {"seat-1": "KS 3H", "seat-2": "QS 5H", "seat-3": "JD TC"}


@pytest.fixture
def shoe(tmp_path: Path) -> Iterator[ShoeEmulator]:
    with shoe_on_tcp(tmp_path / "shoe.json", seed=1, deck="standard-53-joker") as emulator:
        yield emulator


def _station(tmp_path: Path, shoe: ShoeEmulator) -> Station:
    table = check_table(table_from_mapping(table_data("face-up-pai-gow", shoe.url), "fupg (test)"))
    running = Station([table], tmp_path / "data", shoe_silence_s=0.6)
    running.start()
    return running


def test_envy_is_paid_without_a_stake_through_the_shoe_and_survives_a_restart(
    tmp_path: Path, shoe: ShoeEmulator
) -> None:
    station = _station(tmp_path, shoe)
    try:
        wait_for(lambda: station.shoes[TABLE].link_up, what="shoe link up")
        pit = station.pit
        pit.handle(TABLE, ev.RoundOpen(table=TABLE))
        for seat, bet, amount in [(1, "wager", 2500), (1, "fortune", 500), (2, "wager", 2500)]:
            pit.handle(TABLE, ev.Wager(table=TABLE, seat=seat, bet=bet, amount=amount, user="d"))
        for seat, bet, amount in [(3, "wager", 2500), (3, "fortune", 500)]:
            pit.handle(TABLE, ev.Wager(table=TABLE, seat=seat, bet=bet, amount=amount, user="d"))
        pit.handle(TABLE, ev.BettingClosed(table=TABLE))
        pit.handle(TABLE, ev.Dice(table=TABLE, total=9))
        for position in ("dealer", "seat-1", "seat-2", "seat-3"):
            for card in HANDS[position].split():
                shoe.deal(card)
        tracker = pit.tracker(TABLE)
        wait_for(lambda: tracker.snapshot()["phase"] == "setting", timeout=20, what="28 cards dealt")
        for position, front in FRONTS.items():
            cards = tuple(Card.parse(c) for c in front.split())
            pit.handle(
                TABLE, ev.PlayerDecision(table=TABLE, position=position, action="set-hand", cards=cards)
            )
        wait_for(lambda: tracker.snapshot()["status"] == "settled", what="the round settled")
    finally:
        station.stop()

    station = _station(tmp_path, shoe)  # a restart reads the same log
    try:
        settled = [r.event for r in station.log.records(table=TABLE) if r.event.kind == "round-settled"]
        dealt = [r.event for r in station.log.records(table=TABLE) if r.event.kind == "card-dealt"]
    finally:
        station.stop()
    assert len(settled) == 1 and len(dealt) == 28
    results = settled[0].results
    envy = sorted((r["seat"], r["earned_by"], r["stake"], r["win"]) for r in results if r["bet"] == "envy")
    assert envy == [(1, "seat-2", 0, 500), (3, "seat-1", 0, 500), (3, "seat-2", 0, 500)]
    assert settled[0].settings["dealer"] == {
        "two-card": ["KD", "KC"],
        "five-card": ["AS", "AH", "AD", "AC", "JK"],
    }
    paid = sum(r["win"] + r["returned"] for r in results)
    staked = sum(r["stake"] for r in results)
    assert staked == 3 * 2500 + 2 * 500 and paid == 12500 + 500 + 3 * 500, "Fortune 25:1 and three Envy"
    db = tmp_path / "data" / station.db_path.name
    verify = subprocess.run(
        [sys.executable, "-m", "dealerassist", "audit", "verify", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert verify.returncode == 0, verify.stdout + verify.stderr
    rounds = subprocess.run(
        [sys.executable, "-m", "dealerassist", "audit", "rounds", "--db", str(db), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert rounds.returncode == 0, rounds.stderr
    assert json.loads(rounds.stdout)
