"""One-card hole-carding at Three Card Poker: a player who sees one of the dealer's three cards is
priced exactly and tested as an alternative of its own beside the player who sees all three, with
the Bonferroni correction over the alternatives."""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

import numpy as np
import pytest

from dealerassist.analysis.three_card_poker import hand_table
from dealerassist.core.cards import FULL_DECK, Card, parse_cards
from dealerassist.games.base import TableRules
from dealerassist.protection.decisions import DecisionPoint, HoleCardTests
from dealerassist.protection.report import Settings, protect
from dealerassist.protection.three_card_poker import card_mask, deal_of, hand_index, review, review_one_card
from dealerassist.tablefiles.tables import load_table
from tests.protection.helpers import simulated_rounds


@pytest.fixture(scope="module")
def rules() -> TableRules:
    return load_table("three-card-poker").rules


def point(cards: str, action: str = "play", hidden: str = "", ante: int = 1) -> DecisionPoint:
    return DecisionPoint(
        "t",
        1,
        1,
        "seat-1",
        parse_cards(cards),
        (),
        parse_cards(hidden) if hidden else (),
        {"ante": ante},
        action,
    )


def test_the_value_given_one_card_is_the_mean_over_the_dealer_hands_holding_it(rules: TableRules) -> None:
    """Brute force over the 1,128 dealer hands holding each seen card, summed exactly, agrees with
    the priced deal; and averaged over the card seen, it is Play's value with nothing seen."""
    own = parse_cards("KS 2H 3D")
    deal = deal_of(point("KS 2H 3D"), rules)
    rows = hand_index()
    rest = [c for c in FULL_DECK if c not in own]
    assert int(deal.live.sum()) == 49
    by_card: dict[Card, Fraction] = {}
    for seen in rest:
        others = [c for c in rest if c != seen]
        nets = [int(deal.play[rows[card_mask((seen, *pair))]]) for pair in combinations(others, 2)]
        assert len(nets) == 1128
        by_card[seen] = Fraction(sum(nets), len(nets))
        assert deal.play_by_card[seen.index] == pytest.approx(float(by_card[seen]), abs=1e-9)
    blind = review(point("KS 2H 3D"), rules)
    assert sum(by_card.values(), Fraction(0)) / 49 / deal.scale == blind.values["play"]
    assert len(hand_table().masks) == 22100


def test_q64_plays_blind_but_folds_to_a_seen_queen_king_or_ace(rules: TableRules) -> None:
    aces = review_one_card(point("QS 6H 4D", "play", "AH 2C 3C"), rules, index=0)
    assert aces.optimal == {"play"} and aces.informed == {"fold"} and aces.discordant
    assert not aces.followed_informed
    # Blind, Play is best-given-the-card unless the card is one of the 11 queens, kings and aces left.
    assert aces.follow_chance == pytest.approx(38 / 49)
    low = review_one_card(point("QS 6H 4D", "fold", "AH 2C 3C", ante=500), rules, index=1)
    assert low.informed == {"play"} and low.cost == low.values["play"] - low.values["fold"] > 0
    assert low.values == review(point("QS 6H 4D", "fold", ante=500), rules).values
    # Nothing hidden in the record (a voided deal): every choice counts as informed, as for all three.
    assert review_one_card(point("QS 6H 4D"), rules, index=2).informed == {"play", "fold"}


def test_a_one_card_hole_carder_is_flagged_on_its_alternative_and_honest_players_are_not() -> None:
    rounds = simulated_rounds(
        "three-card-poker", {1: "perfect", 3: "one-card-hole-carder", 5: "perfect"}, 150, 4
    )
    report = protect(rounds)
    [flag] = report.flags
    assert flag.kind == "hole-card" and flag.seat == 3
    stat = flag.statistic
    assert stat["alternative"] == "card-1"  # the simulated player sees the dealer's first card
    views = {key.removeprefix("p_value_"): p for key, p in stat.items() if key.startswith("p_value_")}
    assert list(views) == ["all", "card-1", "card-2", "card-3"]
    assert stat["p_value"] == pytest.approx(4 * views["card-1"])  # Bonferroni over the four
    assert stat["p_value"] < Settings().hole_card_alpha <= views["all"]  # all three seen: not enough
    assert stat["matches"] == stat["decisions"] == 150  # the strongest alternative's statistic
    honest = [s for s in report.sessions if s["seat"] != 3]
    assert len(honest) == 2 and all(s["hole_card"]["p_value"] > 0.01 for s in honest)


def test_the_correction_multiplies_the_smallest_p_value_by_the_alternatives() -> None:
    tests = HoleCardTests.of(["all", "card-1"])
    for chance, matched in ((0.5, True), (0.5, True), (0.9, True)):
        tests.tests["all"].null.add(chance)
        tests.tests["all"].matches += matched
        tests.tests["card-1"].null.add(0.5)
    assert tests.strongest == "all" and tests.p_value == pytest.approx(2 * 0.25 * 0.9)
    single = HoleCardTests.of(["all"])
    single.tests["all"].null.add(0.5)
    single.tests["all"].matches = 1
    assert single.p_value == 0.5 and "alternative" not in single.summary()
    assert np.isclose(HoleCardTests.of(["all", "card-1", "card-2"]).p_value, 1.0)
