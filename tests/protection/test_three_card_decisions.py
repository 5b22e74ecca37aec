"""Three Card Poker decisions priced by protection agree with the ``analyze`` house edge and Q-6-4."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction
from itertools import combinations

import pytest

from dealerassist.analysis import AnalysisRequest
from dealerassist.analysis.three_card_poker import ante_play
from dealerassist.core.cards import FULL_DECK, Card, parse_cards
from dealerassist.games.base import TableRules
from dealerassist.protection.decisions import DecisionPoint, Review
from dealerassist.protection.three_card_poker import review, suit_class
from dealerassist.simulation.strategies import View, three_card_poker
from dealerassist.tablefiles.tables import load_table


@pytest.fixture(scope="module")
def rules() -> TableRules:
    return load_table("three-card-poker").rules


def point(cards: tuple[Card, ...], action: str = "play", hidden: tuple[Card, ...] = ()) -> DecisionPoint:
    return DecisionPoint("t", 1, 1, "seat-1", cards, (), hidden, {"ante": 1}, action)


@pytest.fixture(scope="module")
def classes(rules: TableRules) -> list[tuple[int, Review]]:
    """Every player hand up to suits, reviewed once, with how many hands it stands for."""
    weights: Counter = Counter()
    first: dict = {}
    for cards in combinations(FULL_DECK, 3):
        key = suit_class(cards)
        weights[key] += 1
        first.setdefault(key, cards)
    return [(weights[key], review(point(first[key]), rules)) for key in weights]


def test_best_choices_add_up_to_the_published_ante_play_edge(classes: list[tuple[int, Review]]) -> None:
    total = sum(weight for weight, _ in classes)
    assert total == 22100
    value = sum((weight * max(r.values.values()) for weight, r in classes), Fraction(0))
    assert round(float(-value / total), 4) == 0.0337


def test_q64_is_the_weakest_hand_that_plays_and_the_simulation_rule_costs_nothing(
    classes: list[tuple[int, Review]], rules: TableRules
) -> None:
    for _, r in classes:
        cards = r.point.cards
        view = View("seat-1", ("play", "fold"), cards, (), {"ante": 1}, rules)
        q64 = three_card_poker(view).action
        assert q64 in r.optimal, f"{' '.join(c.code for c in cards)}: Q-6-4 says {q64}, values {r.values}"
    q64_offsuit = review(point(parse_cards("QS 6H 4D")), rules)
    q63_offsuit = review(point(parse_cards("QS 6H 3D")), rules)
    assert q64_offsuit.optimal == {"play"} and q63_offsuit.optimal == {"fold"}
    assert q63_offsuit.cost == q63_offsuit.values["fold"] - q63_offsuit.values["play"] > 0


def test_costs_are_exact_and_scale_with_the_ante(rules: TableRules) -> None:
    weak = parse_cards("2S 5H 9D")
    played = review(point(weak, "play"), rules)
    folded = review(point(weak, "fold"), rules)
    assert folded.cost == 0 and played.cost > 0
    bigger = review(DecisionPoint("t", 1, 1, "seat-1", weak, (), (), {"ante": 2500}, "play"), rules)
    assert bigger.cost == 2500 * played.cost


def test_informed_choice_and_the_chance_of_matching_it_blind(rules: TableRules) -> None:
    """Against a known dealer hand the best choice is certain; blind, it is matched at a known rate."""
    aces = parse_cards("AS AH 3D")
    beaten = review(point(aces, "play", parse_cards("KS KH KD")), rules)
    assert beaten.optimal == {"play"} and beaten.informed == {"fold"} and beaten.discordant
    assert not beaten.followed_informed and 0.9 < beaten.follow_chance < 1.0
    junk = parse_cards("2S 5H 9D")
    no_qualify = review(point(junk, "fold", parse_cards("JS 8H 7D")), rules)
    assert no_qualify.informed == {"play"} and no_qualify.discordant and not no_qualify.followed_informed


@pytest.mark.slow
def test_decision_values_sum_exactly_to_the_analyze_edge(classes: list[tuple[int, Review]]) -> None:
    value = sum((weight * max(r.values.values()) for weight, r in classes), Fraction(0))
    assert -value / 22100 == ante_play(AnalysisRequest("three-card-poker")).house_edge
