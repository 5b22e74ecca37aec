"""The integer fast path (``card_codes`` + ``five_card_strength``) gives exactly the strength
``evaluate_five`` gives, and still refuses a card twice, two jokers and a wrong count."""

import random
from itertools import combinations

import numpy as np
import pytest

from dealerassist.core.cards import FULL_DECK, JOKER, parse_cards
from dealerassist.hands import HandError, card_codes, evaluate_five, five_card_strength
from dealerassist.hands.batch import combinations_array, five_card_strengths

DECK = (*FULL_DECK, JOKER)
CODES = dict(zip(DECK, card_codes(DECK), strict=True))


@pytest.mark.parametrize("wheel_second", [False, True])
def test_random_deals_and_every_joker_hand_of_a_few_ranks_agree_with_evaluate_five(
    wheel_second: bool,
) -> None:
    rng = random.Random(7)
    hands = [tuple(rng.sample(DECK, 5)) for _ in range(20_000)]
    hands += [(JOKER, *four) for four in combinations(FULL_DECK[-16:], 4)]  # tens up, with the joker
    for hand in hands:
        codes = tuple(CODES[card] for card in hand)
        expected = evaluate_five(hand, wheel_second=wheel_second).strength
        assert five_card_strength(codes, wheel_second=wheel_second) == expected, hand


def test_named_hands_keep_their_class_through_the_codes() -> None:
    for text, name in (
        ("AS KS QS JS TS", "royal-flush"),
        ("5H 4H 3H 2H JK", "straight-flush"),
        ("AS AH AD AC JK", "five-aces"),
        ("9C 9D 4S 4H 2C", "two-pair"),
    ):
        cards = parse_cards(text)
        assert five_card_strength(card_codes(cards)) == evaluate_five(cards).strength
        assert evaluate_five(cards).name == name


@pytest.mark.parametrize(
    "text",
    [
        "AS AS KD QC JH",
        "9S 9S 9S 9S 9S",
        "JK JK AS KS QS",
        "JK JK JK AS KS",
        "AS KS QS JS",
        "AS KS QS JS TS 9S",
    ],
)
def test_a_card_twice_two_jokers_or_a_wrong_count_is_refused(text: str) -> None:
    codes = tuple(CODES[card] for card in parse_cards(text))  # card_codes itself refuses two jokers
    with pytest.raises(HandError, match="five_card_strength: cannot judge"):
        five_card_strength(codes)


def test_only_cards_are_encoded_and_only_ints_are_judged() -> None:
    with pytest.raises(HandError, match="is not a card"):
        card_codes(["AS", "KS"])  # texts must be parsed first
    with pytest.raises(HandError, match="cannot judge"):
        five_card_strength(("a", "b", "c", "d", "e"))
    with pytest.raises(HandError, match="cannot judge"):
        five_card_strength(None)  # type: ignore[arg-type]


@pytest.mark.slow
def test_every_natural_five_card_hand_gets_the_batch_strength() -> None:
    """All 2,598,960 hands of 52 cards: the integer path equals the (reference-checked) batch."""
    codes = card_codes(FULL_DECK)
    hands = combinations_array(52, 5)
    expected = five_card_strengths(hands).tolist()
    got = [five_card_strength(hand) for hand in combinations(codes, 5)]
    assert got == expected
    assert np.array_equal(np.array(got[:5]), np.array(expected[:5]))
