"""Pairs & Up decisions: priced over the dealer's hidden card, and a hole-carder found in a real log."""

from __future__ import annotations

from dealerassist.core.cards import parse_cards
from dealerassist.protection.decisions import DecisionPoint
from dealerassist.protection.pairs_and_up import best, choice_values, review, unseen_cards
from dealerassist.protection.report import protect
from dealerassist.simulation.strategies import View, pairs_and_up
from dealerassist.tablefiles.tables import load_table
from tests.protection.helpers import simulated_rounds


def test_values_chance_and_informed_choice_follow_the_hidden_card() -> None:
    rules = load_table("pairs-and-up").rules
    own, up, hidden = parse_cards("AS 2H"), parse_cards("AD"), parse_cards("2C")
    view = View("seat-1", (), own, up, {"ante": 500}, rules)
    simulated = pairs_and_up(view)
    chosen = simulated.choice or "fold"
    point = DecisionPoint(
        "pu-1", 1, 1, "seat-1", own, up, hidden, {"ante": 500}, simulated.action, choice=simulated.choice
    )
    r = review(point, rules)
    assert chosen in r.optimal and r.cost == 0  # the demo's player is the perfect one
    unseen = unseen_cards(rules, [*own, *up])
    assert sum(unseen.values()) == 49
    by_hand = {card: best(choice_values(rules, 500, [*own, *up], {card: 1})) for card in unseen}
    expected = sum(n for card, n in unseen.items() if chosen in by_hand[card]) / 49
    assert r.follow_chance == expected and 0 < expected < 1
    assert r.informed == by_hand[hidden[0]]


def test_a_pairs_and_up_hole_carder_is_flagged_in_the_log() -> None:
    rounds = simulated_rounds("pairs-and-up", {1: "perfect", 2: "hole-carder", 4: "perfect"}, 60, seed=9)
    report = protect(rounds)
    assert [(f.kind, f.subject) for f in report.flags] == [("hole-card", "pu-1 seat 2 rounds 1-60")]
