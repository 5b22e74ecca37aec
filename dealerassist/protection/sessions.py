"""Player sessions: one player's run of rounds at one table.

Where the dealer entered a player id or card number for a seat (``seat-player``), a session is
that player's, whichever seats they bet on (two spots at once included). Elsewhere the record
knows seats, not people, and a session is a seat's run of rounds with a wager on it. Either ends
when the player (or seat) has no wager for ``gap`` rounds in a row (the player left, or a new one
sat down). Settled rounds only count for decisions (a void returns every wager); counting looks at
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
    seat: int  # the first seat played
    game: str
    player: str = ""  # the player id the dealer entered; "" for an anonymous seat
    rounds: list[RoundRecord] = field(default_factory=list)
    seats_by_round: dict[int, frozenset[int]] = field(default_factory=dict)

    def seats(self, round_: RoundRecord) -> frozenset[int]:
        """The seats this session's player bet on in a round."""
        return self.seats_by_round.get(round_.round_id, frozenset())

    def add(self, round_: RoundRecord, seats: frozenset[int]) -> None:
        self.rounds.append(round_)
        self.seats_by_round[round_.round_id] = seats

    @property
    def first_round(self) -> int:
        return self.rounds[0].round_id

    @property
    def last_round(self) -> int:
        return self.rounds[-1].round_id

    @property
    def all_seats(self) -> list[int]:
        return sorted(set().union(*self.seats_by_round.values()))

    @property
    def name(self) -> str:
        who = f"player {self.player}" if self.player else f"seat {self.seat}"
        return f"{self.table} {who} rounds {self.first_round}-{self.last_round}"


def sessions_of(rounds: Sequence[RoundRecord], gap: int = DEFAULT_GAP) -> list[Session]:
    """Split each table's rounds (in round order) into player sessions."""
    by_table: dict[str, list[RoundRecord]] = {}
    for round_ in rounds:
        if round_.rules is not None:
            by_table.setdefault(round_.table, []).append(round_)
    found: list[Session] = []
    for table, table_rounds in sorted(by_table.items()):
        table_rounds.sort(key=lambda r: r.round_id)
        open_sessions: dict[str, tuple[Session, int]] = {}  # player key -> (session, rounds away)
        for round_ in table_rounds:
            present: dict[str, set[int]] = {}
            for seat, bets in round_.wagers.items():
                if any(bets.values()):
                    present.setdefault(_key(round_, seat), set()).add(seat)
            for key in list(open_sessions):
                session, away = open_sessions[key]
                if session.game != round_.game:
                    del open_sessions[key]
                elif key not in present:
                    if away + 1 >= gap:
                        del open_sessions[key]
                    else:
                        open_sessions[key] = (session, away + 1)
            for key, seats in sorted(present.items(), key=lambda kv: min(kv[1])):
                if key not in open_sessions:
                    player = round_.players.get(min(seats), "")
                    session = Session(table, min(seats), round_.game, player)
                    found.append(session)
                else:
                    session = open_sessions[key][0]
                session.add(round_, frozenset(seats))
                open_sessions[key] = (session, 0)
    return found


def _key(round_: RoundRecord, seat: int) -> str:
    player = round_.players.get(seat)
    return f"player:{player}" if player else f"seat:{seat}"
