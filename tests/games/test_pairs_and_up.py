"""Pairs & Up Poker scenarios (rules/pairs-and-up-poker.txt; rule-decisions.md).

Each test forces the cards (two per spot, two for the dealer), places wagers, makes the players'
choices and checks the settlement in cents. The example pay tables pay two pair and three of a
kind 1 to 1, four of a kind 3 to 1, a straight 3 to 1, a flush 4 to 1.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import combinations_with_replacement

import pytest

from dealerassist.core.cards import parse_cards
from dealerassist.errors import DeckError, RuleViolation
from dealerassist.games.base import DEALER, Decision, Settlement
from dealerassist.games.pairs_and_up import (
    PairsAndUpRound,
    double_match_class,
    play_outcome,
    progressive_class,
)
from dealerassist.hands import pairs_and_up_precedence
from dealerassist.tablefiles.tables import load_table
from tests.games.scenario import cents, new_round, results, rules

LIMITS = {"ante": ("5", "250"), "double-match": ("1", "50"), "progressive": ("1", "1")}


def table(**options: object):
    return rules("pairs-and-up", limits=LIMITS, seats=6, options=options)


def deal(
    wagers: Sequence[tuple[int, str, str]], hands: Mapping[str, str], **options: object
) -> PairsAndUpRound:
    """Wagers, then one card at a time around the table twice (spots in seat order, then dealer)."""
    round_ = new_round(table(**options))
    assert isinstance(round_, PairsAndUpRound)
    for seat, bet, dollars in wagers:
        round_.place_wager(seat, bet, cents(dollars))
    round_.close_betting()
    while (step := round_.next_deal()) is not None:
        round_.deal(parse_cards(hands[step.position])[step.index])
    return round_


def play(
    wagers: Sequence[tuple[int, str, str]],
    hands: Mapping[str, str],
    choices: Mapping[int, str],
    **options: object,
) -> Settlement:
    round_ = deal(wagers, hands, **options)
    for seat, choice in choices.items():
        action = "fold" if choice == "fold" else "play"
        round_.decide(Decision(f"seat-{seat}", action, choice=None if choice == "fold" else choice))
    assert round_.complete
    return round_.settle()


def four(cards: str):
    return parse_cards(cards)


PRECEDENCE = pairs_and_up_precedence(table().deck)


# --- Dealing and the hidden card ----------------------------------------------------------------


def test_two_cards_each_face_down_one_at_a_time_and_the_dealers_second_stays_hidden() -> None:
    """Each spot and the dealer get two cards face down; the dealer reveals one, and the other
    stays hidden until every Play is set."""
    round_ = new_round(table())
    round_.place_wager(1, "ante", cents("10"))
    round_.place_wager(4, "ante", cents("10"))
    round_.close_betting()
    assert round_.must_be_hidden() == {(DEALER, 0), (DEALER, 1)}
    steps = [round_.deal(c) for c in parse_cards("AS 2H AD 3C AH 4D")]
    assert [(s.position, s.index) for s in steps] == [
        ("seat-1", 0),
        ("seat-4", 0),
        (DEALER, 0),
        ("seat-1", 1),
        ("seat-4", 1),
        (DEALER, 1),
    ]
    assert not any(s.face_up for s in steps)
    assert round_.must_be_hidden() == {(DEALER, 1)}, "the first dealer card is now turned"
    round_.decide(Decision("seat-1", "fold"))
    assert round_.must_be_hidden() == {(DEALER, 1)}
    round_.decide(Decision("seat-4", "play", choice="two-pair"))
    assert round_.must_be_hidden() == frozenset()


def test_the_deck_holds_duplicates_but_no_more_than_its_count() -> None:
    """25 aces, 12 twos, 8 threes, 7 fours: the 4 of clubs exists once, the ace of spades 7 times."""
    round_ = new_round(table())
    for seat in range(1, 5):
        round_.place_wager(seat, "ante", cents("5"))
    round_.close_betting()
    for card in parse_cards("AS AS AS AS AS AS AS 4C"):
        round_.deal(card)
    with pytest.raises(DeckError):
        round_.deal(parse_cards("4C")[0])
    with pytest.raises(DeckError):
        round_.deal(parse_cards("KS")[0])


# --- Fold or play one of the eight hands --------------------------------------------------------


def test_folding_loses_the_ante() -> None:
    settled = play([(1, "ante", "10")], {"seat-1": "AS 2H", DEALER: "3C 4D"}, {1: "fold"})
    assert results(settled)[("seat-1", "ante")] == ("lose", 0, 0)


def test_play_is_twice_the_ante_and_the_ratio_is_the_casinos() -> None:
    round_ = deal([(1, "ante", "10")], {"seat-1": "AS 2H", DEALER: "3C 4D"})
    with pytest.raises(RuleViolation) as err:
        round_.decide(Decision("seat-1", "play", amount=cents("10"), choice="straight"))
    assert err.value.rule == "play-ratio"
    round_.decide(Decision("seat-1", "play", amount=cents("20"), choice="straight"))
    assert (round_.choices[1], round_.plays[1]) == ("straight", 2000)
    round_ = deal([(1, "ante", "10")], {"seat-1": "AS 2H", DEALER: "3C 4D"}, play_ratio=3)
    round_.decide(Decision("seat-1", "play", choice="straight"))
    assert (round_.choices[1], round_.plays[1]) == ("straight", 3000)


def test_only_one_of_the_eight_hands_may_be_chosen() -> None:
    round_ = deal(
        [(1, "ante", "10"), (2, "ante", "10")], {"seat-1": "AS 2H", "seat-2": "AD AC", DEALER: "3C 4D"}
    )
    with pytest.raises(RuleViolation) as err:
        round_.decide(Decision("seat-1", "play", choice="full-house"))
    assert err.value.rule == "choose-one-hand"
    round_.decide(Decision("seat-1", "play", choice="straight"))
    with pytest.raises(RuleViolation) as err:
        round_.decide(Decision("seat-1", "play", choice="two-pair"))
    assert err.value.rule == "hand-set-is-final"


def test_the_chosen_hand_made_wins_ante_and_play_at_the_same_odds() -> None:
    """Straight = A-2-3-4, paid 3 to 1 on both the $10 Ante and the $20 Play."""
    settled = play([(1, "ante", "10")], {"seat-1": "AS 2H", DEALER: "3C 4D"}, {1: "straight"})
    got = results(settled)
    assert got[("seat-1", "ante")] == ("win", 3000, 1000)
    assert got[("seat-1", "play")] == ("win", 6000, 2000)


def test_the_wrong_hand_loses_ante_and_play() -> None:
    settled = play([(1, "ante", "10")], {"seat-1": "AS 2H", DEALER: "3C 4D"}, {1: "two-pair"})
    got = results(settled)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "play")] == ("lose", 0, 0)


def test_a_higher_hand_than_the_chosen_one_loses() -> None:
    """Bet two pair, make a two pair flush: lose. Bet three of a kind, make four of a kind: lose."""
    settled = play([(1, "ante", "10")], {"seat-1": "AS 2S", DEALER: "AS 2S"}, {1: "two-pair"})
    assert results(settled)[("seat-1", "play")] == ("lose", 0, 0)
    settled = play([(1, "ante", "10")], {"seat-1": "2S 2H", DEALER: "2D 2C"}, {1: "three-of-a-kind"})
    assert results(settled)[("seat-1", "ante")] == ("lose", 0, 0)


def test_four_of_a_kind_is_not_two_pair_and_a_two_pair_flush_is_not_two_pair() -> None:
    assert play_outcome("two-pair", four("2S 2H 2D 2C"), PRECEDENCE) == "lose"
    assert play_outcome("four-of-a-kind", four("2S 2H 2D 2C"), PRECEDENCE) == "win"
    assert play_outcome("two-pair-flush", four("AS 2S AS 2S"), PRECEDENCE) == "win"
    assert play_outcome("two-pair", four("AS 2H AD 2C"), PRECEDENCE) == "win"


def test_three_of_a_kind_wins_with_three_cards_but_three_aces_push() -> None:
    settled = play([(1, "ante", "10")], {"seat-1": "3S 3H", DEALER: "3D AC"}, {1: "three-of-a-kind"})
    assert results(settled)[("seat-1", "ante")] == ("win", 1000, 1000)
    settled = play([(1, "ante", "10")], {"seat-1": "AS AH", DEALER: "AD 2C"}, {1: "three-of-a-kind"})
    got = results(settled)
    assert got[("seat-1", "ante")] == ("push", 0, 1000)
    assert got[("seat-1", "play")] == ("push", 0, 2000)


def test_three_of_a_kind_that_is_also_a_flush_loses_the_three_of_a_kind_bet() -> None:
    """Any four-card hand takes precedence over the three-card hand (duplicate suits make it)."""
    assert play_outcome("three-of-a-kind", four("AS AS AS 2S"), PRECEDENCE) == "lose"
    assert play_outcome("flush", four("AS AS AS 2S"), PRECEDENCE) == "win"


def test_four_aces_flush_is_its_own_hand() -> None:
    settled = play([(1, "ante", "10")], {"seat-1": "AS AS", DEALER: "AS AS"}, {1: "four-aces-flush"})
    assert results(settled)[("seat-1", "ante")] == ("win", 100000, 1000)


# --- Double Match and Progressive ---------------------------------------------------------------


def test_double_match_needs_the_same_two_ranks_suits_aside() -> None:
    assert double_match_class(four("AS 2H"), four("2C AD")) == "matched-ace-kicker"
    assert double_match_class(four("AS AH"), four("AC AD")) == "matched-aces"
    assert double_match_class(four("3S 3H"), four("3C 3D")) == "matched-pair"
    assert double_match_class(four("3S 4H"), four("4C 3D")) == "matched-low"
    assert double_match_class(four("AS 2H"), four("AC 3D")) is None


def test_double_match_super_jackpot_needs_both_3_and_4_of_diamonds() -> None:
    settled = play(
        [(1, "ante", "10"), (1, "double-match", "5")], {"seat-1": "3D 4D", DEALER: "4D 3D"}, {1: "fold"}
    )
    assert results(settled)[("seat-1", "double-match")] == ("win", 500000, 500)


def test_folded_hands_still_settle_double_match_and_progressive() -> None:
    settled = play(
        [(1, "ante", "10"), (1, "double-match", "5"), (1, "progressive", "1")],
        {"seat-1": "AS 2S", DEALER: "2S AS"},
        {1: "fold"},
    )
    got = results(settled)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "double-match")] == ("win", 1500, 500)
    progressive = next(r for r in settled.results if r.bet == "progressive")
    assert (progressive.outcome, progressive.win, progressive.hand) == ("win", 10000, "two-pair-flush")


def test_progressive_pays_by_flush_type_and_leaves_the_meter_to_the_controller() -> None:
    assert progressive_class(four("AS 2S 3S 4S"), PRECEDENCE) == "straight-flush"
    assert progressive_class(four("AS AS 3S 4S"), PRECEDENCE) == "flush"
    assert progressive_class(four("AS 2H 3S 4S"), PRECEDENCE) is None
    settled = play(
        [(1, "ante", "10"), (1, "progressive", "1")],
        {"seat-1": "AH AH", DEALER: "AH AH"},
        {1: "four-aces-flush"},
    )
    progressive = next(r for r in settled.results if r.bet == "progressive")
    assert (progressive.outcome, progressive.win, progressive.note) == ("win", 0, "meter award 100%")
    assert progressive.hand == "four-aces-flush"


def test_side_bets_need_an_ante() -> None:
    """Refused when placed, so the rest of the table closes betting."""
    round_ = new_round(table())
    round_.place_wager(2, "ante", cents("5"))
    with pytest.raises(RuleViolation) as err:
        round_.place_wager(1, "double-match", cents("5"))
    assert err.value.rule == "side-bet-needs-ante"
    round_.close_betting()
    assert round_.wagers == {2: {"ante": 500}}


# --- Voids and forfeits -------------------------------------------------------------------------


def test_void_returns_every_wager_including_plays() -> None:
    round_ = deal(
        [(1, "ante", "10"), (2, "ante", "5")], {"seat-1": "AS 2H", "seat-2": "3S 3H", DEALER: "3C 4D"}
    )
    round_.decide(Decision("seat-1", "play", choice="straight"))
    voided = round_.void("dealer's second card exposed")
    assert voided.void
    assert sorted((r.seat, r.bet, r.returned) for r in voided.results) == [
        (1, "ante", 1000),
        (1, "play", 2000),
        (2, "ante", 500),
    ]


def test_a_supervisor_may_forfeit_a_player_who_showed_cards() -> None:
    round_ = deal(
        [(1, "ante", "10"), (1, "double-match", "5"), (2, "ante", "5")],
        {"seat-1": "AS 2H", "seat-2": "3S 3H", DEALER: "2C AD"},
    )
    round_.forfeit(1, "showed cards to seat 2")
    assert round_.pending_decisions() == ["seat-2"]
    round_.decide(Decision("seat-2", "fold"))
    got = results(round_.settle())
    assert got[("seat-1", "ante")] == ("forfeit", 0, 0)
    assert got[("seat-1", "double-match")] == ("forfeit", 0, 0)


def test_the_example_table_file_loads_and_plays() -> None:
    config = load_table("pairs-and-up")
    assert config.rules.options["precedence"] == list(PRECEDENCE), "the file lists the deck's own precedence"
    round_ = new_round(config.rules)
    round_.place_wager(1, "ante", cents("5"))
    round_.close_betting()
    for card in parse_cards("AS 3C 2H 4D"):
        round_.deal(card)
    round_.decide(Decision("seat-1", "play", choice="straight"))
    assert results(round_.settle())[("seat-1", "play")] == ("win", 3000, 1000)


def test_four_cards_win_at_most_one_of_the_eight_choices() -> None:
    """ "To win, your hand must match your exact bet": on every four-card combination of the deck,
    at most one choice wins (or pushes, for three aces)."""
    faces = sorted(table().deck.counts)
    for cards in combinations_with_replacement(faces, 4):
        outcomes = [play_outcome(choice, cards, PRECEDENCE) for choice in PRECEDENCE]
        assert sum(1 for o in outcomes if o != "lose") <= 1, cards


def test_every_pattern_but_three_of_a_kind_needs_all_four_cards() -> None:
    """Three of a kind is the only hand won with three cards: the fourth card decides the rest."""
    assert play_outcome("three-of-a-kind", four("2S 2H 2D AC"), PRECEDENCE) == "win"
    assert play_outcome("three-of-a-kind", four("2S 2H 2D 3C"), PRECEDENCE) == "win"
    assert play_outcome("straight", four("AS 2H 3D 3C"), PRECEDENCE) == "lose"
