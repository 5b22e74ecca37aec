"""A shoe wired straight into a pit: the simulated dealer's cards as shoe reads, no serial line.

Benchmarks and tests that need many whole rounds of every game quickly use it with
``SimulatedDealer``; the shoe protocol itself is exercised by the emulator over TCP elsewhere.
"""

from __future__ import annotations

from typing import Any

from dealerassist.core.cards import Card
from dealerassist.errors import DealerAssistError
from dealerassist.events import CardRead, DealerButton


class DirectShoe:
    """Each ``deal`` is one shoe read handed to the table's tracker (refusals are logged there)."""

    def __init__(self, pit: Any, table: str) -> None:
        self.pit = pit
        self.table = table
        self.cards = 0

    def deal(self, card: str | Card | None = None, *, unreadable: bool = False) -> int | None:
        read = None if unreadable or card is None else (card if isinstance(card, Card) else Card.parse(card))
        self.cards += 1
        self._send(CardRead(table=self.table, source="shoe", card=read))
        return self.cards

    def press_button(self) -> None:
        self._send(DealerButton(table=self.table))

    def _send(self, event: Any) -> None:
        try:
            self.pit.handle(self.table, event)
        except DealerAssistError:
            pass  # refused: the tracker logged it, the dealer sees it in the snapshot
