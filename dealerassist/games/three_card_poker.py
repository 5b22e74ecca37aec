"""Three Card Poker (``rules/three-card-poker.txt``), and the table mechanics other games reuse:
``TableRound`` (betting within limits; also Perfect Pairs Blackjack) and ``AnteRound`` (packets,
Play-or-fold, void, forfeit; also Four Card Poker).

Rules in the order the text gives them, and where the code keeps each one:

* Pair Plus bets on the player's own three cards: a pair or better wins at the Pair Plus table,
  whatever the dealer holds (``settle_seat``). "Ante bet required to play": a Pair Plus needs
  an Ante unless the table sets ``pair_plus_requires_ante = false`` (``check_seat``).
* Ante plays against the dealer. A player who likes the hand makes a Play bet that must equal the
  Ante (``check_play``); otherwise the player folds and the Ante loses.
* Ante Bonus: a player who made Ante and Play is paid the Ante Bonus table on the Ante for a
  straight or better, even when the dealer does not qualify or wins (``settle_ante_play``).
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

from collections.abc import Mapping, Sequence
from typing import ClassVar

from dealerassist.core.cards import Card
from dealerassist.core.decks import RoundCards
from dealerassist.core.money import Odds, Payout, pay_odds
from dealerassist.core.paytables import PayTable
from dealerassist.errors import RuleViolation
from dealerassist.games.base import (
    DEALER,
    DealStep,
    Decision,
    Game,
    GameRound,
    Settlement,
    TableRules,
    WagerResult,
    parse_position,
    seat_position,
)
from dealerassist.hands import evaluate_three
from dealerassist.hands.value import HandValue

EVEN_MONEY = Odds(1, 1)
DEAL_ORDERS = ("packets", "rounds")
QUEEN = 12


# --- Wager results, shared by the ante games -----------------------------------------------------


def won(seat: int, bet: str, stake: int, payout: Payout, hand: str = "", note: str = "") -> WagerResult:
    """A winning wager: the stake comes back with the payout, already rounded to the chip."""
    return WagerResult(
        seat=seat,
        bet=bet,
        stake=stake,
        outcome="win",
        win=payout.amount,
        returned=stake,
        hand=hand,
        remainder=payout.remainder,
        note=note,
        position=seat_position(seat),
    )


def lost(seat: int, bet: str, stake: int, hand: str = "", note: str = "") -> WagerResult:
    return WagerResult(seat, bet, stake, "lose", hand=hand, note=note, position=seat_position(seat))


def pushed(seat: int, bet: str, stake: int, hand: str = "", note: str = "") -> WagerResult:
    return WagerResult(
        seat, bet, stake, "push", returned=stake, hand=hand, note=note, position=seat_position(seat)
    )


def dealer_qualifies(dealer: HandValue) -> bool:
    """The dealer plays with queen high or better (an ace is high)."""
    return dealer.name != "high-card" or dealer.ranks[0] >= QUEEN


# --- Betting at a table (every game in this file and Perfect Pairs Blackjack) ------------------


class TableRound(GameRound):
    """Wagers placed seat by seat while betting is open, each held to its table limits; a game
    lists the bets placed before the deal (``PLACEABLE``) and adds its own checks."""

    PLACEABLE: ClassVar[tuple[str, ...]]

    def __init__(self, rules: TableRules) -> None:
        self.rules = rules
        self.phase = "betting"
        self.wagers: dict[int, dict[str, int]] = {}
        self.forfeits: dict[int, str] = {}

    def place_wager(self, seat: int, bet: str, amount: int) -> None:
        self._require_phase("betting", "wagers-while-betting-open", "betting is closed")
        self._require_seat(seat)
        if bet not in self.PLACEABLE:
            raise RuleViolation("bet-offered", f"{bet!r} is not a wager placed before the deal here")
        if amount == 0:
            self._remove_wager(seat, bet)
            return
        limit = self.rules.limit(bet)
        if not limit.minimum <= amount <= limit.maximum:
            raise RuleViolation(
                "table-limits", f"{bet} of {amount} cents is outside {limit.minimum}..{limit.maximum} cents"
            )
        self.check_wager(seat, bet, amount)
        self.wagers.setdefault(seat, {})[bet] = amount

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        """Game-specific limits of one wager (hook)."""

    def _remove_wager(self, seat: int, bet: str) -> None:
        seat_bets = self.wagers.get(seat, {})
        seat_bets.pop(bet, None)
        if not seat_bets:
            self.wagers.pop(seat, None)

    def _require_seat(self, seat: int) -> None:
        if not 1 <= seat <= self.rules.seats:
            raise RuleViolation("seat-exists", f"no seat {seat} at a {self.rules.seats}-seat table")

    def _require_phase(self, phase: str, rule: str, message: str) -> None:
        if self.phase != phase:
            raise RuleViolation(rule, f"{message} (phase {self.phase!r})")

    def _require_open(self, action: str) -> None:
        if self.phase in ("settled", "void"):
            raise RuleViolation(f"{action}-before-settlement", f"the round is already {self.phase}")


# --- Ante-game mechanics (Three and Four Card Poker) --------------------------------------------


class AnteRound(TableRound):
    """A round of an ante game: wagers, packets of cards to every betting seat and the dealer,
    one Play-or-fold decision per Ante, then settlement. Subclasses give the card counts (class
    defaults, copied per round so a table option can change them), the wagers' rules and the
    settlement of one seat."""

    PLAYER_CARDS: ClassVar[int]
    DEALER_CARDS: ClassVar[int]
    DEALER_UP: ClassVar[frozenset[int]] = frozenset()

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.player_cards = self.PLAYER_CARDS
        self.dealer_cards = self.DEALER_CARDS
        self.dealer_up = self.DEALER_UP
        self.deal_order = rules.option("deal_order", "packets")
        if self.deal_order not in DEAL_ORDERS:
            raise RuleViolation(
                "deal-order", f"deal_order must be 'packets' or 'rounds', got {self.deal_order!r}"
            )
        self.cards: dict[str, list[Card]] = {}
        self.plays: dict[int, int] = {}
        self.folded: set[int] = set()
        self.shoe = RoundCards(rules.deck)
        self._plan: list[DealStep] = []
        self._dealt = 0
        self._settlement: Settlement | None = None

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

    # Dealing --------------------------------------------------------------------------------

    def next_deal(self) -> DealStep | None:
        if self.phase != "dealing":
            return None
        return self._plan[self._dealt]

    def deal(self, card: Card) -> DealStep:
        step = self.next_deal()
        if step is None:
            raise RuleViolation("no-card-expected", f"no card is expected in phase {self.phase!r}")
        self.shoe.take(card)
        self.cards[step.position].append(card)
        self._dealt += 1
        if self._dealt == len(self._plan):
            self.phase = "decisions"
            self._maybe_finish()
        return step

    # Decisions ------------------------------------------------------------------------------

    def pending_decisions(self) -> Sequence[str]:
        if self.phase != "decisions":
            return []
        return [seat_position(s) for s in self._undecided()]

    def legal_actions(self, position: str) -> Sequence[str]:
        return ["fold", "play"] if position in self.pending_decisions() else []

    def decide(self, decision: Decision) -> None:
        self._require_phase("decisions", "decide-after-deal", "no decision is due now")
        seat = self._seat_of(decision.position)
        if seat not in self._undecided():
            raise RuleViolation("one-decision-per-ante", f"{decision.position} has no Ante waiting to play")
        if decision.action == "fold":
            self.folded.add(seat)
        elif decision.action == "play":
            ante = self.wagers[seat]["ante"]
            amount = ante if decision.amount is None else decision.amount
            self.check_play(seat, ante, amount)
            self.plays[seat] = amount
        else:
            raise RuleViolation("ante-actions", f"an Ante plays or folds, not {decision.action!r}")
        self._maybe_finish()

    def check_play(self, seat: int, ante: int, amount: int) -> None:
        """The Play bet's rule (hook)."""
        raise NotImplementedError

    def _undecided(self) -> list[int]:
        return [
            s
            for s in sorted(self.wagers)
            if "ante" in self.wagers[s]
            and s not in self.plays
            and s not in self.folded
            and s not in self.forfeits
        ]

    def _maybe_finish(self) -> None:
        if self.phase == "decisions" and not self._undecided():
            self.phase = "complete"

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        if self.phase in ("complete", "settled", "void"):
            return frozenset()
        return frozenset((DEALER, i) for i in range(self.dealer_cards) if i not in self.dealer_up)

    @property
    def complete(self) -> bool:
        return self.phase in ("complete", "settled")

    # Settlement -----------------------------------------------------------------------------

    def settle(self) -> Settlement:
        if self._settlement is not None and self.phase == "settled":
            return self._settlement
        if self.phase != "complete":
            raise RuleViolation("settle-when-complete", f"the round is not complete (phase {self.phase!r})")
        results: list[WagerResult] = []
        for seat in sorted(self.wagers):
            if seat in self.forfeits:
                results.extend(self._forfeited(seat))
            else:
                results.extend(self.settle_seat(seat))
        self._settlement = Settlement(tuple(self.finish_results(results)), hands=self.hand_names())
        self.phase = "settled"
        return self._settlement

    def settle_seat(self, seat: int) -> list[WagerResult]:
        """Every wager of one seat that was not forfeited (hook)."""
        raise NotImplementedError

    def finish_results(self, results: list[WagerResult]) -> list[WagerResult]:
        """A last pass over the round's results (Four Card Poker's aggregate cap)."""
        return results

    def hand_names(self) -> dict[str, str]:
        return {p: self.evaluate(p).name for p, cards in self.cards.items() if cards}

    def evaluate(self, position: str) -> HandValue:
        """The hand a position plays (hook)."""
        raise NotImplementedError

    def seat_stakes(self, seat: int) -> dict[str, int]:
        stakes = dict(self.wagers[seat])
        if seat in self.plays:
            stakes["play"] = self.plays[seat]
        return stakes

    def _forfeited(self, seat: int) -> list[WagerResult]:
        reason = self.forfeits[seat]
        return [
            WagerResult(seat, bet, stake, "forfeit", note=f"forfeit: {reason}", position=seat_position(seat))
            for bet, stake in self.seat_stakes(seat).items()
        ]

    def void(self, reason: str) -> Settlement:
        self._require_open("void")
        results = [
            WagerResult(seat, bet, stake, "void", returned=stake, note=reason, position=seat_position(seat))
            for seat in sorted(self.wagers)
            for bet, stake in self.seat_stakes(seat).items()
        ]
        self.phase = "void"
        self._settlement = Settlement(tuple(results), void=True, reason=reason)
        return self._settlement

    def forfeit(self, seat: int, reason: str) -> None:
        self._require_open("forfeit")
        if seat not in self.wagers:
            raise RuleViolation("forfeit-needs-wager", f"seat {seat} has no wager to forfeit")
        self.forfeits[seat] = reason
        self._maybe_finish()

    def hands(self) -> Mapping[str, Sequence[Card]]:
        return {p: tuple(c) for p, c in self.cards.items()}

    # Helpers --------------------------------------------------------------------------------

    def _seat_of(self, position: str) -> int:
        try:
            parsed = parse_position(position)
        except ValueError as exc:
            raise RuleViolation("position-exists", str(exc)) from None
        if parsed is None or parsed[1] != 1:
            raise RuleViolation("position-exists", f"{position} does not make decisions in this game")
        return parsed[0]

    def paytable(self, bet: str) -> PayTable:
        try:
            return self.rules.paytables[bet]
        except KeyError:
            raise RuleViolation("bet-offered", f"no pay table is configured for {bet!r}") from None

    def pay_table_bet(self, seat: int, bet: str, stake: int, hand_class: str, hand: str) -> WagerResult:
        """A bet paid on a hand class by its pay table; a class the table does not list loses."""
        award = self.paytable(bet).award(hand_class)
        if award is None:
            return lost(seat, bet, stake, hand)
        return won(seat, bet, stake, award.pay(stake, self.rules.chip), hand)


def deal_plan(
    positions: Sequence[str], counts: Mapping[str, int], order: str, dealer_up: frozenset[int]
) -> list[DealStep]:
    """The shoe's order: whole packets position by position, or one card per position per pass."""
    if order == "packets":
        pairs = [(p, i) for p in positions for i in range(counts[p])]
    else:
        pairs = [(p, i) for i in range(max(counts.values())) for p in positions if i < counts[p]]
    return [DealStep(p, i, p == DEALER and i in dealer_up) for p, i in pairs]


# --- Three Card Poker ---------------------------------------------------------------------------


class ThreeCardPokerRound(AnteRound):
    PLAYER_CARDS = 3
    DEALER_CARDS = 3
    PLACEABLE = ("ante", "pair-plus")

    def check_seat(self, seat: int, bets: Mapping[str, int]) -> None:
        if "pair-plus" in bets and "ante" not in bets and self.rules.option("pair_plus_requires_ante", True):
            raise RuleViolation("pair-plus-requires-ante", f"seat {seat}: a Pair Plus bet needs an Ante")

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
            results.append(self.pay_table_bet(seat, "pair-plus", bets["pair-plus"], player.name, player.name))
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


def settle_ante_play(
    seat: int, ante: int, play: int, outcome: str, hand: str, bonus: PayTable, chip: int
) -> list[WagerResult]:
    """Ante, Play and Ante Bonus of a hand that played, given its ``showdown`` outcome and hand
    class. The analysis prices every outcome through this same function."""
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


class ThreeCardPoker(Game):
    slug = "three-card-poker"
    name = "Three Card Poker"
    default_deck = "standard-52"
    bets = ("ante", "play", "pair-plus", "ante-bonus")

    def new_round(self) -> ThreeCardPokerRound:
        return ThreeCardPokerRound(self.rules)
