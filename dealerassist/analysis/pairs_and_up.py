"""Pairs & Up Poker by complete enumeration of the configured deck (duplicates counted).

Every deal of the four cards that matter (player's two, the dealer's up card, the dealer's hole
card) is enumerated over the deck's faces, each weighted by how many physical cards could fill
it: 52 x 51 x 50 x 49 = 6,497,400 ordered deals on the shipped deck. Hands are judged by the
functions that settle live rounds (``play_outcome``, ``double_match_class``,
``progressive_class``) and priced through the pay tables' awards.

* ``ante-play``: for every three-card state the player sees (two cards and the up card) the
  analysis takes the best of folding (lose the Ante) and each of the eight hands (win the chosen
  hand's odds on Ante and Play, push on three aces, else lose both), and reports the house edge of
  that strategy per unit of Ante.
* ``double-match``: per unit staked.
* ``progressive``: per $1 unit; fixed awards as paid, a share of the meter priced on a meter of
  ``ASSUMED_METER_UNITS`` dollars (the meter a casino resets to is its choice). The stake is the
  jackpot's contribution and does not come back on a win.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from fractions import Fraction
from functools import cache
from typing import Final

from dealerassist.analysis import AnalysisRequest, BetAnalysis, Progress
from dealerassist.analysis.three_card_poker import chosen_paytable, unit_win
from dealerassist.core.cards import Card
from dealerassist.core.decks import DeckComposition, load_deck
from dealerassist.core.paytables import PayTable
from dealerassist.games.pairs_and_up import (
    HANDS,
    PairsAndUp,
    double_match_class,
    play_outcome,
    progressive_class,
)
from dealerassist.hands import pairs_and_up_precedence

GAME: Final = "pairs-and-up"
PLAY_RATIO: Final = 2
ASSUMED_METER_UNITS: Final = 1_000
UNIT: Final = 100  # price a one-dollar stake in cents, so fixed dollar awards keep their size

Deal = tuple[Card, Card, Card, Card]


def deals(deck: DeckComposition, progress: Progress | None = None) -> Iterator[tuple[Deal, int]]:
    """Every ordered (player, player, up card, hole card) deal of faces with its number of ways."""
    faces = sorted(deck.counts)
    for n, a in enumerate(faces):
        if progress:
            progress(n, len(faces))
        for b in faces:
            for c in faces:
                for d in faces:
                    ways = _ways(deck, (a, b, c, d))
                    if ways:
                        yield (a, b, c, d), ways


def _ways(deck: DeckComposition, cards: Sequence[Card]) -> int:
    used: Counter[Card] = Counter()
    ways = 1
    for card in cards:
        ways *= deck.counts[card] - used[card]
        used[card] += 1
        if ways <= 0:
            return 0
    return ways


def _deck(request: AnalysisRequest) -> DeckComposition:
    return load_deck(PairsAndUp.default_deck)


def _per_class(
    request: AnalysisRequest,
    bet: str,
    classify: Callable[[Deal, Sequence[str]], str | None],
    keeps_stake: bool,
) -> BetAnalysis:
    """A side bet settled on the four cards alone: count classes, price each through its award."""
    deck = _deck(request)
    table = chosen_paytable(GAME, bet, request)
    precedence = pairs_and_up_precedence(deck)
    counts: Counter[str] = Counter()
    total = 0
    for deal, ways in deals(deck, request.progress):
        counts[classify(deal, precedence) or "lose"] += ways
        total += ways
    request.progress(total, total)
    return price_classes(bet, table, counts, total, keeps_stake=keeps_stake)


def price_classes(
    bet: str,
    table: PayTable,
    counts: Counter[str],
    total: int,
    *,
    keeps_stake: bool = False,
    meter_units: int = ASSUMED_METER_UNITS,
) -> BetAnalysis:
    """Expected net per unit staked from class counts, each class priced by its award on a $1
    stake; ``keeps_stake``: a win does not return the stake (a progressive's contribution)."""
    net = Fraction(0)
    hits = 0
    for name, n in counts.items():
        award = table.award(name)
        if award is None:
            net -= n
            continue
        hits += n
        win = award.pay(UNIT, 1, meter=meter_units * UNIT).exact / UNIT
        net += n * (win - 1 if keeps_stake else win)
    notes = f"meter shares priced on a meter of ${meter_units:,} per $1" if keeps_stake else ""
    return BetAnalysis(
        bet=bet,
        house_edge=-net / total,
        hit_frequency=Fraction(hits, total),
        combinations=dict(sorted(counts.items())),
        total=total,
        paytable=table.name,
        notes=notes,
    )


def analyze_double_match(request: AnalysisRequest) -> BetAnalysis:
    return _per_class(
        request, "double-match", lambda d, _: double_match_class(d[:2], d[2:]), keeps_stake=False
    )


def analyze_progressive(request: AnalysisRequest) -> BetAnalysis:
    return _per_class(request, "progressive", progressive_class, keeps_stake=True)


def analyze_ante_play(request: AnalysisRequest) -> BetAnalysis:
    """Best choice among fold and the eight hands for every three-card state, exactly."""
    deck = _deck(request)
    table = chosen_paytable(GAME, "play", request)
    precedence = pairs_and_up_precedence(deck)
    odds = {hand: unit_win(table, hand) for hand in HANDS}
    outcome = cache(lambda four: tuple(play_outcome(h, four, precedence) for h in HANDS))
    states: dict[tuple[Card, Card, Card], Counter[tuple[str, ...]]] = {}
    for (a, b, c, d), ways in deals(deck):
        key = (min(a, b), max(a, b), c)
        states.setdefault(key, Counter())[outcome(tuple(sorted((a, b, c, d))))] += ways
    stake = 1 + PLAY_RATIO
    total = 0
    value = Fraction(0)
    combos: Counter[str] = Counter()
    for n, hole in enumerate(states.values()):
        weight = sum(hole.values())
        best_value, best = Fraction(-weight), None
        for i, hand in enumerate(HANDS):
            win = odds[hand]
            if win is None:
                continue
            ev = sum(
                (ways * win * stake if row[i] == "win" else 0 if row[i] == "push" else -ways * stake)
                for row, ways in hole.items()
            )
            if ev > best_value:
                best_value, best = ev, i
        value += best_value
        total += weight
        if best is None:
            combos["fold"] += weight
        else:
            for row, ways in hole.items():
                combos[HANDS[best] if row[best] == "win" else row[best]] += ways
        request.progress(n + 1, len(states))
    wins = sum(v for k, v in combos.items() if k in HANDS)
    return BetAnalysis(
        bet="ante-play",
        house_edge=-value / total,
        hit_frequency=Fraction(wins, total),
        combinations=dict(sorted(combos.items())),
        total=total,
        paytable=table.name,
        notes=f"Play = {PLAY_RATIO}x Ante; optimal choice per state; edge per unit of Ante",
    )


BETS = {
    "ante-play": analyze_ante_play,
    "double-match": analyze_double_match,
    "progressive": analyze_progressive,
}
