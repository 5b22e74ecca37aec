"""Face Up Pai Gow Poker scenarios (rules/face-up-pai-gow-poker.txt; rule-decisions.md; paytables.md).

Each test forces the seven-card hands, places wagers, sets hands and checks the settlement in
cents. Amounts are dollars as a dealer says them.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import pytest

from dealerassist.core.cards import FULL_DECK, JOKER, parse_cards
from dealerassist.errors import DeckError, RuleViolation
from dealerassist.games.base import DEALER, Decision, Settlement
from dealerassist.games.face_up_pai_gow import (
    FaceUpPaiGowRound,
    ace_high_pai_gow,
    deal_order,
    fortune_class,
)
from dealerassist.tablefiles.tables import load_table
from tests.games.scenario import cents, new_round, results, rules

LIMITS = {
    "wager": ("10", "1000"),
    "bank": ("10", "10000"),
    "fortune": ("1", "100"),
    "ace-high": ("5", "100"),
    "progressive": ("1", "1"),
}
# A dealer hand the House Way sets as K-Q in front, pair of 9s behind.
DEALER_NINES = "9S 9H KD QC 5S 4H 2D"


def table(**options: object):
    return rules("face-up-pai-gow", limits=LIMITS, options=options)


def start(
    wagers: Sequence[tuple[int, str, str]], hands: Mapping[str, str], dice: int = 10, **options: object
) -> FaceUpPaiGowRound:
    """Wagers, dice, then each position's seven cards in the dealing order the dice give."""
    round_ = new_round(table(**options))
    assert isinstance(round_, FaceUpPaiGowRound)
    for seat, bet, dollars in wagers:
        round_.place_wager(seat, bet, cents(dollars))
    round_.close_betting()
    round_.set_dice(dice)
    for position in round_.order:
        for card in parse_cards(hands[position]):
            round_.deal(card)
    return round_


def set_front(round_: FaceUpPaiGowRound, seat: int, front: str) -> None:
    round_.decide(Decision(f"seat-{seat}", "set-hand", cards=tuple(parse_cards(front))))


def play(
    wagers: Sequence[tuple[int, str, str]],
    hands: Mapping[str, str],
    fronts: Mapping[int, str],
    **options: object,
) -> Settlement:
    round_ = start(wagers, hands, **options)
    for seat, front in fronts.items():
        set_front(round_, seat, front)
    assert round_.complete
    return round_.settle()


# --- Dealing ------------------------------------------------------------------------------------


def test_dice_count_from_the_dealer_as_one_and_pick_the_first_hand_dealt() -> None:
    """The sum of the dice names the seat where dealing begins; the dealer's position counts 1."""
    assert deal_order(9, 7, [1, 5]) == [DEALER, "seat-1", "seat-5"]  # 9 = 8 positions + 1
    assert deal_order(10, 7, [1, 5]) == ["seat-1", "seat-5", DEALER]
    assert deal_order(3, 7, [1, 5]) == ["seat-5", DEALER, "seat-1"]  # lands on empty seat 2
    assert deal_order(14, 7, [3, 6]) == ["seat-6", DEALER, "seat-3"]


def test_seven_cards_to_each_hand_players_face_down_and_the_dealer_face_up() -> None:
    """Seven cards go to each spot face down except the player-dealer's hand, placed face up."""
    round_ = new_round(table())
    round_.place_wager(2, "wager", cents("25"))
    round_.close_betting()
    assert round_.next_deal() is None, "nothing is dealt before the dice"
    round_.set_dice(9)
    steps = [round_.deal(c) for c in parse_cards("AS KS QS JS TS 9S 8S 2H 3H 4H 5H 7D 8D 9D")]
    assert [s.position for s in steps] == [DEALER] * 7 + ["seat-2"] * 7
    assert all(s.face_up for s in steps[:7]) and not any(s.face_up for s in steps[7:])
    assert round_.must_be_hidden() == frozenset()
    assert round_.pending_decisions() == ["seat-2"]


def test_nothing_is_dealt_before_betting_closes() -> None:
    round_ = new_round(table())
    round_.place_wager(1, "wager", cents("25"))
    with pytest.raises(RuleViolation) as err:
        round_.deal(parse_cards("AS")[0])
    assert err.value.rule == "no-card-expected"
    with pytest.raises(RuleViolation) as err:
        round_.set_dice(10)
    assert err.value.rule == "dice-after-betting"


def test_a_card_the_deck_cannot_hold_twice_is_a_misdeal() -> None:
    round_ = new_round(table())
    round_.place_wager(1, "wager", cents("25"))
    round_.close_betting()
    round_.set_dice(10)
    round_.deal(parse_cards("AS")[0])
    with pytest.raises(DeckError):
        round_.deal(parse_cards("AS")[0])


def test_dealer_hand_is_set_by_the_house_way() -> None:
    """After the deal the house dealer sets the player-dealer's hand house way."""
    round_ = start([(1, "wager", "25")], {"seat-1": "2C 3C 4D 6H 8S TD JH", DEALER: DEALER_NINES})
    setting = round_.settings[DEALER]
    assert sorted(c.code for c in setting.front) == ["KD", "QC"]
    assert setting.rule == "one-pair"


# --- Winning, losing, pushing, copies -----------------------------------------------------------


def test_player_beating_both_dealer_hands_wins_even_money() -> None:
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "AS AH KS KH 7C 3D 2C", DEALER: DEALER_NINES},
        {1: "KS KH"},
    )
    assert results(settled)[("seat-1", "wager")] == ("win", 2500, 2500)


def test_player_losing_both_hands_loses_the_wager() -> None:
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "8S 8H JC TD 6C 3D 2C", DEALER: DEALER_NINES},
        {1: "JC TD"},
    )
    assert results(settled)[("seat-1", "wager")] == ("lose", 0, 0)


def test_one_hand_higher_and_one_lower_pushes() -> None:
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "AS AH JC TD 6C 3D 2C", DEALER: DEALER_NINES},
        {1: "JC TD"},
    )
    assert results(settled)[("seat-1", "wager")] == ("push", 0, 2500)


def test_copy_hands_go_to_the_dealer() -> None:
    """An identical two-card hand is a copy: the player-dealer wins it, so a win behind is a push."""
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "AS AH KH QD 6C 3D 2C", DEALER: DEALER_NINES},
        {1: "KH QD"},
    )
    assert results(settled)[("seat-1", "wager")] == ("push", 0, 2500)
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "9D 9C KH QD 5C 4D 2H", DEALER: DEALER_NINES},
        {1: "KH QD"},
    )
    assert results(settled)[("seat-1", "wager")] == ("lose", 0, 0)


def test_ace_high_dealer_pushes_every_hand_and_pays_the_ace_high_bet() -> None:
    """Dealer pai gow (ace high, nothing else): all hands push; Ace-High wins at its table's odds."""
    settled = play(
        [(1, "wager", "25"), (1, "ace-high", "5"), (3, "wager", "10"), (3, "ace-high", "5")],
        {
            "seat-1": "2S 2H 5C 7D 8C JD QH",
            "seat-3": "AS AH KS KH 7C 3D 4C",
            DEALER: "AC KD 9H 7S 5D 3C 2D",
        },
        {1: "QH JD", 3: "KS KH"},
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("push", 0, 2500)
    assert got[("seat-3", "wager")] == ("push", 0, 1000)
    assert got[("seat-1", "ace-high")] == ("win", 4500, 500)
    assert ace_high_pai_gow(parse_cards("JK KD 9H 7S 5D 3C 2D"))


def test_ace_high_bet_loses_when_the_dealer_has_a_hand() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "ace-high", "5")],
        {"seat-1": "2S 2H 5C 7D 8C JD QH", DEALER: DEALER_NINES},
        {1: "QH JD"},
    )
    assert results(settled)[("seat-1", "ace-high")] == ("lose", 0, 0)


# --- Setting hands ------------------------------------------------------------------------------


def test_a_foul_setting_is_refused_and_names_the_house_way() -> None:
    """The five-card hand must rank higher than the two-card hand."""
    round_ = start([(1, "wager", "25")], {"seat-1": "AS AH KS 7C 6D 3D 2C", DEALER: DEALER_NINES})
    with pytest.raises(RuleViolation) as err:
        set_front(round_, 1, "AS AH")
    assert err.value.rule == "foul"
    assert "KS 7C" in err.value.message
    assert round_.pending_decisions() == ["seat-1"]


def test_a_foul_is_forfeited_when_the_table_says_so() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "fortune", "5")],
        {"seat-1": "AS AH AD 7C 6D 3D 2C", DEALER: DEALER_NINES},
        {1: "AS AH"},
        foul_policy="forfeit",
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("lose", 0, 0)
    assert got[("seat-1", "fortune")] == ("win", 1500, 500), "the Fortune bet still pays on seven cards"


def test_player_may_ask_for_the_house_way() -> None:
    """The house dealer helps players set their hands the optimal way."""
    round_ = start([(1, "wager", "25")], {"seat-1": "AS AH KS KH 7C 3D 2C", DEALER: DEALER_NINES})
    assert round_.legal_actions("seat-1") == ["set-hand", "house-way"]
    round_.decide(Decision("seat-1", "house-way"))
    assert sorted(c.code for c in round_.settings["seat-1"].front) == ["KH", "KS"]
    assert round_.settle().results[0].outcome == "win"


def test_front_must_be_two_of_the_players_own_cards() -> None:
    round_ = start([(1, "wager", "25")], {"seat-1": "AS AH KS KH 7C 3D 2C", DEALER: DEALER_NINES})
    with pytest.raises(RuleViolation) as err:
        set_front(round_, 1, "QS KH")
    assert err.value.rule == "own-cards"
    with pytest.raises(RuleViolation) as err:
        round_.decide(Decision("seat-1", "hit"))
    assert err.value.rule == "pai-gow-actions"


# --- Fortune, Envy, Progressive -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("cards", "expected"),
    [
        ("3S 4S 5S 6S 7S 8S 9S", "seven-card-straight-flush"),
        ("AH 2H 3H 4H 5H 6H 7H", "seven-card-straight-flush"),
        ("3S 4S 5S JK 7S 8S 9S", "seven-card-straight-flush-joker"),
        ("AS KS QS JS TS KH QH", "royal-flush-royal-match"),
        ("AS KS QS JS TS KH QD", "royal-flush"),
        ("AS KS QS JK TS KH QH", "royal-flush-royal-match"),
        ("AS KS QS JS JK KH QH", "royal-flush-royal-match"),
        ("AS AH AD AC JK 2D 3H", "five-aces"),
        ("9S 9H 9D 9C KS 2D 3H", "four-of-a-kind"),
        ("2S 2H KD 7C 6D 3D 9C", "pair"),
    ],
)
def test_fortune_pays_on_the_best_five_of_seven_with_the_seven_card_specials(
    cards: str, expected: str
) -> None:
    assert fortune_class(parse_cards(cards)) == expected


def test_fortune_bet_pays_its_table_whatever_the_main_wager_does() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "fortune", "5")],
        {"seat-1": "9S 9H 9D 9C KS 2D 3H", DEALER: "AS AH AD KC KD 4H 2S"},
        {1: "KS 3H"},
    )
    got = results(settled)
    assert got[("seat-1", "fortune")] == ("win", 12500, 500)
    assert got[("seat-1", "wager")] == ("push", 0, 2500)


def envy_paid(settled: Settlement) -> dict[int, list[tuple[str, int, int]]]:
    """Seat -> [(whose hand, amount, stake)] of its Envy results."""
    paid: dict[int, list[tuple[str, int, int]]] = {}
    for r in settled.results:
        if r.bet == "envy":
            assert r.outcome == "win" and r.net == r.win, r
            paid.setdefault(r.seat, []).append((r.earned_by, r.win, r.stake))
    return paid


def test_envy_takes_no_chip_and_a_wager_on_it_is_refused_saying_so() -> None:
    round_ = new_round(table())
    with pytest.raises(RuleViolation) as err:
        round_.place_wager(1, "envy", cents("1"))
    assert err.value.rule == "envy-no-stake"
    assert "Fortune bet" in err.value.message


def test_envy_pays_every_qualifying_fortune_bettor_for_each_other_players_hand() -> None:
    """No Envy chip anywhere: a $5 Fortune bet qualifies; never one's own hand or the dealer's."""
    settled = play(
        [
            (1, "wager", "25"),
            (1, "fortune", "5"),
            (2, "wager", "25"),
            (3, "wager", "25"),
            (3, "fortune", "5"),
            (4, "wager", "25"),
            (4, "fortune", "4"),
        ],
        {
            "seat-1": "9S 9H 9D 9C KS 2D 3H",
            "seat-2": "8S 8H 8D 8C QS 4D 5H",
            "seat-3": "2S 2H 6D 7C JD TC 3C",
            "seat-4": "4S 5S 6S 7S 4C 5C TD",
            DEALER: "AS AH AD AC JK KC KD",
        },
        {1: "KS 3H", 2: "QS 5H", 3: "JD TC", 4: "TD 7S"},
        dice=9,
    )
    paid = envy_paid(settled)
    assert paid[1] == [("seat-2", 500, 0)], "seat 2's four eights; not its own four nines"
    assert paid[3] == [("seat-1", 500, 0), ("seat-2", 500, 0)], "two other hands pay twice"
    assert 4 not in paid, "a $4 Fortune bet does not qualify"
    assert 2 not in paid, "no Fortune bet, no Envy"
    fortune = {r.seat: r for r in settled.results if r.bet == "fortune"}
    assert fortune[1].win == 12500 and fortune[3].outcome == "lose" and fortune[4].outcome == "lose"
    assert not [r for r in settled.results if r.bet == "envy" and r.net < 0], "Envy never takes a chip"
    assert settled.house_net == sum(-r.net for r in settled.results)


def test_the_player_dealers_hand_earns_no_envy() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "fortune", "5"), (2, "bank", "100")],
        {"seat-1": "2S 2H 6D 7C JD TC 3C", DEALER: "8S 8H 8D 8C QS 4D 5H"},
        {1: "JD TC"},
    )
    assert envy_paid(settled) == {}
    assert results(settled)[("seat-1", "fortune")] == ("lose", 0, 0)


def test_a_table_file_with_an_envy_limit_is_refused_saying_what_changed() -> None:
    from dealerassist.core.tomlfile import read_toml
    from dealerassist.errors import ConfigError
    from dealerassist.tablefiles.tables import table_from_mapping

    data = read_toml(load_table("face-up-pai-gow").path)
    data["limits"] = {**data["limits"], "envy": {"min": "1", "max": "5"}}
    with pytest.raises(ConfigError) as err:
        table_from_mapping(data, "old.toml")
    assert str(err.value).count("\n") == 0
    assert "limits.envy" in str(err.value) and "no stake" in str(err.value)
    assert "envy_min_fortune" in str(err.value)


@pytest.mark.parametrize(
    ("cards", "rule", "paid", "win"),
    [
        ("5S 5H 5D 6C 7S 8H 9D", "best-five", "straight", 1000),
        ("5S 5H 5D 6C 7S 8H 9D", "higher-pay", "three-of-a-kind (with a straight)", 1500),
        ("AS AH JK 2C 3D 4S 5H", "higher-pay", "three-of-a-kind (with a straight)", 1500),
        ("5S 5H 4D 6C 7S 8H 9D", "higher-pay", "straight", 1000),
    ],
)
def test_trips_and_a_straight_are_paid_as_the_table_option_says(
    cards: str, rule: str, paid: str, win: int
) -> None:
    round_ = start(
        [(1, "wager", "25"), (1, "fortune", "5")],
        {"seat-1": cards, DEALER: "KS KH 3H 2D TC JD QH"},
        fortune_trips_and_straight=rule,
    )
    round_.decide(Decision("seat-1", "house-way"))
    fortune = next(r for r in round_.settle().results if r.bet == "fortune")
    assert (fortune.hand, fortune.win) == (paid, win)


def test_an_envy_table_paying_odds_is_refused_as_there_is_no_stake_to_pay_them_on() -> None:
    odds = rules("face-up-pai-gow", limits=LIMITS, paytables={"envy": "fortune-8000"})
    with pytest.raises(RuleViolation) as err:
        new_round(odds)
    assert err.value.rule == "envy-fixed-amounts"


def test_an_unknown_trips_and_straight_rule_is_refused() -> None:
    with pytest.raises(RuleViolation) as err:
        new_round(table(fortune_trips_and_straight="trips"))
    assert err.value.rule == "fortune-trips-and-straight"


def test_progressive_fixed_award_is_paid_and_a_meter_award_is_left_to_the_controller() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "progressive", "1"), (2, "wager", "25"), (2, "progressive", "1")],
        {
            "seat-1": "JS JH JD JC KS 2C 3H",
            "seat-2": "3D 4D 5D 6D 7D 8D 9D",
            DEALER: DEALER_NINES.replace("9S 9H", "TS TH"),
        },
        {1: "KS 3H", 2: "8D 9D"},
    )
    by_seat = {r.seat: r for r in settled.results if r.bet == "progressive"}
    assert (by_seat[1].outcome, by_seat[1].win, by_seat[1].hand) == ("win", 2500, "four-of-a-kind")
    assert (by_seat[2].outcome, by_seat[2].win, by_seat[2].hand) == ("win", 0, "seven-card-straight-flush")
    assert by_seat[2].note == "meter award 100%"


def test_progressive_takes_exactly_its_unit() -> None:
    round_ = new_round(rules("face-up-pai-gow", limits={**LIMITS, "progressive": ("1", "5")}))
    with pytest.raises(RuleViolation) as err:
        round_.place_wager(1, "progressive", cents("2"))
    assert err.value.rule == "progressive-unit"


def test_side_bets_need_a_main_wager() -> None:
    """A side bet without a main wager is refused when placed; the rest of the table closes."""
    round_ = new_round(table())
    round_.place_wager(1, "wager", cents("25"))
    with pytest.raises(RuleViolation) as err:
        round_.place_wager(2, "fortune", cents("5"))
    assert err.value.rule == "side-bet-needs-wager"
    round_.close_betting()
    assert round_.wagers == {1: {"wager": 2500}}


# --- The player-dealer, voids and forfeits ------------------------------------------------------


def test_player_dealer_banks_with_table_stakes_covering_from_the_dealers_left() -> None:
    """A $60 bank covers seat 1's $50 and $10 of seat 2's $50; seat 3 is not covered at all."""
    settled = play(
        [(4, "bank", "60"), (1, "wager", "50"), (2, "wager", "50"), (3, "wager", "50")],
        {
            "seat-1": "AS AH KS KH 7C 3D 2C",
            "seat-2": "AD AC QS QH 7H 3H 2H",
            "seat-3": "8S 8H JC TD 6C 3S 4D",
            DEALER: DEALER_NINES,
        },
        {1: "KS KH", 2: "QS QH", 3: "JC TD"},
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("win", 5000, 5000)
    assert got[("seat-2", "wager")] == ("win", 1000, 5000)
    assert got[("seat-3", "wager")] == ("push", 0, 5000)
    assert got[(DEALER, "bank")] == ("lose", 0, 0)
    assert settled.house_net == 0, "the house does not bank the main wagers of a player-dealer"


def test_player_dealer_places_no_wager_of_their_own() -> None:
    round_ = new_round(table())
    round_.place_wager(4, "bank", cents("100"))
    round_.place_wager(4, "wager", cents("10"))
    round_.place_wager(1, "wager", cents("10"))
    with pytest.raises(RuleViolation) as err:
        round_.close_betting()
    assert err.value.rule == "player-dealer-bets"
    with pytest.raises(RuleViolation) as err:
        round_.place_wager(5, "bank", cents("100"))
    assert err.value.rule == "one-player-dealer"


def test_void_returns_every_wager() -> None:
    round_ = start(
        [(1, "wager", "25"), (1, "fortune", "5")], {"seat-1": "2C 3C 4D 6H 8S TD JH", DEALER: DEALER_NINES}
    )
    voided = round_.void("misdeal")
    assert voided.void
    assert {(r.bet, r.outcome, r.returned) for r in voided.results} == {
        ("wager", "void", 2500),
        ("fortune", "void", 500),
    }


def test_supervisor_forfeit_loses_every_wager_of_the_seat() -> None:
    round_ = start(
        [(1, "wager", "25"), (1, "fortune", "5"), (2, "wager", "10")],
        {"seat-1": "AS AH KS KH 7C 3D 2C", "seat-2": "2H 3S 4D 6H 8S TD JH", DEALER: DEALER_NINES},
    )
    round_.forfeit(1, "showed cards")
    set_front(round_, 2, "8S 6H")
    got = results(round_.settle())
    assert got[("seat-1", "wager")] == ("forfeit", 0, 0)
    assert got[("seat-1", "fortune")] == ("forfeit", 0, 0)


def test_the_example_table_file_loads_and_plays() -> None:
    config = load_table("face-up-pai-gow")
    round_ = new_round(config.rules)
    round_.place_wager(1, "wager", cents("10"))
    round_.close_betting()
    round_.set_dice(10)
    for card in parse_cards("2C 3C 4D 6H 8S TD JH " + DEALER_NINES):
        round_.deal(card)
    round_.decide(Decision("seat-1", "house-way"))
    assert results(round_.settle())[("seat-1", "wager")] == ("lose", 0, 0)


def test_fortune_bet_without_a_qualifying_hand_is_collected() -> None:
    settled = play(
        [(1, "wager", "25"), (1, "fortune", "5")],
        {"seat-1": "AS AH KS KH 7C 3D 2C", DEALER: DEALER_NINES},
        {1: "KS KH"},
    )
    assert results(settled)[("seat-1", "fortune")] == ("lose", 0, 0)


def test_player_dealer_wins_what_the_covered_players_lose() -> None:
    settled = play(
        [(4, "bank", "100"), (1, "wager", "30"), (2, "wager", "20")],
        {"seat-1": "8S 8H JC TD 6C 3D 2C", "seat-2": "AS AH JD TH 6D 3S 4C", DEALER: DEALER_NINES},
        {1: "JC TD", 2: "JD TH"},
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("lose", 0, 0)
    assert got[("seat-2", "wager")] == ("push", 0, 2000)
    assert got[(DEALER, "bank")] == ("win", 3000, 10000)


def test_ace_high_dealer_pushes_a_player_dealers_bank_too() -> None:
    settled = play(
        [(4, "bank", "100"), (1, "wager", "30")],
        {"seat-1": "8S 8H JC TD 6C 3D 2C", DEALER: "AC KD 9H 7S 5D 3C 2D"},
        {1: "JC TD"},
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("push", 0, 3000)
    assert got[(DEALER, "bank")] == ("push", 0, 10000)


def test_empty_spots_may_be_dealt_when_the_deck_allows() -> None:
    """A six-spot table may deal all seven hands (49 cards), the unused ones going unplayed."""
    small = rules("face-up-pai-gow", limits=LIMITS, seats=6, options={"deal_empty_spots": True})
    round_ = new_round(small)
    round_.place_wager(3, "wager", cents("10"))
    round_.close_betting()
    round_.set_dice(8)  # seven places around a six-spot table: 8 comes back to the dealer
    assert round_.order == [DEALER, *(f"seat-{s}" for s in range(1, 7))]
    assert round_.pending_decisions() == []
    with pytest.raises(RuleViolation) as err:
        new_round(table(deal_empty_spots=True))
    assert err.value.rule == "deal-empty-spots"


def test_dice_totals_outside_three_dice_are_refused() -> None:
    round_ = new_round(table())
    round_.place_wager(1, "wager", cents("10"))
    round_.close_betting()
    with pytest.raises(RuleViolation) as err:
        round_.set_dice(19)
    assert err.value.rule == "dice-total"


def test_a_forfeited_hand_earns_no_one_an_envy_bonus() -> None:
    round_ = start(
        [(1, "wager", "25"), (1, "fortune", "5"), (2, "wager", "25")],
        {"seat-1": "2S 2H 6D 7C JD TC 3C", "seat-2": "8S 8H 8D 8C QS 4D 5H", DEALER: DEALER_NINES},
    )
    round_.forfeit(2, "showed cards")
    set_front(round_, 1, "JD TC")
    assert envy_paid(round_.settle()) == {}


def test_a_wheel_is_the_second_highest_straight() -> None:
    """rule-decisions.md: A-2-3-4-5 ranks just below A-K-Q-J-T, above K-Q-J-T-9."""
    settled = play(
        [(1, "wager", "25")],
        {"seat-1": "AS 2H 3D 4C 5S KH QD", DEALER: "KS QH JD TC 9S 7H 6D"},
        {1: "KH QD"},
    )
    assert results(settled)[("seat-1", "wager")] == ("win", 2500, 2500)


def test_the_joker_plays_as_an_ace_unless_it_completes_a_straight() -> None:
    assert fortune_class(parse_cards("JK 2H 3D 4C 5S 9H QD")) == "straight"
    assert fortune_class(parse_cards("JK AH 3D 7C 9S JH QD")) == "pair"
    assert not ace_high_pai_gow(parse_cards("JK 2H 3D 4C 5S 9H QD"))


def test_table_stakes_on_seeded_rounds() -> None:
    """On random rounds with a player-dealer: no more is covered than the bank, coverage runs
    from the dealer's left, each player risks at most the covered part, the house neither wins
    nor loses a main wager, and the bank's result is exactly what the players lost or won."""
    rng = random.Random(7)
    for _ in range(60):
        banker = rng.randint(1, 7)
        players = sorted(rng.sample([s for s in range(1, 8) if s != banker], rng.randint(1, 5)))
        stakes = {s: rng.choice([10, 25, 50, 100]) * 100 for s in players}
        bank = rng.choice([10, 60, 150, 1000]) * 100
        round_ = new_round(table())
        round_.place_wager(banker, "bank", bank)
        for seat, amount in stakes.items():
            round_.place_wager(seat, "wager", amount)
        round_.close_betting()
        round_.set_dice(rng.randint(3, 18))
        for card in rng.sample([*FULL_DECK, JOKER], 7 * (len(players) + 1)):
            round_.deal(card)
        for seat in players:
            round_.decide(Decision(f"seat-{seat}", "house-way"))
        settled = round_.settle()
        mains = {r.seat: r for r in settled.results if r.bet == "wager"}
        covered, left = {}, bank
        for seat in players:
            covered[seat] = min(stakes[seat], left)
            left -= covered[seat]
        for seat in players:
            assert -covered[seat] <= mains[seat].net <= covered[seat]
        bank_result = next(r for r in settled.results if r.bet == "bank")
        assert bank_result.net == -sum(r.net for r in mains.values())
        assert settled.house_net == 0


def test_the_progressive_is_paid_whatever_the_base_game_does() -> None:
    """'Any qualifying Progressive hand will be paid independently of the base game outcome': four
    of a kind loses its wager to a dealer straight flush with aces in front, and still collects the
    fixed $25 progressive and the Fortune."""
    settled = play(
        [(1, "wager", "25"), (1, "fortune", "5"), (1, "progressive", "1")],
        {"seat-1": "4S 4H 4D 4C 2C 3H 5D", DEALER: "TS JS QS KS 9S AH AD"},
        {1: "5D 3H"},
    )
    got = results(settled)
    assert got[("seat-1", "wager")] == ("lose", 0, 0)
    assert got[("seat-1", "progressive")] == ("win", cents("25"), 0)
    assert got[("seat-1", "fortune")] == ("win", 25 * cents("5"), cents("5"))
