"""Three Card Poker scenarios, one rule of rules/three-card-poker.txt (or of our decisions where it
is silent) per test. Cards are dealt in packets: each betting seat's three, then the dealer's."""

from __future__ import annotations

import random

import pytest
from scenario import assert_consistent, cents, new_round, play, play_out, results, rules, run, shuffled, wager

from dealerassist.core.cards import Card
from dealerassist.errors import DeckError, RuleViolation
from dealerassist.games.base import DEALER, DealStep, Decision
from dealerassist.tablefiles.tables import load_table

LIMITS = {"ante": ("5", "500"), "pair-plus": ("5", "100")}
TABLE = rules("three-card-poker", limits=LIMITS, seats=6)
PLAY = Decision("seat-1", "play")
FOLD = Decision("seat-1", "fold")


def test_pair_plus_pays_a_pair_even_when_the_dealer_wins_the_ante() -> None:
    """Pair Plus: a pair or better wins on the player's own hand, whatever the dealer holds."""
    s = play(TABLE, [(1, "ante", "10"), (1, "pair-plus", "10")], "4S 4H 9C  KD KC 2S", [PLAY])
    got = results(s)
    assert got[("seat-1", "pair-plus")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "play")] == ("lose", 0, 0)


@pytest.mark.parametrize(
    ("cards", "odds"),
    [
        ("9S 9H 2C", 1),  # pair 1 to 1
        ("2H 7H JH", 3),  # flush 3 to 1
        ("5C 6D 7S", 6),  # straight 6 to 1
        ("8S 8H 8D", 30),  # three of a kind 30 to 1
        ("QC KC AC", 40),  # straight flush 40 to 1
    ],
)
def test_pair_plus_pays_the_text_table(cards: str, odds: int) -> None:
    """Pair Plus pays 1/3/6/30/40 for pair, flush, straight, trips, straight flush (text table)."""
    s = play(TABLE, [(1, "ante", "5"), (1, "pair-plus", "10")], f"{cards} 2D 3S 5H", [PLAY])
    assert results(s)[("seat-1", "pair-plus")] == ("win", odds * cents("10"), cents("10"))


def test_pair_plus_high_card_loses() -> None:
    """Pair Plus: less than a pair loses the bet."""
    s = play(TABLE, [(1, "ante", "5"), (1, "pair-plus", "10")], "AS JD 4C 2D 3S 7H", [PLAY])
    assert results(s)[("seat-1", "pair-plus")] == ("lose", 0, 0)


def test_pair_plus_original_table_pays_flush_four_to_one() -> None:
    """The original US Pair Plus table 1/4/6/30/40 ships as a second variant."""
    table = rules("three-card-poker", limits=LIMITS, paytables={"pair-plus": "pair-plus-1-4-6-30-40"})
    s = play(table, [(1, "ante", "5"), (1, "pair-plus", "10")], "2H 7H JH 2D 3S 5H", [PLAY])
    assert results(s)[("seat-1", "pair-plus")] == ("win", cents("40"), cents("10"))


def test_pair_plus_requires_an_ante_by_default() -> None:
    """'Ante bet required to play' under Pair Plus: a lone Pair Plus is refused when it is placed,
    so the rest of the table closes betting; the Ante cannot be taken down under a Pair Plus."""
    round_ = new_round(TABLE)
    round_.place_wager(1, "ante", cents("10"))
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(2, "pair-plus", cents("10"))
    assert refused.value.rule == "pair-plus-requires-ante"
    round_.place_wager(1, "pair-plus", cents("5"))
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(1, "ante", 0)
    assert refused.value.rule == "pair-plus-requires-ante"
    round_.close_betting()
    assert round_.phase == "dealing" and round_.wagers == {1: {"ante": 1000, "pair-plus": 500}}


def test_pair_plus_alone_when_the_table_allows_it() -> None:
    """With pair_plus_requires_ante = false a Pair Plus stands alone and needs no Play decision."""
    table = rules("three-card-poker", limits=LIMITS, options={"pair_plus_requires_ante": False})
    s = play(table, [(2, "pair-plus", "10")], "8S 8H 8D 2D 3S 5H")
    assert results(s) == {("seat-2", "pair-plus"): ("win", cents("300"), cents("10"))}


def test_play_must_equal_the_ante() -> None:
    """'Play MUST EQUAL Ante': any other Play amount is refused; no amount means the Ante."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10")])
    run(round_, "AS KS QS 2D 3S 5H")
    with pytest.raises(RuleViolation) as refused:
        round_.decide(Decision("seat-1", "play", amount=cents("20")))
    assert refused.value.rule == "play-equals-ante"
    round_.decide(Decision("seat-1", "play", amount=cents("10")))
    assert round_.complete


def test_fold_loses_the_ante_but_pair_plus_still_settles() -> None:
    """A player who does not like the hand folds and loses the Ante; Pair Plus is judged on the
    hand alone, so it is still paid."""
    s = play(TABLE, [(1, "ante", "10"), (1, "pair-plus", "5")], "3S 3H 9C  AD KC 2S", [FOLD])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert ("seat-1", "play") not in got
    assert got[("seat-1", "pair-plus")] == ("win", cents("5"), cents("5"))


def test_dealer_without_queen_high_does_not_play() -> None:
    """Dealer plays with queen or better; when the dealer does not play, Ante 1 to 1 and Play push."""
    s = play(TABLE, [(1, "ante", "10")], "2S 4H 6C  JD 9C 2D", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "play")] == ("push", 0, cents("10"))


def test_dealer_queen_high_plays_and_the_better_hand_wins() -> None:
    """Queen high qualifies; when the dealer plays, the better hand wins Ante and Play 1 to 1."""
    s = play(TABLE, [(1, "ante", "10")], "KS 4H 2C  QD 9C 2D", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "play")] == ("win", cents("10"), cents("10"))


def test_dealer_qualified_and_better_takes_ante_and_play() -> None:
    """When the dealer plays and beats the player, Ante and Play lose."""
    s = play(TABLE, [(1, "ante", "10")], "QS 4H 2C  QD 9C 2D", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "play")] == ("lose", 0, 0)


def test_identical_hands_push_when_the_dealer_plays() -> None:
    """Hands of identical rank are a draw; with the dealer qualified Ante and Play push."""
    s = play(TABLE, [(1, "ante", "10")], "KS 9H 4C  KD 9C 4S", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("push", 0, cents("10"))
    assert got[("seat-1", "play")] == ("push", 0, cents("10"))


def test_equal_class_compares_the_best_card_first() -> None:
    """Hands of the same class: the one with the best ranking card wins (K-9-2 beats K-8-7)."""
    s = play(TABLE, [(1, "ante", "10")], "KS 9H 2C  KD 8C 7S", [PLAY])
    assert results(s)[("seat-1", "ante")][0] == "win"


def test_ante_bonus_pays_a_straight_even_when_the_dealer_wins() -> None:
    """Ante Bonus: a straight is paid 1 to 1 on the Ante even when the dealer's hand beats it."""
    s = play(TABLE, [(1, "ante", "10")], "5C 6D 7S  8H 8D 8C", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "ante-bonus")] == ("win", cents("10"), 0)


def test_ante_bonus_pays_trips_when_the_dealer_does_not_qualify() -> None:
    """Ante Bonus: three of a kind 4 to 1 even when the dealer does not play."""
    s = play(TABLE, [(1, "ante", "10")], "8S 8H 8D  JD 9C 2D", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "play")] == ("push", 0, cents("10"))
    assert got[("seat-1", "ante-bonus")] == ("win", cents("40"), 0)


def test_ante_bonus_straight_flush_five_to_one_and_never_on_a_fold() -> None:
    """Ante Bonus needs the Ante and Play wagers: a straight flush pays 5 to 1, a folded one nothing."""
    played = play(TABLE, [(1, "ante", "10")], "QC KC AC  JD 9C 2D", [PLAY])
    assert results(played)[("seat-1", "ante-bonus")] == ("win", cents("50"), 0)
    folded = play(TABLE, [(1, "ante", "10")], "QC KC AC  JD 9C 2D", [FOLD])
    assert ("seat-1", "ante-bonus") not in results(folded)


def test_ace_two_three_is_the_lowest_straight() -> None:
    """A-2-3 is the lowest straight: it loses to 2-3-4."""
    s = play(TABLE, [(1, "ante", "10")], "AS 2H 3C  2D 3D 4S", [PLAY])
    assert results(s)[("seat-1", "ante")][0] == "lose"
    assert s.hands == {"seat-1": "straight", DEALER: "straight"}


def test_straight_beats_flush_in_three_cards() -> None:
    """In three cards a straight outranks a flush."""
    s = play(TABLE, [(1, "ante", "10")], "4C 5D 6S  2H 9H KH", [PLAY])
    assert results(s)[("seat-1", "ante")][0] == "win"


def test_dealer_cards_stay_hidden_until_every_ante_is_decided() -> None:
    """Our decision: dealer cards are dealt face down and turned after every Play decision."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10"), (3, "ante", "10")])
    hidden = {(DEALER, 0), (DEALER, 1), (DEALER, 2)}
    assert round_.must_be_hidden() == hidden
    run(round_, "2S 4H 6C  KS 4D 2C  JD 9C 2D")
    assert round_.pending_decisions() == ["seat-1", "seat-3"]
    round_.decide(Decision("seat-3", "fold"))
    assert round_.must_be_hidden() == hidden
    round_.decide(PLAY)
    assert round_.must_be_hidden() == frozenset()


def test_cards_go_in_packets_or_in_rounds() -> None:
    """Our dealing order: packets of three seat by seat then the dealer, or one card per pass."""
    packets = new_round(TABLE)
    wager(packets, [(2, "ante", "5"), (4, "ante", "5")])
    assert packets.next_deal() == DealStep("seat-2", 0, False)
    by_hand = new_round(rules("three-card-poker", limits=LIMITS, options={"deal_order": "rounds"}))
    wager(by_hand, [(2, "ante", "5"), (4, "ante", "5")])
    order = []
    for card in "2S 3S 4S 5S 6S 7S 8S 9S TS".split():
        order.append(by_hand.next_deal().position)
        by_hand.deal(Card.parse(card))
    assert order == ["seat-2", "seat-4", DEALER] * 3
    assert by_hand.next_deal() is None


def test_wagers_outside_the_table_limits_are_refused() -> None:
    """Table limits: an Ante below the minimum or above the maximum is refused."""
    round_ = new_round(TABLE)
    for amount in ("4", "501"):
        with pytest.raises(RuleViolation) as refused:
            round_.place_wager(1, "ante", cents(amount))
        assert refused.value.rule == "table-limits"


def test_no_wager_after_betting_closes_and_no_unknown_bet() -> None:
    """Wagers go on the Ante and Pair Plus spots only, and only while betting is open."""
    round_ = new_round(TABLE)
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(1, "bad-beat", cents("5"))
    assert refused.value.rule == "bet-offered"
    wager(round_, [(1, "ante", "5")])
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(2, "ante", cents("5"))
    assert refused.value.rule == "wagers-while-betting-open"


def test_a_wager_of_zero_takes_it_back() -> None:
    """A wager changed to zero is taken back; a round with no wager deals nothing."""
    round_ = new_round(TABLE)
    round_.place_wager(1, "ante", cents("5"))
    round_.place_wager(1, "ante", 0)
    with pytest.raises(RuleViolation) as refused:
        round_.close_betting()
    assert refused.value.rule == "no-wagers"


def test_only_play_or_fold_and_only_once() -> None:
    """After looking, an Ante either plays or folds, once; other actions are refused."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "5"), (2, "ante", "5"), (2, "pair-plus", "5")])
    run(round_, "2S 4H 6C  KS 4D 2C  JD 9C 2D")
    with pytest.raises(RuleViolation) as refused:
        round_.decide(Decision("seat-1", "hit"))
    assert refused.value.rule == "ante-actions"
    round_.decide(PLAY)
    with pytest.raises(RuleViolation) as refused:
        round_.decide(FOLD)
    assert refused.value.rule == "one-decision-per-ante"
    assert round_.legal_actions("seat-2") == ["fold", "play"]
    assert round_.legal_actions("seat-1") == []


def test_a_card_the_deck_cannot_hold_is_a_misdeal() -> None:
    """A second ace of spades from one deck is refused (misdeal material)."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "5")])
    round_.deal(Card.parse("AS"))
    with pytest.raises(DeckError):
        round_.deal(Card.parse("AS"))


def test_void_returns_every_wager_including_play() -> None:
    """A void (exposed dealer card, misdeal) returns every wager of the round."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10"), (1, "pair-plus", "5")])
    run(round_, "2S 4H 6C  JD 9C 2D", [PLAY])
    settlement = round_.void("exposed dealer card")
    assert settlement.void
    assert {(r.bet, r.outcome, r.returned) for r in settlement.results} == {
        ("ante", "void", cents("10")),
        ("play", "void", cents("10")),
        ("pair-plus", "void", cents("5")),
    }
    assert settlement.house_net == 0


def test_supervisor_forfeit_loses_every_wager_of_the_seat() -> None:
    """A supervisor's forfeit: the seat's wagers lose, even a winning Pair Plus; others settle."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10"), (1, "pair-plus", "5"), (2, "ante", "10")])
    run(round_, "8S 8H 8D  KS 4D 2C  JD 9C 2D", [Decision("seat-2", "play")])
    assert not round_.complete
    round_.forfeit(1, "player showed cards")
    assert round_.complete
    got = results(round_.settle())
    assert got[("seat-1", "ante")] == ("forfeit", 0, 0)
    assert got[("seat-1", "pair-plus")] == ("forfeit", 0, 0)
    assert got[("seat-2", "ante")] == ("win", cents("10"), cents("10"))


def test_example_table_config_loads_with_the_text_tables() -> None:
    """The shipped example table uses the text's pay tables (Pair Plus 1/3/6/30/40, Ante Bonus 1/4/5)."""
    config = load_table("three-card-poker")
    assert config.rules.paytables["pair-plus"].name == "pair-plus-1-3-6-30-40"
    assert config.rules.paytables["ante-bonus"].name == "ante-bonus-1-4-5"
    assert config.rules.limits["ante"].minimum == cents("5")


def test_a_refused_wager_leaves_nothing_behind() -> None:
    """A wager refused by the limits must not leave an empty seat that would be dealt in."""
    round_ = new_round(TABLE)
    with pytest.raises(RuleViolation):
        round_.place_wager(4, "ante", cents("1"))
    round_.place_wager(1, "ante", cents("5"))
    round_.close_betting()
    assert round_.next_deal() == DealStep("seat-1", 0, False)
    assert "seat-4" not in round_.hands()


@pytest.mark.parametrize("seed", range(40))
def test_random_rounds_settle_every_wager_once(seed: int) -> None:
    """Seeded random rounds: each wager placed (and each Play made) is settled exactly once, the
    money matches the outcome, the dealer's cards are free to show once every Ante is decided."""
    rng = random.Random(seed)
    round_ = new_round(TABLE)
    placed = set()
    for seat in range(1, 7):
        if rng.random() < 0.7:
            round_.place_wager(seat, "ante", cents(str(rng.randint(5, 50))))
            placed.add((seat, "ante"))
            if rng.random() < 0.5:
                round_.place_wager(seat, "pair-plus", cents("5"))
                placed.add((seat, "pair-plus"))
    if not placed:
        round_.place_wager(1, "ante", cents("5"))
        placed.add((1, "ante"))
    round_.close_betting()
    play_out(round_, shuffled(TABLE, seed), lambda pos, legal: Decision(pos, rng.choice(list(legal))))
    assert round_.must_be_hidden() == frozenset()
    settlement = round_.settle()
    assert_consistent(settlement, TABLE.chip)
    settled = [(r.seat, r.bet) for r in settlement.results if r.bet not in ("play", "ante-bonus")]
    assert sorted(settled) == sorted(placed)
    plays = {r.seat for r in settlement.results if r.bet == "play"}
    assert plays == {s for s, b in placed if b == "ante"} - {
        r.seat for r in settlement.results if r.bet == "ante" and r.note == "folded"
    }


def test_an_unknown_deal_order_is_refused_before_the_round() -> None:
    with pytest.raises(RuleViolation) as refused:
        new_round(rules("three-card-poker", limits=LIMITS, options={"deal_order": "sideways"}))
    assert refused.value.rule == "deal-order"
