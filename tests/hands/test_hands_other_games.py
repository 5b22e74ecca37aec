"""Pairs & Up patterns and precedence, blackjack totals and Perfect Pairs against the reference."""

from itertools import combinations_with_replacement, product

import pytest
from reference_evaluators import ref_blackjack, ref_pairs_and_up_made

from dealerassist.core.cards import FULL_DECK, SUITS, Card, parse_cards
from dealerassist.core.decks import DeckComposition, load_deck
from dealerassist.hands import (
    PAIRS_AND_UP_PATTERNS,
    blackjack_total,
    pairs_and_up_hand,
    pairs_and_up_made,
    pairs_and_up_precedence,
    perfect_pair,
)
from dealerassist.hands.pairs_and_up import pattern_counts

PAIRS_AND_UP_FACES = [Card(rank, suit) for rank in (14, 2, 3, 4) for suit in SUITS]


def test_every_pairs_and_up_face_combination_matches_the_reference() -> None:
    for four in combinations_with_replacement(PAIRS_AND_UP_FACES, 4):
        assert pairs_and_up_made(four) == ref_pairs_and_up_made(four), four


def test_pattern_counts_on_the_shipped_deck_add_up_from_first_principles() -> None:
    deck = load_deck("pairs-and-up-52")
    counts = pattern_counts(deck)
    # Four aces of one suit: spades hold 7 (C(7,4)=35), the other three suits 6 each (15 each).
    assert counts["four-aces-flush"] == 35 + 3 * 15
    # Straight flush: an ace, two, three and four of one suit; clubs hold one four.
    assert counts["straight-flush"] == 7 * 3 * 2 * 2 + 6 * 3 * 2 * 2 * 2 + 6 * 3 * 2 * 1
    # Straight: 25 aces x 12 twos x 8 threes x 7 fours.
    assert counts["straight"] == 25 * 12 * 8 * 7
    assert sum(counts.values()) > 0


def test_precedence_on_the_shipped_deck_is_rarest_first_with_three_of_a_kind_last() -> None:
    deck = load_deck("pairs-and-up-52")
    order = pairs_and_up_precedence(deck)
    counts = pattern_counts(deck)
    assert sorted(order) == sorted(PAIRS_AND_UP_PATTERNS)
    assert order[-1] == "three-of-a-kind"
    four_card = [counts[p] for p in order[:-1]]
    assert four_card == sorted(four_card)
    assert order[0] == "four-aces-flush"


def test_precedence_follows_the_configured_deck() -> None:
    # With no extra aces, four aces flush cannot happen and sorts first (it never decides).
    standard = load_deck("standard-52")
    order = pairs_and_up_precedence(standard)
    assert order[0] == "four-aces-flush"
    assert pattern_counts(standard)["four-aces-flush"] == 0
    heavy_flush = DeckComposition(
        "flushy", {Card(r, "S"): 10 for r in (14, 2, 3, 4)} | {Card(14, "H"): 1, Card(2, "D"): 1}
    )
    flush_order = pairs_and_up_precedence(heavy_flush)
    assert flush_order.index("flush") > flush_order.index("two-pair")


@pytest.mark.parametrize(
    ("text", "hand"),
    [
        ("AS AS AS AS", "four-aces-flush"),
        ("AS AH AD AC", "four-of-a-kind"),
        ("AS 2S 3S 4S", "straight-flush"),
        ("AS 2H 3S 4S", "straight"),
        ("2S 2S 3S 3S", "two-pair-flush"),
        ("2S 2H 3S 3S", "two-pair"),
        ("AS AH AD 2C", "three-of-a-kind"),
        ("AS AS AS 2S", "flush"),
        ("AS 2H 2D 3C", None),
    ],
)
def test_the_hand_four_cards_are(text: str, hand: str | None) -> None:
    assert pairs_and_up_hand(parse_cards(text)) == hand
    order = pairs_and_up_precedence(load_deck("pairs-and-up-52"))
    assert pairs_and_up_hand(parse_cards(text), order) == hand


def test_pattern_consistency_on_every_face_combination() -> None:
    for four in combinations_with_replacement(PAIRS_AND_UP_FACES, 4):
        made = pairs_and_up_made(four)
        assert not {"four-of-a-kind", "two-pair"} <= made
        assert not {"two-pair-flush", "two-pair"} <= made
        if "straight-flush" in made:
            assert {"straight", "flush"} <= made
        if "four-aces-flush" in made:
            assert {"four-of-a-kind", "flush"} <= made
        if "two-pair-flush" in made:
            assert "flush" in made


def test_every_blackjack_count_up_to_four_cards_matches_the_reference() -> None:
    faces = [Card(rank, "S") for rank in range(2, 15)]
    for size in (1, 2, 3, 4):
        for hand in product(faces, repeat=size):
            for split in (False, True):
                got = blackjack_total(hand, split=split)
                assert (got.total, got.soft, got.blackjack, got.bust) == ref_blackjack(hand, split), hand


@pytest.mark.parametrize(
    ("text", "total", "soft", "blackjack", "bust"),
    [
        ("AS KD", 21, True, True, False),
        ("AS AD", 12, True, False, False),
        ("AS 5D 9C", 15, False, False, False),
        ("AS 6D", 17, True, False, False),
        ("KS QD 2C", 22, False, False, True),
        ("7S 7D 7C", 21, False, False, False),
        ("AS AD AH AC 7S", 21, True, False, False),
    ],
)
def test_blackjack_totals(text: str, total: int, soft: bool, blackjack: bool, bust: bool) -> None:
    got = blackjack_total(parse_cards(text))
    assert (got.total, got.soft, got.blackjack, got.bust) == (total, soft, blackjack, bust)


def test_a_split_twenty_one_is_not_a_blackjack() -> None:
    assert blackjack_total(parse_cards("AS KD"), split=True).blackjack is False
    assert blackjack_total(parse_cards("AS KD"), split=True).total == 21


def test_perfect_pairs_on_every_pair_of_faces() -> None:
    for first, second in product(FULL_DECK, repeat=2):
        got = perfect_pair(first, second)
        if first.rank != second.rank:
            assert got is None
        elif first.suit == second.suit:
            assert got == "perfect"
        elif first.is_red == second.is_red:
            assert got == "coloured"
        else:
            assert got == "mixed"
    assert perfect_pair(*parse_cards("KS QS")) is None
    assert perfect_pair(*parse_cards("KS KC")) == "coloured"
    assert perfect_pair(*parse_cards("KH KC")) == "mixed"
