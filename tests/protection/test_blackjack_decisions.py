"""Perfect Pairs Blackjack decisions priced by protection: basic strategy for the table's rules,
the informed choice follows the hole card, split hands are read from the log as the game keeps
them, and a blackjack hole-carder is found."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.core.cards import parse_cards
from dealerassist.games.base import TableRules
from dealerassist.protection.blackjack import composition, dealer_final, draws_of, review
from dealerassist.protection.decisions import DecisionPoint
from dealerassist.protection.report import protect
from dealerassist.tablefiles.tables import load_table
from tests.protection.helpers import simulated_rounds

UPS = "2H 3H 4H 5H 6H 7H 8H 9H TH AH".split()
LETTER = {"hit": "H", "stand": "S", "double": "D", "split": "P"}
# Basic strategy for four to eight decks, dealer stands on soft 17, double after split, no
# surrender (Wizard of Odds, "4-Deck to 8-Deck Blackjack Strategy",
# wizardofodds.com/games/blackjack/strategy/4-decks/): one letter per dealer up card 2..10, A.
CHART = {
    "5C 3D": "HHHHHHHHHH",
    "5C 4D": "HDDDDHHHHH",
    "6C 4D": "DDDDDDDDHH",
    "6C 5D": "DDDDDDDDDH",
    "TC 2D": "HHSSSHHHHH",
    "TC 3D": "SSSSSHHHHH",
    "TC 6D": "SSSSSHHHHH",
    "AC 2D": "HHHDDHHHHH",
    "AC 4D": "HHDDDHHHHH",
    "AC 6D": "HDDDDHHHHH",
    "AC 7D": "SDDDDSSHHH",
    "AC 8D": "SSSSSSSSSS",
    "2C 2D": "PPPPPPHHHH",
    "4C 4D": "HHHPPHHHHH",
    "6C 6D": "PPPPPHHHHH",
    "7C 7D": "PPPPPPHHHH",
    "8C 8D": "PPPPPPPPPP",
    "9C 9D": "PPPPPSPPSS",
    "TC KD": "SSSSSSSSSS",
    "AC AD": "PPPPPPPPPP",
}


@pytest.fixture(scope="module")
def rules() -> TableRules:
    return load_table("perfect-pairs-blackjack").rules


def point(own: str, up: str, action: str = "stand", hidden: str = "", split: bool = False) -> DecisionPoint:
    return DecisionPoint(
        "t", 1, 1, "seat-1", tuple(parse_cards(own)), tuple(parse_cards(up)),
        tuple(parse_cards(hidden)) if hidden else (), {"main": 1000}, action, split_hand=split,
    )  # fmt: skip


@pytest.mark.parametrize("own", list(CHART))
def test_the_best_choice_is_the_published_basic_strategy(own: str, rules: TableRules) -> None:
    found = "".join(LETTER[min(review(point(own, up), rules).optimal)] for up in UPS)
    assert found == CHART[own]


def test_the_dealer_totals_add_up_and_the_peek_rules_out_blackjack(rules: TableRules) -> None:
    draws = draws_of(composition(rules, tuple(parse_cards("TC 6D AH"))))
    peeked = dealer_final((1,), draws, no_blackjack=True)
    assert sum(peeked.values()) == 1 and set(peeked) <= {17, 18, 19, 20, 21, 22}
    blind = dealer_final((1,), draws, no_blackjack=False)
    # Without the peek the ace's 21s include the blackjacks: the ten under it (95 of 309 cards left).
    assert blind[21] - peeked[21] * (1 - Fraction(95, 309)) == Fraction(95, 309)


def test_informed_choice_and_the_chance_of_matching_it_blind(rules: TableRules) -> None:
    stiff = review(point("TC 6D", "TH", "stand", hidden="6S"), rules)
    assert stiff.optimal == {"hit"} and stiff.informed == {"stand"} and stiff.followed_informed
    assert stiff.discordant and 0 < stiff.follow_chance < 0.5
    assert stiff.cost == stiff.values["hit"] - stiff.values["stand"] > 0
    insured = review(point("TC 6D", "AH", "insurance", hidden="KS"), rules)
    assert insured.informed == {"insurance"} and insured.optimal == {"decline"}
    assert insured.follow_chance == pytest.approx(95 / 309)
    assert insured.values["insurance"] == 500 * (3 * Fraction(95, 309) - 1)
    no_second_split = review(point("8C 8D", "6H", "stand", split=True), rules)
    assert "split" not in no_second_split.values


def test_a_split_hand_holds_the_moved_card_and_a_hole_carder_is_flagged() -> None:
    kinds = {1: "perfect", 4: "hole-carder", 6: "perfect"}
    rounds = simulated_rounds("perfect-pairs-blackjack", kinds, 120, seed=11)
    splits = [(r, d) for r in rounds for d in r.decisions if d.action == "split"]
    assert splits, "no split in 120 rounds"
    for round_, split in splits:
        second = [d for d in round_.decisions if d.position == f"{split.position}.2"]
        if second:
            assert second[0].cards[0] == split.cards[1] and second[0].split_hand
    report = protect(rounds)
    assert [(f.kind, f.subject) for f in report.flags] == [("hole-card", "ppbj-1 seat 4 rounds 1-120")]
