"""What the simulated dealer confirms for a doubtful read, against a real tracker's snapshot."""

from __future__ import annotations

from pathlib import Path

from dealerassist.core.cards import Card
from dealerassist.events import CardRead
from dealerassist.simulation.dealer import true_card
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import events as ev
from dealerassist.tracker.pit import Pit


def test_doubtful_reads_are_confirmed_with_the_card_really_there(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite3")
    pit = Pit(log, [load_table("three-card-poker")])
    try:
        pit.handle("tcp-1", ev.RoundOpen(table="tcp-1"))
        pit.handle("tcp-1", ev.Wager(table="tcp-1", seat=1, bet="ante", amount=500, user="d"))
        pit.handle("tcp-1", ev.BettingClosed(table="tcp-1"))
        for code in ("AS", "KD", "7C"):
            pit.handle("tcp-1", CardRead(table="tcp-1", source="shoe", card=Card.parse(code)))
        pit.handle("tcp-1", CardRead(table="tcp-1", source="shoe", card=None))  # the shoe could not read
        for card, confidence in (("KD", 0.6), ("QH", 0.5)):  # doubtful camera reads at seat 1
            pit.handle(
                "tcp-1",
                CardRead(
                    table="tcp-1",
                    source="camera",
                    card=Card.parse(card),
                    position="seat-1",
                    confidence=confidence,
                ),
            )
        snap = pit.tracker("tcp-1").snapshot()
        shoe_read, right, wrong = snap["pending_reads"]
        held = [Card.parse("2H")]
        assert true_card(snap, shoe_read, held) == Card.parse("2H") and held == []
        assert true_card(snap, shoe_read, held) is None  # nothing held: the dealer cannot tell
        assert true_card(snap, right, []) == Card.parse("KD")  # the camera's candidate lies there
        assert true_card(snap, wrong, []) == Card.parse("AS")  # QH is not there: the unchecked card
    finally:
        log.close()
