"""What the simulated players bet: seats, amounts within the table's limits, occasional side bets."""

from __future__ import annotations

import random
from dataclasses import dataclass

from dealerassist.games.base import TableRules

# The bet every player at a spot must make, per game; the other placeable bets are side bets.
MAIN_BET = {
    "three-card-poker": "ante",
    "four-card-poker": "ante",
    "pairs-and-up": "ante",
    "face-up-pai-gow": "wager",
    "perfect-pairs-blackjack": "main",
}
# Bets placed by a decision (Play) or by the player-dealer, never at the betting stage.
NOT_PLACED = frozenset({"play", "bank"})
SIDE_BET_CHANCE = 0.4
MAIN_MULTIPLES = (1, 1, 1, 2, 2, 3, 5)


@dataclass(frozen=True)
class Wager:
    seat: int
    bet: str
    amount: int


def _within(rules: TableRules, bet: str, multiple: int) -> int:
    limit = rules.limit(bet)
    amount = min(limit.minimum * multiple, limit.maximum)
    return max(limit.minimum, amount - amount % rules.chip)


def side_bets(rules: TableRules) -> list[str]:
    main = MAIN_BET.get(rules.game)
    return [b for b in rules.limits if b != main and b not in NOT_PLACED]


def plan_wagers(
    rules: TableRules,
    rng: random.Random,
    *,
    max_seats: int = 5,
    must_bet: dict[int, list[str]] | None = None,
    allow: frozenset[str] | None = None,
) -> list[Wager]:
    """Two to ``max_seats`` occupied spots, each with the main bet and now and then a side bet.

    ``must_bet`` forces bets at given seats (a stacked jackpot needs its progressive wager);
    ``allow`` restricts side bets (a locked progressive takes no wagers).
    """
    main = MAIN_BET.get(rules.game, next(iter(rules.limits)))
    seats_open = min(rules.seats, max_seats)
    forced = dict(must_bet or {})
    count = rng.randint(min(2, seats_open), seats_open)
    seats = sorted(set(rng.sample(range(1, seats_open + 1), count)) | set(forced))
    wagers: list[Wager] = []
    for seat in seats:
        wagers.append(Wager(seat, main, _within(rules, main, rng.choice(MAIN_MULTIPLES))))
        for bet in side_bets(rules):
            if allow is not None and bet not in allow:
                continue
            if bet in forced.get(seat, []) or rng.random() < SIDE_BET_CHANCE:
                wagers.append(Wager(seat, bet, _within(rules, bet, 1)))
    return wagers
