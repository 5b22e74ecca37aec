"""Three Card Poker (``rules/three-card-poker.txt``). The table mechanics (betting within limits,
packets, Play-or-fold, void, forfeit) are ``ante_round.AnteRound``'s; this module holds the game.

Rules in the order the text gives them, and where the code keeps each one:

* Pair Plus bets on the player's own three cards: a pair or better wins at the Pair Plus table,
  whatever the dealer holds (``settle_seat``). "Ante bet required to play": a Pair Plus needs
  an Ante unless the table sets ``pair_plus_requires_ante = false`` (``side_bet_needs``: a Pair Plus
  without an Ante is refused when it is placed).
* Ante plays against the dealer. A player who likes the hand makes a Play bet that must equal the
  Ante (``check_play``); otherwise the player folds and the Ante loses.
* Ante Bonus: a player who made Ante and Play is paid the Ante Bonus table on the Ante for a
  straight or better, even when the dealer does not qualify or wins
  (``ante_round.settle_ante_play``).
* Ranking (straight flush, three of a kind, straight, flush, pair, high card; A-2-3 the lowest
  straight) is the three-card evaluator's; hands of equal strength draw.
* The dealer plays with queen high or better (``dealer_qualifies``). Dealer does not play: Ante
  wins 1 to 1, Play pushes. Dealer plays: the better hand wins Ante and Play 1 to 1; a tie pushes
  both (``shared/reference/rule-decisions.md``).
* "It is the player's responsibility to notify the dealer of winning bonus hands": the system
  names every bonus hand itself. "No partnership may exceed the table maximum": one seat's wager
  is one partnership's, held to the table limits.

Dealing (our choice, the text is silent): every seat with a wager gets its three cards face down
in seat order, then the dealer's three face down. ``deal_order = "packets"`` (default, a shuffler
dispensing three-card packets) or ``"rounds"`` (one card at a time around the table, by hand).
Every dealer card must stay hidden until every Ante has been played or folded: an earlier face-up
read is an exposed dealer card.

Options (``[options]`` in the table file): ``pair_plus_requires_ante`` (default true),
``deal_order`` (``"packets"`` or ``"rounds"``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import ClassVar

from dealerassist.errors import RuleViolation
from dealerassist.games.ante_round import ANTE_ROUND_OPTIONS, RankedAnteRound, settle_ante_play
from dealerassist.games.base import DEALER, Game, TableRules, WagerResult, seat_position
from dealerassist.games.option_values import yes_no
from dealerassist.games.settling import lost, pay_by_table
from dealerassist.hands import evaluate_three
from dealerassist.hands.value import THREE_CLASSES, HandValue

QUEEN = 12


def dealer_qualifies(dealer: HandValue) -> bool:
    """The dealer plays with queen high or better (an ace is high)."""
    return dealer.name != "high-card" or dealer.ranks[0] >= QUEEN


# --- Three Card Poker ---------------------------------------------------------------------------


class ThreeCardPokerRound(RankedAnteRound):
    PLAYER_CARDS = 3
    DEALER_CARDS = 3
    PLACEABLE = ("ante", "pair-plus")

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.pair_plus_requires_ante = yes_no(
            "pair_plus_requires_ante", rules.option("pair_plus_requires_ante", True)
        )

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        return {"pair-plus": ("ante", "pair-plus-requires-ante")} if self.pair_plus_requires_ante else {}

    def check_play(self, seat: int, ante: int, amount: int) -> None:
        if amount != ante:
            raise RuleViolation("play-equals-ante", f"seat {seat}: Play must equal the Ante ({ante} cents)")

    def evaluate(self, position: str) -> HandValue:
        return evaluate_three(self.cards[position])

    def settle_seat(self, seat: int) -> list[WagerResult]:
        player = self.evaluate(seat_position(seat))
        bets = self.wagers[seat]
        results = []
        if "ante" in bets:
            results.extend(self._settle_ante_play(seat, player))
        if "pair-plus" in bets:
            results.append(pay_by_table(seat, "pair-plus", bets["pair-plus"], player.name, self.rules))
        return results

    def _settle_ante_play(self, seat: int, player: HandValue) -> list[WagerResult]:
        ante = self.wagers[seat]["ante"]
        if seat in self.folded:
            return [lost(seat, "ante", ante, player.name, "folded")]
        outcome = showdown(player, self.evaluate(DEALER))
        bonus = self.paytable("ante-bonus")
        return settle_ante_play(seat, ante, self.plays[seat], outcome, player.name, bonus, self.rules.chip)


def showdown(player: HandValue, dealer: HandValue) -> str:
    """Outcome of a played hand: ``no-qualify``, ``win``, ``tie`` or ``loss``."""
    if not dealer_qualifies(dealer):
        return "no-qualify"
    if player > dealer:
        return "win"
    return "tie" if player == dealer else "loss"


class ThreeCardPoker(Game):
    slug = "three-card-poker"
    name = "Three Card Poker"
    default_deck = "standard-52"
    bets = ("ante", "play", "pair-plus", "ante-bonus")
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "pair-plus": THREE_CLASSES,
        "ante-bonus": THREE_CLASSES,
    }
    options: ClassVar[Mapping[str, str]] = {
        **ANTE_ROUND_OPTIONS,
        "pair_plus_requires_ante": "a Pair Plus bet needs an Ante at the same seat (true)",
    }

    def new_round(self) -> ThreeCardPokerRound:
        return ThreeCardPokerRound(self.rules)
