"""Four Card Poker scenarios, one rule of rules/four-card-poker.txt (or of rule-decisions.md where
the text is silent) per test. Cards go in packets: five to each betting seat, then the dealer's six
(the last one face up); everyone plays the best four."""

from __future__ import annotations

import random

import pytest
from scenario import assert_consistent, cents, new_round, play, play_out, results, rules, run, shuffled, wager

from dealerassist.core.cards import Card
from dealerassist.errors import RuleViolation
from dealerassist.games.base import DEALER, DealStep, Decision
from dealerassist.tablefiles.tables import load_table

LIMITS = {"ante": ("3", "100"), "aces-up": ("3", "100"), "bad-beat": ("1", "5")}
TABLE = rules("four-card-poker", limits=LIMITS, seats=6)
PLAY = Decision("seat-1", "play")
FOLD = Decision("seat-1", "fold")
# A dealer hand that clashes with none of the player hands below: queen-jack-ten-six high.
DEALER_Q_HIGH = "TC JD QC 3D 4D 6C"


def test_player_wins_ties_on_the_whole_four_card_hand() -> None:
    """'The player wins ties': identical best four cards (K-K-9-5 each) pay Ante and Play 1 to 1."""
    s = play(TABLE, [(1, "ante", "10")], "KS KH 9C 5D 2S  KD KC 9H 5S 3C 2H", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "play")] == ("win", cents("10"), cents("10"))


def test_dealer_hand_beats_player_takes_ante_and_play() -> None:
    """When the dealer's hand beats the player's, Play and Ante lose."""
    s = play(TABLE, [(1, "ante", "10")], "QS QH 9C 5D 2S  KD KC 9H 5S 3C 2H", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "play")] == ("lose", 0, 0)


def test_dealer_always_qualifies() -> None:
    """'The dealer always qualifies': a ten-high dealer still beats an eight-high player."""
    s = play(TABLE, [(1, "ante", "10")], "8S 6H 4C 3D 2S  9H 7D 5C 3S 2C TD", [PLAY])
    assert results(s)[("seat-1", "play")] == ("lose", 0, 0)


def test_play_may_be_one_to_three_times_the_ante() -> None:
    """The Play wager must be from one to three times the Ante; it is paid at its own size."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10")])
    run(round_, "KS KH 9C 5D 2S  TC JD QC 3D 4D 6C")
    for amount in ("9", "31"):
        with pytest.raises(RuleViolation) as refused:
            round_.decide(Decision("seat-1", "play", amount=cents(amount)))
        assert refused.value.rule == "play-one-to-three-times-ante"
    round_.decide(Decision("seat-1", "play", amount=cents("30")))
    got = results(round_.settle())
    assert got[("seat-1", "play")] == ("win", cents("30"), cents("30"))


def test_fold_loses_the_ante_and_aces_up_still_pays() -> None:
    """Player folds: Ante loses. Aces Up is paid regardless of the dealer's hand (and of the fold)."""
    s = play(TABLE, [(1, "ante", "10"), (1, "aces-up", "5")], f"AS AH 9C 5D 2S  {DEALER_Q_HIGH}", [FOLD])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "aces-up")] == ("win", cents("5"), cents("5"))
    assert ("seat-1", "ante-bonus") not in got


@pytest.mark.parametrize(
    ("cards", "odds"),
    [
        ("AS AH 9C 5D 2S", 1),  # pair of aces 1 to 1
        ("9S 9H 5C 5D 2S", 2),  # two pair 2 to 1
        ("5S 6H 7C 8D KS", 5),  # straight 5 to 1
        ("2H 7H JH 9H 3S", 6),  # flush 6 to 1
        ("8S 8H 8D 2C 5S", 7),  # three of a kind 7 to 1
        ("5H 6H 7H 8H KS", 30),  # straight flush 30 to 1
        ("8S 8H 8D 8C 5S", 50),  # four of a kind 50 to 1
        ("KS KH 9C 5D 2S", None),  # a pair below aces loses
    ],
)
def test_aces_up_pays_the_text_table_on_the_best_four(cards: str, odds: int | None) -> None:
    """Aces Up alone (no Ante needed): a pair of aces or better wins at the text's 50/30/7/6/5/2/1."""
    s = play(TABLE, [(1, "aces-up", "10")], f"{cards}  {DEALER_Q_HIGH}")
    expected = ("lose", 0, 0) if odds is None else ("win", odds * cents("10"), cents("10"))
    assert results(s)[("seat-1", "aces-up")] == expected


def test_three_of_a_kind_beats_flush_beats_straight() -> None:
    """Our ranking (the text omits flush): trips > flush > straight."""
    flush_vs_straight = play(TABLE, [(1, "ante", "10")], "2H 7H JH 9H 3S  5S 6D 7C 8S KD 2C", [PLAY])
    assert results(flush_vs_straight)[("seat-1", "ante")][0] == "win"
    trips_vs_flush = play(TABLE, [(1, "ante", "10")], "8S 8C 8D 2C 5S  2H 7H JH 9H 3D 4C", [PLAY])
    assert results(trips_vs_flush)[("seat-1", "ante")][0] == "win"


def test_ace_two_three_four_is_the_lowest_straight_and_nothing_wraps() -> None:
    """'Ace is high except in 4-3-2-Ace': A-2-3-4 is a straight below 2-3-4-5; K-A-2-3 is none."""
    s = play(TABLE, [(1, "ante", "10")], "AS 2H 3C 4D 9S  2D 3S 4H 5C 9D JC", [PLAY])
    assert s.hands == {"seat-1": "straight", DEALER: "straight"}
    assert results(s)[("seat-1", "ante")][0] == "lose"
    wrap = play(TABLE, [(1, "ante", "10")], f"KS AH 2C 3H 8S  {DEALER_Q_HIGH}", [PLAY])
    assert wrap.hands["seat-1"] == "high-card"


@pytest.mark.parametrize(
    ("cards", "odds"),
    [("8S 8H 8D 2C 5S", 2), ("5H 6H 7H 8H KS", 20), ("8S 8H 8D 8C 5S", 25)],
)
def test_automatic_ante_bonus_is_paid_whatever_the_dealer_holds(cards: str, odds: int) -> None:
    """Automatic bonus on the Ante (trips 2, straight flush 20, quads 25) once the player plays,
    even when the dealer's four aces win the Ante and Play."""
    s = play(TABLE, [(1, "ante", "10")], f"{cards}  AS AH AD AC 3H 4C", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")] == ("lose", 0, 0)
    assert got[("seat-1", "ante-bonus")] == ("win", odds * cents("10"), 0)


def test_bad_beat_pays_when_the_players_two_pair_loses() -> None:
    """Bad Beat: the player loses with two pair or better; paid on the hand beaten (two pair 4:1)."""
    s = play(TABLE, [(1, "ante", "10"), (1, "bad-beat", "5")], "9S 9H 5C 5D 2S  TS TH 6C 6D 3H 4C", [PLAY])
    assert results(s)[("seat-1", "bad-beat")] == ("win", cents("20"), cents("5"))


def test_bad_beat_pays_on_the_dealers_beaten_hand() -> None:
    """Bad Beat: the player beats a dealer holding two pair or better; pays on the dealer's flush."""
    s = play(TABLE, [(1, "ante", "10"), (1, "bad-beat", "5")], "8S 8C 8D 2C 5S  2H 7H JH 9H 3D 4C", [PLAY])
    got = results(s)
    assert got[("seat-1", "ante")][0] == "win"
    assert got[("seat-1", "bad-beat")] == ("win", 25 * cents("5"), cents("5"))


def test_bad_beat_trips_beaten_pays_one_hundred_to_one() -> None:
    """Bad Beat table: three of a kind beaten pays 100 to 1."""
    s = play(TABLE, [(1, "ante", "10"), (1, "bad-beat", "5")], "8S 8H 8D 2C 5S  AS AH AD AC 3H 4C", [PLAY])
    assert results(s)[("seat-1", "bad-beat")] == ("win", 100 * cents("5"), cents("5"))


def test_bad_beat_loses_without_a_beaten_two_pair_or_when_folded() -> None:
    """No bad beat: a pair loses to a pair; and a folded player is in no bad beat at all."""
    small = play(
        TABLE, [(1, "ante", "10"), (1, "bad-beat", "5")], "QS QH 9C 5D 2S  KD KC 9H 5S 3C 2H", [PLAY]
    )
    assert results(small)[("seat-1", "bad-beat")] == ("lose", 0, 0)
    folded = play(
        TABLE, [(1, "ante", "10"), (1, "bad-beat", "5")], "9S 9H 5C 5D 2S  TS TH 6C 6D 3H 4C", [FOLD]
    )
    assert results(folded)[("seat-1", "bad-beat")] == ("lose", 0, 0)


def test_bad_beat_is_one_to_five_dollars_and_needs_an_ante() -> None:
    """'The Bad Beat Bonus wager shall be between $1.00 and $5.00'; it is a bet on the Ante's hand."""
    round_ = new_round(TABLE)
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(1, "bad-beat", cents("6"))
    assert refused.value.rule == "table-limits"
    with pytest.raises(RuleViolation) as refused:
        round_.place_wager(1, "bad-beat", cents("5"))
    assert refused.value.rule == "bad-beat-needs-ante"
    round_.place_wager(1, "ante", cents("10"))
    round_.place_wager(1, "bad-beat", cents("5"))


def test_aggregate_payout_is_capped_and_shared_pro_rata() -> None:
    """$25,000 aggregate payout per round per table, Bad Beat included: each winning wager gets its
    pro-rata share of the cap, rounded down to the $1 chip."""
    wagers = [(1, "ante", "10"), (1, "aces-up", "10"), (1, "bad-beat", "5"), (2, "ante", "10")]
    cards = "8S 8H 8D 8C 5S  KS QH 7C 6D 2S  9S 9H 9D 9C 3H 4C"
    s = play(TABLE, wagers, cards, [PLAY, Decision("seat-2", "fold")])
    got = results(s)
    uncapped = {"bad-beat": 25000 * 500, "ante-bonus": 25 * 1000, "aces-up": 50 * 1000}
    total = sum(uncapped.values())
    cap = cents("25000")
    for bet, win in uncapped.items():
        assert got[("seat-1", bet)][1] == (win * cap // total) // 100 * 100
    assert sum(r.win for r in s.results) <= cap
    assert got[("seat-1", "ante")] == ("lose", 0, 0)


def test_small_rounds_are_not_capped() -> None:
    """Under the $25,000 aggregate a win is paid in full (Aces Up four of a kind 50 to 1 on $100)."""
    s = play(TABLE, [(1, "aces-up", "100")], f"8S 8H 8D 8C 5S  {DEALER_Q_HIGH}")
    assert results(s)[("seat-1", "aces-up")] == ("win", cents("5000"), cents("100"))


def test_two_spots_need_double_minimum_aces_up_or_play() -> None:
    """Up to two spots per player, provided Aces Up or Play is at least double the table minimum
    on each spot: $3 Aces Up on a second spot is refused, $6 is fine; an Ante-only spot must Play $6."""
    refused_round = new_round(TABLE)
    refused_round.same_player(1, 2)
    wager_all = [(1, "aces-up", "6"), (2, "aces-up", "3")]
    for seat, bet, dollars in wager_all:
        refused_round.place_wager(seat, bet, cents(dollars))
    with pytest.raises(RuleViolation) as refused:
        refused_round.close_betting()
    assert refused.value.rule == "two-spots-double-minimum"

    round_ = new_round(TABLE)
    round_.same_player(1, 2)
    wager(round_, [(1, "aces-up", "6"), (2, "ante", "3")])
    run(round_, "KS KH 9C 5D 2S  AS AH 9D 5C 3S  TC JD QC 3D 4D 6C")
    with pytest.raises(RuleViolation) as refused:
        round_.decide(Decision("seat-2", "play", amount=cents("3")))
    assert refused.value.rule == "two-spots-double-minimum"
    round_.decide(Decision("seat-2", "play", amount=cents("6")))
    assert round_.complete


def test_a_player_takes_two_spots_at_most() -> None:
    """'Players may play up to two spots': a third spot for the same player is refused."""
    round_ = new_round(TABLE)
    round_.same_player(1, 2)
    with pytest.raises(RuleViolation) as refused:
        round_.same_player(2, 3)
    assert refused.value.rule == "two-spots-at-most"


def test_dealer_gets_six_cards_one_face_up_the_rest_hidden_until_decisions() -> None:
    """Our dealing: player five face down, dealer six with the last face up; the five face-down
    dealer cards must stay hidden until every Ante is played or folded."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10")])
    hidden = {(DEALER, i) for i in range(5)}
    assert round_.must_be_hidden() == hidden
    steps = []
    for card in "KS KH 9C 5D 2S TC JD QC 3D 4D 6C".split():
        steps.append(round_.next_deal())
        round_.deal(Card.parse(card))
    assert steps[:5] == [DealStep("seat-1", i, False) for i in range(5)]
    assert steps[5:] == [DealStep(DEALER, i, i == 5) for i in range(6)]
    assert round_.must_be_hidden() == hidden
    round_.decide(PLAY)
    assert round_.must_be_hidden() == frozenset()


def test_card_counts_are_table_configuration() -> None:
    """The text does not say how many cards are dealt: player and dealer counts are options."""
    table = rules("four-card-poker", limits=LIMITS, options={"player_cards": 4, "dealer_cards": 5})
    s = play(table, [(1, "ante", "10")], "KS KH 9C 5D  KD KC 9H 5S 3C", [PLAY])
    assert results(s)[("seat-1", "ante")][0] == "win"
    bad = rules("four-card-poker", limits=LIMITS, options={"player_cards": 9})
    with pytest.raises(RuleViolation) as refused:
        new_round(bad)
    assert refused.value.rule == "card-counts"


def test_void_returns_everything_and_forfeit_loses_everything() -> None:
    """A void returns every wager including the Play; a supervisor's forfeit loses the seat's wagers."""
    round_ = new_round(TABLE)
    wager(round_, [(1, "ante", "10"), (1, "bad-beat", "5")])
    run(round_, "9S 9H 5C 5D 2S  TS TH 6C 6D 3H 4C", [Decision("seat-1", "play", amount=cents("20"))])
    voided = round_.void("misdeal")
    assert {(r.bet, r.outcome, r.returned) for r in voided.results} == {
        ("ante", "void", cents("10")),
        ("bad-beat", "void", cents("5")),
        ("play", "void", cents("20")),
    }
    forfeited = new_round(TABLE)
    wager(forfeited, [(1, "ante", "10")])
    run(forfeited, "9S 9H 5C 5D 2S  TS TH 6C 6D 3H 4C")
    forfeited.forfeit(1, "cards shown to another player")
    assert results(forfeited.settle()) == {("seat-1", "ante"): ("forfeit", 0, 0)}


def test_example_table_config_loads() -> None:
    """The example table carries the text's $3-$100 wagers and the $1-$5 Bad Beat."""
    config = load_table("four-card-poker")
    assert config.rules.limits["bad-beat"].maximum == cents("5")
    assert config.rules.limits["ante"].minimum == cents("3")
    assert config.rules.paytables["aces-up"].name == "aces-up-50-30-7-6-5-2-1"


@pytest.mark.parametrize("seed", range(40))
def test_random_rounds_settle_every_wager_once_within_the_cap(seed: int) -> None:
    """Seeded random rounds with random Play sizes: every wager settles once, money matches the
    outcome, the round never pays more than the aggregate cap."""
    rng = random.Random(seed)
    round_ = new_round(TABLE)
    placed = set()
    for seat in range(1, 7):
        if rng.random() < 0.7:
            round_.place_wager(seat, "ante", cents(str(rng.randint(3, 30))))
            placed.add((seat, "ante"))
            for bet, dollars in (("aces-up", "10"), ("bad-beat", "5")):
                if rng.random() < 0.5:
                    round_.place_wager(seat, bet, cents(dollars))
                    placed.add((seat, bet))
    if not placed:
        round_.place_wager(1, "ante", cents("3"))
        placed.add((1, "ante"))
    round_.close_betting()

    def choose(position: str, legal: list[str]) -> Decision:
        if rng.random() < 0.3:
            return Decision(position, "fold")
        ante = round_.wagers[int(position.removeprefix("seat-"))]["ante"]
        return Decision(position, "play", amount=rng.randint(ante, 3 * ante))

    play_out(round_, shuffled(TABLE, seed), choose)
    settlement = round_.settle()
    assert_consistent(settlement, TABLE.chip)
    assert sorted(
        (r.seat, r.bet) for r in settlement.results if r.bet not in ("play", "ante-bonus")
    ) == sorted(placed)
    assert sum(r.win for r in settlement.results) <= cents("25000")
    assert all(len(cards) == (6 if p == DEALER else 5) for p, cards in round_.hands().items())


def test_aggregate_cap_is_table_configuration() -> None:
    """The $25,000 aggregate is the default; a table may set another, and a bad value is refused
    before any card is dealt."""
    table = rules("four-card-poker", limits=LIMITS, options={"aggregate_cap": "1000"})
    s = play(table, [(1, "aces-up", "100")], f"8S 8H 8D 8C 5S  {DEALER_Q_HIGH}")
    assert results(s)[("seat-1", "aces-up")] == ("win", cents("1000"), cents("100"))
    with pytest.raises(RuleViolation) as refused:
        new_round(rules("four-card-poker", limits=LIMITS, options={"aggregate_cap": "lots"}))
    assert refused.value.rule == "aggregate-cap"


def test_a_tie_needs_all_four_cards_equal() -> None:
    """'Consider the entire four-card hand when declaring a tie': K-K-9-5 beats K-K-9-4, and
    K-K-9-4 loses to K-K-9-5 even though the player wins true ties."""
    higher = play(TABLE, [(1, "ante", "10")], "KS KH 9C 5D 2S  KD KC 9H 4S 3C 2H", [PLAY])
    assert results(higher)[("seat-1", "ante")][0] == "win"
    lower = play(TABLE, [(1, "ante", "10")], "KS KH 9C 4D 2S  KD KC 9H 5S 3C 2H", [PLAY])
    assert results(lower)[("seat-1", "ante")][0] == "lose"


def test_ante_and_aces_up_may_differ_and_each_is_paid_on_its_own_stake() -> None:
    """'The ANTE and ACES UP wagers do not have to be the same amount': $5 Ante, $100 Aces Up on
    a pair of aces beating the dealer's queen high."""
    bets = [(1, "ante", "5"), (1, "aces-up", "100")]
    got = results(play(TABLE, bets, f"AS AH 9C 5D 2S  {DEALER_Q_HIGH}", [PLAY]))
    assert got[("seat-1", "ante")] == ("win", cents("5"), cents("5"))
    assert got[("seat-1", "play")] == ("win", cents("5"), cents("5"))
    assert got[("seat-1", "aces-up")] == ("win", cents("100"), cents("100"))


def test_a_tie_with_a_dealers_two_pair_is_a_bad_beat_for_the_dealer() -> None:
    """The player wins ties, so a dealer's two pair tied is a beaten hand: Bad Beat pays two pair
    4 to 1 (the published line the text's cut-off table lacks)."""
    bets = [(1, "ante", "10"), (1, "bad-beat", "5")]
    got = results(play(TABLE, bets, "KS KH 9C 9D 2S  KD KC 9H 9S 3C 2H", [PLAY]))
    assert got[("seat-1", "ante")] == ("win", cents("10"), cents("10"))
    assert got[("seat-1", "bad-beat")] == ("win", 4 * cents("5"), cents("5"))
