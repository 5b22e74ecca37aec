"""Five-card and pai gow evaluators against the reference: every natural hand, every joker hand,
random best-five deals, and the pai gow front/back rule."""

import random
import time
from itertools import combinations

import numpy as np
import pytest
from reference_evaluators import FIVE_ORDER, five_key, order_mismatches, ref_five, ref_two

from dealerassist.core.cards import FULL_DECK, JOKER, parse_cards
from dealerassist.hands import best_five, evaluate_five, evaluate_two, front_outranks_back
from dealerassist.hands.batch import combinations_array, five_card_strengths


@pytest.mark.slow
@pytest.mark.parametrize("wheel_second", [False, True])
def test_every_natural_five_card_hand_matches_the_reference(wheel_second: bool) -> None:
    """Per hand: class and order as the reference; batch: the very same strengths, in < 3 s."""
    pairs = []
    for hand in combinations(FULL_DECK, 5):
        ref = ref_five(hand, wheel_second)
        value = evaluate_five(hand, wheel_second=wheel_second)
        if value.name != ref[0]:
            pytest.fail(f"{hand}: {value.name} but the reference says {ref[0]}")
        pairs.append((five_key(ref), value.strength))
    assert len(pairs) == 2_598_960
    assert order_mismatches(pairs) == []
    hands = combinations_array(52, 5)
    five_card_strengths(hands[:10], wheel_second=wheel_second)  # tables built outside the clock
    started = time.process_time()
    strengths = five_card_strengths(hands, wheel_second=wheel_second)
    assert time.process_time() - started < 3.0
    assert np.array_equal(strengths, np.array([s for _, s in pairs], dtype=np.int64))


@pytest.mark.slow
@pytest.mark.parametrize("wheel_second", [False, True])
def test_every_joker_hand_matches_the_reference(wheel_second: bool) -> None:
    # The reference reading of four naturals and the joker depends only on the naturals' ranks and
    # whether they share a suit (its stand-in loop reads nothing else), so it is computed once per
    # such signature; the fast evaluator still judges every one of the 270,725 hands.
    reference: dict[tuple[tuple[int, ...], bool], tuple[str, tuple[float, ...]]] = {}
    pairs = []
    for four in combinations(FULL_DECK, 4):
        hand = (*four, JOKER)
        signature = (tuple(sorted(c.rank for c in four)), len({c.suit for c in four}) == 1)
        if signature not in reference:
            reference[signature] = ref_five(hand, wheel_second)
        ref = reference[signature]
        value = evaluate_five(hand, wheel_second=wheel_second)
        if value.name != ref[0]:
            pytest.fail(f"{hand}: {value.name} but the reference says {ref[0]}")
        pairs.append((five_key(ref), value.strength))
    assert len(pairs) == 270_725
    assert order_mismatches(pairs) == []
    hands = np.hstack([combinations_array(52, 4), np.full((270_725, 1), 52, dtype=np.uint8)])
    batch = five_card_strengths(hands, wheel_second=wheel_second)
    assert np.array_equal(batch, np.array([s for _, s in pairs], dtype=np.int64))


def test_joker_and_natural_hands_share_one_order() -> None:
    rng = random.Random(5)
    deck = [*FULL_DECK, JOKER]
    pairs = []
    for _ in range(20_000):
        hand = rng.sample(deck, 5)
        pairs.append((five_key(ref_five(hand)), evaluate_five(hand).strength))
    assert order_mismatches(pairs) == []


@pytest.mark.parametrize(("size", "wheel_second"), [(6, False), (7, False), (7, True)])
def test_best_five_is_the_best_reference_five_of_random_deals(size: int, wheel_second: bool) -> None:
    rng = random.Random(size * 10 + wheel_second)
    deck = [*FULL_DECK, JOKER]
    pairs = []
    for _ in range(1500):
        hand = rng.sample(deck, size)
        best = max(five_key(ref_five(five, wheel_second)) for five in combinations(hand, 5))
        value = best_five(hand, wheel_second=wheel_second)
        assert value.name == FIVE_ORDER[best[0]], hand
        assert len(value.cards) == 5 and set(value.cards) <= set(hand)
        assert five_key(ref_five(value.cards, wheel_second)) == best, (hand, value.cards)
        pairs.append((best, value.strength))
    assert order_mismatches(pairs) == []


@pytest.mark.parametrize(
    ("text", "name"),
    [
        ("AS KS QS JS TS", "royal-flush"),
        ("JK KS QS JS TS", "royal-flush"),
        ("JK AS AH AD AC", "five-aces"),
        ("JK AS AH AD KC", "four-of-a-kind"),
        ("JK KD KC 5H 2S", "pair"),
        ("JK 2C 7D 9H JS", "high-card"),
        ("JK 2S 3S 4S 9S", "flush"),
        ("JK 2S 3D 4S 5S", "straight"),
        ("JK 2S 3S 4S 5S", "straight-flush"),
        ("JK KD KC KH 2S", "three-of-a-kind"),  # the bug is no wild card: it plays as an ace
        ("JK KD KC 2H 2S", "two-pair"),
        ("AS 2D 3H 4C 5S", "straight"),
        ("QS KD AH 2C 3S", "high-card"),
    ],
)
def test_five_card_classes(text: str, name: str) -> None:
    assert evaluate_five(parse_cards(text)).name == name


def test_joker_in_a_flush_is_the_highest_rank_the_flush_lacks() -> None:
    value = evaluate_five(parse_cards("JK AS KS 9S 4S"))
    assert value.name == "flush"
    assert value.ranks == (14, 13, 12, 9, 4)
    assert [c.code for c in value.cards] == ["AS", "KS", "JK", "9S", "4S"]


def test_wheel_second_puts_the_wheel_between_the_two_top_straights() -> None:
    wheel, broadway, king_high = (
        parse_cards(t) for t in ("AS 2D 3H 4C 5S", "AS KD QH JC TS", "KS QD JH TC 9S")
    )
    assert evaluate_five(wheel) < evaluate_five(parse_cards("2S 3D 4H 5C 6S"))
    assert evaluate_five(king_high, wheel_second=True) < evaluate_five(wheel, wheel_second=True)
    assert evaluate_five(wheel, wheel_second=True) < evaluate_five(broadway, wheel_second=True)
    suited_wheel = parse_cards("AH 2H 3H 4H 5H")
    assert evaluate_five(suited_wheel, wheel_second=True) > evaluate_five(
        parse_cards("KH QH JH TH 9H"), wheel_second=True
    )


def test_best_five_shows_the_flush_it_found() -> None:
    value = best_five(parse_cards("2H 9H KH 4H 7H KS KD"))
    assert value.name == "flush"
    assert [c.code for c in value.cards] == ["KH", "9H", "7H", "4H", "2H"]


def test_every_two_card_hand_matches_the_reference_and_the_joker_is_an_ace() -> None:
    assert evaluate_two(parse_cards("JK AS")).name == "pair"
    assert evaluate_two(parse_cards("JK KS")).ranks == (14, 13)
    assert evaluate_two(parse_cards("9S 9D")) > evaluate_two(parse_cards("AS KD"))
    pairs = []
    for hand in combinations([*FULL_DECK, JOKER], 2):
        name, key = ref_two(hand)
        value = evaluate_two(hand)
        assert value.name == name
        pairs.append(((name == "pair", key), value.strength))
    assert order_mismatches(pairs) == []


@pytest.mark.parametrize(
    ("front", "back", "foul"),
    [
        ("8S 8H", "8C 8D 2S 3H 4C", False),
        ("8S 8H", "7C 7D AS KH QC", True),
        ("8S 8H", "2C 2D 3S 3H 4C", False),
        ("AS KH", "AD KC 2S 5H 9C", False),
        ("AS KH", "AD QC JS 5H 9C", True),
        ("AS KH", "2D 2C JS 5H 9C", False),
        ("2S 2H", "AD KC QS 5H 9C", True),
        ("JK KH", "AD QC JS 5H 9C", True),
        ("JK KH", "AD KC 3S 5H 9C", False),
        ("QS JH", "JK KC 3S 5H 9C", False),
    ],
)
def test_front_outranks_back_marks_fouls(front: str, back: str, foul: bool) -> None:
    two = evaluate_two(parse_cards(front))
    five = evaluate_five(parse_cards(back), wheel_second=True)
    assert front_outranks_back(two, five) is foul


@pytest.mark.parametrize(
    ("text", "wheel_second", "shown"),
    [
        ("AS 2D 3H 4C 5S", False, "5S 4C 3H 2D AS"),
        ("AS 2D 3H 4C 5S", True, "AS 5S 4C 3H 2D"),
        ("2S 3D JK 4S 5S", False, "JK 5S 4S 3D 2S"),
        ("KS 2H KD 2C KC", False, "KS KD KC 2H 2C"),
        ("JK 7H 7D 2C 2S", False, "7H 7D 2C 2S JK"),
    ],
)
def test_cards_are_shown_best_first_with_the_joker_where_it_plays(
    text: str, wheel_second: bool, shown: str
) -> None:
    value = evaluate_five(parse_cards(text), wheel_second=wheel_second)
    assert " ".join(c.code for c in value.cards) == shown


def test_best_of_n_shows_only_the_cards_that_make_the_hand() -> None:
    flush = best_five(parse_cards("JK 2S 3S 4S 9S KD QD"), wheel_second=True)
    assert flush.name == "flush"
    assert " ".join(c.code for c in flush.cards) == "JK 9S 4S 3S 2S"
    assert len(flush.held) == 7
