"""Four Card Poker decisions priced by protection: the dealer-hand count is exact, the options are
the settlement code's, the informed choice follows the dealer's hand, and a hole-carder is found."""

from __future__ import annotations

import random
import statistics
from fractions import Fraction

import numpy as np
import pytest

from dealerassist.core.cards import FULL_DECK, Card, parse_cards
from dealerassist.events import CardRead
from dealerassist.games.base import TableRules
from dealerassist.hands import best_four
from dealerassist.hands.batch import best_four_strengths, combinations_array
from dealerassist.protection.decisions import DecisionPoint
from dealerassist.protection.four_card_poker import dealer_hands_above, review
from dealerassist.protection.records import read_rounds
from dealerassist.protection.report import protect
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev
from tests.protection.helpers import simulated_rounds


@pytest.fixture(scope="module")
def rules() -> TableRules:
    return load_table("four-card-poker").rules


def point(
    own: str, up: str, action: str = "fold", amount: int | None = None, hidden: str = ""
) -> DecisionPoint:
    return DecisionPoint(
        "t", 1, 1, "seat-1", tuple(parse_cards(own)), tuple(parse_cards(up)),
        tuple(parse_cards(hidden)) if hidden else (), {"ante": 100}, action, amount,
    )  # fmt: skip


def brute_force_above(own: list[Card], up: Card) -> int:
    """Every dealer hand judged by the evaluators' batch API, no shortcut."""
    dead = {c.index for c in own} | {up.index}
    unseen = np.array([i for i in range(52) if i not in dead], dtype=np.int64)
    hidden = unseen[combinations_array(46, 5).astype(np.int64)]
    six = np.concatenate([hidden, np.full((len(hidden), 1), up.index)], axis=1)
    return int((best_four_strengths(six, check=False) > best_four(own).strength).sum())


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_compiled_count_of_dealer_hands_is_every_hand_judged(seed: int) -> None:
    cards = random.Random(seed).sample(FULL_DECK, 6)
    above, total = dealer_hands_above(frozenset(cards[:5]), cards[5])
    assert total == 1_370_754
    assert above == brute_force_above(cards[:5], cards[5])


def test_values_are_the_settlement_codes_over_the_dealer_hands(rules: TableRules) -> None:
    r = review(point("7S 7H 7D 2C 9H", "KD", "play", 100), rules)
    above, total = dealer_hands_above(frozenset(r.point.cards), r.point.dealer_up[0])
    lose = Fraction(above, total)
    # Trips: the Ante Bonus pays 2 to 1 on the Ante whether the hand wins or loses.
    for k in (1, 2, 3):
        win = 100 + 100 * k + 200
        loss = -100 - 100 * k + 200
        assert r.values[f"{k}x"] == (1 - lose) * win + lose * loss
    assert r.values["fold"] == -100 and r.chosen == "1x"
    assert r.optimal == {"3x"} and r.cost == r.values["3x"] - r.values["1x"] > 0
    assert review(point("7S 7H 7D 2C 9H", "KD", "play"), rules).chosen == "1x"  # no amount: the Ante
    odd = review(point("7S 7H 7D 2C 9H", "KD", "play", 150), rules)
    assert odd.chosen == "play 150" and odd.values["1x"] < odd.values["play 150"] < odd.values["2x"]


def test_informed_choice_and_the_chance_of_matching_it_blind(rules: TableRules) -> None:
    beaten = review(point("QS QH 8D 5C 2H", "3D", "play", 300, hidden="AS AH AD 4C 6S"), rules)
    above, total = dealer_hands_above(frozenset(beaten.point.cards), beaten.point.dealer_up[0])
    assert beaten.informed == {"fold"} and not beaten.followed_informed
    assert beaten.follow_chance == pytest.approx(1 - above / total)
    wins = review(point("QS QH 8D 5C 2H", "3D", "fold", hidden="4S 6H 9D JC 10S"), rules)
    assert wins.informed == {"3x"} and wins.follow_chance == pytest.approx(above / total)
    trips = review(point("7S 7H 7D 2C 9H", "KD", "play", 100, hidden="KS KH KC 3S 4S"), rules)
    assert trips.informed == {"1x"}, "losing trips still play 1x: the Ante Bonus pays more than the fold"
    with pytest.raises(Exception, match="five cards and the dealer's face-up card"):
        review(point("QS QH 8D 5C", "3D"), rules)


def test_the_strategy_agrees_with_the_published_simple_strategy_where_it_is_clear(rules: TableRules) -> None:
    """The maker's simple strategy (pair of 10s or better raise 3x, pair of 2s or less fold) is the
    optimum away from its borders; trips or better always raise 3x."""
    assert review(point("AS AH 9D 5C 2H", "7D"), rules).optimal == {"3x"}
    assert review(point("KS KH QD 5C 2H", "4D"), rules).optimal == {"3x"}
    assert review(point("8S 8H 8D 3C 2H", "AD"), rules).optimal == {"3x"}
    assert review(point("9S 7H 5D 3C 2H", "AD"), rules).optimal == {"fold"}
    assert review(point("2S 2H 7D 5C 3H", "KD"), rules).optimal == {"fold"}


@pytest.mark.slow
def test_the_best_choices_give_back_the_published_house_edge(rules: TableRules) -> None:
    """Wizard of Odds, "Four Card Poker" (wizardofodds.com/games/four-card-poker/): under optimal
    strategy with the Ante Bonus pay table 25-20-2 the Ante/Play house edge is 2.79 % of the Ante.
    The full game is 122 million deals, so the exact best value of 3,000 random deals is averaged:
    the published edge must lie within four standard errors of the mean."""
    rng = random.Random(58)
    best = []
    for _ in range(3000):
        cards = rng.sample(FULL_DECK, 6)
        r = review(
            DecisionPoint("t", 1, 1, "seat-1", tuple(cards[:5]), (cards[5],), (), {"ante": 1}, "fold"), rules
        )
        best.append(float(max(r.values.values())))
    mean, error = statistics.mean(best), statistics.stdev(best) / len(best) ** 0.5
    assert abs(mean - -0.0279) < 4 * error


def test_a_four_card_hole_carder_is_flagged_in_the_log() -> None:
    rounds = simulated_rounds("four-card-poker", {1: "perfect", 3: "hole-carder", 5: "perfect"}, 60, seed=4)
    report = protect(rounds)
    assert [(f.kind, f.subject) for f in report.flags] == [("hole-card", "fcp-1 seat 3 rounds 1-60")]
    honest = [s for s in report.sessions if s["seat"] != 3]
    assert len(honest) == 2 and all(s["hole_card"]["cost_cents"] == 0 for s in honest)


def test_a_two_spot_declaration_is_no_decision_to_price() -> None:
    with EventLog(":memory:") as log:
        tracker = Tracker(load_table("four-card-poker"), log)
        tracker.handle(ev.RoundOpen(table="fcp-1", user="dee"))
        for seat in (1, 2):
            tracker.handle(ev.Wager(table="fcp-1", seat=seat, bet="aces-up", amount=600, user="dee"))
            tracker.handle(ev.Wager(table="fcp-1", seat=seat, bet="ante", amount=300, user="dee"))
        tracker.handle(
            ev.PlayerDecision(
                table="fcp-1", position="seat-1", action="same-player", choice="seat-2", user="dee"
            )
        )
        tracker.handle(ev.BettingClosed(table="fcp-1", user="dee"))
        cards = tracker.rules.deck.cards()
        random.Random(5).shuffle(cards)
        for card in cards[:16]:
            tracker.handle(CardRead(table="fcp-1", source="shoe", card=card))
        for seat in (1, 2):
            tracker.handle(
                ev.PlayerDecision(table="fcp-1", position=f"seat-{seat}", action="fold", user="dee")
            )
        rounds = read_rounds(log)
    assert rounds[0].outcome == "settled"
    sessions = protect(rounds).sessions
    assert [s["hole_card"]["decisions"] for s in sessions] == [1, 1]
