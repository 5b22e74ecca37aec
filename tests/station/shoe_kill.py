"""SIGKILL the real ``dealerassist run`` while the shoe emulator (over TCP, kept running) deals, and
check that every card reached the table exactly once.

A reference table in memory gets every card once, the moment the shoe draws it; the station is
started, fed cards at random instants and killed at a random instant (often between the log's
commit and the ACK, when the shoe resends the card to the next process), again and again. Inputs
other than cards (opening a round, wagers, decisions) go into the station's log while it is down,
only when no card is still on its way. After every restart the station's open round must be the
reference's; at the end its log must verify, hold each shoe card once, and have dealt exactly the
reference's cards to the reference's positions.

Used by ``tests/station/test_shoe_kill.py`` and ``scripts/shoe_kill.py`` (the long run).
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.core.decks import load_deck
from dealerassist.errors import DealerAssistError
from dealerassist.events import CardRead, Event
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import events as ev
from dealerassist.tracker.pit import Pit
from firmware_bridge.emulators.shoe import ShoeEmulator
from tests.station.helpers import table_data, wait_for, write_table

ROOT = Path(__file__).resolve().parents[2]
BETS = {"pairs-and-up": [("ante", 500)], "perfect-pairs-blackjack": [("main", 1000), ("perfect-pairs", 1000)]}
DECISIONS = ("decline", "stand", "fold")  # always legal somewhere; no amounts needed


@dataclass
class KillReport:
    kills: int = 0
    starts: int = 0
    cards: int = 0
    rounds: int = 0
    repeats_refused: int = 0
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


class StationProcess:
    """``dealerassist run`` with its output read in a thread, so its pipe never fills."""

    def __init__(self, table: Path, data_dir: Path) -> None:
        command = [sys.executable, "-m", "dealerassist", "run", str(table), "--data-dir", str(data_dir)]
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        self.proc = subprocess.Popen(
            [*command, "--port", "0"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
        )
        self.lines: list[str] = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def healthz(self) -> dict[str, Any] | None:
        line = next((x for x in self.lines if "dashboard on" in x), None)
        if line is None:
            return None
        url = line.split("dashboard on ", 1)[1].split(",", 1)[0]
        try:
            with urllib.request.urlopen(url + "healthz", timeout=5) as response:
                return dict(json.load(response))
        except urllib.error.HTTPError as exc:
            return dict(json.load(exc))
        except OSError:
            return None

    def kill(self) -> None:
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(timeout=30)


class Croupier:
    """The reference table and the dealer's hands: which input comes next, and where it went."""

    def __init__(self, table_file: Path, seed: int) -> None:
        self.config = load_table(table_file)
        self.table = self.config.rules.table_id
        self.game = self.config.rules.game
        self.reference = Pit(EventLog(":memory:"), [self.config])
        self.rng = random.Random(seed)
        self._cards: list[Card] = []

    def snapshot(self) -> dict[str, Any]:
        return self.reference.tracker(self.table).snapshot()

    def wants_card(self) -> bool:
        return self.snapshot()["next_deal"] is not None

    def next_card(self) -> Card:
        if not self._cards:
            self._cards = load_deck(self.config.rules.deck.name).cards()
            self.rng.shuffle(self._cards)
        return self._cards.pop()

    def dealt(self, card: Card, boot: int, number: int) -> None:
        self.reference.handle(
            self.table,
            CardRead(table=self.table, source="shoe", card=card, shoe_sequence=number, shoe_boot=boot),
        )

    def next_inputs(self) -> list[Event]:
        """The inputs up to the next card: close and open a round, bet, or decide."""
        snap, table = self.snapshot(), self.table
        if snap["status"] != "open":
            inputs: list[Event] = [ev.RoundOpen(table=table)]
            for seat in (1, 2):
                for bet, amount in BETS[self.game]:
                    inputs.append(ev.Wager(table=table, seat=seat, bet=bet, amount=amount, user="dealer"))
            return [*inputs, ev.BettingClosed(table=table)]
        if snap["pending_decisions"]:
            position = snap["pending_decisions"][0]
            action = next(a for a in DECISIONS if a in snap["legal_actions"][position])
            return [ev.PlayerDecision(table=table, position=position, action=action)]
        raise AssertionError(f"the reference table is stuck in phase {snap['phase']}")

    def play_inputs(self, db: Path) -> None:
        """While the station is down and no card is on its way: the inputs up to the next card."""
        log = EventLog(db)
        try:
            station_side = Pit(log, [self.config])
            while not self.wants_card():
                for event in self.next_inputs():
                    try:
                        station_side.handle(self.table, event)
                    except DealerAssistError as exc:
                        snap = station_side.tracker(self.table).snapshot()
                        raise AssertionError(
                            f"the station's table parted from the reference: it refused {event.kind} "
                            f"({exc}); it is in round {snap['round_id']} {snap['phase']}"
                        ) from None
                    self.reference.handle(self.table, event)
        finally:
            log.close()


def run_with_kills(workdir: Path, game: str, kills: int, seed: int) -> KillReport:
    began = time.monotonic()
    rng = random.Random(seed)
    deck = {"pairs-and-up": "pairs-and-up-52", "perfect-pairs-blackjack": "shoe-6"}[game]
    shoe = ShoeEmulator(deck=deck, seed=seed, heartbeat=0.3, retransmit=0.1, state=workdir / "shoe.json")
    shoe.serve_tcp("127.0.0.1", 0)
    shoe.start()
    table_file = write_table(workdir / f"{game}.toml", table_data(game, shoe.url))
    data_dir = workdir / "data"
    data_dir.mkdir()
    db = data_dir / "events.sqlite3"
    EventLog(db).close()  # creating a log is not one transaction: a kill then would be a storage test
    croupier = Croupier(table_file, seed)
    report = KillReport()
    station: StationProcess | None = None
    try:
        while True:
            if shoe.pending() == 0:
                croupier.play_inputs(db)
            station = StationProcess(table_file, data_dir)
            report.starts += 1
            health = wait_for(station.healthz, timeout=90, what="the station's dashboard")
            wait_for(lambda: shoe.pending() == 0, timeout=30, what="the shoe's cards taken after the restart")
            _check_restored(station.healthz() or health, croupier, report)
            if report.kills >= kills:
                break
            _deal_some(shoe, croupier, rng, report)
            time.sleep(rng.choice([0.0, rng.uniform(0.0, 0.02), rng.uniform(0.0, 0.3)]))
            station.kill()
            report.kills += 1
    finally:
        if station is not None and station.proc.poll() is None:
            station.kill()  # what it logged so far is what is checked
        shoe.stop()
    _check_log(db, croupier, shoe, report)
    report.seconds = time.monotonic() - began
    return report


def _deal_some(shoe: ShoeEmulator, croupier: Croupier, rng: random.Random, report: KillReport) -> None:
    """Up to four cards the round wants, a few milliseconds apart (the kill follows the last)."""
    deals = rng.randint(0, 4)
    while deals and croupier.wants_card():
        card = croupier.next_card()
        number = shoe.deal(card)
        assert number is not None
        croupier.dealt(card, shoe.boot_id, number)
        report.cards += 1
        deals -= 1
        if deals:
            time.sleep(rng.uniform(0.0, 0.05))


def _check_restored(health: dict[str, Any], croupier: Croupier, report: KillReport) -> None:
    snap = croupier.snapshot()
    table = health["tables"][croupier.table]
    if (table["round_id"], table["phase"]) != (snap["round_id"], snap["phase"]):
        report.problems.append(
            f"start {report.starts}: the station has round {table['round_id']} in {table['phase']}, "
            f"the reference round {snap['round_id']} in {snap['phase']}"
        )


def _check_log(db: Path, croupier: Croupier, shoe: ShoeEmulator, report: KillReport) -> None:
    audit = subprocess.run(
        [sys.executable, "-m", "dealerassist", "audit", "verify", "--db", str(db)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    if audit.returncode != 0:
        report.problems.append(f"audit verify failed: {audit.stdout}{audit.stderr}")
    log = EventLog(db)
    try:
        events = [r.event for r in log.records(table=croupier.table)]
    finally:
        log.close()
    reads = [e for e in events if isinstance(e, CardRead) and e.source == "shoe"]
    taken = Counter((e.shoe_boot, e.shoe_sequence) for e in reads)
    drawn = {(boot, number) for boot, number, _ in shoe.history}
    doubled = sorted(k for k, n in taken.items() if n > 1)
    missing = sorted(drawn - set(taken))
    if doubled:
        report.problems.append(f"cards taken twice: {doubled}")
    if missing:
        report.problems.append(f"cards never taken: {missing}")
    refused = [e for e in events if isinstance(e, ev.Refused)]
    report.repeats_refused = sum(1 for e in refused if e.rule == "shoe-repeat")
    others = [e.message for e in refused if e.rule != "shoe-repeat"]
    if others:
        report.problems.append(f"refusals other than repeats: {others}")
    mine = [(e.round_id, e.position, e.index, e.card.code) for e in events if isinstance(e, ev.CardDealt)]
    reference = [
        (e.round_id, e.position, e.index, e.card.code)
        for e in (r.event for r in croupier.reference.log.records())
        if isinstance(e, ev.CardDealt)
    ]
    if mine != reference:
        report.problems.append(
            f"dealt {len(mine)} card(s) where the reference dealt {len(reference)}, or elsewhere"
        )
    report.rounds = croupier.snapshot()["round_id"]
