"""The numpy batch evaluators give the per-hand evaluators' strengths bit for bit."""

import random
from itertools import combinations
from math import comb

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerassist.core.cards import FULL_DECK, JOKER, Card
from dealerassist.hands import best_five, best_four, evaluate_five, evaluate_four, evaluate_three
from dealerassist.hands.batch import (
    best_five_strengths,
    best_four_strengths,
    card_indices,
    class_ids,
    class_names,
    combinations_array,
    five_card_strengths,
    four_card_strengths,
    iter_combinations,
    three_card_strengths,
)
from dealerassist.hands.value import HandError

DECK_53 = [*FULL_DECK, JOKER]


def random_hands(size: int, count: int, seed: int, deck: list[Card] = DECK_53) -> list[tuple[Card, ...]]:
    rng = random.Random(seed)
    return [tuple(rng.sample(deck, size)) for _ in range(count)]


def test_every_three_card_hand_batch_equals_per_hand() -> None:
    hands = combinations_array(52, 3)
    expected = [evaluate_three(h).strength for h in combinations(FULL_DECK, 3)]
    strengths = three_card_strengths(hands)
    assert np.array_equal(strengths, np.array(expected))
    counts = np.bincount(class_ids(strengths, 3), minlength=6).tolist()
    # The well-known Three Card Poker frequencies.
    assert dict(zip(class_names(3), counts, strict=True)) == {
        "high-card": 16_440,
        "pair": 3_744,
        "flush": 1_096,
        "straight": 720,
        "three-of-a-kind": 52,
        "straight-flush": 48,
    }


@pytest.mark.slow
def test_every_four_card_hand_batch_equals_per_hand() -> None:
    hands = combinations_array(52, 4)
    expected = [evaluate_four(h).strength for h in combinations(FULL_DECK, 4)]
    assert np.array_equal(four_card_strengths(hands), np.array(expected))


def test_batch_class_counts_of_all_five_card_hands_are_the_known_frequencies() -> None:
    counts = np.bincount(
        class_ids(five_card_strengths(combinations_array(52, 5), check=False), 5), minlength=11
    )
    known = {
        "high-card": 1_302_540,
        "pair": 1_098_240,
        "two-pair": 123_552,
        "three-of-a-kind": 54_912,
        "straight": 10_200,
        "flush": 5_108,
        "full-house": 3_744,
        "four-of-a-kind": 624,
        "straight-flush": 36,
        "royal-flush": 4,
        "five-aces": 0,
    }
    assert dict(zip(class_names(5), counts.tolist(), strict=True)) == known


@pytest.mark.parametrize("wheel_second", [False, True])
def test_random_joker_hands_batch_equals_per_hand(wheel_second: bool) -> None:
    hands = random_hands(5, 5000, 11 + wheel_second)
    expected = [evaluate_five(h, wheel_second=wheel_second).strength for h in hands]
    assert five_card_strengths(card_indices(hands), wheel_second=wheel_second).tolist() == expected


@pytest.mark.parametrize(("size", "wheel_second"), [(6, False), (7, False), (7, True)])
def test_best_five_batch_equals_per_hand(size: int, wheel_second: bool) -> None:
    hands = random_hands(size, 4000, size + 100 * wheel_second)
    # Flush-heavy deals too: the suited search is the delicate part.
    spades_and_joker = [c for c in DECK_53 if c.suit in ("S", None)] + [
        c for c in FULL_DECK if c.suit == "H"
    ][:4]
    hands += random_hands(size, 2000, size + 7, spades_and_joker)
    expected = [best_five(h, wheel_second=wheel_second).strength for h in hands]
    assert best_five_strengths(card_indices(hands), wheel_second=wheel_second).tolist() == expected


@pytest.mark.parametrize("size", [5, 6, 7])
def test_best_four_batch_equals_per_hand(size: int) -> None:
    hands = random_hands(size, 4000, size, FULL_DECK)
    hands += random_hands(size, 2000, size + 7, [c for c in FULL_DECK if c.suit in ("S", "H")])
    expected = [best_four(h).strength for h in hands]
    assert best_four_strengths(card_indices(hands)).tolist() == expected


def test_iter_combinations_streams_exactly_the_combinations_in_order() -> None:
    chunks = list(iter_combinations(12, 5))
    joined = np.vstack(chunks)
    assert joined.tolist() == [list(c) for c in combinations(range(12), 5)]
    assert len(joined) == comb(12, 5)
    assert max(len(c) for c in chunks) == comb(10, 3)


@pytest.mark.parametrize(
    ("call", "hands", "words"),
    [
        (five_card_strengths, np.zeros((3, 4), dtype=np.intp), "shape (N, 5)"),
        (five_card_strengths, np.array([[0, 1, 2, 3, 53]]), "outside 0..52"),
        (five_card_strengths, np.array([[0, 1, 2, 3, 3]]), "row 0 holds a card twice"),
        (three_card_strengths, np.array([[0, 1, 52]]), "outside 0..51 (no joker)"),
        (four_card_strengths, np.array([[0.0, 1.0, 2.0, 3.0]]), "must be integers"),
        (best_five_strengths, np.array([[0, 1, 2, 3, 4, 5, 50, 52]]), "shape (N, 5) or (N, 6) or (N, 7)"),
        (best_five_strengths, np.array([[0, 1, 2, 3, 4, 52, 52]]), "holds a card twice"),
    ],
)
def test_bad_batch_input_is_refused(call: object, hands: np.ndarray, words: str) -> None:
    with pytest.raises(HandError) as err:
        call(hands)  # type: ignore[operator]
    assert words in str(err.value)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(DECK_53), min_size=7, max_size=7, unique=True), st.booleans())
def test_any_deal_gets_the_same_strength_from_batch_and_per_hand(
    cards: list[Card], wheel_second: bool
) -> None:
    for size in (5, 6, 7):
        hand = cards[:size]
        batch = best_five_strengths(card_indices([hand]), wheel_second=wheel_second)
        assert batch.tolist() == [best_five(hand, wheel_second=wheel_second).strength]
    naturals = [c for c in cards if not c.is_joker]
    assert three_card_strengths(card_indices([naturals[:3]])).tolist() == [
        evaluate_three(naturals[:3]).strength
    ]
    assert best_four_strengths(card_indices([naturals[:6]])).tolist() == [best_four(naturals[:6]).strength]


def test_empty_batches_give_empty_results() -> None:
    for call, width in ((three_card_strengths, 3), (five_card_strengths, 5), (best_five_strengths, 7)):
        assert call(np.zeros((0, width), dtype=np.intp)).shape == (0,)  # type: ignore[operator]


@pytest.mark.slow
def test_every_six_card_hand_has_the_published_best_five_frequencies() -> None:
    # All 20,358,520 six-card hands from 52 cards, best five of each: the published counts
    # (B. Alspach, "Pai Gow Poker Computations", table of 6-card hands; royal inside straight flush).
    counts = np.zeros(11, dtype=np.int64)
    for chunk in iter_combinations(52, 6):
        counts += np.bincount(class_ids(best_five_strengths(chunk, check=False), 5), minlength=11)
    found = dict(zip(class_names(5), counts.tolist(), strict=True))
    found["straight-flush"] += found.pop("royal-flush")
    assert found == {
        "high-card": 6_612_900,
        "pair": 9_730_740,
        "two-pair": 2_532_816,
        "three-of-a-kind": 732_160,
        "straight": 361_620,
        "flush": 205_792,
        "full-house": 165_984,
        "four-of-a-kind": 14_664,
        "straight-flush": 1_844,
        "five-aces": 0,
    }


@pytest.mark.slow
def test_every_seven_card_hand_has_the_published_best_five_frequencies() -> None:
    # All 133,784,560 seven-card hands from 52 cards (same source, table of 7-card hands).
    counts = np.zeros(11, dtype=np.int64)
    for chunk in iter_combinations(52, 7):
        counts += np.bincount(class_ids(best_five_strengths(chunk, check=False), 5), minlength=11)
    found = dict(zip(class_names(5), counts.tolist(), strict=True))
    found["straight-flush"] += found.pop("royal-flush")
    assert found == {
        "high-card": 23_294_460,
        "pair": 58_627_800,
        "two-pair": 31_433_400,
        "three-of-a-kind": 6_461_620,
        "straight": 6_180_020,
        "flush": 4_047_644,
        "full-house": 3_473_184,
        "four-of-a-kind": 224_848,
        "straight-flush": 41_584,
        "five-aces": 0,
    }
