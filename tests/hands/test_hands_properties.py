"""Properties that hold for any deal: card order never matters, more cards never hurt a best-of-N
hand, and bad input is refused with a clear error."""

import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dealerassist.core.cards import FULL_DECK, JOKER, Card, parse_cards
from dealerassist.errors import DealerAssistError
from dealerassist.hands import (
    HandError,
    best_five,
    best_four,
    blackjack_total,
    evaluate_five,
    evaluate_four,
    evaluate_three,
    evaluate_two,
    front_outranks_back,
    pairs_and_up_hand,
    pairs_and_up_made,
    perfect_pair,
)
from dealerassist.hands.pairs_and_up import PAIRS_AND_UP_RANKS

WITH_JOKER = [*FULL_DECK, JOKER]
PAIRS_AND_UP_FACES = [c for c in FULL_DECK if c.rank in PAIRS_AND_UP_RANKS]


def deals(size: int, deck: list[Card] = FULL_DECK) -> st.SearchStrategy[list[Card]]:
    return st.lists(st.sampled_from(deck), min_size=size, max_size=size, unique=True)


def shuffled(cards: list[Card]) -> st.SearchStrategy[list[Card]]:
    return st.permutations(cards)


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_card_order_never_matters(data: st.DataObject) -> None:
    three = data.draw(deals(3))
    assert evaluate_three(data.draw(shuffled(three))) == evaluate_three(three)
    four = data.draw(deals(4))
    assert evaluate_four(data.draw(shuffled(four))) == evaluate_four(four)
    five = data.draw(deals(5, WITH_JOKER))
    for wheel_second in (False, True):
        again = evaluate_five(data.draw(shuffled(five)), wheel_second=wheel_second)
        assert again == evaluate_five(five, wheel_second=wheel_second)
        assert again.name == evaluate_five(five, wheel_second=wheel_second).name
    seven = data.draw(deals(7, WITH_JOKER))
    assert best_five(data.draw(shuffled(seven))) == best_five(seven)
    six = data.draw(deals(6))
    assert best_four(data.draw(shuffled(six))) == best_four(six)
    two = data.draw(deals(2, WITH_JOKER))
    assert evaluate_two(list(reversed(two))) == evaluate_two(two)
    pu = data.draw(st.lists(st.sampled_from(PAIRS_AND_UP_FACES), min_size=4, max_size=4))
    assert pairs_and_up_made(data.draw(shuffled(pu))) == pairs_and_up_made(pu)


@settings(max_examples=300, deadline=None)
@given(deals(8, WITH_JOKER))
def test_adding_a_card_never_lowers_a_best_of_n_hand(cards: list[Card]) -> None:
    assert best_five(cards[:5]) <= best_five(cards[:6]) <= best_five(cards[:7])
    assert best_five(cards[:5]) == evaluate_five(cards[:5])
    naturals = [c for c in cards if not c.is_joker][:7]
    assert (
        best_four(naturals[:4]) <= best_four(naturals[:5]) <= best_four(naturals[:6]) <= best_four(naturals)
    )


@settings(max_examples=300, deadline=None)
@given(deals(7, WITH_JOKER))
def test_best_five_cards_are_five_of_the_hand_and_judge_the_same(cards: list[Card]) -> None:
    value = best_five(cards)
    assert len(value.cards) == 5 and set(value.cards) <= set(cards)
    assert evaluate_five(value.cards) == value
    assert evaluate_five(value.cards).name == value.name


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(PAIRS_AND_UP_FACES), min_size=4, max_size=4))
def test_pairs_and_up_patterns_are_consistent(cards: list[Card]) -> None:
    made = pairs_and_up_made(cards)
    assert not {"four-of-a-kind", "two-pair"} <= made
    assert not {"two-pair-flush", "two-pair"} <= made
    assert not {"three-of-a-kind", "four-of-a-kind"} <= made
    hand = pairs_and_up_hand(cards)
    assert (hand is None) == (not made)
    assert hand is None or hand in made
    if made - {"three-of-a-kind"}:
        assert hand != "three-of-a-kind"


@settings(max_examples=200, deadline=None)
@given(deals(2, WITH_JOKER), deals(5, WITH_JOKER))
def test_a_back_hand_of_two_pair_or_better_is_never_fouled(front: list[Card], back: list[Card]) -> None:
    five = evaluate_five(back, wheel_second=True)
    two = evaluate_two(front)
    if five.name not in ("high-card", "pair"):
        assert not front_outranks_back(two, five)
    if two.name == "high-card" and five.name == "pair":
        assert not front_outranks_back(two, five)


@pytest.mark.parametrize(
    ("call", "text", "words"),
    [
        (evaluate_three, "AS KS", "takes 3 cards, got 2"),
        (evaluate_three, "AS KS QS JS", "takes 3 cards, got 4"),
        (evaluate_three, "AS AS QS", "AS appears twice"),
        (evaluate_three, "AS JK QS", "no joker"),
        (evaluate_four, "AS KS QS", "takes 4 cards"),
        (evaluate_four, "AS KS QS KS", "KS appears twice"),
        (best_four, "AS KS QS", "takes 4 or 5 or 6 or 7 cards"),
        (best_four, "AS KS QS JK 2D", "no joker"),
        (evaluate_five, "AS KS QS JS", "takes 5 cards"),
        (evaluate_five, "AS KS QS JS KS", "KS appears twice"),
        (evaluate_five, "AS KS QS JS JK JK", "takes 5 cards"),
        (best_five, "AS KS QS JS JK JK", "only one joker"),
        (best_five, "AS KS QS JS 2D 3D 4D 5D", "takes 5 or 6 or 7 cards"),
        (evaluate_two, "AS", "takes 2 cards"),
        (evaluate_two, "JK JK", "only one joker"),
        (pairs_and_up_made, "AS 2S 3S", "takes 4 cards"),
        (pairs_and_up_made, "AS 2S 3S 5S", "only aces, twos, threes and fours"),
        (pairs_and_up_made, "AS 2S 3S JK", "no joker"),
        (blackjack_total, "AS JK", "no joker"),
        (blackjack_total, "", "got 0"),
    ],
)
def test_bad_hands_are_refused_naming_the_problem(call: object, text: str, words: str) -> None:
    with pytest.raises(HandError) as err:
        call(parse_cards(text))  # type: ignore[operator]
    assert isinstance(err.value, DealerAssistError)
    assert words in str(err.value)


def test_non_cards_and_mixed_sizes_are_refused() -> None:
    with pytest.raises(HandError, match="is not a card"):
        evaluate_five(["AS", "KS", "QS", "JS", "TS"])  # type: ignore[list-item]
    with pytest.raises(HandError, match="sequence of cards"):
        evaluate_three(5)  # type: ignore[arg-type]
    with pytest.raises(HandError, match="no joker"):
        perfect_pair(JOKER, JOKER)
    with pytest.raises(HandError, match="two-card and a five-card"):
        front_outranks_back(evaluate_five(parse_cards("AS KS QS JS 9D")), evaluate_two(parse_cards("AS KD")))
    with pytest.raises(TypeError, match="3-card hand with a 5-card hand"):
        _ = evaluate_three(parse_cards("AS KS QS")) < evaluate_five(parse_cards("AS KS QS JS 9D"))
    with pytest.raises(HandError, match="precedence"):
        pairs_and_up_hand(parse_cards("AS AS AS AS"), ("flush", "straight"))


def test_hand_values_behave_as_immutable_ordered_values() -> None:
    low = evaluate_five(parse_cards("2S 3D 4H 5C 7S"))
    same_as_low = evaluate_five(parse_cards("2H 3S 4D 5S 7C"))
    high = evaluate_five(parse_cards("AS AD 4H 5C 7S"))
    assert low == same_as_low and hash(low) == hash(same_as_low) and low.cards != same_as_low.cards
    assert low < high and high > low and low <= same_as_low and high >= low and low != high
    assert sorted([high, low]) == [low, high] and max(low, high) is high
    assert low != (low.strength, low.held, 5)
    assert low != evaluate_three(parse_cards("2S 3D 4H"))
    with pytest.raises(AttributeError):
        low.strength = 1  # type: ignore[misc]
    with pytest.raises(TypeError, match="cannot compare a hand value with int"):
        _ = low < 5
    assert pickle.loads(pickle.dumps(high)) == high
    assert pickle.loads(pickle.dumps(high)).cards == high.cards
    assert repr(high).startswith("HandValue(pair, AS AD 7S 5C 4H")
    assert high.ranks == (14, 14, 7, 5, 4)
