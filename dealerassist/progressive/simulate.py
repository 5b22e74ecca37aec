"""A synthetic table for watching a progressive work (``dealerassist progressive simulate``).

It writes what a tracker would log for the progressive bet only — round open, wagers, betting
closed, a settlement naming each seat's progressive hand — into its own event log, so the meter
climbs, hits and resets exactly as at a real table without dealing cards. Use a separate log file:
these records are not a real game's.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dealerassist.core.paytables import MeterAward
from dealerassist.events import Event
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.params import ProgressiveParams
from dealerassist.tracker.events import BettingClosed, RoundClose, RoundOpen, RoundSettled, Wager

# Chance that one wager's hand wins some award: high enough to see fixed prizes in a demo.
AWARD_CHANCE = 0.02


@dataclass
class SimulatedTable:
    table: str
    params: ProgressiveParams
    controller: ProgressiveController
    seats: int = 6
    seed: int = 1

    def __post_init__(self) -> None:
        self.rng = random.Random(self.seed)
        self.round_id = max(self.controller.last_round, 0)

    def top_hand(self) -> str:
        """The hand of the largest meter share (the jackpot)."""
        meter_hands = [(a.percent, h) for h, a in self.params.awards.items() if isinstance(a, MeterAward)]
        if not meter_hands:
            raise ValueError(f"progressive {self.params.name} pays no share of the meter")
        return max(meter_hands)[1]

    def play_round(self, emit: Callable[[list[Event]], None], jackpot_seat: int | None = None) -> int:
        """One round: most seats bet the progressive; ``jackpot_seat`` is dealt the top hand."""
        self.round_id += 1
        r, t = self.round_id, self.table
        emit([RoundOpen(table=t, round_id=r)])
        seats = [s for s in range(1, self.seats + 1) if s == jackpot_seat or self.rng.random() < 0.7]
        for seat in seats:
            emit([Wager(table=t, round_id=r, seat=seat, bet=self.params.bet, amount=self.params.wager)])
        emit([BettingClosed(table=t, round_id=r)])
        fixed = sorted(h for h, a in self.params.awards.items() if not isinstance(a, MeterAward))
        results: list[dict[str, Any]] = []
        for seat in seats:
            hand = "no-award"
            if seat == jackpot_seat:
                hand = self.top_hand()
            elif fixed and self.rng.random() < AWARD_CHANCE:
                hand = self.rng.choice(fixed)
            results.append({"seat": seat, "position": f"seat-{seat}", "bet": self.params.bet, "hand": hand})
        emit([RoundSettled(table=t, round_id=r, results=tuple(results))])
        emit([RoundClose(table=t, round_id=r)])
        return r
