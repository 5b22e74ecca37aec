"""Where a table's shoe stands: which power-up of the shoe and which of its cards the table has had.

A shoe names every card by its power-up (``shoe_boot``) and its own card counter
(``shoe_sequence``). The table takes each pair once: a card sent again (a restart between the log
commit and the ACK makes the shoe resend it) is refused as a repeat, never dealt twice; the same
number with a *different* card is an integrity fault; a number that skips ahead means cards were
drawn that never arrived. The position travels in the ``table-state`` checkpoint, and refused shoe
reads move it too (a card refused because no round was open is still a card the shoe drew).

A shoe read without ``shoe_boot`` (a log written before it existed, a vendor shoe that never says
its power-up) is taken as it comes, live and in replay alike, so old logs replay as they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from dealerassist.events import CardRead

RECENT_KEPT = 32
UNREADABLE = "??"

Verdict = Literal["new", "repeat", "conflict"]


@dataclass
class ShoePosition:
    boot: int | None = None
    sequence: int = 0
    recent: dict[int, str] = field(default_factory=dict)

    @staticmethod
    def applies(read: CardRead) -> bool:
        return read.source == "shoe" and read.shoe_sequence is not None and read.shoe_boot is not None

    def judge(self, read: CardRead) -> tuple[Verdict, int]:
        """Check one shoe read without moving: its verdict and how many cards were skipped before it."""
        assert read.shoe_sequence is not None
        if read.shoe_boot != self.boot:
            return "new", 0  # a power-up the table has not seen: its first number is where it starts
        if read.shoe_sequence > self.sequence:
            return "new", read.shoe_sequence - self.sequence - 1
        known = self.recent.get(read.shoe_sequence)
        if known is not None and known != _code(read):
            return "conflict", 0
        return "repeat", 0

    def advance(self, read: CardRead) -> None:
        """The table has this card now (dealt, queued or refused for a reason of the game)."""
        assert read.shoe_sequence is not None
        if read.shoe_boot != self.boot:
            self.boot, self.sequence, self.recent = read.shoe_boot, 0, {}
        if read.shoe_sequence <= self.sequence:
            return
        self.sequence = read.shoe_sequence
        self.recent[read.shoe_sequence] = _code(read)
        for old in sorted(self.recent)[:-RECENT_KEPT]:
            del self.recent[old]

    def to_record(self) -> dict[str, str]:
        return {str(seq): code for seq, code in self.recent.items()}

    @classmethod
    def from_record(cls, boot: int | None, sequence: int, recent: dict[str, str]) -> ShoePosition:
        return cls(boot, sequence, {int(seq): code for seq, code in recent.items()})


def _code(read: CardRead) -> str:
    return read.card.code if read.card is not None else UNREADABLE
