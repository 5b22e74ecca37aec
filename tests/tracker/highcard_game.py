"""A small but real game for testing the tracker without the casino games: high card against the
dealer.

Each seat bets an ``ante``; after betting closes every seat with an ante gets one card face up (in
seat order), then the dealer gets one card face down. Each seat then folds (the ante loses) or
raises an amount equal to the ante. The dealer's card must stay hidden until every seat has decided.
Higher rank wins 1 to 1 on ante and raise, equal ranks push, lower loses.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from dealerassist.core.cards import RANK_NAMES, Card
from dealerassist.core.decks import RoundCards, load_deck
from dealerassist.errors import RuleViolation
from dealerassist.games import GAMES
from dealerassist.games.base import (
    DEALER,
    BetLimit,
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


class HighCardGame(Game):
    slug = "high-card-test"
    name = "High card against the dealer (test game)"
    default_deck = "standard-52"
    bets = ("ante", "raise")

    def new_round(self) -> HighCardRound:
        return HighCardRound(self.rules)


@dataclass
class HighCardRound(GameRound):
    rules: TableRules
    phase: str = "betting"
    antes: dict[int, int] = field(default_factory=dict)
    raises: dict[int, int] = field(default_factory=dict)
    folded: set[int] = field(default_factory=set)
    forfeited: dict[int, str] = field(default_factory=dict)
    cards: dict[str, list[Card]] = field(default_factory=dict)
    order: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.deck = RoundCards(self.rules.deck)

    def place_wager(self, seat: int, bet: str, amount: int) -> None:
        if self.phase != "betting":
            raise RuleViolation("betting-closed", f"betting is closed (phase {self.phase})")
        if bet != "ante":
            raise RuleViolation("bet-offered", f"only the ante is placed during betting, not {bet!r}")
        if amount == 0:
            self.antes.pop(seat, None)
            return
        limit = self.rules.limit(bet)
        if not limit.minimum <= amount <= limit.maximum:
            raise RuleViolation(
                "table-limits", f"ante must be {limit.minimum}..{limit.maximum} cents, got {amount}"
            )
        if amount % self.rules.chip:
            raise RuleViolation("chip-multiple", f"ante must be a multiple of {self.rules.chip} cents")
        self.antes[seat] = amount

    def close_betting(self) -> None:
        if self.phase != "betting":
            raise RuleViolation("betting-closed", "betting is already closed")
        if not self.antes:
            raise RuleViolation("no-wagers", "no seat has an ante")
        self.order = [seat_position(s) for s in sorted(self.antes)] + [DEALER]
        self.phase = "dealing"

    def next_deal(self) -> DealStep | None:
        if self.phase != "dealing":
            return None
        position = next(p for p in self.order if p not in self.cards)
        return DealStep(position, 0, position != DEALER)

    def deal(self, card: Card) -> DealStep:
        step = self.next_deal()
        if step is None:
            raise RuleViolation("no-card-expected", f"no card is expected in phase {self.phase}")
        self.deck.take(card)
        self.cards[step.position] = [card]
        if len(self.cards) == len(self.order):
            self.phase = "decisions"
        return step

    def _waiting(self) -> list[str]:
        seats = [seat_position(s) for s in sorted(self.antes)]
        decided = self.folded | set(self.raises) | set(self.forfeited)
        return [p for p in seats if _seat(p) not in decided]

    def pending_decisions(self) -> Sequence[str]:
        return self._waiting() if self.phase == "decisions" else []

    def legal_actions(self, position: str) -> Sequence[str]:
        waiting = self.pending_decisions()
        return ["fold", "raise"] if waiting and waiting[0] == position else []

    def decide(self, decision: Decision) -> None:
        if self.phase != "decisions":
            raise RuleViolation("not-deciding", f"no decisions are taken in phase {self.phase}")
        waiting = self._waiting()
        if decision.position not in waiting:
            raise RuleViolation("no-decision-due", f"{decision.position} has no decision to make")
        if decision.position != waiting[0]:
            raise RuleViolation("out-of-turn", f"{waiting[0]} decides before {decision.position}")
        seat = _seat(decision.position)
        if decision.action == "fold":
            self.folded.add(seat)
        elif decision.action == "raise":
            if decision.amount != self.antes[seat]:
                raise RuleViolation("raise-equals-ante", f"the raise must equal the ante {self.antes[seat]}")
            self.raises[seat] = decision.amount
        else:
            raise RuleViolation("unknown-action", f"actions are fold and raise, not {decision.action!r}")
        self._advance()

    def _advance(self) -> None:
        if self.phase == "decisions" and not self._waiting():
            self.phase = "complete"

    def must_be_hidden(self) -> frozenset[tuple[str, int]]:
        return frozenset({(DEALER, 0)}) if self.phase in ("betting", "dealing", "decisions") else frozenset()

    @property
    def complete(self) -> bool:
        return self.phase == "complete"

    def settle(self) -> Settlement:
        if not self.complete:
            raise RuleViolation("round-incomplete", f"cannot settle in phase {self.phase}")
        dealer = self.cards[DEALER][0]
        results: list[WagerResult] = []
        hands = {p: f"{RANK_NAMES[c[0].rank]} high" for p, c in self.cards.items()}
        for seat, ante in sorted(self.antes.items()):
            position = seat_position(seat)
            hand = hands[position]
            if seat in self.forfeited:
                results.append(WagerResult(seat, "ante", ante, "forfeit", hand=hand, position=position))
                continue
            if seat in self.folded:
                results.append(
                    WagerResult(seat, "ante", ante, "lose", hand=hand, note="folded", position=position)
                )
                continue
            mine = self.cards[position][0].rank
            for bet, stake in (("ante", ante), ("raise", self.raises[seat])):
                if mine > dealer.rank:
                    results.append(
                        WagerResult(seat, bet, stake, "win", stake, stake, hand, position=position)
                    )
                elif mine == dealer.rank:
                    results.append(WagerResult(seat, bet, stake, "push", 0, stake, hand, position=position))
                else:
                    results.append(WagerResult(seat, bet, stake, "lose", 0, 0, hand, position=position))
        self.phase = "settled"
        return Settlement(tuple(results), hands=hands)

    def void(self, reason: str) -> Settlement:
        results = [
            WagerResult(seat, "ante", ante, "void", 0, ante, note=reason, position=seat_position(seat))
            for seat, ante in sorted(self.antes.items())
        ]
        results += [
            WagerResult(seat, "raise", amount, "void", 0, amount, note=reason, position=seat_position(seat))
            for seat, amount in sorted(self.raises.items())
        ]
        self.phase = "void"
        return Settlement(tuple(results), void=True, reason=reason)

    def forfeit(self, seat: int, reason: str) -> None:
        if seat not in self.antes:
            raise RuleViolation("no-wager", f"seat {seat} has no wager to forfeit")
        self.forfeited[seat] = reason
        self._advance()

    def hands(self) -> Mapping[str, Sequence[Card]]:
        return {p: tuple(c) for p, c in self.cards.items()}


def _seat(position: str) -> int:
    place = parse_position(position)
    assert place is not None
    return place[0]


def high_card_rules(table_id: str = "hc-1", **overrides: object) -> TableRules:
    """Rules of a six-seat high-card table: ante $5..$500 in $1 chips."""
    options = dict(overrides.pop("options", {}) or {})  # type: ignore[call-overload]
    values: dict[str, object] = {
        "table_id": table_id,
        "game": HighCardGame.slug,
        "seats": 6,
        "deck": load_deck("standard-52"),
        "chip": 100,
        "limits": {"ante": BetLimit(500, 50_000)},
        "options": options,
        "exposure_policy": "void",
    }
    values.update(overrides)
    return TableRules(**values)  # type: ignore[arg-type]


GAMES.add(HighCardGame.slug, HighCardGame)
