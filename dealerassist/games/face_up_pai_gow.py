"""Face Up Pai Gow Poker with Progressive (``rules/face-up-pai-gow-poker.txt``).

The rules in the order the text gives them, and where the code keeps each one:

* Wagers before the deal (``place_wager``/``close_betting``): the main ``wager`` within the table
  limits; optional ``fortune``, ``ace-high`` and ``progressive`` side bets, each needing a main
  wager placed first (option ``side_bets_require_wager``; ``side_bet_needs``). The progressive
  takes exactly its unit (``progressive_unit``, $1). Envy is no bet: it has no stake and no limits
  (a wager or a table limit named ``envy`` is refused, saying so).
* The player-dealer: a seated player banks by placing ``bank`` (the table stake they put up,
  within the ``bank`` limits; a table without them offers no player-dealer). The banker's hand is
  the ``dealer`` position and the seat places no other wager. Without a banker the house banks.
* Dice (``set_dice``): the total counts positions from the dealer's place, which is 1 (the
  player-dealer's hand lies there too, so the count starts there whoever banks), then seat 1 (the
  dealer's left), seat 2, ... around the table; dealing starts at the position it lands on and
  each hand gets seven cards in turn. Empty spots get none by default (seven spots and the
  dealer would need 56 cards from 53); a table of six spots or fewer may set
  ``deal_empty_spots = true`` to deal every spot as the tray does, the unused hands going to the
  discard unplayed. Players' cards are face down; the dealer's are dealt face up, since this
  variant exposes the dealer's hand first, so no dealer card is ever hidden (``must_be_hidden``).
  Nothing is dealt before betting closes and the dice are thrown.
* The house dealer sets the dealer hand by the House Way (``house_way`` option, data table
  ``gold-star``: ``dealerassist.games.house_way``), as soon as its seventh card is in.
* Players set their hands (``Decision(action="set-hand", cards=<two-card front>)``) or ask the
  dealer to (``action="house-way"``). A foul (front outranking back) is refused with the house-way
  setting in the message, or with ``foul_policy = "forfeit"`` accepted and the main wager lost.
* Winner (``_base_result``): both hands higher wins even money, both lower loses, one each pushes;
  an identical hand is a copy and the dealer wins it. An ace-high dealer (no pair, straight or
  flush in its seven cards, an ace or joker on top) pushes every main wager and wins Ace-High.
* Fortune: the best five of the seven (with the seven-card straight flush and royal-match
  specials, ``fortune_class``) at the Fortune table's odds. Seven cards holding both trips and a
  straight are paid as the straight, their best five-card hand, or with
  ``fortune_trips_and_straight = "higher-pay"`` as whichever of the two the table pays more.
* Envy (``envy_results``): every seat whose Fortune bet is at least ``envy_min_fortune`` ($5) is
  paid the Envy table's fixed amount for each other player's qualifying hand, one result per
  paying hand naming it (never its own hand, the player-dealer's or the house's, nor a forfeited
  one). The result has no stake: nothing is lost when no other hand qualifies.
  Progressive: fixed awards are paid here; a share of the meter is reported as a win with
  ``win = 0``, the note ``meter award N%`` and the qualifying class in ``hand``, and the
  progressive controller pays it. The progressive stake is the jackpot's contribution and never
  comes back, win or lose.
* Player-dealer with table stakes (``_bank``): main wagers are covered in seat order from the
  dealer's left until the bank runs out; what is not covered goes back to its player. Side bets
  are always the house's. This departs from the text, which has the player-dealer pay winning
  Envy bonuses (``rule-decisions.md`` is silent): the bank's table stakes cover main wagers only,
  and an Envy bonus (up to $5,000 for each other player's hand) could exceed any bank, so the
  settlement never charges a banker for one. A house whose player-dealer funds Envy settles that
  share off the system.

Options (``[options]``): ``foul_policy`` ("refuse" | "forfeit"), ``house_way`` ("gold-star"),
``envy_min_fortune`` ("5"), ``fortune_trips_and_straight`` ("best-five" | "higher-pay"),
``progressive_unit`` ("1"), ``side_bets_require_wager`` (true), ``dice`` (3: totals 3..18 are
accepted), ``deal_empty_spots`` (false).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from fractions import Fraction
from itertools import combinations
from typing import ClassVar, Final

from dealerassist.core.cards import ACE, Card
from dealerassist.core.money import format_amount, parse_amount, pay_odds
from dealerassist.core.paytables import FixedAward, PayTable
from dealerassist.errors import RuleViolation
from dealerassist.games.base import (
    DEALER,
    DealStep,
    Decision,
    Game,
    Settlement,
    TableRules,
    WagerResult,
    seat_position,
)
from dealerassist.games.house_way import HouseWay, Setting, load_house_way, split_hand
from dealerassist.games.option_values import yes_no
from dealerassist.games.settling import EVEN_MONEY, pay_by_table, progressive_result, wager_result
from dealerassist.games.table_round import TableRound
from dealerassist.hands import best_five, evaluate_five
from dealerassist.hands.value import FIVE_CLASSES

HAND_SIZE: Final = 7
SIDE_BETS: Final = ("fortune", "ace-high", "progressive")
ENVY_NO_STAKE: Final = (
    "Envy takes no stake and has no limits: a Fortune bet of at least envy_min_fortune (default $5) "
    "qualifies a seat for it; remove limits.envy"
)
TRIPS_AND_STRAIGHT: Final = ("best-five", "higher-pay")
FORTUNE_CLASSES: Final = (
    *FIVE_CLASSES,
    "royal-flush-royal-match",
    "seven-card-straight-flush",
    "seven-card-straight-flush-joker",
)


# --- Hand classes the bonus tables pay on -------------------------------------------------------


def seven_card_straight_flush(seven: Sequence[Card]) -> bool:
    """All seven cards one suit and seven ranks in a row (the joker fills one; A-7 counts low)."""
    naturals = [c for c in seven if not c.is_joker]
    if len({c.suit for c in naturals}) != 1 or len({c.rank for c in naturals}) != len(naturals):
        return False
    ranks = {c.rank for c in naturals}
    readings = [ranks, {1 if r == ACE else r for r in ranks}]
    return any(max(r) - min(r) <= HAND_SIZE - 1 for r in readings if len(r) == len(naturals))


def royal_match(seven: Sequence[Card]) -> bool:
    """A royal flush in five of the cards and a natural suited king-queen in the other two."""
    for front in combinations(range(HAND_SIZE), 2):
        two = [seven[i] for i in front]
        if any(c.is_joker for c in two) or {c.rank for c in two} != {13, 12} or two[0].suit != two[1].suit:
            continue
        back = [c for i, c in enumerate(seven) if i not in front]
        if evaluate_five(back).name == "royal-flush":
            return True
    return False


def fortune_class(seven: Sequence[Card]) -> str:
    """The Fortune/Envy/Progressive class of seven cards: the pay tables' keys."""
    if seven_card_straight_flush(seven):
        return (
            "seven-card-straight-flush-joker"
            if any(c.is_joker for c in seven)
            else "seven-card-straight-flush"
        )
    best = best_five(seven).name
    if best == "royal-flush" and royal_match(seven):
        return "royal-flush-royal-match"
    return best


def holds_trips_and_straight(seven: Sequence[Card]) -> bool:
    """Seven cards whose best five is a straight and that also hold three of a kind (the joker
    makes trips only of aces)."""
    if fortune_class(seven) != "straight":
        return False
    ranks = Counter(c.rank for c in seven if not c.is_joker)
    jokers = sum(1 for c in seven if c.is_joker)
    return max(ranks.values()) >= 3 or ranks[ACE] + jokers >= 3


def higher_paying(table: PayTable, classes: Sequence[str]) -> str:
    """The class of ``classes`` the table pays most on a unit stake (the first on a tie)."""

    def unit_pay(name: str) -> Fraction:
        award = table.award(name)
        return award.pay(100).exact if award is not None else Fraction(-1)

    return max(classes, key=unit_pay)


def fortune_paid_class(seven: Sequence[Card], table: PayTable, trips_and_straight: str) -> str:
    """The class the Fortune bet is paid on: ``fortune_class``, except that under "higher-pay"
    seven cards holding trips and a straight are paid as whichever the table pays more."""
    name = fortune_class(seven)
    if trips_and_straight == "higher-pay" and name == "straight" and holds_trips_and_straight(seven):
        return higher_paying(table, ("straight", "three-of-a-kind"))
    return name


def ace_high_pai_gow(seven: Sequence[Card]) -> bool:
    """The dealer's "pai gow": nothing better than high card in seven cards, with an ace (or the
    joker, which plays as one) on top."""
    return best_five(seven).name == "high-card" and any(c.rank == ACE or c.is_joker for c in seven)


# --- The game -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PaiGowOptions:
    foul_policy: str
    house_way: HouseWay
    envy_min_fortune: int
    trips_and_straight: str
    progressive_unit: int
    side_bets_require_wager: bool
    dice: int
    deal_empty_spots: bool

    @classmethod
    def from_rules(cls, rules: TableRules) -> PaiGowOptions:
        policy = rules.option("foul_policy", "refuse")
        if policy not in ("refuse", "forfeit"):
            raise RuleViolation("foul-policy", f"foul_policy must be 'refuse' or 'forfeit', got {policy!r}")
        trips = rules.option("fortune_trips_and_straight", "best-five")
        if trips not in TRIPS_AND_STRAIGHT:
            raise RuleViolation(
                "fortune-trips-and-straight",
                f"fortune_trips_and_straight must be 'best-five' or 'higher-pay', got {trips!r}",
            )
        _check_envy_table(rules)
        dice = rules.option("dice", 3)
        if isinstance(dice, bool) or not isinstance(dice, int) or dice < 1:
            raise RuleViolation("dice", f"dice must be a whole number of dice >= 1, got {dice!r}")
        return cls(
            foul_policy=policy,
            house_way=load_house_way(str(rules.option("house_way", "gold-star"))),
            envy_min_fortune=parse_amount(str(rules.option("envy_min_fortune", "5"))),
            trips_and_straight=trips,
            progressive_unit=parse_amount(str(rules.option("progressive_unit", "1"))),
            side_bets_require_wager=yes_no(
                "side_bets_require_wager", rules.option("side_bets_require_wager", True)
            ),
            dice=dice,
            deal_empty_spots=_empty_spots(rules),
        )


def _check_envy_table(rules: TableRules) -> None:
    """Envy has no stake, so only fixed amounts can pay it: odds would pay nothing."""
    table = rules.paytables.get("envy")
    for name, award in table.pays.items() if table is not None else ():
        if not isinstance(award, FixedAward):
            raise RuleViolation(
                "envy-fixed-amounts",
                f"Envy pay table {table.name!r} pays {name} as {award}: Envy has no stake, "
                "so it pays fixed dollar amounts only",
            )


def _empty_spots(rules: TableRules) -> bool:
    wanted = yes_no("deal_empty_spots", rules.option("deal_empty_spots", False))
    if wanted and (rules.seats + 1) * HAND_SIZE > rules.deck.size:
        raise RuleViolation(
            "deal-empty-spots",
            f"{rules.seats} spots and the dealer need {(rules.seats + 1) * HAND_SIZE} cards; "
            f"the {rules.deck.name} deck has {rules.deck.size}",
        )
    return wanted


class FaceUpPaiGow(Game):
    slug: ClassVar[str] = "face-up-pai-gow"
    name: ClassVar[str] = "Face Up Pai Gow Poker with Progressive"
    default_deck: ClassVar[str] = "standard-53-joker"
    bets: ClassVar[tuple[str, ...]] = ("wager", "bank", *SIDE_BETS)
    bonuses: ClassVar[tuple[str, ...]] = ("envy",)
    retired_bets: ClassVar[Mapping[str, str]] = {"envy": ENVY_NO_STAKE}
    pay_classes: ClassVar[Mapping[str, tuple[str, ...]]] = {
        "fortune": FORTUNE_CLASSES,
        "envy": FORTUNE_CLASSES,
        "progressive": FORTUNE_CLASSES,
        "ace-high": ("ace-high",),
    }
    options: ClassVar[Mapping[str, str]] = {
        "foul_policy": "a fouled setting is 'refuse'd with the house way shown, or 'forfeit' loses the wager",
        "house_way": "the house way table that sets the house dealer's hand ('gold-star')",
        "envy_min_fortune": "the Fortune bet that qualifies a seat for the Envy bonus, dollars ('5')",
        "fortune_trips_and_straight": "Fortune pays trips with a straight as the 'best-five' hand "
        "(the straight) or the 'higher-pay' of the two ('best-five')",
        "progressive_unit": "the one stake the Progressive bet takes, dollars ('1')",
        "side_bets_require_wager": "side bets need a main wager at the same seat (true)",
        "dice": "how many dice pick the first hand dealt (3)",
        "deal_empty_spots": "deal a hand to every spot, played or not, as the tray does (false)",
    }

    def new_round(self) -> FaceUpPaiGowRound:
        return FaceUpPaiGowRound(self.rules)


class FaceUpPaiGowRound(TableRound):
    """Phases: ``betting`` -> ``dice`` -> ``dealing`` -> ``setting`` -> ``complete`` ->
    ``settled`` (or ``void`` at any time before settlement)."""

    PLACEABLE = FaceUpPaiGow.bets
    DECISION_PHASE = "setting"
    ACTIONS = ("set-hand", "house-way")

    def __init__(self, rules: TableRules) -> None:
        super().__init__(rules)
        self.options = PaiGowOptions.from_rules(rules)
        self.order: list[str] = []
        self.dice: int | None = None
        self.settings: dict[str, Setting] = {}
        self.fouled: set[int] = set()

    # Betting ---------------------------------------------------------------------------------

    @property
    def banker(self) -> int | None:
        """The seat banking this round (the player-dealer), or None when the house banks."""
        return next((s for s in sorted(self.wagers) if "bank" in self.wagers[s]), None)

    def place_wager(self, seat: int, bet: str, amount: int) -> None:
        if bet == "envy":
            qualifying = format_amount(self.options.envy_min_fortune)
            raise RuleViolation(
                "envy-no-stake",
                f"Envy takes no stake: a Fortune bet of at least {qualifying} qualifies a seat for it",
            )
        super().place_wager(seat, bet, amount)

    def side_bet_needs(self) -> Mapping[str, tuple[str, str]]:
        if not self.options.side_bets_require_wager:
            return {}
        return {bet: ("wager", "side-bet-needs-wager") for bet in SIDE_BETS}

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        if bet in SIDE_BETS:
            self.paytable(bet)
        if bet == "progressive":
            self.check_unit(bet, amount, self.options.progressive_unit)
        if bet == "bank" and self.banker not in (None, seat):
            raise RuleViolation("one-player-dealer", f"seat {self.banker} already banks this round")

    def close_betting(self) -> None:
        self._require_phase("betting", "wagers-while-betting-open", "betting is already closed")
        if not self.live_seats():
            raise RuleViolation("no-wagers", "no seat has a main wager: there is nothing to deal")
        for seat, bets in sorted(self.wagers.items()):
            self._check_seat(seat, bets)
        self.phase = "dice"

    def _check_seat(self, seat: int, bets: Mapping[str, int]) -> None:
        if seat == self.banker and set(bets) != {"bank"}:
            raise RuleViolation("player-dealer-bets", f"seat {seat} banks and places no other wager")

    def live_seats(self) -> list[int]:
        """Seats playing a hand: those with a main wager, in seat order."""
        return [s for s in sorted(self.wagers) if "wager" in self.wagers[s]]

    # Dice and dealing ------------------------------------------------------------------------

    def set_dice(self, total: int) -> None:
        self._require_phase("dice", "dice-after-betting", "the dice are thrown once betting closes")
        low, high = self.options.dice, 6 * self.options.dice
        if isinstance(total, bool) or not isinstance(total, int) or not low <= total <= high:
            raise RuleViolation("dice-total", f"{self.options.dice} dice total {low}..{high}, got {total!r}")
        self.dice = total
        dealt = self.live_seats()
        if self.options.deal_empty_spots:
            dealt = [s for s in range(1, self.rules.seats + 1) if s != self.banker]
        self.order = deal_order(total, self.rules.seats, dealt)
        self.cards = {p: [] for p in self.order}
        self._plan = [DealStep(p, i, face_up=p == DEALER) for p in self.order for i in range(HAND_SIZE)]
        self.phase = "dealing"

    def deal(self, card: Card) -> DealStep:
        """The house dealer sets the dealer's hand by the House Way as soon as its seventh card is in."""
        step = super().deal(card)
        if step.position == DEALER and step.index == HAND_SIZE - 1:
            self.settings[DEALER] = self.options.house_way.set_hand(self.cards[DEALER])
        return step

    # Hand setting ----------------------------------------------------------------------------

    def decide(self, decision: Decision) -> None:
        seat = self.deciding_seat(decision.position, "set-once")
        seven = self.cards[decision.position]
        if decision.action == "house-way":
            setting = self.options.house_way.set_hand(seven)
        elif decision.action == "set-hand":
            setting = split_hand(seven, decision.cards)
            if setting.foul:
                if self.options.foul_policy == "refuse":
                    way = self.options.house_way.set_hand(seven)
                    shown = " ".join(c.code for c in way.front)
                    raise RuleViolation(
                        "foul",
                        f"{decision.position}: the two-card hand outranks the five-card hand "
                        f"(house way puts {shown} in front)",
                    )
                self.fouled.add(seat)
        else:
            raise RuleViolation(
                "pai-gow-actions", f"a hand is set ('set-hand' or 'house-way'), not {decision.action!r}"
            )
        self.settings[decision.position] = setting
        self._maybe_complete()

    def waiting(self) -> list[int]:
        return [
            s for s in self.live_seats() if seat_position(s) not in self.settings and s not in self.forfeits
        ]

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        """Face Up: the dealer's hand is dealt face up, so none of its cards is ever hidden."""
        return frozenset()

    # Settlement ------------------------------------------------------------------------------

    def settlement(self) -> Settlement:
        dealer = self.settings[DEALER]
        pai_gow = ace_high_pai_gow(self.cards[DEALER])
        classes = {
            s: fortune_class(self.cards[seat_position(s)])
            for s in self.live_seats()
            if s not in self.forfeits
        }
        base: list[WagerResult] = []
        side: list[WagerResult] = []
        for seat in self.live_seats():
            if seat in self.forfeits:
                base.extend(self.forfeited(seat))
                continue
            base.append(self._base_result(seat, dealer, pai_gow))
            side.extend(self._side_results(seat, pai_gow))
            side.extend(self._envy_results(seat, classes))
        if self.banker is not None:
            base = self._bank(base, pai_gow)
        hands = {p: self._hand_name(p) for p in self.order if p in self.settings}
        settings = {
            p: {"two-card": self.settings[p].front, "five-card": self.settings[p].back}
            for p in self.order
            if p in self.settings
        }
        return Settlement(tuple(base + side), hands=hands, settings=settings)

    def _base_result(self, seat: int, dealer: Setting, pai_gow: bool) -> WagerResult:
        stake = self.wagers[seat]["wager"]
        position = seat_position(seat)
        player = self.settings[position]
        hand = self._hand_name(position)
        if seat in self.fouled:
            return wager_result(seat, "wager", stake, "lose", hand=hand, note="foul: hand forfeited")
        if pai_gow:
            return wager_result(
                seat, "wager", stake, "push", returned=stake, hand=hand, note="dealer pai gow"
            )
        outcome = compare(player, dealer)
        if outcome == "win":
            payout = pay_odds(stake, EVEN_MONEY, self.rules.chip)
            return wager_result(seat, "wager", stake, "win", payout.amount, stake, hand, payout.remainder)
        if outcome == "push":
            return wager_result(seat, "wager", stake, "push", returned=stake, hand=hand)
        return wager_result(seat, "wager", stake, "lose", hand=hand)

    def _side_results(self, seat: int, pai_gow: bool) -> list[WagerResult]:
        bets = self.wagers[seat]
        seven = self.cards[seat_position(seat)]
        mine = fortune_class(seven)
        results = []
        if "fortune" in bets:
            paid = fortune_paid_class(seven, self.paytable("fortune"), self.options.trips_and_straight)
            shown = mine if paid == mine else f"{paid} (with a {mine})"
            results.append(pay_by_table(seat, "fortune", bets["fortune"], paid, self.rules, shown))
        if "ace-high" in bets:
            results.append(
                pay_by_table(seat, "ace-high", bets["ace-high"], "ace-high" if pai_gow else "", self.rules)
            )
        if "progressive" in bets:
            results.append(
                progressive_result(seat, bets["progressive"], mine, self.rules.paytables["progressive"])
            )
        return results

    def _envy_results(self, seat: int, classes: Mapping[int, str]) -> list[WagerResult]:
        """A seat qualified by its Fortune bet is paid for every other player's qualifying hand."""
        table = self.rules.paytables.get("envy")
        if table is None or self.wagers[seat].get("fortune", 0) < self.options.envy_min_fortune:
            return []
        others = {s: name for s, name in classes.items() if s != seat}
        return envy_results(seat, others, table)

    def _bank(self, base: list[WagerResult], pai_gow: bool) -> list[WagerResult]:
        """Table stakes: the player-dealer covers main wagers from the dealer's left while the bank
        lasts; the uncovered part of a wager is returned, and the bank's result is the sum."""
        assert self.banker is not None
        bank = self.wagers[self.banker]["bank"]
        left = bank
        out: list[WagerResult] = []
        for result in base:
            covered = min(result.stake, left)
            left -= covered
            out.append(cover(result, covered))
        banker_net = -sum(r.net for r in out)
        note = "dealer pai gow" if pai_gow else "player-dealer bank"
        if banker_net > 0:
            mine = wager_result(
                self.banker, "bank", bank, "win", banker_net, bank, note=note, position=DEALER
            )
        elif banker_net < 0:
            mine = wager_result(
                self.banker, "bank", bank, "lose", returned=bank + banker_net, note=note, position=DEALER
            )
        else:
            mine = wager_result(self.banker, "bank", bank, "push", returned=bank, note=note, position=DEALER)
        return [*out, mine]

    def _hand_name(self, position: str) -> str:
        setting = self.settings.get(position)
        if setting is None:
            return ""
        return f"{setting.back_value.name} / {setting.front_value.name}"

    def forfeit(self, seat: int, reason: str) -> None:
        """A player's hand may be forfeited; the player-dealer's bank may not (void the round)."""
        if seat == self.banker:
            raise RuleViolation(
                "forfeit-needs-hand", f"seat {seat} banks: it has no player's hand to forfeit"
            )
        super().forfeit(seat, reason)


def deal_order(total: int, seats: int, live: Sequence[int]) -> list[str]:
    """Hands in dealing order: count ``total`` around the dealer (1) and seats 1..N from the
    dealer's left, start at the position reached, and keep only the dealer and live seats."""
    ring = [DEALER, *(seat_position(s) for s in range(1, seats + 1))]
    start = (total - 1) % len(ring)
    wanted = {DEALER, *(seat_position(s) for s in live)}
    return [p for p in ring[start:] + ring[:start] if p in wanted]


def compare(player: Setting, dealer: Setting) -> str:
    """``win`` when both of the player's hands beat the dealer's, ``lose`` when neither does (a copy
    is the dealer's), else ``push``."""
    back = player.back_value > dealer.back_value
    front = player.front_value > dealer.front_value
    if back and front:
        return "win"
    return "push" if back or front else "lose"


def cover(result: WagerResult, covered: int) -> WagerResult:
    """The part of a main wager the player-dealer's bank covers plays; the rest is returned."""
    if covered == result.stake or result.outcome == "forfeit":
        return result
    extra = result.stake - covered
    note = f"player-dealer covers {covered} cents; {extra} cents returned"
    if covered == 0 or result.outcome == "push":
        return wager_result(
            result.seat, result.bet, result.stake, "push", returned=result.stake, hand=result.hand, note=note
        )
    if result.outcome == "win":
        payout = pay_odds(covered, EVEN_MONEY)
        return wager_result(
            result.seat, result.bet, result.stake, "win", payout.amount, result.stake, result.hand, note=note
        )
    return wager_result(
        result.seat, result.bet, result.stake, "lose", returned=extra, hand=result.hand, note=note
    )


def envy_results(seat: int, others: Mapping[int, str], table: PayTable) -> list[WagerResult]:
    """Envy for a qualified seat: one stake-less win per other player's hand the table pays, its
    fixed amount, naming the seat whose hand paid it (``others``: seat -> Fortune class)."""
    results = []
    for other, name in sorted(others.items()):
        award = table.award(name)
        if award is None:
            continue
        amount = award.pay(0).amount
        note = f"envy of seat {other}'s {name}: {format_amount(amount)}"
        paid = wager_result(seat, "envy", 0, "win", amount, hand=name, note=note)
        results.append(replace(paid, earned_by=seat_position(other)))
    return results
