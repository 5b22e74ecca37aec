"""A supervisor's wager correction keeps the order bets were placed in, so a side bet that needs
its main bet (Pair Plus on the Ante) still finds it when the round is re-run."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerassist.errors import RuleViolation
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker

SUPERVISOR = {"user": "sam", "role": "supervisor", "reason": "miscounted"}


def _wagers(tracker: Tracker) -> dict[str, int]:
    return dict(tracker.snapshot()["wagers"]["1"])


def test_correcting_the_ante_under_a_pair_plus_bet(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.sqlite3")
    tracker = Tracker(load_table("three-card-poker"), log)
    tracker.handle_data({"kind": "round-open", "table": "tcp-1"})
    tracker.handle_data({"kind": "wager", "table": "tcp-1", "seat": 1, "bet": "ante", "amount": 1000})
    tracker.handle_data({"kind": "wager", "table": "tcp-1", "seat": 1, "bet": "pair-plus", "amount": 500})
    tracker.handle_data(
        {"kind": "correct-wager", "table": "tcp-1", "seat": 1, "bet": "ante", "amount": 2000, **SUPERVISOR}
    )
    assert _wagers(tracker) == {"ante": 2000, "pair-plus": 500}
    # Taking the Ante down from under the Pair Plus is still refused, naming the rule.
    with pytest.raises(RuleViolation, match="pair-plus-requires-ante"):
        tracker.handle_data(
            {"kind": "correct-wager", "table": "tcp-1", "seat": 1, "bet": "ante", "amount": 0, **SUPERVISOR}
        )
    assert _wagers(tracker) == {"ante": 2000, "pair-plus": 500}
    log.close()
