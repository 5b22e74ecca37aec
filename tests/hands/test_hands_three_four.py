"""Three and Four Card Poker evaluators against the reference, exhaustively, plus spot checks."""

import random
from itertools import combinations

import pytest
from reference_evaluators import FOUR_ORDER, THREE_ORDER, four_key, order_mismatches, three_key

from dealerassist.core.cards import FULL_DECK, parse_cards
from dealerassist.hands import best_four, evaluate_four, evaluate_three


def test_every_three_card_hand_matches_the_reference_in_class_and_order() -> None:
    pairs = []
    for hand in combinations(FULL_DECK, 3):
        key = three_key(hand)
        value = evaluate_three(hand)
        assert value.name == THREE_ORDER[key[0]], hand
        pairs.append((key, value.strength))
    assert len(pairs) == 22_100
    assert order_mismatches(pairs) == []


@pytest.mark.slow
def test_every_four_card_hand_matches_the_reference_in_class_and_order() -> None:
    pairs = []
    for hand in combinations(FULL_DECK, 4):
        key = four_key(hand)
        value = evaluate_four(hand)
        assert value.name == FOUR_ORDER[key[0]], hand
        pairs.append((key, value.strength))
    assert len(pairs) == 270_725
    assert order_mismatches(pairs) == []


@pytest.mark.parametrize("size", [5, 6])
def test_best_four_is_the_best_reference_four_of_random_deals(size: int) -> None:
    rng = random.Random(4 + size)
    for _ in range(3000):
        hand = rng.sample(FULL_DECK, size)
        best = max(four_key(four) for four in combinations(hand, 4))
        value = best_four(hand)
        assert value.name == FOUR_ORDER[best[0]], hand
        assert value == evaluate_four(value.cards), hand
        assert four_key(value.cards) == best, hand


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AS 2D 3H", "straight"),
        ("QS KD AH", "straight"),
        ("KS AD 2H", "high-card"),
        ("2S 2D 2H", "three-of-a-kind"),
        ("AS 2S 3S", "straight-flush"),
        ("9S 4S 2S", "flush"),
        ("9S 9D 2S", "pair"),
    ],
)
def test_three_card_classes(text: str, name: str) -> None:
    assert evaluate_three(parse_cards(text)).name == name


def test_three_card_straight_ends() -> None:
    low = evaluate_three(parse_cards("AS 2D 3H"))
    high = evaluate_three(parse_cards("AS KD QH"))
    assert low < evaluate_three(parse_cards("2S 3D 4H")) < high
    assert evaluate_three(parse_cards("KS 2D AH")).name == "high-card"


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AS 2D 3H 4C", "straight"),
        ("KS AD 2H 3C", "high-card"),
        ("JS QS KS AS", "straight-flush"),
        ("7S 7D 7H 7C", "four-of-a-kind"),
        ("7S 7D 7H 2C", "three-of-a-kind"),
        ("7S 9S JS 2S", "flush"),
        ("7S 7D 2H 2C", "two-pair"),
    ],
)
def test_four_card_classes(text: str, name: str) -> None:
    assert evaluate_four(parse_cards(text)).name == name


def test_four_card_class_order_puts_trips_over_flush_and_flush_over_straight() -> None:
    trips = evaluate_four(parse_cards("2S 2D 2H 3C"))
    flush = evaluate_four(parse_cards("AS KS QS 9S"))
    straight = evaluate_four(parse_cards("JS QD KH AC"))
    assert straight < flush < trips
    assert evaluate_four(parse_cards("AS 2D 3H 4C")) < evaluate_four(parse_cards("2S 3D 4H 5C"))


def test_best_four_shows_the_four_cards_that_make_it() -> None:
    value = best_four(parse_cards("AS AH AD 2C 7S 9H"))
    assert value.name == "three-of-a-kind"
    assert [c.code for c in value.cards][:3] == ["AS", "AH", "AD"]
    assert value.cards[3].code == "9H"
