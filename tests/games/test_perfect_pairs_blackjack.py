"""Perfect Pairs Blackjack scenarios, one rule of rules/perfect-pairs-blackjack.txt (or of
rule-decisions.md) per test. Deal order with one seat: player card, dealer hole card (face down),
player card, dealer up card; then the player's draws, then the dealer's."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from scenario import assert_consistent, cents, new_round, play, play_out, results, rules, run, shuffled, wager

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.games.base import DEALER, DealStep, Decision
from dealerassist.hands import blackjack_total
from dealerassist.tablefiles.tables import load_table

LIMITS = {"main": ("5", "1000"), "perfect-pairs": ("5", "200")}
TABLE = rules("perfect-pairs-blackjack", limits=LIMITS, seats=7)
BET = [(1, "main", "10")]


def act(action: str, position: str = "seat-1", amount: str | None = None) -> Decision:
    return Decision(position, action, amount=None if amount is None else cents(amount))


STAND, HIT, DOUBLE, SPLIT = act("stand"), act("hit"), act("double"), act("split")


def test_deal_order_follows_the_table_and_the_hole_card_is_first() -> None:
    """Everyone's first card left to right, the dealer's first card face down, second cards, then
    the dealer's second card face up (the text's order)."""
    round_ = new_round(TABLE)
    wager(round_, [(2, "main", "10"), (5, "main", "10")])
    steps = []
    for card in "2S 3S 4S 5S 6S 7S".split():
        steps.append(round_.next_deal())
        round_.deal(Card.parse(card))
    assert steps == [
        DealStep("seat-2", 0, True),
        DealStep("seat-5", 0, True),
        DealStep(DEALER, 0, False),
        DealStep("seat-2", 1, True),
        DealStep("seat-5", 1, True),
        DealStep(DEALER, 1, True),
    ]


def test_hole_card_stays_hidden_until_the_dealer_plays() -> None:
    """The dealer's down card must not be seen until every player hand is finished."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    assert round_.must_be_hidden() == {(DEALER, 0)}
    run(round_, "TS 8D QH 9H")
    assert round_.pending_decisions() == ["seat-1"]
    assert round_.must_be_hidden() == {(DEALER, 0)}
    round_.decide(STAND)
    assert round_.must_be_hidden() == frozenset()
    assert round_.complete


def test_the_hole_card_may_be_the_second_card_instead() -> None:
    """Option hole_card_first = false: the dealer's first card is up and the second hidden."""
    table = rules("perfect-pairs-blackjack", limits=LIMITS, options={"hole_card_first": False})
    round_ = new_round(table)
    wager(round_, BET)
    run(round_, "TS 9H QH 8D")
    assert round_.must_be_hidden() == {(DEALER, 1)}


def test_higher_total_wins_even_money() -> None:
    """Closer to 21 than the dealer wins 1 to 1 (20 against 18)."""
    s = play(TABLE, BET, "TS 8D QH TH", [STAND])
    assert results(s)[("seat-1", "main")] == ("win", cents("10"), cents("10"))
    assert s.hands == {"seat-1": "20", DEALER: "18"}


def test_equal_totals_push() -> None:
    """'If you and the dealer have the same totals, it's a push': the bet is returned."""
    s = play(TABLE, BET, "TS 8D 8H TH", [STAND])
    assert results(s)[("seat-1", "main")] == ("push", 0, cents("10"))


def test_blackjack_pays_three_to_two_rounded_down_to_the_chip() -> None:
    """Blackjack 3:2; on $5 with a $1 chip that is $7 and the 50 cents withheld are recorded."""
    s = play(TABLE, [(1, "main", "5")], "AS 9D KH 7C")
    result = s.results[0]
    assert (result.outcome, result.win, result.returned) == ("win", cents("7"), cents("5"))
    assert result.remainder == Fraction(50)
    half_chips = rules("perfect-pairs-blackjack", limits=LIMITS, chip="0.50")
    assert play(half_chips, [(1, "main", "5")], "AS 9D KH 7C").results[0].win == cents("7.50")


def test_dealer_draws_to_sixteen() -> None:
    """The dealer must draw to 16: 16 takes a card (a five makes 21 and beats the player's 18)."""
    s = play(TABLE, BET, "TS 6D 8H TH 5C", [STAND])
    assert results(s)[("seat-1", "main")] == ("lose", 0, 0)
    assert s.hands[DEALER] == "21"


def test_dealer_stands_on_soft_seventeen() -> None:
    """The dealer stands on soft 17 (ace-six), so a player 18 wins; also a drawn soft 17 stands."""
    s = play(TABLE, BET, "TS AD 8H 6H", [STAND])
    assert s.hands[DEALER] == "soft 17"
    assert results(s)[("seat-1", "main")][0] == "win"
    drawn = play(TABLE, BET, "TS 2D 8H 4H AC", [STAND])
    assert drawn.hands[DEALER] == "soft 17"
    assert results(drawn)[("seat-1", "main")][0] == "win"


def test_dealer_bust_pays_every_standing_hand_but_a_player_bust_loses_first() -> None:
    """Dealer busts: hands still in win. A player who busts loses even if the dealer busts too."""
    bets = [(1, "main", "10"), (2, "main", "10")]
    s = play(TABLE, bets, "TS 5C 6D 7H 6H TD KC TC", [HIT, act("stand", "seat-2")])
    got = results(s)
    assert got[("seat-1", "main")] == ("lose", 0, 0)
    assert got[("seat-2", "main")] == ("win", cents("10"), cents("10"))
    assert s.hands == {"seat-1": "bust", "seat-2": "11", DEALER: "bust"}


def test_ten_up_dealer_peeks_and_blackjack_ends_the_round() -> None:
    """Upcard 10: the dealer checks for blackjack; with it, players lose at once, a player
    blackjack pushes."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "main", "10"), (2, "main", "10")])
    run(round_, "TS AS AD 9H KS KH")
    assert round_.complete
    assert round_.pending_decisions() == []
    got = results(round_.settle())
    assert got[("seat-1", "main")] == ("lose", 0, 0)
    assert got[("seat-2", "main")] == ("push", 0, cents("10"))


def test_insurance_is_half_the_bet_and_pays_two_to_one() -> None:
    """Ace up: insurance (half the bet) pays 2 to 1 when the dealer has blackjack; the bet loses."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "TS KD 9H AH")
    assert round_.phase == "insurance"
    assert round_.legal_actions("seat-1") == ["insurance", "decline"]
    with pytest.raises(RuleViolation) as refused:
        round_.decide(act("insurance", amount="10"))
    assert refused.value.rule == "insurance-half-bet"
    round_.decide(act("insurance"))
    got = results(round_.settle())
    assert got[("seat-1", "insurance")] == ("win", cents("10"), cents("5"))
    assert got[("seat-1", "main")] == ("lose", 0, 0)


def test_insurance_loses_without_dealer_blackjack_and_play_goes_on() -> None:
    """No dealer blackjack: the insurance bet is lost and the hand is played out as normal."""
    s = play(TABLE, BET, "TS 7D 9H AH", [act("insurance"), STAND])
    got = results(s)
    assert got[("seat-1", "insurance")] == ("lose", 0, 0)
    assert got[("seat-1", "main")] == ("win", cents("10"), cents("10"))


def test_even_money_is_paid_one_to_one_whatever_the_dealer_has() -> None:
    """A blackjack against an ace may take even money: 1 to 1 at once, the 3:2 given up."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "AS KD KH AH")
    assert round_.legal_actions("seat-1") == ["even-money", "decline"]
    round_.decide(act("even-money"))
    assert results(round_.settle())[("seat-1", "main")] == ("win", cents("10"), cents("10"))
    no_dealer_bj = play(TABLE, BET, "AS 7D KH AH", [act("even-money")])
    assert results(no_dealer_bj)[("seat-1", "main")] == ("win", cents("10"), cents("10"))


def test_declined_even_money_pushes_a_dealer_blackjack_or_wins_three_to_two() -> None:
    """A blackjack that declines even money pushes a dealer blackjack, else is paid 3 to 2."""
    both = play(TABLE, BET, "AS KD KH AH", [act("decline")])
    assert results(both)[("seat-1", "main")] == ("push", 0, cents("10"))
    alone = play(TABLE, BET, "AS 7D KH AH", [act("decline")])
    assert results(alone)[("seat-1", "main")] == ("win", cents("15"), cents("10"))


def test_double_down_doubles_the_bet_for_exactly_one_card() -> None:
    """Double on any two cards: the bet is doubled and exactly one more card comes."""
    s = play(TABLE, BET, "6S TD 5H 7H KC", [DOUBLE])
    got = results(s)
    assert got[("seat-1", "main")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "double")] == ("win", cents("10"), cents("10"))
    assert s.hands["seat-1"] == "21"


def test_double_is_the_bet_again_and_only_on_two_cards() -> None:
    """'The original bet is automatically doubled' and 'only on your first two cards'."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "2S TD 3H 7H")
    with pytest.raises(RuleViolation) as refused:
        round_.decide(act("double", amount="5"))
    assert refused.value.rule == "double-equals-bet"
    run(round_, "4C", [HIT])
    with pytest.raises(RuleViolation) as refused:
        round_.decide(DOUBLE)
    assert refused.value.rule == "double-on-two-cards"


def test_split_plays_two_hands_with_double_after_split() -> None:
    """A pair splits into two hands, each with the original bet; doubling after a split is allowed.
    The second hand is seat-1.2 and gets its second card after the first hand is finished."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "8S TD 8H 7H", [SPLIT])
    assert round_.next_deal() == DealStep("seat-1", 1, True)
    run(round_, "3C", [DOUBLE])
    assert round_.next_deal() == DealStep("seat-1", 2, True)
    run(round_, "KC")
    assert round_.next_deal() == DealStep("seat-1.2", 1, True)
    run(round_, "9D", [act("stand", "seat-1.2")])
    s = round_.settle()
    got = results(s)
    assert got[("seat-1", "main")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "double")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1.2", "main")] == ("push", 0, cents("10"))
    assert s.hands == {"seat-1": "21", "seat-1.2": "17", DEALER: "17"}


def test_no_resplit() -> None:
    """A hand can only be split once: a third eight does not make a third hand."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "8S TD 8H 7H 8C", [SPLIT])
    assert "split" not in round_.legal_actions("seat-1")
    with pytest.raises(RuleViolation) as refused:
        round_.decide(SPLIT)
    assert refused.value.rule == "split-once-same-value"


def test_split_by_value_jack_and_queen_but_not_king_and_nine() -> None:
    """Two cards of the same value split, a jack and a queen included."""
    round_ = new_round(TABLE)
    wager(round_, BET)
    run(round_, "JS 7D QH 9H")
    assert "split" in round_.legal_actions("seat-1")
    other = new_round(TABLE)
    wager(other, BET)
    run(other, "KS 7D 9C 9H")
    assert "split" not in other.legal_actions("seat-1")


def test_split_aces_take_one_card_each_and_21_is_not_blackjack() -> None:
    """Split aces get one more card each; a two-card 21 after a split pays even money, not 3:2."""
    s = play(TABLE, BET, "AS 9D AH 8H KC 5D", [SPLIT])
    got = results(s)
    assert got[("seat-1", "main")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1.2", "main")] == ("lose", 0, 0)
    assert s.hands["seat-1"] == "21"


@pytest.mark.parametrize(
    ("first", "second", "expected"),
    [
        ("8S", "8S", ("win", 25 * 500, 500)),  # perfect pair 25 to 1
        ("8H", "8D", ("win", 12 * 500, 500)),  # coloured pair 12 to 1
        ("8S", "8D", ("win", 6 * 500, 500)),  # mixed pair 6 to 1
        ("KS", "QS", ("lose", 0, 0)),  # same value, different faces: no pair
    ],
)
def test_perfect_pairs_pays_on_the_first_two_cards(first: str, second: str, expected: tuple) -> None:
    """Perfect Pairs: perfect 25, coloured 12, mixed 6; paid regardless of the hand's outcome."""
    s = play(TABLE, [(1, "main", "10"), (1, "perfect-pairs", "5")], f"{first} TD {second} TH", [STAND])
    assert results(s)[("seat-1", "perfect-pairs")] == expected


def test_perfect_pairs_ignores_a_third_card_and_survives_a_split() -> None:
    """Only the first two cards are judged: a pair made with the third card does not count; a split
    pair still wins its Perfect Pairs."""
    third = play(TABLE, [(1, "main", "10"), (1, "perfect-pairs", "5")], "4S TD 9H 8H 4D", [HIT, STAND])
    assert results(third)[("seat-1", "perfect-pairs")] == ("lose", 0, 0)
    split = play(
        TABLE,
        [(1, "main", "10"), (1, "perfect-pairs", "5")],
        "8S TD 8S 8H TC TD",
        [SPLIT, STAND, act("stand", "seat-1.2")],
    )
    assert results(split)[("seat-1", "perfect-pairs")] == ("win", cents("125"), cents("5"))


def test_perfect_pairs_needs_a_main_bet() -> None:
    """'You cannot place a Perfect Pairs bet only': the wager itself is refused, the rest of the
    table bets and closes, and a main bet cannot be taken down from under a Perfect Pairs bet."""
    round_ = new_round(TABLE)
    round_.place_wager(1, "main", cents("10"))
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(3, "perfect-pairs", cents("5"))
    assert refused.value.rule == "perfect-pairs-needs-main-bet"
    round_.place_wager(1, "perfect-pairs", cents("5"))
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(1, "main", 0)
    assert refused.value.rule == "perfect-pairs-needs-main-bet"
    round_.close_betting()
    assert round_.phase == "dealing" and round_.wagers == {1: {"main": 1000, "perfect-pairs": 500}}


def test_perfect_pairs_limit_is_table_minimum_to_a_fifth_of_the_maximum() -> None:
    """Perfect Pairs from the table minimum to 20% of the table maximum, whatever the table file
    says for it."""
    loose = rules("perfect-pairs-blackjack", limits={"main": ("5", "1000"), "perfect-pairs": ("1", "500")})
    round_ = new_round(loose)
    round_.place_wager(1, "main", cents("10"))
    for amount in ("4", "201"):
        with pytest.raises(RuleViolation) as refused:
            round_.place_wager(1, "perfect-pairs", cents(amount))
        assert refused.value.rule == "perfect-pairs-limit"
    round_.place_wager(1, "perfect-pairs", cents("200"))


def test_actions_out_of_turn_are_refused() -> None:
    """Hands act in seat order; insurance exists only against an ace up."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "main", "10"), (2, "main", "10")])
    run(round_, "TS 5C 6D 7H 6H TD")
    assert round_.pending_decisions() == ["seat-1"]
    with pytest.raises(RuleViolation) as refused:
        round_.decide(act("stand", "seat-2"))
    assert refused.value.rule == "decide-in-turn"
    with pytest.raises(RuleViolation) as refused:
        round_.decide(act("insurance"))
    assert refused.value.rule == "insurance-with-ace-up"


def test_void_returns_doubles_and_insurance_too() -> None:
    """'System malfunction voids all pays and play': every wager comes back, doubles and insurance too."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "main", "10"), (1, "perfect-pairs", "5")])
    run(round_, "6S 7D 5H AH", [act("insurance"), DOUBLE])
    voided = round_.void("exposed hole card")
    assert {(r.bet, r.returned) for r in voided.results} == {
        ("main", 1000),
        ("double", 1000),
        ("insurance", 500),
        ("perfect-pairs", 500),
    }
    assert voided.house_net == 0


def test_void_before_the_deal_returns_every_wager_placed() -> None:
    """A misdeal while betting is open voids the round: every wager placed so far comes back."""
    round_ = new_round(TABLE)
    round_.place_wager(1, "main", cents("10"))
    round_.place_wager(2, "main", cents("10"))
    round_.place_wager(2, "perfect-pairs", cents("5"))
    voided = round_.void("card dealt while betting was open")
    assert {(r.seat, r.bet, r.returned) for r in voided.results if r.returned} == {
        (1, "main", 1000),
        (2, "main", 1000),
        (2, "perfect-pairs", 500),
    }
    assert voided.house_net == 0


def test_forfeit_loses_every_wager_and_skips_the_seat() -> None:
    """A supervisor's forfeit loses all the seat's wagers and play moves on to the next seat."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "main", "10"), (1, "perfect-pairs", "5"), (2, "main", "10")])
    run(round_, "8S 9C 8S 6D TH TD")
    round_.forfeit(1, "marked cards")
    assert round_.pending_decisions() == ["seat-2"]
    run(round_, "", [act("stand", "seat-2")])
    got = results(round_.settle())
    assert got[("seat-1", "main")] == ("forfeit", 0, 0)
    assert got[("seat-1", "perfect-pairs")] == ("forfeit", 0, 0)
    assert got[("seat-2", "main")][0] == "win"


def test_example_table_config_loads() -> None:
    """The example table: six-deck shoe, Perfect Pairs up to 20% of the table maximum."""
    config = load_table("perfect-pairs-blackjack")
    assert config.rules.deck.size == 312
    assert config.rules.limits["perfect-pairs"].maximum == config.rules.limits["main"].maximum // 5


@pytest.mark.parametrize("seed", range(60))
def test_random_rounds_follow_the_dealer_rule_and_settle_every_hand(seed: int) -> None:
    """Seeded random rounds with random legal actions: the round always completes, the dealer
    stops at the first total of 17 or more (soft 17 included) when a hand is live, and every hand,
    double, insurance and Perfect Pairs bet settles exactly once."""
    rng = random.Random(seed)
    round_ = new_round(TABLE)
    seats = [s for s in range(1, 8) if rng.random() < 0.6] or [4]
    for seat in seats:
        round_.place_wager(seat, "main", cents(str(rng.randint(5, 100))))
        if rng.random() < 0.5:
            round_.place_wager(seat, "perfect-pairs", cents("5"))
    round_.close_betting()
    shoe = shuffled(TABLE, seed)
    play_out(round_, shoe, lambda pos, legal: Decision(pos, rng.choice(list(legal))))
    assert len(shoe) + sum(len(c) for c in round_.hands().values()) == 312
    settlement = round_.settle()
    assert_consistent(settlement, TABLE.chip)

    dealer = list(round_.hands()[DEALER])
    live = [p for p, name in settlement.hands.items() if p != DEALER and name not in ("bust", "blackjack")]
    if live and not round_.dealer_blackjack:
        assert blackjack_total(dealer).total >= 17
        if len(dealer) > 2:
            assert blackjack_total(dealer[:-1]).total < 17
    mains = [r.position for r in settlement.results if r.bet == "main"]
    assert sorted(mains) == sorted(p for p in round_.hands() if p != DEALER)
    per_seat = {bet: sorted(r.seat for r in settlement.results if r.bet == bet) for bet in ("perfect-pairs",)}
    assert per_seat["perfect-pairs"] == sorted(s for s in seats if "perfect-pairs" in round_.wagers[s])


def test_a_blackjack_takes_no_decision() -> None:
    """'Double downs cannot be applied to a Blackjack hand': a natural is finished as dealt, and the
    hand beside it is the one asked to act."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "main", "10"), (2, "main", "10")])
    run(round_, "AS 9C 7D KH 5D TC")
    assert round_.pending_decisions() == ["seat-2"]
    assert round_.legal_actions("seat-1") == []


def test_with_no_live_hand_the_dealer_only_turns_the_hole_card() -> None:
    """Our decision: when every hand has busted the dealer draws nothing (12 stays 12)."""
    s = play(TABLE, BET, "TS 5C 6D 7H KC", [HIT])
    assert s.hands == {"seat-1": "bust", DEALER: "12"}
    assert results(s)[("seat-1", "main")] == ("lose", 0, 0)


def test_blackjack_odds_are_table_configuration() -> None:
    """Blackjack pays 3:2 by default; a table may set other odds (6:5 here), read before the deal."""
    six_five = rules("perfect-pairs-blackjack", limits=LIMITS, options={"blackjack_pays": "6 to 5"})
    assert play(six_five, BET, "AS 9D KH 7C").results[0].win == cents("12")
    with pytest.raises(RuleViolation) as refused:
        new_round(rules("perfect-pairs-blackjack", limits=LIMITS, options={"blackjack_pays": "lots"}))
    assert refused.value.rule == "blackjack-pays"


def test_hit_as_often_as_desired_until_standing() -> None:
    """'You can hit as often as desired until you select stand or you bust.'"""
    s = play(TABLE, BET, "2S TD 3H 7H 2C 4D 3C", [HIT, HIT, HIT, STAND])
    assert s.hands == {"seat-1": "14", DEALER: "17"}
    assert results(s)[("seat-1", "main")] == ("lose", 0, 0)


def test_split_twenty_one_pushes_a_dealer_twenty_one() -> None:
    """A two-card 21 after a split is no blackjack: against a dealer's 21 it pushes."""
    s = play(TABLE, BET, "KS 6D KH 5H AC 9C TD", [SPLIT, act("stand", "seat-1.2")])
    got = results(s)
    assert s.hands["seat-1"] == "21"
    assert s.hands[DEALER] == "21"
    assert got[("seat-1", "main")] == ("push", 0, cents("10"))
    assert got[("seat-1.2", "main")] == ("lose", 0, 0)


def test_perfect_pairs_is_paid_whatever_happens_to_the_hand() -> None:
    """'Winning Perfect Pairs bets are paid regardless of the regular play outcome': a pair that
    busts, and a pair beaten by the dealer's blackjack at the peek, still collect their side bet."""
    bets = [(1, "main", "10"), (1, "perfect-pairs", "5")]
    busted = play(TABLE, bets, "8S 9D 8S 7C TH", [HIT])
    assert results(busted)[("seat-1", "main")] == ("lose", 0, 0)
    assert results(busted)[("seat-1", "perfect-pairs")] == ("win", 25 * cents("5"), cents("5"))
    beaten = play(TABLE, bets, "8S AS 8H KD")
    assert results(beaten)[("seat-1", "main")] == ("lose", 0, 0)
    assert results(beaten)[("seat-1", "perfect-pairs")] == ("win", 6 * cents("5"), cents("5"))
