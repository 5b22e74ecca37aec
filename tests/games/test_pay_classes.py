"""Each game's declared ``pay_classes`` are exactly the hand classes its evaluators name.

Pay-table files are checked against ``pay_classes``, so the list must neither miss a class (a valid
pay line would be refused) nor hold one no hand can reach (a typo there would pass). The complete
enumerations of ``dealerassist.analysis`` name every class that occurs, for each bet they analyse
under the pay table's own bet name.
"""

from __future__ import annotations

import pytest

from dealerassist.analysis import AnalysisRequest, analyze, analyzers
from dealerassist.games import registry

NOT_A_HAND = frozenset({"lose", "no-pair"})
SHARED = [
    (game, bet) for game, bets in analyzers().items() for bet in bets if bet in registry()[game].pay_classes
]


def test_every_shipped_game_declares_its_pay_classes() -> None:
    """Games the test suites register for themselves (a high-card test game) are left out."""
    for slug, game in registry().items():
        if not game.__module__.startswith("dealerassist.games."):
            continue
        assert game.pay_classes, slug
        assert set(game.pay_classes) <= set(game.paid_bets()), slug


@pytest.mark.slow
@pytest.mark.parametrize("game, bet", SHARED, ids=[f"{g}:{b}" for g, b in SHARED])
def test_declared_classes_are_the_enumerated_ones(game: str, bet: str) -> None:
    [result] = analyze(AnalysisRequest(game), [bet]).values()
    named = {name for name, count in result.combinations.items() if count} - NOT_A_HAND
    assert named == set(registry()[game].pay_classes[bet])
