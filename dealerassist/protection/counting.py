"""The counting signature: does a seat's bet rise with the Hi-Lo true count of the shoe?

The count is rebuilt from every card the log recorded at the table since the last shuffle (2-6
count +1, 7-9 nothing, tens and aces -1). The true count before a round is the running count
divided by the decks still in the shoe. A shuffle is the ``meta`` shuffle record; without one, a
round whose cards the shoe could not hold on top of those already counted proves a new shoe, and
that round's count (unknown) is left out. Rounds before the first shuffle seen (records that start
mid-shoe) have no known count and are left out too.

The test is Spearman's rank correlation of the seat's main bet against the true count before each
of its rounds, one-sided: an honest player's bets, however they vary, do not depend on cards the
player never looked at as a count, so the correlation is zero in expectation.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Sequence
from dataclasses import dataclass

from dealerassist.core.cards import ACE, Card
from dealerassist.protection.records import RoundRecord
from dealerassist.protection.stats import Correlation, rank_correlation

DECK = 52
EVIDENCE_ROUNDS = 12


def hi_lo(card: Card) -> int:
    if 2 <= card.rank <= 6:
        return 1
    if card.rank >= 10 or card.rank == ACE:
        return -1
    return 0


@dataclass(frozen=True)
class ShoeCount:
    running: int
    cards_seen: int
    true_count: float


def shoes_before(rounds: Sequence[RoundRecord]) -> dict[int, Counter[Card]]:
    """The cards out of the shoe before each round of one table (rounds in order): every card the
    log recorded since the shuffle, for rounds where that is known."""
    out: dict[int, Counter[Card]] = {}
    seen = Counter[Card]()
    known = False  # known from the first shuffle on, never mid-shoe
    for round_ in rounds:
        if round_.rules is None:
            continue
        composition = Counter(round_.rules.deck.cards())
        cards = round_.all_cards()
        if round_.shuffled_before:
            seen, known = Counter(), True
        elif any(seen[c] + n > composition[c] for c, n in Counter(cards).items()):
            seen, known = Counter(cards), True  # a new shoe proved by this round: its count unknown
            continue
        if known:
            out[round_.round_id] = Counter(seen)
        seen.update(cards)
    return out


def counts_before(rounds: Sequence[RoundRecord]) -> dict[int, ShoeCount]:
    """The count before each round of one table (rounds in order), for rounds where it is known."""
    counts: dict[int, ShoeCount] = {}
    sizes = {r.round_id: r.rules.deck.size for r in rounds if r.rules is not None}
    for round_id, seen in shoes_before(rounds).items():
        total = seen.total()
        running = sum(hi_lo(card) * n for card, n in seen.items())
        decks_left = max((sizes[round_id] - total) / DECK, 0.5)
        counts[round_id] = ShoeCount(running, total, running / decks_left)
    return counts


@dataclass(frozen=True)
class CountingTest:
    rounds: list[tuple[int, float, int]]  # (round id, true count before, bet)
    correlation: Correlation

    @property
    def p_value(self) -> float:
        return self.correlation.p_value

    def evidence(self) -> list[int]:
        """The rounds with the largest bets, where a counter's bets sit at high counts."""
        ranked = sorted(self.rounds, key=lambda r: (-r[2], -r[1]))
        return sorted(r[0] for r in ranked[:EVIDENCE_ROUNDS])

    def summary(self) -> dict[str, object]:
        high = [bet for _, tc, bet in self.rounds if tc >= 2]
        low = [bet for _, tc, bet in self.rounds if tc < 1]
        return {
            "rounds": len(self.rounds),
            "spearman_rho": round(self.correlation.rho, 4),
            "p_value": self.p_value,
            "mean_bet_true_count_2_up": round(sum(high) / len(high), 1) if high else None,
            "mean_bet_true_count_below_1": round(sum(low) / len(low), 1) if low else None,
        }


def counting_test(
    rounds: Sequence[RoundRecord],
    counts: dict[int, ShoeCount],
    seats: Callable[[RoundRecord], Collection[int]],
    bet: str,
) -> CountingTest:
    """The player's bet (summed over the seats they bet on) against the true count before it."""
    pairs = []
    for r in rounds:
        staked = sum(r.main_bet(seat, bet) for seat in seats(r))
        if r.round_id in counts and staked > 0:
            pairs.append((r.round_id, counts[r.round_id].true_count, staked))
    correlation = rank_correlation([tc for _, tc, _ in pairs], [b for _, _, b in pairs])
    return CountingTest(pairs, correlation)
