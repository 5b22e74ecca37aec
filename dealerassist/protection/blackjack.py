"""Perfect Pairs Blackjack decisions priced: hit, stand, double, split, insurance and even money.

The table's rules (``games.perfect_pairs_blackjack``): the dealer stands on every 17, peeks with an
ace or ten-value card up (a hand decided after the peek faces no dealer blackjack), doubles on
any two cards and after a split, one split per seat, split aces take one card each. Values are the
expected net of each option per hand in cents, computed exactly against one composition: the
table's shoe less the seat's cards and the dealer's up card (and the hole card, for the informed
choice). Every later card of the round, the player's and the dealer's, is drawn from that same
composition: the standard basic-strategy calculation with the shoe not depleted within the round,
an approximation worth a few thousandths of a bet with six decks. The cards of earlier rounds since
the shuffle (``DecisionPoint.shoe_out``, where the record knows them) are out of the composition
too: the hole card's chances are then those of the shoe as it stood, and the best choice is the
count-aware one.

The informed choice is the best option with the hole card known; ``follow_chance`` weighs every
hole card the dealer could hold after the peek (all of them, for insurance and even money, which
are decided before it) by whether the player's choice is best against it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from fractions import Fraction
from functools import lru_cache

from dealerassist.core.cards import Card
from dealerassist.core.money import Odds
from dealerassist.games.base import TableRules
from dealerassist.hands.blackjack import card_points
from dealerassist.protection.decisions import DecisionPoint, Review

RANKS = tuple(range(1, 11))  # card points: ace 1, tens and pictures 10
BUST = 22
INSURANCE_ACTIONS = ("insurance", "even-money", "decline")

Draws = tuple[Fraction, ...]  # chance of each of ``RANKS`` on the next card
Dealer = dict[int, Fraction]  # the dealer's final total (17..21, or BUST) and its chance


def composition(rules: TableRules, seen: tuple[Card, ...]) -> tuple[int, ...]:
    """Cards of each point value the shoe holds once ``seen`` are out."""
    left = Counter(card_points(c) for c in rules.deck.cards())
    left.subtract(card_points(c) for c in seen)
    return tuple(left[r] for r in RANKS)


def draws_of(counts: tuple[int, ...]) -> Draws:
    total = sum(counts)
    return tuple(Fraction(n, total) for n in counts)


def soft_total(hard: int, ace: bool) -> int:
    return hard + 10 if ace and hard + 10 <= 21 else hard


def dealer_final(start: tuple[int, ...], draws: Draws, no_blackjack: bool) -> Dealer:
    """The dealer's final totals from ``start`` (the up card, or up and hole card), standing on
    all 17s. With one card and ``no_blackjack``, the hole card is the one the peek allowed."""
    memo: dict[tuple[int, bool], Dealer] = {}

    def play(hard: int, ace: bool) -> Dealer:
        total = soft_total(hard, ace)
        if hard > 21:
            return {BUST: Fraction(1)}
        if total >= 17:
            return {total: Fraction(1)}
        if (hard, ace) not in memo:
            out: Dealer = {}
            for rank, p in zip(RANKS, draws, strict=True):
                for final, q in play(hard + rank, ace or rank == 1).items():
                    out[final] = out.get(final, 0) + p * q
            memo[hard, ace] = out
        return memo[hard, ace]

    hard, ace = sum(start), 1 in start
    if len(start) > 1:
        return play(hard, ace)
    barred = 11 - start[0] if no_blackjack and start[0] in (1, 10) else None  # what the peek ruled out
    return _draw(play, hard, ace, draws, barred)


def _draw(
    play: Callable[[int, bool], Dealer], hard: int, ace: bool, draws: Draws, barred: int | None
) -> Dealer:
    """The hole card's draw, ``barred`` (the card that makes a blackjack) excluded and the rest
    weighed again."""
    weight = sum((p for r, p in zip(RANKS, draws, strict=True) if r != barred), Fraction(0))
    out: Dealer = {}
    for rank, p in zip(RANKS, draws, strict=True):
        if rank == barred:
            continue
        for final, q in play(hard + rank, ace or rank == 1).items():
            out[final] = out.get(final, 0) + p / weight * q
    return out


class Hands:
    """Values per unit bet of standing, hitting and doubling, against one dealer distribution."""

    def __init__(self, dealer: Dealer, draws: Draws) -> None:
        self.dealer = dealer
        self.draws = draws
        self._hit: dict[tuple[int, bool], Fraction] = {}

    def stand(self, total: int) -> Fraction:
        if total > 21:
            return Fraction(-1)
        return sum(
            (q if final == BUST or final < total else -q if final > total else Fraction(0))
            for final, q in self.dealer.items()
        )

    def best_after_card(self, hard: int, ace: bool) -> Fraction:
        total = soft_total(hard, ace)
        if total > 21:
            return Fraction(-1)
        if total == 21:
            return self.stand(21)
        return max(self.stand(total), self.hit(hard, ace))

    def hit(self, hard: int, ace: bool) -> Fraction:
        if (hard, ace) not in self._hit:
            self._hit[hard, ace] = sum(
                p * self.best_after_card(hard + r, ace or r == 1)
                for r, p in zip(RANKS, self.draws, strict=True)
            )
        return self._hit[hard, ace]

    def double(self, hard: int, ace: bool) -> Fraction:
        return 2 * sum(
            p * self.stand(soft_total(hard + r, ace or r == 1))
            for r, p in zip(RANKS, self.draws, strict=True)
        )

    def split(self, rank: int) -> Fraction:
        """Both hands of a split pair: split aces stand on one card, others may hit or double."""
        one = Fraction(0)
        for r, p in zip(RANKS, self.draws, strict=True):
            hard, ace = rank + r, rank == 1 or r == 1
            if rank == 1:
                one += p * self.stand(soft_total(hard, ace))
            else:
                total = soft_total(hard, ace)
                best = (
                    self.stand(21)
                    if total == 21
                    else max(self.best_after_card(hard, ace), self.double(hard, ace))
                )
                one += p * best
        return 2 * one


@lru_cache(maxsize=65536)
def play_values(
    counts: tuple[int, ...], own: tuple[int, ...], up: int, hole: int | None, options: tuple[str, ...]
) -> dict[str, Fraction]:
    """Values per unit bet of each option (hit, stand, double, split) of a hand after the peek."""
    draws = draws_of(counts)
    start = (up,) if hole is None else (up, hole)
    hands = Hands(dealer_final(start, draws, no_blackjack=True), draws)
    hard, ace = sum(own), 1 in own
    values = {"hit": hands.hit(hard, ace), "stand": hands.stand(soft_total(hard, ace))}
    if "double" in options:
        values["double"] = hands.double(hard, ace)
    if "split" in options:
        values["split"] = hands.split(own[0])
    return values


def _insurance_values(point: DecisionPoint, rules: TableRules, p_blackjack: Fraction) -> dict[str, Fraction]:
    """Taking insurance (half the bet, paid 2 to 1) or even money on a blackjack, against declining."""
    stake = point.wagers.get("main", 0)
    if _natural(point):
        pays = Odds.parse(rules.option("blackjack_pays", "3 to 2"))
        return {
            "even-money": Fraction(stake),
            "decline": (1 - p_blackjack) * stake * Fraction(pays.win, pays.per),
        }
    half = Fraction(stake // 2)
    return {"insurance": half * (3 * p_blackjack - 1), "decline": Fraction(0)}


def _natural(point: DecisionPoint) -> bool:
    return sorted(card_points(c) for c in point.cards) == [1, 10] and "." not in point.position


def options_of(point: DecisionPoint) -> tuple[str, ...]:
    """The options the table allowed: double on two cards, split on a first pair of one value."""
    options = ["hit", "stand"]
    if len(point.cards) == 2:
        options.append("double")
        points = [card_points(c) for c in point.cards]
        if points[0] == points[1] and not point.split_hand:
            options.append("split")
    return tuple(options)


def _best(values: dict[str, Fraction]) -> frozenset[str]:
    top = max(values.values())
    return frozenset(o for o, v in values.items() if v == top)


def review(point: DecisionPoint, rules: TableRules) -> Review:
    up = card_points(point.dealer_up[0])
    hole = card_points(point.dealer_hidden[0]) if len(point.dealer_hidden) == 1 else None
    counts = composition(rules, (*point.shoe_out, *point.cards, *point.dealer_up))
    draws = draws_of(counts)
    chosen = point.action
    if chosen in INSURANCE_ACTIONS:
        ten = draws[9] if up == 1 else Fraction(0)
        values = _insurance_values(point, rules, ten)
        if_ten, otherwise = (
            _best(_insurance_values(point, rules, Fraction(1))),
            _best(_insurance_values(point, rules, Fraction(0))),
        )
        follow = ten * (chosen in if_ten) + (1 - ten) * (chosen in otherwise)
        informed = frozenset(values) if hole is None else if_ten if hole == 10 else otherwise
        return Review(point, values, chosen, informed, float(follow))
    own = tuple(sorted(card_points(c) for c in point.cards))
    options = options_of(point)
    if chosen not in options:
        options = (*options, chosen)
    stake = point.wagers.get("main", 0)
    values = {o: stake * v for o, v in play_values(counts, own, up, None, options).items()}
    barred = 11 - up if up in (1, 10) else None
    holes = [(r, p) for r, p in zip(RANKS, draws, strict=True) if r != barred and counts[r - 1] > 0]
    weight = sum(p for _, p in holes)
    against = {r: _best(_hole_values(counts, own, up, r, options)) for r, _ in holes}
    follow = sum(p for r, p in holes if chosen in against[r]) / weight
    informed = against.get(hole, frozenset(values)) if hole is not None else frozenset(values)
    return Review(point, values, chosen, informed, float(follow))


def _hole_values(
    counts: tuple[int, ...], own: tuple[int, ...], up: int, hole: int, options: tuple[str, ...]
) -> dict[str, Fraction]:
    """Option values with the hole card known: it leaves the shoe the later cards come from."""
    less = tuple(n - (r == hole) for r, n in zip(RANKS, counts, strict=True))
    return play_values(less, own, up, hole, options)
