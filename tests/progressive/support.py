"""Shared helpers: a table feeding tracker records into the real event log and a controller."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from dealerassist.events import Event
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.params import ProgressiveParams, params_from_section
from dealerassist.storage.eventlog import EventLog
from dealerassist.tracker.events import BettingClosed, RoundOpen, RoundSettled, RoundVoided, Wager

SECTION: dict[str, Any] = {
    "name": "fortune-link",
    "wager": "1",
    "base": "10000",
    "reset": "5000",
    "increment": "15.5",
    "reserve": "4.25",
    "awards": {
        "seven-card-straight-flush": "100% meter",
        "royal-match": "10% meter",
        "five-aces": "$1,000",
        "straight-flush": "$75",
    },
}


def make_params(**changes: Any) -> ProgressiveParams:
    return params_from_section({**SECTION, **changes}, "test.toml")


@dataclass
class FakeClock:
    now: float = 1000.0

    def __call__(self) -> float:
        return self.now


@dataclass
class TableFeed:
    """Writes what a tracker would log and hands each record to the subscribers, as the tracker does."""

    table: str
    log: EventLog
    subscribers: list[Any] = field(default_factory=list)

    def emit(self, *events: Event) -> None:
        for record in self.log.append_many(list(events)):
            for subscriber in self.subscribers:
                subscriber(record)

    def round(self, round_id: int, wagers: dict[int, int], bet: str = "progressive") -> None:
        self.emit(RoundOpen(table=self.table, round_id=round_id))
        for seat, amount in wagers.items():
            self.emit(Wager(table=self.table, round_id=round_id, seat=seat, bet=bet, amount=amount))
        self.emit(BettingClosed(table=self.table, round_id=round_id))

    def settle(self, round_id: int, hands: dict[int, str], bet: str = "progressive") -> None:
        results = tuple(
            {
                "seat": seat,
                "position": f"seat-{seat}",
                "bet": bet,
                "stake": 100,
                "outcome": "win",
                "hand": hand,
            }
            for seat, hand in hands.items()
        )
        self.emit(RoundSettled(table=self.table, round_id=round_id, results=results))

    def void(self, round_id: int) -> None:
        self.emit(RoundVoided(table=self.table, round_id=round_id, reason="misdeal"))


def attach(feed: TableFeed, controller: ProgressiveController) -> ProgressiveController:
    feed.subscribers.append(controller.on_record)
    return controller


def wait_for(check: Callable[[], bool], what: str, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.01)


def shows(emulator: Any, text: str) -> Callable[[], bool]:
    """True once the emulated sign's running messages read ``text``."""
    return lambda: emulator.text() == text
