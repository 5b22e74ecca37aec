"""Player sessions: one seat across consecutive rounds at one table.

The record knows seats, not people, so a session is a seat's run of rounds with a wager on it; it
ends when the seat has no wager for ``gap`` rounds in a row (the player left, or a new one sat
down). Settled rounds only count for decisions (a void returns every wager); counting looks at
every round, since a voided round's cards still left the shoe.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from dealerassist.protection.records import RoundRecord

DEFAULT_GAP = 3


@dataclass
class Session:
    table: str
    seat: int
    game: str
    rounds: list[RoundRecord] = field(default_factory=list)

    @property
    def first_round(self) -> int:
        return self.rounds[0].round_id

    @property
    def last_round(self) -> int:
        return self.rounds[-1].round_id

    @property
    def name(self) -> str:
        return f"{self.table} seat {self.seat} rounds {self.first_round}-{self.last_round}"


def sessions_of(rounds: Sequence[RoundRecord], gap: int = DEFAULT_GAP) -> list[Session]:
    """Split each table's rounds (in round order) into seat sessions."""
    by_table: dict[str, list[RoundRecord]] = {}
    for round_ in rounds:
        if round_.rules is not None:
            by_table.setdefault(round_.table, []).append(round_)
    found: list[Session] = []
    for table, table_rounds in sorted(by_table.items()):
        table_rounds.sort(key=lambda r: r.round_id)
        open_sessions: dict[int, tuple[Session, int]] = {}  # seat -> (session, rounds away)
        for round_ in table_rounds:
            seated = {seat for seat, bets in round_.wagers.items() if any(bets.values())}
            for seat in list(open_sessions):
                session, away = open_sessions[seat]
                if session.game != round_.game:
                    del open_sessions[seat]
                elif seat not in seated:
                    if away + 1 >= gap:
                        del open_sessions[seat]
                    else:
                        open_sessions[seat] = (session, away + 1)
            for seat in sorted(seated):
                if seat not in open_sessions:
                    session = Session(table, seat, round_.game)
                    found.append(session)
                else:
                    session = open_sessions[seat][0]
                session.rounds.append(round_)
                open_sessions[seat] = (session, 0)
    return found
