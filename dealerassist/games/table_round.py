"""What every round at a table does the same way, whatever the game: wagers placed seat by seat
while betting is open and held to the table limits, cards dealt by a plan fixed when betting
closes, one decision per seat in seat order, phase and seat checks that name the rule they keep, a
supervisor's forfeit and void, and settling once (a second ``settle()`` returns the same
settlement). A game's round subclasses ``TableRound`` and keeps only its own rules; a game whose
dealing or turns differ (blackjack's draws) overrides those parts."""

from __future__ import annotations

from abc import abstractmethod
from collections.abc import Mapping, Sequence
from typing import ClassVar

from dealerassist.core.cards import Card
from dealerassist.core.decks import RoundCards
from dealerassist.core.paytables import PayTable
from dealerassist.errors import RuleViolation
from dealerassist.games.base import (
    DEALER,
    DealStep,
    GameRound,
    Settlement,
    TableRules,
    WagerResult,
    parse_position,
    seat_position,
)
from dealerassist.games.settling import paytable, wager_result


class TableRound(GameRound):
    """A game lists the bets placed before the deal (``PLACEABLE``) and adds its own checks
    (``check_wager``); sets ``self._plan`` when betting closes; names its decision phase, actions
    and the seats still to decide (``DECISION_PHASE``, ``ACTIONS``, ``waiting``); and settles the
    complete round in ``settlement``."""

    PLACEABLE: ClassVar[tuple[str, ...]]
    DECISION_PHASE: ClassVar[str] = "decisions"
    ACTIONS: ClassVar[tuple[str, ...]] = ()

    def __init__(self, rules: TableRules) -> None:
        self.rules = rules
        self.phase = "betting"
        self.wagers: dict[int, dict[str, int]] = {}
        self.forfeits: dict[int, str] = {}
        self.cards: dict[str, list[Card]] = {}
        self.shoe = RoundCards(rules.deck)
        self._plan: list[DealStep] = []
        self._dealt = 0
        self._settlement: Settlement | None = None

    # Betting --------------------------------------------------------------------------------

    def place_wager(self, seat: int, bet: str, amount: int) -> None:
        self._require_phase("betting", "wagers-while-betting-open", "betting is closed")
        self._require_seat(seat)
        if bet not in self.PLACEABLE:
            raise RuleViolation("bet-offered", f"{bet!r} is not a wager placed before the deal here")
        if amount == 0:
            left = {b: a for b, a in self.wagers.get(seat, {}).items() if b != bet}
            self._check_needs(seat, left, f"take the {{side}} bet down before the {bet}")
            self._remove_wager(seat, bet)
            return
        self.check_limit(bet, amount)
        self.check_wager(seat, bet, amount)
        self._check_needs(seat, {**self.wagers.get(seat, {}), bet: amount}, "place the {needed} bet first")
        self.wagers.setdefault(seat, {})[bet] = amount

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        """Game-specific limits of one wager (hook)."""

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        """Side bet -> (the bet it needs at the same seat, the rule that says so) (hook). Checked
        on every wager, so a side bet without its bet is refused at once, and its bet cannot be
        taken down under it, rather than holding the whole table up when betting closes."""
        return {}

    def _check_needs(self, seat: int, bets: Mapping[str, int], advice: str) -> None:
        for side, (needed, rule) in self.side_bet_needs().items():
            if side in bets and needed not in bets:
                what = advice.format(side=side, needed=needed)
                raise RuleViolation(
                    rule, f"seat {seat}: the {side} bet needs the seat's {needed} bet ({what})"
                )

    def check_limit(self, bet: str, amount: int) -> None:
        limit = self.rules.limit(bet)
        if not limit.minimum <= amount <= limit.maximum:
            raise RuleViolation(
                "table-limits", f"{bet} of {amount} cents is outside {limit.minimum}..{limit.maximum} cents"
            )

    def check_unit(self, bet: str, amount: int, unit: int) -> None:
        """A bet that takes one fixed amount (a progressive's unit)."""
        if amount != unit:
            raise RuleViolation(f"{bet}-unit", f"the {bet} takes exactly {unit} cents")

    def paytable(self, bet: str) -> PayTable:
        return paytable(self.rules, bet)

    def _remove_wager(self, seat: int, bet: str) -> None:
        seat_bets = self.wagers.get(seat, {})
        seat_bets.pop(bet, None)
        if not seat_bets:
            self.wagers.pop(seat, None)

    # Dealing by a plan fixed when betting closes ---------------------------------------------

    def next_deal(self) -> DealStep | None:
        if self.phase != "dealing":
            return None
        return self._plan[self._dealt]

    def deal(self, card: Card) -> DealStep:
        """The card goes where the plan says; the last one opens the decisions."""
        step = self.next_deal()
        if step is None:
            raise RuleViolation("no-card-expected", f"no card is expected in phase {self.phase!r}")
        self.shoe.take(card)
        self.cards[step.position].append(card)
        self._dealt += 1
        if self._dealt == len(self._plan):
            self.phase = self.DECISION_PHASE
            self._maybe_complete()
        return step

    # Decisions: one per seat, in seat order ------------------------------------------------

    def waiting(self) -> list[int]:
        """Seats whose one decision is still due, in the order they act (hook)."""
        return []

    def pending_decisions(self) -> Sequence[str]:
        if self.phase != self.DECISION_PHASE:
            return []
        return [seat_position(s) for s in self.waiting()]

    def legal_actions(self, position: str) -> Sequence[str]:
        return list(self.ACTIONS) if position in self.pending_decisions() else []

    def deciding_seat(self, position: str, once_rule: str) -> int:
        """The seat deciding at ``position``, when its one decision is due now; a second decision
        breaks ``once_rule``."""
        self._require_phase(self.DECISION_PHASE, "decide-after-deal", "no decision is due now")
        seat = self._seat_of(position)
        if seat not in self.waiting():
            raise RuleViolation(once_rule, f"{position} has no decision waiting")
        return seat

    # Completion and settlement --------------------------------------------------------------

    @property
    def complete(self) -> bool:
        return self.phase in ("complete", "settled")

    def settle(self) -> Settlement:
        if self.phase == "settled" and self._settlement is not None:
            return self._settlement
        self._require_phase("complete", "settle-when-complete", "the round is not complete")
        self._settlement = self.settlement()
        self.phase = "settled"
        return self._settlement

    @abstractmethod
    def settlement(self) -> Settlement:
        """Every wager of the complete round, settled (hook; ``settle`` calls it once)."""

    def seat_stakes(self, seat: int) -> dict[str, int]:
        """Everything a seat has at risk, wagers made after the deal included (hook)."""
        return dict(self.wagers[seat])

    def forfeited(self, seat: int) -> list[WagerResult]:
        """A forfeited seat loses every stake; the reason is in each result's note."""
        reason = self.forfeits[seat]
        return [
            wager_result(seat, bet, stake, "forfeit", note=f"forfeit: {reason}")
            for bet, stake in self.seat_stakes(seat).items()
        ]

    def void_results(self, reason: str) -> list[WagerResult]:
        """Every stake of the round returned (hook for games whose stakes sit on several hands)."""
        return [
            wager_result(seat, bet, stake, "void", returned=stake, note=reason)
            for seat in sorted(self.wagers)
            for bet, stake in self.seat_stakes(seat).items()
        ]

    def void(self, reason: str) -> Settlement:
        self._require_open("void")
        self._settlement = Settlement(tuple(self.void_results(reason)), void=True, reason=reason)
        self.phase = "void"
        return self._settlement

    def forfeit(self, seat: int, reason: str) -> None:
        self._require_open("forfeit")
        if seat not in self.wagers:
            raise RuleViolation("forfeit-needs-wager", f"seat {seat} has no wager to forfeit")
        self.forfeits[seat] = reason
        self._maybe_complete()

    def _maybe_complete(self) -> None:
        """The round is complete once no seat's decision is still due (called after each change)."""
        if self.phase == self.DECISION_PHASE and not self.waiting():
            self.phase = "complete"

    def hands(self) -> Mapping[str, Sequence[Card]]:
        return {p: tuple(c) for p, c in self.cards.items()}

    # Checks ---------------------------------------------------------------------------------

    def _require_seat(self, seat: int) -> None:
        if not 1 <= seat <= self.rules.seats:
            raise RuleViolation("seat-exists", f"no seat {seat} at a {self.rules.seats}-seat table")

    def _require_phase(self, phase: str, rule: str, message: str) -> None:
        if self.phase != phase:
            raise RuleViolation(rule, f"{message} (phase {self.phase!r})")

    def _require_open(self, action: str) -> None:
        if self.phase in ("settled", "void"):
            raise RuleViolation(f"{action}-before-settlement", f"the round is already {self.phase}")

    def _seat_of(self, position: str) -> int:
        """The seat deciding at ``position``: a seat's own hand, never the dealer or a split hand."""
        try:
            parsed = parse_position(position)
        except ValueError as exc:
            raise RuleViolation("position-exists", str(exc)) from None
        if parsed is None or parsed[1] != 1:
            raise RuleViolation("position-exists", f"{position} does not make decisions in this game")
        return parsed[0]


def deal_plan(
    positions: Sequence[str], counts: Mapping[str, int], order: str, dealer_up: frozenset[int]
) -> list[DealStep]:
    """The shoe's order: whole packets position by position, or one card per position per pass."""
    if order == "packets":
        pairs = [(p, i) for p in positions for i in range(counts[p])]
    else:
        pairs = [(p, i) for i in range(max(counts.values())) for p in positions if i < counts[p]]
    return [DealStep(p, i, p == DEALER and i in dealer_up) for p, i in pairs]
