"""The simulated players' strategies: the published thresholds, legal actions only, and Pairs & Up's
expected values checked against a plain enumeration of every card left in the deck."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealerassist.core.cards import parse_cards
from dealerassist.games.pairs_and_up import PairsAndUpOptions, play_outcome
from dealerassist.simulation.strategies import View, decide, pairs_and_up_values
from dealerassist.tablefiles.tables import load_table


def _view(game: str, cards: str, actions: tuple[str, ...], *, dealer: str = "", ante: int = 1000) -> View:
    return View(
        position="seat-1",
        actions=actions,
        cards=parse_cards(cards.split()),
        dealer_up=parse_cards(dealer.split()) if dealer else [],
        wagers={"ante": ante, "main": ante},
        rules=load_table(game).rules,
    )


@pytest.mark.parametrize(
    ("cards", "action"),
    [
        ("QS 6H 4D", "play"),
        ("QS 6H 3D", "fold"),
        ("QS 7H 2D", "play"),
        ("JS 10H 9D", "play"),
        ("2S 2H 3D", "play"),
    ],
)
def test_three_card_poker_plays_queen_six_four_or_better(cards: str, action: str) -> None:
    choice = decide("three-card-poker", _view("three-card-poker", cards, ("fold", "play")))
    assert choice.action == action
    if action == "play":
        assert choice.amount == 1000


@pytest.mark.parametrize(
    ("cards", "action", "amount"),
    [("9S 9H 4D 3C 2S", "play", 3000), ("KS 9H 4D 3C 2S", "play", 1000), ("QS 9H 4D 3C 2S", "fold", None)],
)
def test_four_card_poker_raises_with_a_pair_and_plays_king_high(
    cards: str, action: str, amount: int | None
) -> None:
    choice = decide("four-card-poker", _view("four-card-poker", cards, ("fold", "play")))
    assert (choice.action, choice.amount) == (action, amount)


@pytest.mark.parametrize(
    ("cards", "dealer", "actions", "action"),
    [
        ("10S 6H", "10D", ("hit", "stand", "double"), "hit"),
        ("10S 6H", "6D", ("hit", "stand", "double"), "stand"),
        ("6S 5H", "9D", ("hit", "stand", "double"), "double"),
        ("8S 8H", "10D", ("hit", "stand", "double", "split"), "split"),
        ("AS 7H", "9D", ("hit", "stand", "double"), "hit"),
        ("AS 7H", "7D", ("hit", "stand", "double"), "stand"),
        ("10S 2H 9C", "2D", ("hit", "stand"), "stand"),
        ("6S 5H 2C", "9D", ("hit", "stand"), "hit"),  # 13 against a 9, no double after three cards
        ("AS KH", "AD", ("even-money", "decline"), "decline"),
        ("9S 9H", "AD", ("insurance", "decline"), "decline"),
    ],
)
def test_blackjack_basic_strategy_never_insures(
    cards: str, dealer: str, actions: tuple[str, ...], action: str
) -> None:
    view = _view("perfect-pairs-blackjack", cards, actions, dealer=dealer)
    assert decide("perfect-pairs-blackjack", view).action == action


def test_pai_gow_asks_for_the_house_way() -> None:
    view = _view("face-up-pai-gow", "AS KS QS JS 10S 2H 3H", ("set-hand", "house-way"))
    assert decide("face-up-pai-gow", view).action == "house-way"


def test_an_action_the_game_does_not_offer_is_never_sent() -> None:
    view = _view("perfect-pairs-blackjack", "6S 5H", ("hit", "stand"), dealer="9D")  # no double offered
    assert decide("perfect-pairs-blackjack", view).action == "hit"


def test_pairs_and_up_values_match_a_plain_enumeration_of_the_deck() -> None:
    view = _view("pairs-and-up", "AS AH", ("fold", "play"), dealer="AD", ante=500)
    values = pairs_and_up_values(view)
    rules = view.rules
    precedence = PairsAndUpOptions.from_rules(rules).precedence
    left = rules.deck.cards()
    for card in [*view.cards, *view.dealer_up]:
        left.remove(card)
    play = 1000
    for hand, value in values.items():
        if hand == "fold":
            assert value == -500
            continue
        award = rules.paytables["play"].award(hand)
        total = Fraction(0)
        for card in left:
            outcome = play_outcome(hand, [*view.cards, *view.dealer_up, card], precedence)
            if outcome == "win":
                total += award.pay(500, rules.chip).amount + award.pay(play, rules.chip).amount
            elif outcome == "lose":
                total -= 500 + play
        assert value == total / len(left), hand


@pytest.mark.parametrize(
    ("cards", "dealer", "action", "hand"),
    [
        ("AS AS", "AS", "play", "four-aces-flush"),  # a fourth ace of spades pays the most by far
        ("2S 4H", "3D", "play", "straight"),  # any ace makes A-2-3-4
        ("AS AH", "AD", "play", "four-of-a-kind"),
        ("2C 2D", "3H", "fold", None),  # every Play loses more than the Ante on average
    ],
)
def test_pairs_and_up_plays_the_best_valued_hand_or_folds(
    cards: str, dealer: str, action: str, hand: str | None
) -> None:
    view = _view("pairs-and-up", cards, ("fold", "play"), dealer=dealer, ante=500)
    values = pairs_and_up_values(view)
    choice = decide("pairs-and-up", view)
    assert (choice.action, choice.choice) == (action, hand)
    assert values[hand or "fold"] == max(values.values())
