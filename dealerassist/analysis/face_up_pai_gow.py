"""Face Up Pai Gow Poker side bets by complete enumeration of all 154,143,080 seven-card hands
from the 53-card deck, counted by rank pattern.

A seven-card hand's Fortune class depends on its ranks (and the joker) unless four or more cards
share a suit with the joker, or five or more without it, when a flush is possible; then it also
depends on the ranks held in that one suit. So the count runs in two parts:

1. every rank pattern (how many of each rank, with or without the joker) is judged once on a
   representative hand whose suits are spread so no flush is possible; its weight is the number
   of suit assignments, prod C(4, count);
2. every hand that can hold a flush is enumerated directly by its flush suit's ranks and the
   other cards (three suits, interchangeable except that a suited king-queen beside a royal
   flush is a royal match), judged on real cards, and moved from its rank pattern's class to its
   own class.

Both parts call ``fortune_class`` and ``ace_high_pai_gow``, the functions that settle live
rounds, and each class is priced through the pay table's award. About 300,000 hands are judged
instead of 154 million; the class counts are cached for the process.

Bets: ``fortune`` (best five of seven with the seven-card specials; seven cards holding trips and
a straight are paid as the table option ``fortune_trips_and_straight`` says, counted apart for
it), ``ace-high`` (the dealer's seven cards an ace-high pai gow), ``progressive`` (per $1, meter
shares priced on a meter of ``ASSUMED_METER_UNITS`` dollars), and ``envy``.

Envy has no stake: a seat whose Fortune bet is at least ``envy_min_fortune`` is paid a fixed amount
for each other player's qualifying hand. Each other player's seven cards are, taken alone, a
uniformly random seven of the 53 (whatever the seat's own hand and the dealer's), so by linearity
of expectation the Envy a qualifying seat collects per round with ``n`` other players is exactly
``n`` times the expected award on one seven-card hand, from the same class counts. It is reported
for 1 to 6 other players in dollars per round and as a share of the qualifying Fortune bet
(``envy_by_others``); its ``house_edge`` is minus that share for one other player (what Envy
gives back per unit of the qualifying Fortune bet) and its ``hit_frequency`` the chance that one
other hand qualifies.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations
from math import comb, prod
from typing import Any, Final

from dealerassist.analysis import AnalysisError, AnalysisRequest, BetAnalysis, Progress
from dealerassist.analysis.pairs_and_up import price_classes
from dealerassist.analysis.three_card_poker import chosen_paytable
from dealerassist.core.cards import ACE, JOKER, SUITS, Card
from dealerassist.core.money import MoneyError, format_amount, parse_amount
from dealerassist.games.face_up_pai_gow import (
    HAND_SIZE,
    TRIPS_AND_STRAIGHT,
    ace_high_pai_gow,
    fortune_class,
    higher_paying,
    holds_trips_and_straight,
)

GAME: Final = "face-up-pai-gow"
RANKS: Final = tuple(range(2, ACE + 1))
FLUSH_SUIT: Final = "S"
KING, QUEEN = 13, 12
ALL_HANDS: Final = comb(53, HAND_SIZE)
ASSUMED_METER_UNITS: Final = 100_000
OTHER_PLAYERS: Final = range(1, 7)

Pattern = tuple[tuple[int, ...], int]  # (count of each rank 2..A, jokers)


def rank_patterns(cards: int) -> Iterator[tuple[int, ...]]:
    """Every way to hold ``cards`` cards as counts of the 13 ranks (at most four of each)."""

    def grow(prefix: tuple[int, ...], left: int) -> Iterator[tuple[int, ...]]:
        if len(prefix) == len(RANKS):
            if left == 0:
                yield prefix
            return
        for n in range(min(4, left) + 1):
            yield from grow((*prefix, n), left - n)

    return grow((), cards)


def spread_hand(counts: tuple[int, ...], jokers: int) -> list[Card]:
    """A hand with these rank counts whose suits are spread (at most two per suit): no flush."""
    load = dict.fromkeys(SUITS, 0)
    hand: list[Card] = []
    for rank, n in zip(RANKS, counts, strict=True):
        for suit in sorted(SUITS, key=lambda s: (load[s], SUITS.index(s)))[:n]:
            load[suit] += 1
            hand.append(Card(rank, suit))
    assert max(load.values()) <= 2, counts
    return hand + [JOKER] * jokers


def _others(count: int) -> Iterator[tuple[list[Card], int]]:
    """Cards outside the flush suit with the number of suit choices each stands for."""
    if count == 0:
        yield [], 1
    elif count == 1:
        for rank in RANKS:
            yield [Card(rank, "H")], 3
    else:
        for low, high in combinations(RANKS, 2):
            if (low, high) == (QUEEN, KING):
                yield [Card(low, "H"), Card(high, "H")], 3
                yield [Card(low, "H"), Card(high, "D")], 6
            else:
                yield [Card(low, "H"), Card(high, "D")], 9
        for rank in RANKS:
            yield [Card(rank, "H"), Card(rank, "D")], 3


def _pattern(cards: list[Card]) -> Pattern:
    ranks = Counter(c.rank for c in cards if not c.is_joker)
    return tuple(ranks[r] for r in RANKS), sum(1 for c in cards if c.is_joker)


FLUSH_SHAPES: Final = ((0, 5), (0, 6), (0, 7), (1, 4), (1, 5), (1, 6))  # (jokers, cards in the suit)


@dataclass(frozen=True)
class SevenCardCounts:
    """Every seven-card hand of the 53-card deck counted: by Fortune class, how many are an
    ace-high pai gow, and how many straights also hold trips."""

    classes: dict[str, int]
    ace_high: int
    straight_with_trips: int


_COUNTED: dict[str, SevenCardCounts] = {}


def seven_card_counts(progress: Progress | None = None) -> SevenCardCounts:
    """The seven-card counts (counted once per process)."""
    if "all" not in _COUNTED:
        _COUNTED["all"] = _count(progress)
    return _COUNTED["all"]


def _count(progress: Progress | None) -> SevenCardCounts:
    patterns = [(p, j) for j in (0, 1) for p in rank_patterns(HAND_SIZE - j)]
    flush_work = sum(comb(len(RANKS), k) for _, k in FLUSH_SHAPES)
    steps, done = len(patterns) + flush_work, 0
    counts: Counter[str] = Counter()
    moved: Counter[Pattern] = Counter()
    for jokers, suited in FLUSH_SHAPES:
        for ranks in combinations(RANKS, suited):
            flush = [Card(r, FLUSH_SUIT) for r in ranks] + [JOKER] * jokers
            for others, ways in _others(HAND_SIZE - suited - jokers):
                hand = flush + others
                weight = len(SUITS) * ways
                counts[fortune_class(hand)] += weight
                moved[_pattern(hand)] += weight
            done += 1
            if progress and done % 500 == 0:
                progress(done, steps)
    ace_high = straight_with_trips = 0
    for pattern in patterns:
        counts_by_rank, jokers = pattern
        hand = spread_hand(counts_by_rank, jokers)
        plain = prod(comb(4, n) for n in counts_by_rank) - moved[pattern]
        assert plain >= 0, pattern
        name = fortune_class(hand)
        counts[name] += plain
        if name == "high-card" and ace_high_pai_gow(hand):
            ace_high += plain
        if name == "straight" and holds_trips_and_straight(hand):
            straight_with_trips += plain
        done += 1
        if progress and done % 2000 == 0:
            progress(done, steps)
    total = sum(counts.values())
    assert total == ALL_HANDS, total
    if progress:
        progress(steps, steps)
    return SevenCardCounts(dict(counts), ace_high, straight_with_trips)


def _option(request: AnalysisRequest, name: str, default: Any) -> Any:
    return request.options.get(name, default)


def analyze_fortune(request: AnalysisRequest) -> BetAnalysis:
    """Fortune as the table pays it: trips with a straight at the straight's odds ("best-five") or
    at whichever of the two the pay table pays more ("higher-pay")."""
    counted = seven_card_counts(request.progress)
    table = chosen_paytable(GAME, "fortune", request)
    rule = _option(request, "fortune_trips_and_straight", "best-five")
    if rule not in TRIPS_AND_STRAIGHT:
        raise AnalysisError(f"fortune_trips_and_straight must be 'best-five' or 'higher-pay', got {rule!r}")
    classes = Counter(counted.classes)
    paid = higher_paying(table, ("straight", "three-of-a-kind")) if rule == "higher-pay" else "straight"
    if paid != "straight":
        classes["straight"] -= counted.straight_with_trips
        classes[paid] += counted.straight_with_trips
    analysis = price_classes("fortune", table, classes, ALL_HANDS)
    note = (
        f"trips with a straight ({counted.straight_with_trips:,} hands) paid as {paid} "
        f"(fortune_trips_and_straight = {rule!r})"
    )
    extra = {"trips_and_straight": {"rule": rule, "paid_as": paid, "hands": counted.straight_with_trips}}
    return replace(analysis, notes=note, extra=extra)


def analyze_ace_high(request: AnalysisRequest) -> BetAnalysis:
    ace_high = seven_card_counts(request.progress).ace_high
    classes = Counter({"ace-high": ace_high, "lose": ALL_HANDS - ace_high})
    return price_classes("ace-high", chosen_paytable(GAME, "ace-high", request), classes, ALL_HANDS)


def analyze_progressive(request: AnalysisRequest) -> BetAnalysis:
    counts = seven_card_counts(request.progress).classes
    table = chosen_paytable(GAME, "progressive", request)
    return price_classes(
        "progressive", table, Counter(counts), ALL_HANDS, keeps_stake=True, meter_units=ASSUMED_METER_UNITS
    )


def analyze_envy(request: AnalysisRequest) -> BetAnalysis:
    """What Envy pays a qualifying Fortune bettor per round, for 1 to 6 other players (exact, by
    linearity of expectation over the other hands; see the module docstring)."""
    counts = seven_card_counts(request.progress).classes
    table = chosen_paytable(GAME, "envy", request)
    try:
        fortune = parse_amount(str(_option(request, "envy_min_fortune", "5")))
    except MoneyError as exc:
        raise AnalysisError(f"envy_min_fortune: {exc}") from None
    awards = {name: award.pay(0).amount for name in counts if (award := table.award(name)) is not None}
    paying = {name: counts[name] for name in awards}
    per_hand = Fraction(sum(n * awards[name] for name, n in paying.items()), ALL_HANDS)
    by_others = {
        str(n): {
            "dollars_per_round": float(n * per_hand / 100),
            "share_of_fortune": float(n * per_hand / fortune),
        }
        for n in OTHER_PLAYERS
    }
    hits = sum(paying.values())
    return BetAnalysis(
        bet="envy",
        house_edge=-per_hand / fortune,
        hit_frequency=Fraction(hits, ALL_HANDS),
        combinations=dict(sorted(counts.items())),  # every hand class of the other hand, as for Fortune
        total=ALL_HANDS,
        paytable=table.name,
        notes=(
            f"no stake: paid to a Fortune bet of {format_amount(fortune)} or more for each other player's "
            "hand; house edge is minus its return per unit of that Fortune bet with one other player, "
            "n other players return exactly n times as much"
        ),
        extra={"envy_by_others": by_others, "envy_min_fortune": fortune},
    )


BETS = {
    "fortune": analyze_fortune,
    "ace-high": analyze_ace_high,
    "progressive": analyze_progressive,
    "envy": analyze_envy,
}
