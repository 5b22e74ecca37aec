"""The ante games' round (Three and Four Card Poker): packets of cards to every betting seat and
the dealer, one Play-or-fold decision per Ante, then each seat settled by the game. Also the one
Ante/Play/Ante Bonus schedule both games pay (``settle_ante_play``), which the analyses price too."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping
from typing import ClassVar, Final

from dealerassist.core.money import pay_odds
from dealerassist.core.paytables import PayTable
from dealerassist.errors import RuleViolation
from dealerassist.games.base import (
    DEALER,
    Decision,
    Settlement,
    TableRules,
    WagerResult,
    seat_position,
)
from dealerassist.games.settling import EVEN_MONEY, lost, pushed, won
from dealerassist.games.table_round import TableRound, deal_plan
from dealerassist.hands.value import HandValue

DEAL_ORDERS: Final = ("packets", "rounds")
# The options ``AnteRound`` itself reads; each ante game declares them beside its own.
ANTE_ROUND_OPTIONS: Final[Mapping[str, str]] = {
    "deal_order": "'packets' (each hand's cards at once) or 'rounds' (one card at a time around the table)",
}


class AnteRound(TableRound):
    """Subclasses give the card counts (class defaults, copied per round so a table option can
    change them), the wagers' rules (``check_seat``, ``check_play``), how a position's hand is
    valued (``evaluate``) and the settlement of one seat (``settle_seat``)."""

    PLAYER_CARDS: ClassVar[int]
    DEALER_CARDS: ClassVar[int]
    DEALER_UP: ClassVar[frozenset[int]] = frozenset()
    DEAL_ORDER: ClassVar[str] = "packets"
    ONE_DECISION_RULE: ClassVar[str] = "one-decision-per-ante"
    ACTIONS = ("fold", "play")

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.player_cards = self.PLAYER_CARDS
        self.dealer_cards = self.DEALER_CARDS
        self.dealer_up = self.DEALER_UP
        self.deal_order = rules.option("deal_order", self.DEAL_ORDER)
        if self.deal_order not in DEAL_ORDERS:
            raise RuleViolation(
                "deal-order", f"deal_order must be 'packets' or 'rounds', got {self.deal_order!r}"
            )
        self.plays: dict[int, int] = {}
        self.folded: set[int] = set()

    # Betting --------------------------------------------------------------------------------

    def check_seat(self, seat: int, bets: Mapping[str, int]) -> None:
        """Prerequisites among one seat's wagers, checked when betting closes (hook)."""

    def close_betting(self) -> None:
        self._require_phase("betting", "wagers-while-betting-open", "betting is already closed")
        if not self.wagers:
            raise RuleViolation("no-wagers", "no seat has a wager: there is nothing to deal")
        for seat in sorted(self.wagers):
            self.check_seat(seat, self.wagers[seat])
        positions = [seat_position(s) for s in sorted(self.wagers)] + [DEALER]
        counts = {p: self.player_cards for p in positions} | {DEALER: self.dealer_cards}
        self._plan = deal_plan(positions, counts, self.deal_order, self.dealer_up)
        self.cards = {p: [] for p in positions}
        self.phase = "dealing"

    # Decisions ------------------------------------------------------------------------------

    def decide(self, decision: Decision) -> None:
        seat = self.deciding_seat(decision.position, self.ONE_DECISION_RULE)
        if decision.action == "fold":
            self.folded.add(seat)
        elif decision.action == "play":
            ante = self.wagers[seat]["ante"]
            amount = self.default_play(ante) if decision.amount is None else decision.amount
            self.check_play(seat, ante, amount)
            self.plays[seat] = amount
        else:
            raise RuleViolation("ante-actions", f"an Ante plays or folds, not {decision.action!r}")
        self._maybe_complete()

    def default_play(self, ante: int) -> int:
        """The Play bet when the decision names no amount (hook): the Ante again."""
        return ante

    @abstractmethod
    def check_play(self, seat: int, ante: int, amount: int) -> None:
        """The Play bet's rule (hook)."""

    def waiting(self) -> list[int]:
        return [
            s
            for s in sorted(self.wagers)
            if "ante" in self.wagers[s]
            and s not in self.plays
            and s not in self.folded
            and s not in self.forfeits
        ]

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        if self.phase in ("complete", "settled", "void"):
            return frozenset()
        return frozenset((DEALER, i) for i in range(self.dealer_cards) if i not in self.dealer_up)

    # Settlement -----------------------------------------------------------------------------

    def settlement(self) -> Settlement:
        results: list[WagerResult] = []
        for seat in sorted(self.wagers):
            results.extend(self.forfeited(seat) if seat in self.forfeits else self.settle_seat(seat))
        return Settlement(tuple(self.finish_results(results)), hands=self.hand_names())

    @abstractmethod
    def settle_seat(self, seat: int) -> list[WagerResult]:
        """Every wager of one seat that was not forfeited (hook)."""

    def finish_results(self, results: list[WagerResult]) -> list[WagerResult]:
        """A last pass over the round's results (Four Card Poker's aggregate cap)."""
        return results

    @abstractmethod
    def hand_names(self) -> dict[str, str]:
        """The hand each position holds, by name, for the dealer's screen and the log (hook)."""

    def seat_stakes(self, seat: int) -> dict[str, int]:
        stakes = dict(self.wagers[seat])
        if seat in self.plays:
            stakes["play"] = self.plays[seat]
        return stakes


class RankedAnteRound(AnteRound):
    """An ante game in which every position plays its own ranked hand (Three and Four Card Poker,
    unlike Pairs & Up whose four cards are shared with the dealer)."""

    def hand_names(self) -> dict[str, str]:
        return {p: self.evaluate(p).name for p, cards in self.cards.items() if cards}

    @abstractmethod
    def evaluate(self, position: str) -> HandValue:
        """The hand a position plays (hook)."""


def settle_ante_play(
    seat: int, ante: int, play: int, outcome: str, hand: str, bonus: PayTable, chip: int
) -> list[WagerResult]:
    """Ante, Play and Ante Bonus of a hand that played, given the showdown's outcome (``win``,
    ``tie``, ``loss``, or ``no-qualify`` when the dealer does not play) and the hand's class. The
    Ante Bonus is paid on the Ante whatever the dealer holds."""
    if outcome == "no-qualify":
        results = [
            won(seat, "ante", ante, pay_odds(ante, EVEN_MONEY, chip), hand, "dealer does not qualify"),
            pushed(seat, "play", play, hand, "dealer does not qualify"),
        ]
    elif outcome == "win":
        results = [
            won(seat, "ante", ante, pay_odds(ante, EVEN_MONEY, chip), hand),
            won(seat, "play", play, pay_odds(play, EVEN_MONEY, chip), hand),
        ]
    elif outcome == "tie":
        results = [pushed(seat, "ante", ante, hand, "tie"), pushed(seat, "play", play, hand, "tie")]
    else:
        results = [lost(seat, "ante", ante, hand), lost(seat, "play", play, hand)]
    award = bonus.award(hand)
    if award is not None:
        results.append(won(seat, "ante-bonus", 0, award.pay(ante, chip), hand, "paid on the Ante"))
    return results
