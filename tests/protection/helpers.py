"""Simulated tables for the protection tests: seated players through the real tracker, read back."""

from __future__ import annotations

import random

from dealerassist.protection.records import RoundRecord, read_rounds
from dealerassist.simulation.players import TableSession, seated
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker


def simulated_rounds(game: str, kinds: dict[int, str], rounds: int, seed: int) -> list[RoundRecord]:
    """``rounds`` rounds at the game's example table with a player of each kind per seat (each seat
    seeded by its number), as ``protection.records`` reads them from the log."""
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table(game), log)
        players = {seat: seated(kind, random.Random(seat)) for seat, kind in kinds.items()}
        session = TableSession(tracker, players, random.Random(seed))
        for _ in range(rounds):
            session.play_round()
        return read_rounds(log)
