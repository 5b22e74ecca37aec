"""Blackjack decisions priced against the shoe as it stood: the cards dealt since the shuffle are
out of the composition, in the decision values, the hole card's chances and ``protect``."""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from dealerassist.core.cards import parse_cards
from dealerassist.protection.blackjack import review
from dealerassist.protection.counting import shoes_before
from dealerassist.protection.decisions import DecisionPoint
from dealerassist.protection.report import hole_card_test, protect
from dealerassist.protection.sessions import sessions_of
from dealerassist.tablefiles.tables import load_table
from tests.protection.helpers import simulated_rounds
from tests.protection.test_statistics import shoe_round

SMALL = parse_cards(" ".join([f"{rank}{suit}" for rank in "2345" for suit in "SHDC"] * 5))  # 80 cards


def insurance(out: tuple = ()) -> DecisionPoint:
    return DecisionPoint(
        "ppbj-1",
        1,
        1,
        "seat-1",
        parse_cards("9S 7H"),
        parse_cards("AD"),
        (),
        {"main": 1000},
        "insurance",
        shoe_out=out,
    )


def test_insurance_is_priced_on_the_tens_left_in_the_shoe_as_it_stood() -> None:
    rules = load_table("perfect-pairs-blackjack").rules
    full = review(insurance(), rules)
    # 312 cards less 9S 7H AD: 96 tens in 309 cards, insurance loses 500 * (1 - 3 * 96/309).
    assert full.values["insurance"] == 500 * (3 * Fraction(96, 309) - 1) < 0
    assert full.optimal == {"decline"}
    rich = review(insurance(SMALL), rules)
    assert rich.values["insurance"] == 500 * (3 * Fraction(96, 229) - 1) > 0
    assert rich.optimal == {"insurance"} and rich.cost == 0
    assert rich.follow_chance == float(Fraction(96, 229))  # the hole card is a ten that often


def test_the_cards_out_before_each_round_are_those_since_the_shuffle() -> None:
    dealt = (("2S 3S", True), ("KS AH", False), ("6C", True), ("9C", False))  # (cards, shuffled before)
    rounds = [shoe_round(n, cards, shuffled=shuffled) for n, (cards, shuffled) in enumerate(dealt, 1)]
    shoes = shoes_before(rounds)
    assert shoes == {
        1: Counter(),
        2: Counter(parse_cards("2S 3S")),
        3: Counter(),
        4: Counter(parse_cards("6C")),
    }
    assert shoes_before(rounds[1:])[4] == Counter(parse_cards("6C"))  # round 2: mid-shoe, unknown
    assert 2 not in shoes_before(rounds[1:])


def test_protect_prices_a_shoe_tables_decisions_without_the_cards_already_dealt() -> None:
    rounds = simulated_rounds("perfect-pairs-blackjack", {1: "perfect", 2: "counter"}, 60, 9)
    shoes = shoes_before(sorted(rounds, key=lambda r: r.round_id))
    assert sum(n.total() > 0 for n in shoes.values()) > 40  # most rounds come after others of their shoe
    report = protect(rounds)
    for session in sessions_of(rounds, 3):
        [entry] = [s for s in report.sessions if s["seat"] == session.seat]
        depleted, fresh = hole_card_test(session, shoes), hole_card_test(session)
        assert depleted is not None and fresh is not None
        assert entry["hole_card"] == depleted.summary() != fresh.summary()
