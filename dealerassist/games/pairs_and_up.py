"""Pairs & Up Poker (``rules/pairs-and-up-poker.txt``; ``shared/reference/rule-decisions.md``).

The table mechanics (betting within limits, dealing, one Play-or-fold per Ante, void, forfeit) are
``ante_round.AnteRound``'s; this module holds what differs. The rules in the order the text gives
them, and where the code keeps each one:

* Deck: 52 cards of aces, twos, threes and fours with duplicate faces (``pairs-and-up-52``); a
  card the composition cannot supply once more is a misdeal (``deal``).
* Wagers: an Ante at every playing spot; Double Match and Progressive are optional and need an
  Ante (option ``side_bets_require_ante``, default true).
* Dealing: two cards face down to each spot with an Ante and two to the dealer, one at a time
  around the table twice (``deal_order = "rounds"``; ``"packets"`` gives each spot both cards at
  once). The dealer's cards are community cards.
* The dealer then turns one card; the other must stay hidden until every Play is set: its
  exposure before then voids the round (``must_be_hidden``).
* Each player folds (the Ante loses, the cards stay in the fold area and still settle Double Match
  and Progressive) or plays, choosing exactly one of the eight hands (``Decision(action="play",
  choice=HAND)``). The Play bet is twice the Ante (``play_ratio``, set by the casino).
* Result (``play_outcome``): four cards, player's two and dealer's two, are exactly one hand under
  the table's precedence (rarer four-card hands first, three of a kind last; computed from the
  deck or listed in ``precedence``). The chosen hand wins when the cards are that hand; a three of
  a kind chosen and made of aces pushes; any other hand, higher or lower, loses Ante and Play.
* Ante and Play are coupled: a win pays both at the chosen hand's odds (the ``play`` pay table).
* Double Match (``double_match_class``): the player's two ranks equal the dealer's two ranks; the
  super jackpot needs both to hold the 3 and 4 of diamonds. Progressive (``progressive_class``):
  the four cards are a flush; paid by flush type, meter shares left to the progressive controller
  (``settling.progressive_result``).
* A player showing cards may be forfeited by a supervisor (``forfeit``): every wager of the seat
  is lost. A misdeal or an exposed dealer card voids all hands (``void``).

Options (``[options]``): ``play_ratio`` (2), ``side_bets_require_ante`` (true), ``deal_order``
("rounds" | "packets"), ``precedence`` (list of the eight hands, strongest first; default from the
table's deck), ``progressive_unit`` ("1").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import ClassVar, Final

from dealerassist.core.cards import ACE, Card
from dealerassist.core.money import parse_amount
from dealerassist.errors import RuleViolation
from dealerassist.games.ante_round import ANTE_ROUND_OPTIONS, AnteRound
from dealerassist.games.base import (
    DEALER,
    Decision,
    Game,
    TableRules,
    WagerResult,
    seat_position,
)
from dealerassist.games.option_values import yes_no
from dealerassist.games.settling import pay_by_table, progressive_result, wager_result
from dealerassist.hands import (
    PAIRS_AND_UP_PATTERNS,
    pairs_and_up_hand,
    pairs_and_up_made,
    pairs_and_up_precedence,
)

HANDS: Final = PAIRS_AND_UP_PATTERNS
FLUSHES: Final = frozenset({"flush", "straight-flush", "two-pair-flush", "four-aces-flush"})
SUPER_JACKPOT_CARDS: Final = frozenset({Card(3, "D"), Card(4, "D")})


# --- What four cards pay ------------------------------------------------------------------------


def play_outcome(choice: str, four: Sequence[Card], precedence: Sequence[str]) -> str:
    """``win``, ``push`` or ``lose`` for a played hand: it wins only when the four cards are
    exactly the chosen hand; three of a kind chosen and made of aces pushes."""
    made = pairs_and_up_hand(four, precedence)
    if made != choice:
        return "lose"
    if choice == "three-of-a-kind" and three_aces(four):
        return "push"
    return "win"


def three_aces(four: Sequence[Card]) -> bool:
    return sum(1 for c in four if c.rank == ACE) == 3


def double_match_class(player: Sequence[Card], dealer: Sequence[Card]) -> str | None:
    """The Double Match class, or None when the two ranks do not match.

    ``super-jackpot``: both hold the 3 and 4 of diamonds; ``matched-aces``: A-A against A-A;
    ``matched-pair``: the same low pair on both sides; ``matched-ace-kicker``: an ace and the same
    low card on both sides; ``matched-low``: the same two different low ranks.
    """
    mine = sorted(c.rank for c in player)
    theirs = sorted(c.rank for c in dealer)
    if mine != theirs:
        return None
    if set(player) == SUPER_JACKPOT_CARDS and set(dealer) == SUPER_JACKPOT_CARDS:
        return "super-jackpot"
    if mine[0] == mine[1]:
        return "matched-aces" if mine[0] == ACE else "matched-pair"
    return "matched-ace-kicker" if ACE in mine else "matched-low"


def progressive_class(four: Sequence[Card], precedence: Sequence[str]) -> str | None:
    """The flush type the four cards make (the strongest under ``precedence``), or None."""
    made = pairs_and_up_made(four) & FLUSHES
    return next((name for name in precedence if name in made), None)


# --- The game -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PairsAndUpOptions:
    play_ratio: int
    side_bets_require_ante: bool
    precedence: tuple[str, ...]
    progressive_unit: int

    @classmethod
    def from_rules(cls, rules: TableRules) -> PairsAndUpOptions:
        ratio = rules.option("play_ratio", 2)
        if isinstance(ratio, bool) or not isinstance(ratio, int) or ratio < 1:
            raise RuleViolation("play-ratio", f"play_ratio must be a whole number >= 1, got {ratio!r}")
        listed = rules.option("precedence", None)
        precedence = tuple(listed) if listed is not None else pairs_and_up_precedence(rules.deck)
        if sorted(precedence) != sorted(HANDS):
            raise RuleViolation("precedence", f"precedence must list each of {', '.join(HANDS)} once")
        return cls(
            play_ratio=ratio,
            side_bets_require_ante=yes_no(
                "side_bets_require_ante", rules.option("side_bets_require_ante", True)
            ),
            precedence=precedence,
            progressive_unit=parse_amount(str(rules.option("progressive_unit", "1"))),
        )


class PairsAndUp(Game):
    slug: ClassVar[str] = "pairs-and-up"
    name: ClassVar[str] = "Pairs & Up Poker"
    default_deck: ClassVar[str] = "pairs-and-up-52"
    bets: ClassVar[tuple[str, ...]] = ("ante", "play", "double-match", "progressive")
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "play": HANDS,
        "double-match": (
            "super-jackpot",
            "matched-aces",
            "matched-pair",
            "matched-ace-kicker",
            "matched-low",
        ),
        "progressive": tuple(sorted(FLUSHES)),
    }
    options: ClassVar[Mapping[str, str]] = {
        **ANTE_ROUND_OPTIONS,
        "play_ratio": "the Play bet is this many times the Ante (2)",
        "side_bets_require_ante": "Double Match and Progressive need an Ante at the same seat (true)",
        "precedence": "the eight hands strongest first (default: counted on the table's deck)",
        "progressive_unit": "the one stake the Progressive bet takes, dollars ('1')",
    }

    def new_round(self) -> PairsAndUpRound:
        return PairsAndUpRound(self.rules)


class PairsAndUpRound(AnteRound):
    """An ante round of two cards to every spot and two community cards to the dealer, none face
    up; a Play names the one hand it bets on. Phases: ``betting`` -> ``dealing`` -> ``decisions``
    -> ``complete`` -> ``settled`` (or ``void`` at any time before settlement)."""

    PLAYER_CARDS = 2
    DEALER_CARDS = 2
    DEAL_ORDER = "rounds"
    ONE_DECISION_RULE = "hand-set-is-final"
    PLACEABLE = ("ante", "double-match", "progressive")

    def __init__(self, rules: TableRules) -> None:
        self.options = PairsAndUpOptions.from_rules(rules)
        super().__init__(rules)
        self.choices: dict[int, str] = {}

    # Betting ---------------------------------------------------------------------------------

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        if bet != "ante":
            self.paytable(bet)
        if bet == "progressive":
            self.check_unit(bet, amount, self.options.progressive_unit)

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        if not self.options.side_bets_require_ante:
            return {}
        return {bet: ("ante", "side-bet-needs-ante") for bet in self.PLACEABLE if bet != "ante"}

    # Decisions -------------------------------------------------------------------------------

    def decide(self, decision: Decision) -> None:
        """Fold, or play naming exactly one of the eight hands; a hand once set is final."""
        seat = self.deciding_seat(decision.position, self.ONE_DECISION_RULE)
        if decision.action == "play" and decision.choice not in HANDS:
            raise RuleViolation(
                "choose-one-hand", f"a Play names one of {', '.join(HANDS)}; got {decision.choice!r}"
            )
        super().decide(decision)
        if decision.action == "play" and decision.choice is not None:
            self.choices[seat] = decision.choice

    def default_play(self, ante: int) -> int:
        return ante * self.options.play_ratio

    def check_play(self, seat: int, ante: int, amount: int) -> None:
        required = self.default_play(ante)
        if amount != required:
            raise RuleViolation(
                "play-ratio",
                f"seat {seat}: Play must be {self.options.play_ratio}x the Ante ({required} cents)",
            )
        if "play" in self.rules.limits:
            self.check_limit("play", amount)

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        """Both dealer cards while dealing; the second until every Play is set; then none."""
        if self.phase in ("betting", "dealing"):
            return frozenset((DEALER, i) for i in range(self.DEALER_CARDS))
        if self.phase == "decisions":
            return frozenset({(DEALER, 1)})
        return frozenset()

    # Settlement ------------------------------------------------------------------------------

    def hand_names(self) -> dict[str, str]:
        """The hand each spot's four cards are under the table's precedence."""
        return {
            seat_position(s): pairs_and_up_hand(self.four_cards(s), self.options.precedence) or "no hand"
            for s in sorted(self.wagers)
        }

    def four_cards(self, seat: int) -> list[Card]:
        return [*self.cards[seat_position(seat)], *self.cards[DEALER]]

    def settle_seat(self, seat: int) -> list[WagerResult]:
        four = self.four_cards(seat)
        bets = self.wagers[seat]
        made = pairs_and_up_hand(four, self.options.precedence) or ""
        results: list[WagerResult] = []
        if "ante" in bets:
            if seat in self.folded:
                results.append(wager_result(seat, "ante", bets["ante"], "lose", hand=made, note="folded"))
            else:
                play, choice = self.plays[seat], self.choices[seat]
                results.extend(settle_chosen_hand(seat, bets["ante"], play, choice, four, self))
        if "double-match" in bets:
            found = double_match_class(self.cards[seat_position(seat)], self.cards[DEALER]) or ""
            results.append(pay_by_table(seat, "double-match", bets["double-match"], found, self.rules))
        if "progressive" in bets:
            flush = progressive_class(four, self.options.precedence) or ""
            results.append(progressive_result(seat, bets["progressive"], flush, self.paytable("progressive")))
        return results


def settle_chosen_hand(
    seat: int, ante: int, play: int, choice: str, four: Sequence[Card], round_: PairsAndUpRound
) -> list[WagerResult]:
    """Ante and Play of a played hand: coupled, both paid the chosen hand's odds on a win."""
    outcome = play_outcome(choice, four, round_.options.precedence)
    note = f"chose {choice}"
    if outcome == "push":
        return [
            wager_result(seat, "ante", ante, "push", returned=ante, hand=choice, note="three aces push"),
            wager_result(seat, "play", play, "push", returned=play, hand=choice, note="three aces push"),
        ]
    if outcome == "lose":
        made = pairs_and_up_hand(four, round_.options.precedence) or "no hand"
        return [
            wager_result(seat, "ante", ante, "lose", hand=made, note=note),
            wager_result(seat, "play", play, "lose", hand=made, note=note),
        ]
    award = round_.paytable("play").award(choice)
    if award is None:
        raise RuleViolation("play-pays", f"the Play pay table has no line for {choice!r}")
    chip = round_.rules.chip
    ante_pay, play_pay = award.pay(ante, chip), award.pay(play, chip)
    return [
        wager_result(seat, "ante", ante, "win", ante_pay.amount, ante, choice, ante_pay.remainder, note),
        wager_result(seat, "play", play, "win", play_pay.amount, play, choice, play_pay.remainder, note),
    ]
