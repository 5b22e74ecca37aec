"""A high-card table driven the way a dealer's screen would, for the tracker tests."""

from __future__ import annotations

from typing import Any

from dealerassist.core.cards import Card
from dealerassist.events import CardRead
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

TABLE = "hc-1"


class Table:
    """Sends events to one tracker with short calls, the way a dealer's screen would."""

    def __init__(self, tracker: Tracker) -> None:
        self.tracker = tracker
        self.table = tracker.table

    def send(self, event: Any) -> list[Any]:
        return self.tracker.handle(event)

    def kinds(self, event: Any) -> list[str]:
        return [e.kind for e in self.send(event)]

    def open(self) -> list[Any]:
        return self.send(ev.RoundOpen(table=self.table))

    def wager(self, seat: int, amount: int, bet: str = "ante") -> list[Any]:
        return self.send(ev.Wager(table=self.table, seat=seat, bet=bet, amount=amount, user="dealer-1"))

    def close(self) -> list[Any]:
        return self.send(ev.BettingClosed(table=self.table))

    def shoe(self, card: str | None, confidence: float = 1.0) -> list[Any]:
        parsed = Card.parse(card) if card else None
        return self.send(CardRead(table=self.table, source="shoe", card=parsed, confidence=confidence))

    def camera(
        self, position: str, card: str | None, face_up: bool = True, confidence: float = 0.99
    ) -> list[Any]:
        parsed = Card.parse(card) if card else None
        read = CardRead(
            table=self.table,
            source="camera",
            card=parsed,
            position=position,
            face_up=face_up,
            confidence=confidence,
        )
        return self.send(read)

    def decide(self, seat: int, action: str, amount: int | None = None) -> list[Any]:
        return self.send(
            ev.PlayerDecision(table=self.table, position=f"seat-{seat}", action=action, amount=amount)
        )

    def supervisor(self, cls: type, **fields: Any) -> list[Any]:
        fields.setdefault("reason", "checked on camera")
        return self.send(cls(table=self.table, user="sup-1", role="supervisor", **fields))

    def deal_round(self, wagers: dict[int, int], cards: list[str]) -> list[Any]:
        """Open, bet, close and deal ``cards`` from the shoe; returns every output."""
        out = self.open()
        for seat, amount in wagers.items():
            out += self.wager(seat, amount)
        out += self.close()
        for card in cards:
            out += self.shoe(card)
        return out
