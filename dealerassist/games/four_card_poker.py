"""Four Card Poker (``rules/four-card-poker.txt``; gaps filled by ``rule-decisions.md``).

The table mechanics (betting, packets, Play-or-fold, void, forfeit) are
``ante_round.AnteRound``'s; this module holds what differs. Rules, and where the code keeps each one:

* Cards: one 52-card deck per round; each betting seat gets five cards face down, the dealer six
  with the last one face up; everyone plays the best four (``best_four``). Counts are the options
  ``player_cards`` and ``dealer_cards``. The dealer's face-down cards must stay hidden until every
  Ante has been played or folded.
* Ranking: four of a kind, straight flush, three of a kind, flush, straight, two pair, pair, high
  card; A-2-3-4 is the lowest straight and nothing wraps round the ace (the evaluator's).
* Wagers $3-$100 (table limits). Ante plays against the dealer; Aces Up pays on the player's own
  hand, a pair of aces or better, whatever the dealer holds and whether or not the player folds.
* After looking, a player folds (Ante loses) or makes a Play bet of one to three times the Ante
  (``check_play``). The dealer always qualifies; the player wins ties: Ante and Play win 1 to 1
  when the player's four cards beat or tie the dealer's, and both lose otherwise.
* Automatic Ante Bonus: paid on the Ante from its pay table whenever the player made a Play bet,
  whatever the dealer holds (three of a kind 2, straight flush 20, four of a kind 25).
* Bad Beat Bonus ($1-$5 by table limits; needs an Ante): wins when the player, having played,
  loses holding two pair or better, or beats (or ties) a dealer holding two pair or better; it pays
  on the hand that was beaten (``_settle_bad_beat``).
* Aggregate payout of $25,000 per round per table, Bad Beat included: when the round's winnings
  exceed it, every winning wager gets its pro-rata share, rounded down to the chip
  (``finish_results``; option ``aggregate_cap`` in dollars).
* Two spots per player only when, on each spot, the Aces Up or the Play wager is at least twice the
  table minimum (the Ante minimum). The table declares it while betting is open with a decision
  event naming both spots: ``{"kind": "decision", "position": "seat-1", "action": "same-player",
  "choice": "seat-2"}`` (``same_player`` here). Aces Up is checked when betting closes, a spot
  relying on its Play when the Play is made. A wrong declaration is undone by a supervisor's void
  of the round; the round's wagers are then placed again.

Options (``[options]``): ``player_cards`` (5), ``dealer_cards`` (6), ``aggregate_cap`` ("25000"),
``deal_order`` ("packets" | "rounds").
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from typing import ClassVar

from dealerassist.core.money import MoneyError, cap_pro_rata, parse_amount
from dealerassist.errors import RuleViolation
from dealerassist.games.ante_round import ANTE_ROUND_OPTIONS, RankedAnteRound, settle_ante_play
from dealerassist.games.base import DEALER, Decision, Game, TableRules, WagerResult, seat_position
from dealerassist.games.settling import lost, pay_by_table
from dealerassist.hands import FOUR_CLASSES, best_four
from dealerassist.hands.value import HandValue

ACE = 14
TWO_PAIR = FOUR_CLASSES.index("two-pair")


def aces_up_class(value: HandValue) -> str:
    """The Aces Up pay-table class: a pair counts only when it is aces (``pair-of-aces``)."""
    if value.name == "pair" and value.ranks[0] == ACE:
        return "pair-of-aces"
    return value.name


def two_pair_or_better(value: HandValue) -> bool:
    return FOUR_CLASSES.index(value.name) >= TWO_PAIR


def player_outcome(player: HandValue, dealer: HandValue) -> str:
    """The dealer always qualifies and the player wins ties: ``win`` or ``loss``."""
    return "win" if player >= dealer else "loss"


def bad_beat_hand(player: HandValue, dealer: HandValue) -> HandValue | None:
    """The hand a Bad Beat pays on: the loser's, when it was two pair or better; else None."""
    beaten = dealer if player_outcome(player, dealer) == "win" else player
    return beaten if two_pair_or_better(beaten) else None


class FourCardPokerRound(RankedAnteRound):
    PLAYER_CARDS = 5
    DEALER_CARDS = 6
    PLACEABLE = ("ante", "aces-up", "bad-beat")

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.player_cards = _card_count("player_cards", rules.option("player_cards", self.PLAYER_CARDS))
        self.dealer_cards = _card_count("dealer_cards", rules.option("dealer_cards", self.DEALER_CARDS))
        self.dealer_up = frozenset({self.dealer_cards - 1})
        self.aggregate_cap = _aggregate_cap(rules)
        self.partners: dict[int, int] = {}

    def same_player(self, seat: int, other_seat: int) -> None:
        """One player plays both spots (allowed only with double-minimum wagers, see module)."""
        self._require_phase("betting", "wagers-while-betting-open", "spots are declared while betting")
        self._require_seat(seat)
        self._require_seat(other_seat)
        if seat == other_seat or self.partners.keys() & {seat, other_seat}:
            raise RuleViolation("two-spots-at-most", "a player may play at most two spots")
        self.partners[seat] = other_seat
        self.partners[other_seat] = seat

    def decide(self, decision: Decision) -> None:
        """Play or fold; or, while betting is open, ``same-player`` declaring that the player at
        ``position`` also plays the spot named by ``choice`` (the tracker's ``decision`` event)."""
        if decision.action == "same-player":
            self.same_player(
                self._seat_of(decision.position), self._seat_of(decision.choice or "no spot named")
            )
            return
        super().decide(decision)

    @property
    def double_minimum(self) -> int:
        return 2 * self.rules.limit("ante").minimum

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        return {"bad-beat": ("ante", "bad-beat-needs-ante")}

    def check_seat(self, seat: int, bets: Mapping[str, int]) -> None:
        if seat in self.partners and not self._aces_up_carries(seat) and "ante" not in bets:
            raise RuleViolation(
                "two-spots-double-minimum",
                f"seat {seat} is one of two spots: it needs Aces Up or Play of {self.double_minimum} cents",
            )

    def _aces_up_carries(self, seat: int) -> bool:
        return self.wagers.get(seat, {}).get("aces-up", 0) >= self.double_minimum

    def check_play(self, seat: int, ante: int, amount: int) -> None:
        if not ante <= amount <= 3 * ante:
            raise RuleViolation(
                "play-one-to-three-times-ante", f"seat {seat}: Play must be {ante} to {3 * ante} cents"
            )
        if seat in self.partners and not self._aces_up_carries(seat) and amount < self.double_minimum:
            raise RuleViolation(
                "two-spots-double-minimum",
                f"seat {seat} is one of two spots without a double-minimum Aces Up: "
                f"Play must be at least {self.double_minimum} cents",
            )

    def evaluate(self, position: str) -> HandValue:
        return best_four(self.cards[position])

    def settle_seat(self, seat: int) -> list[WagerResult]:
        player = self.evaluate(seat_position(seat))
        dealer = self.evaluate(DEALER)
        bets = self.wagers[seat]
        results: list[WagerResult] = []
        if "ante" in bets:
            if seat in self.folded:
                results.append(lost(seat, "ante", bets["ante"], player.name, "folded"))
            else:
                outcome = player_outcome(player, dealer)
                bonus = self.paytable("ante-bonus")
                results.extend(
                    settle_ante_play(
                        seat, bets["ante"], self.plays[seat], outcome, player.name, bonus, self.rules.chip
                    )
                )
        if "aces-up" in bets:
            hand_class = aces_up_class(player)
            results.append(
                pay_by_table(seat, "aces-up", bets["aces-up"], hand_class, self.rules, player.name)
            )
        if "bad-beat" in bets:
            results.append(self._settle_bad_beat(seat, bets["bad-beat"], player, dealer))
        return results

    def _settle_bad_beat(self, seat: int, stake: int, player: HandValue, dealer: HandValue) -> WagerResult:
        if seat in self.folded:
            return lost(seat, "bad-beat", stake, player.name, "folded: no bad beat")
        beaten = bad_beat_hand(player, dealer)
        if beaten is None:
            return lost(seat, "bad-beat", stake, player.name, "no two pair or better was beaten")
        return pay_by_table(seat, "bad-beat", stake, beaten.name, self.rules)

    def finish_results(self, results: list[WagerResult]) -> list[WagerResult]:
        """The aggregate payout cap: over it, every win is paid its pro-rata share."""
        cap = self.aggregate_cap
        wins = [r.win for r in results]
        if sum(wins) <= cap:
            return results
        shares = cap_pro_rata(wins, cap, self.rules.chip)
        return [
            dataclasses.replace(
                r,
                win=share.amount,
                remainder=share.remainder,
                note=_join(r.note, f"aggregate cap {cap} cents: pro-rata share of {r.win}"),
            )
            if r.win
            else r
            for r, share in zip(results, shares, strict=True)
        ]


def _join(*notes: str) -> str:
    return "; ".join(n for n in notes if n)


def _aggregate_cap(rules: TableRules) -> int:
    text = rules.option("aggregate_cap", "25000")
    try:
        return parse_amount(str(text))
    except MoneyError:
        raise RuleViolation(
            "aggregate-cap", f"aggregate_cap must be dollars like '25000', got {text!r}"
        ) from None


def _card_count(option: str, count: object) -> int:
    if not isinstance(count, int) or isinstance(count, bool) or not 4 <= count <= 7:
        raise RuleViolation("card-counts", f"{option} must be a whole number 4..7, got {count!r}")
    return count


class FourCardPoker(Game):
    slug = "four-card-poker"
    name = "Four Card Poker"
    default_deck = "standard-52"
    bets = ("ante", "play", "aces-up", "bad-beat", "ante-bonus")
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "aces-up": (*FOUR_CLASSES, "pair-of-aces"),
        "bad-beat": FOUR_CLASSES,
        "ante-bonus": FOUR_CLASSES,
    }
    options: ClassVar[Mapping[str, str]] = {
        **ANTE_ROUND_OPTIONS,
        "player_cards": "cards dealt to each betting seat, 4..7 (5)",
        "dealer_cards": "cards dealt to the dealer, the last face up, 4..7 (6)",
        "aggregate_cap": "most one round pays, dollars; above it the winners share it pro rata ('25000')",
    }

    def new_round(self) -> FourCardPokerRound:
        return FourCardPokerRound(self.rules)
