"""Perfect Pairs Blackjack (``rules/perfect-pairs-blackjack.txt``) on a physical table.

The text describes an online game; at a table (``rule-decisions.md``) the spots are seats 1..7, the
cards come from a six-deck shoe, and the shoe reader and camera replace the mouse. Rules, and where
the code keeps each one:

* Deal: one card face up to every seat with a bet, left to right, then the dealer's first card
  face down (the hole card, as the text says), a second card to every seat, then the dealer's
  second card face up (``_initial_plan``; option ``hole_card_first = false`` turns the dealer's
  first card up and the second down instead). The hole card must stay hidden until the dealer's
  turn, or until the peek finds a blackjack.
* Dealer ace up: each player is offered insurance (half the bet, pays 2 to 1) or, holding a
  blackjack, even money (paid 1 to 1 at once, the hand ends). Dealer ace or ten-value up: the dealer
  peeks; a dealer blackjack ends the round: player blackjacks push, other hands lose (``_peek``).
* Players act in seat order, hand by hand: hit, stand, double (any two cards, also after a split,
  the bet doubled, exactly one more card), split (two cards of the same value, a jack and a queen
  included; once per seat, no re-split; split aces take one card each). A two-card 21 after a split
  is no blackjack and pays even money. 21 stands by itself, a bust loses at once.
* Dealer: draws to 16 and stands on every 17, soft 17 included (``_dealer_wants_card``); with no
  live hand left the dealer only turns the hole card.
* Pays: win 1 to 1, blackjack 3 to 2 rounded down to the table's chip (option ``blackjack_pays``),
  insurance 2 to 1, even money 1 to 1, equal totals push.
* Perfect Pairs: only beside a main bet, from the table minimum to 20% of the table maximum (both
  the main bet's limits); judged on the seat's first two cards whatever happens to the hand:
  perfect (same suit), coloured (same colour), mixed pair, from its pay table.

The shoe is reshuffled after each round (the text), so each round's cards are checked against
the whole shoe. "System malfunction voids all pays and play" is ``void()``.

Positions: ``seat-N`` and, after a split, ``seat-N.2`` (which starts with the second card of the
pair). Bets in results: ``main`` per hand, ``double``, ``insurance``, ``perfect-pairs``.

Options (``[options]``): ``hole_card_first`` (true), ``blackjack_pays`` ("3 to 2").
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from dealerassist.core.cards import ACE, Card
from dealerassist.core.money import MoneyError, Odds, Payout, pay_odds
from dealerassist.errors import RuleViolation
from dealerassist.games.base import (
    DEALER,
    DealStep,
    Decision,
    Game,
    Outcome,
    Settlement,
    TableRules,
    WagerResult,
    parse_position,
    seat_position,
)
from dealerassist.games.option_values import yes_no
from dealerassist.games.settling import lost, pay_by_table, won
from dealerassist.games.table_round import TableRound
from dealerassist.hands import BlackjackTotal, blackjack_total, perfect_pair
from dealerassist.hands.blackjack import card_points

EVEN = Odds(1, 1)
INSURANCE = Odds(2, 1)
PERFECT_PAIRS_SHARE = Fraction(1, 5)
LIVE_PHASES = ("betting", "dealing", "insurance", "players")


@dataclass
class Hand:
    """One player hand: a seat's hand or its split second hand."""

    seat: int
    position: str
    stake: int
    cards: list[Card] = field(default_factory=list)
    split: bool = False
    split_aces: bool = False
    double: int = 0
    stood: bool = False
    hit_asked: bool = False
    even_money: bool = False

    @property
    def total(self) -> BlackjackTotal:
        return blackjack_total(self.cards, split=self.split)

    @property
    def natural(self) -> bool:
        return len(self.cards) == 2 and self.total.blackjack

    @property
    def wants_card(self) -> bool:
        return len(self.cards) < 2 or self.hit_asked or (self.double > 0 and len(self.cards) == 2)

    @property
    def done(self) -> bool:
        if self.even_money or self.natural:
            return True
        if self.wants_card:
            return False
        total = self.total
        return self.stood or total.bust or total.total == 21 or self.split_aces or self.double > 0

    @property
    def name(self) -> str:
        return total_name(self.total)


def perfect_pairs_class(first: Card, second: Card) -> str | None:
    """The Perfect Pairs pay-table class of a hand's first two cards (``perfect-pair``,
    ``coloured-pair``, ``mixed-pair``), or None when they are no pair."""
    kind = perfect_pair(first, second)
    return None if kind is None else f"{kind}-pair"


class PerfectPairsRound(TableRound):
    PLACEABLE = ("main", "perfect-pairs")

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.player_hands: list[Hand] = []
        self.first_two: dict[int, tuple[Card, ...]] = {}
        self.dealer: list[Card] = []
        self.insurance: dict[int, int] = {}
        self.insurance_decided: set[int] = set()
        self.dealer_blackjack = False
        self.hole = 0 if yes_no("hole_card_first", rules.option("hole_card_first", True)) else 1
        try:
            self.blackjack_odds = Odds.parse(rules.option("blackjack_pays", "3 to 2"))
        except MoneyError as exc:
            raise RuleViolation("blackjack-pays", f"blackjack_pays: {exc}") from None

    # Betting --------------------------------------------------------------------------------

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        if bet == "perfect-pairs":
            self._check_perfect_pairs_limit(amount)

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        return {"perfect-pairs": ("main", "perfect-pairs-needs-main-bet")}

    def _check_perfect_pairs_limit(self, amount: int) -> None:
        """Perfect Pairs runs from the table minimum to 20% of the table maximum."""
        table = self.rules.limit("main")
        top = int(table.maximum * PERFECT_PAIRS_SHARE)
        if not table.minimum <= amount <= top:
            raise RuleViolation(
                "perfect-pairs-limit",
                f"Perfect Pairs must be {table.minimum}..{top} cents (table minimum to 20% of the maximum)",
            )

    def close_betting(self) -> None:
        self._require_phase("betting", "wagers-while-betting-open", "betting is already closed")
        if not self.wagers:
            raise RuleViolation("no-wagers", "no seat has a wager: there is nothing to deal")
        seats = sorted(self.wagers)
        self.player_hands = [Hand(s, seat_position(s), self.wagers[s]["main"]) for s in seats]
        self._plan = self._initial_plan(seats)
        self.phase = "dealing"

    def _initial_plan(self, seats: list[int]) -> list[DealStep]:
        plan = []
        for index in (0, 1):
            plan.extend(DealStep(seat_position(s), index, True) for s in seats)
            plan.append(DealStep(DEALER, index, index != self.hole))
        return plan

    # Cards ----------------------------------------------------------------------------------

    def next_deal(self) -> DealStep | None:
        if self.phase == "dealing":
            return self._plan[self._dealt]
        if self.phase == "players":
            hand = self._current_hand()
            if hand is not None and hand.wants_card:
                return DealStep(hand.position, len(hand.cards), True)
        if self.phase == "dealer" and self._dealer_wants_card():
            return DealStep(DEALER, len(self.dealer), True)
        return None

    def deal(self, card: Card) -> DealStep:
        step = self.next_deal()
        if step is None:
            raise RuleViolation("no-card-expected", f"no card is expected in phase {self.phase!r}")
        self.shoe.take(card)
        if step.position == DEALER:
            self.dealer.append(card)
        else:
            hand = self._hand(step.position)
            hand.cards.append(card)
            hand.hit_asked = False
            if self.phase == "dealing" and len(hand.cards) == 2:
                self.first_two[hand.seat] = tuple(hand.cards)
        if self.phase == "dealing":
            self._dealt += 1
        self._advance()
        return step

    @property
    def up_card(self) -> Card:
        return self.dealer[1 - self.hole]

    def _dealer_wants_card(self) -> bool:
        """Draw to 16, stand on all 17s; nothing to draw for when no hand is still live."""
        if not any(self._live(h) for h in self.player_hands):
            return False
        return blackjack_total(self.dealer).total < 17

    def _live(self, hand: Hand) -> bool:
        return not (hand.total.bust or hand.natural or hand.even_money or hand.seat in self.forfeits)

    # Phases ---------------------------------------------------------------------------------

    def _advance(self) -> None:
        if self.phase == "dealing" and self._dealt == len(self._plan):
            self.phase = "insurance" if self.up_card.rank == ACE else "players"
            if self.phase == "players":
                self._peek()
        if self.phase == "insurance" and not self._insurance_pending():
            self.phase = "players"
            self._peek()
        if self.phase == "players" and self._current_hand() is None:
            self.phase = "dealer"
        if self.phase == "dealer" and not self._dealer_wants_card():
            self.phase = "complete"

    def _peek(self) -> None:
        """With an ace or ten-value up card the dealer checks the hole card for blackjack."""
        if card_points(self.up_card) in (1, 10) and blackjack_total(self.dealer).blackjack:
            self.dealer_blackjack = True
            self.phase = "complete"

    def _insurance_pending(self) -> list[int]:
        return [
            h.seat
            for h in self.player_hands
            if h.seat not in self.insurance_decided and h.seat not in self.forfeits
        ]

    def _current_hand(self) -> Hand | None:
        return next((h for h in self.player_hands if not h.done and h.seat not in self.forfeits), None)

    # Decisions ------------------------------------------------------------------------------

    def pending_decisions(self) -> Sequence[str]:
        if self.phase == "insurance":
            return [seat_position(s) for s in self._insurance_pending()]
        if self.phase == "players" and self.next_deal() is None:
            hand = self._current_hand()
            return [hand.position] if hand is not None else []
        return []

    def legal_actions(self, position: str) -> Sequence[str]:
        if position not in self.pending_decisions():
            return []
        hand = self._hand(position)
        if self.phase == "insurance":
            return ["even-money", "decline"] if hand.natural else ["insurance", "decline"]
        actions = ["hit", "stand"]
        if len(hand.cards) == 2:
            actions.append("double")
            if self._can_split(hand):
                actions.append("split")
        return actions

    def _can_split(self, hand: Hand) -> bool:
        first, second = hand.cards
        already = any(h.seat == hand.seat and h is not hand for h in self.player_hands)
        return not already and card_points(first) == card_points(second)

    def decide(self, decision: Decision) -> None:
        if self.phase not in ("insurance", "players"):
            raise RuleViolation("decide-in-turn", f"no decision is due in phase {self.phase!r}")
        if decision.position not in self.pending_decisions():
            raise RuleViolation("decide-in-turn", f"it is not {decision.position}'s turn to decide")
        hand = self._hand(decision.position)
        if decision.action not in self.legal_actions(decision.position):
            raise RuleViolation(
                _refusal_rule(decision.action), f"{decision.position} cannot {decision.action} now"
            )
        if self.phase == "insurance":
            self._decide_insurance(hand, decision)
        else:
            self._decide_play(hand, decision)
        self._advance()

    def _decide_insurance(self, hand: Hand, decision: Decision) -> None:
        if decision.action == "insurance":
            half = hand.stake // 2
            amount = half if decision.amount is None else decision.amount
            if amount != half:
                raise RuleViolation("insurance-half-bet", f"insurance is half the bet: {half} cents")
            self.insurance[hand.seat] = amount
        elif decision.action == "even-money":
            hand.even_money = True
        self.insurance_decided.add(hand.seat)

    def _decide_play(self, hand: Hand, decision: Decision) -> None:
        if decision.action == "hit":
            hand.hit_asked = True
        elif decision.action == "stand":
            hand.stood = True
        elif decision.action == "double":
            amount = hand.stake if decision.amount is None else decision.amount
            if amount != hand.stake:
                raise RuleViolation("double-equals-bet", f"a double is the bet again: {hand.stake} cents")
            hand.double = amount
        else:
            self._split(hand)

    def _split(self, hand: Hand) -> None:
        second = Hand(hand.seat, seat_position(hand.seat, 2), hand.stake, [hand.cards.pop()], split=True)
        hand.split = True
        hand.split_aces = second.split_aces = hand.cards[0].rank == ACE
        self.player_hands.insert(self.player_hands.index(hand) + 1, second)

    # Exposure ---------------------------------------------------------------------------------

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        if self.phase in LIVE_PHASES and not self.dealer_blackjack:
            return frozenset({(DEALER, self.hole)})
        return frozenset()

    # Settlement -----------------------------------------------------------------------------

    def settlement(self) -> Settlement:
        results: list[WagerResult] = []
        for seat in sorted(self.wagers):
            seat_results = self._settle_seat(seat)
            if seat in self.forfeits:
                seat_results = [_forfeited(r, self.forfeits[seat]) for r in seat_results]
            results.extend(seat_results)
        hands = {h.position: h.name for h in self.player_hands}
        hands[DEALER] = total_name(blackjack_total(self.dealer))
        return Settlement(tuple(results), hands=hands)

    def _settle_seat(self, seat: int) -> list[WagerResult]:
        results: list[WagerResult] = []
        for hand in (h for h in self.player_hands if h.seat == seat):
            results.extend(self._settle_hand(hand))
        if seat in self.insurance:
            results.append(self._settle_insurance(seat, self.insurance[seat]))
        if "perfect-pairs" in self.wagers[seat]:
            results.append(self._settle_perfect_pairs(seat, self.wagers[seat]["perfect-pairs"]))
        return results

    def _settle_hand(self, hand: Hand) -> list[WagerResult]:
        outcome, payout, note = self._hand_outcome(hand)
        bets = [("main", hand.stake)] + ([("double", hand.double)] if hand.double else [])
        results = []
        for bet, stake in bets:
            pay = payout if bet == "main" else pay_odds(stake, EVEN, self.rules.chip)
            results.append(self._result(hand, bet, stake, outcome, pay, note))
        return results

    def _hand_outcome(self, hand: Hand) -> tuple[Outcome, Payout | None, str]:
        chip = self.rules.chip
        if hand.even_money:
            return "win", pay_odds(hand.stake, EVEN, chip), "even money"
        if self.dealer_blackjack:
            return ("push", None, "both blackjack") if hand.natural else ("lose", None, "dealer blackjack")
        if hand.natural:
            return "win", pay_odds(hand.stake, self.blackjack_odds, chip), "blackjack"
        mine = hand.total
        if mine.bust:
            return "lose", None, "bust"
        dealer = blackjack_total(self.dealer)
        if dealer.bust:
            return "win", pay_odds(hand.stake, EVEN, chip), "dealer busts"
        if mine.total > dealer.total:
            return "win", pay_odds(hand.stake, EVEN, chip), ""
        if mine.total == dealer.total:
            return "push", None, ""
        return "lose", None, ""

    def _result(
        self, hand: Hand, bet: str, stake: int, outcome: Outcome, payout: Payout | None, note: str
    ) -> WagerResult:
        win = payout.amount if payout and outcome == "win" else 0
        remainder = payout.remainder if payout and outcome == "win" else Fraction(0)
        returned = stake if outcome in ("win", "push") else 0
        return WagerResult(
            hand.seat, bet, stake, outcome, win, returned, hand.name, remainder, note, hand.position
        )

    def _settle_insurance(self, seat: int, stake: int) -> WagerResult:
        if self.dealer_blackjack:
            return won(seat, "insurance", stake, pay_odds(stake, INSURANCE, self.rules.chip))
        return lost(seat, "insurance", stake, note="dealer has no blackjack")

    def _settle_perfect_pairs(self, seat: int, stake: int) -> WagerResult:
        """Judged on the seat's first two cards, whatever happened to the hand since."""
        hand_class = perfect_pairs_class(*self.first_two[seat])
        return pay_by_table(
            seat, "perfect-pairs", stake, hand_class or "", self.rules, hand_class or "no pair"
        )

    def void_results(self, reason: str) -> list[WagerResult]:
        """Every stake returned, each on the hand it sits on (a split hand's, a double's)."""
        results = []
        for seat in sorted(self.wagers):
            stakes = [(seat_position(seat), "perfect-pairs", self.wagers[seat].get("perfect-pairs", 0))]
            stakes.append((seat_position(seat), "insurance", self.insurance.get(seat, 0)))
            for hand in (h for h in self.player_hands if h.seat == seat):
                stakes += [(hand.position, "main", hand.stake), (hand.position, "double", hand.double)]
            if not self.player_hands:
                stakes.append((seat_position(seat), "main", self.wagers[seat].get("main", 0)))
            results += [
                WagerResult(seat, bet, stake, "void", returned=stake, note=reason, position=position)
                for position, bet, stake in stakes
                if stake
            ]
        return results

    def _maybe_complete(self) -> None:
        """After a forfeit, play moves on past the forfeited seat's hands."""
        if self.phase not in ("betting", "dealing"):
            self._advance()

    def hands(self) -> Mapping[str, Sequence[Card]]:
        shown: dict[str, Sequence[Card]] = {h.position: tuple(h.cards) for h in self.player_hands}
        shown[DEALER] = tuple(self.dealer)
        return shown

    # Helpers --------------------------------------------------------------------------------

    def _hand(self, position: str) -> Hand:
        try:
            parse_position(position)
        except ValueError as exc:
            raise RuleViolation("position-exists", str(exc)) from None
        for hand in self.player_hands:
            if hand.position == position:
                return hand
        raise RuleViolation("position-exists", f"{position} holds no hand this round")


def _refusal_rule(action: str) -> str:
    """The rule a refused action breaks, named for the dashboard."""
    return {
        "split": "split-once-same-value",
        "double": "double-on-two-cards",
        "insurance": "insurance-with-ace-up",
        "even-money": "even-money-on-blackjack",
    }.get(action, "blackjack-actions")


def _forfeited(result: WagerResult, reason: str) -> WagerResult:
    return WagerResult(
        result.seat,
        result.bet,
        result.stake,
        "forfeit",
        hand=result.hand,
        note=f"forfeit: {reason}",
        position=result.position,
    )


def total_name(total: BlackjackTotal) -> str:
    """What the dealer calls a hand: ``blackjack``, ``bust``, ``soft 17``, ``20``."""
    if total.blackjack:
        return "blackjack"
    if total.bust:
        return "bust"
    return f"soft {total.total}" if total.soft and total.total < 21 else str(total.total)


class PerfectPairsBlackjack(Game):
    slug = "perfect-pairs-blackjack"
    name = "Perfect Pairs Blackjack"
    default_deck = "shoe-6"
    bets = ("main", "perfect-pairs")
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "perfect-pairs": ("perfect-pair", "coloured-pair", "mixed-pair")
    }
    options: ClassVar[Mapping[str, str]] = {
        "hole_card_first": "the dealer's first card is the face-down hole card; false: the second (true)",
        "blackjack_pays": "odds a player's blackjack pays ('3 to 2')",
    }

    def new_round(self) -> PerfectPairsRound:
        return PerfectPairsRound(self.rules)
