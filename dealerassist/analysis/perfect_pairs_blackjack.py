"""Perfect Pairs by complete enumeration of the first two cards from the shoe.

Every unordered pair of physical cards in the shoe (``--decks N`` standard decks, default the
game's six-deck shoe) is judged by ``perfect_pairs_class``, the function that settles live rounds, and
priced through the Perfect Pairs pay table. Card faces are enumerated with their copy counts, so
the work is 52 x 52 whatever the number of decks.
"""

from __future__ import annotations

from collections import Counter
from math import comb

from dealerassist.analysis import AnalysisError, AnalysisRequest, BetAnalysis
from dealerassist.analysis.three_card_poker import chosen_paytable, pay_table_analysis
from dealerassist.core.decks import DeckComposition, load_deck
from dealerassist.games.perfect_pairs_blackjack import PerfectPairsBlackjack, perfect_pairs_class

GAME = "perfect-pairs-blackjack"
TAKES_DECKS = True  # the shoe size is the analysis's one free parameter (--decks)


def shoe(decks: int | None) -> DeckComposition:
    if decks is None:
        return load_deck(PerfectPairsBlackjack.default_deck)
    if decks < 1:
        raise AnalysisError(f"--decks must be at least 1, got {decks}")
    return DeckComposition.from_mapping({"name": f"shoe-{decks}", "standard_decks": decks}, "--decks")


def perfect_pairs(request: AnalysisRequest) -> BetAnalysis:
    table = chosen_paytable(GAME, "perfect-pairs", request)
    composition = shoe(request.decks)
    faces = sorted(composition.counts)
    counts: Counter[str] = Counter()
    for i, first in enumerate(faces):
        for second in faces[i:]:
            n1, n2 = composition.counts[first], composition.counts[second]
            ways = comb(n1, 2) if first == second else n1 * n2
            if ways:
                counts[perfect_pairs_class(first, second) or "no-pair"] += ways
        request.progress(i + 1, len(faces))
    assert sum(counts.values()) == comb(composition.size, 2)
    decks = composition.size // 52
    return pay_table_analysis(
        "perfect-pairs",
        table,
        dict(counts),
        notes=f"first two cards from {composition.size} cards ({decks} decks)",
    )


BETS = {"perfect-pairs": perfect_pairs}
