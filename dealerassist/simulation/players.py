"""Simulated players for game protection: honest and perfect, hole-carding, and counting.

Each plays one seat through the real tracker (``table_session``): wagers, shoe reads and decisions
go to ``Tracker.handle`` exactly as a dealer's screen would send them, so what protection reads is
the log a live table writes.

* ``PerfectPlayer``: the best choice without hidden information (priced exactly, the same
  reviewer protection uses, where the game has one; else ``strategies.decide``). Its bet is the
  table minimum times a random multiple, independent of anything dealt.
* ``HoleCarder``: sees the dealer's hidden cards with probability ``sees`` each round and then
  plays the informed-best choice; otherwise plays like the perfect player. The one-card
  hole-carder (Three Card Poker) sees only the dealer's first card and plays the best choice
  given it.
* ``Counter``: keeps the Hi-Lo count of every card dealt since the shuffle and spreads its bet
  1 to 8 units by the true count; plays the simulation's blackjack strategy.
"""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass

from dealerassist.core.cards import Card
from dealerassist.events import CardRead, Meta
from dealerassist.games.base import DEALER, TableRules, parse_position
from dealerassist.protection.counting import DECK, hi_lo
from dealerassist.protection.decisions import FULL_VIEW, DecisionPoint
from dealerassist.protection.records import SHUFFLE, TURNED_BY_RULE
from dealerassist.protection.report import REVIEWERS, hole_card_views
from dealerassist.simulation.bets import MAIN_BET, MAIN_MULTIPLES
from dealerassist.simulation.strategies import Choice, View, decide
from dealerassist.tracker import Tracker
from dealerassist.tracker import events as ev

DEALER_USER = "sim-dealer"
CUT_FRACTION = 0.25  # a multi-deck shoe is shuffled when a quarter of it is left
ONE_CARD_SIGHT = "card-1"  # the one-card hole-carder sees the dealer's first card (Three Card Poker)


@dataclass(frozen=True)
class Table:
    """What a player may look at before betting: the shoe's count so far (a counter uses it)."""

    rules: TableRules
    true_count: float


class PerfectPlayer:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def bet(self, table: Table) -> int:
        limit = table.rules.limit(MAIN_BET[table.rules.game])
        return min(limit.minimum * self.rng.choice(MAIN_MULTIPLES), limit.maximum)

    def decide(self, view: View, point: DecisionPoint) -> Choice:
        reviewer = REVIEWERS.get(view.rules.game)
        if reviewer is None:
            return decide(view.rules.game, view)
        review = reviewer(point, view.rules)
        return self.choice(view, sorted(review.optimal)[0])

    @staticmethod
    def choice(view: View, option: str) -> Choice:
        """The decision for a reviewer's option: ``fold``, ``play`` (the Ante again), a Play of
        ``k`` times the Ante (``3x``) or a hand."""
        if option == "fold":
            return Choice("fold")
        if option == "play":
            return Choice("play", view.wagers.get("ante"))
        if option[:-1].isdigit() and option.endswith("x"):
            return Choice("play", int(option[:-1]) * view.wagers.get("ante", 0))
        if option in view.actions:
            return Choice(option)
        return Choice("play", choice=option)


class HoleCarder(PerfectPlayer):
    """Sees what ``sight`` names (every hidden dealer card, or one: ``card-1`` the first dealt)."""

    def __init__(self, rng: random.Random, sees: float = 1.0, sight: str = FULL_VIEW) -> None:
        super().__init__(rng)
        self.sees = sees
        self.sight = sight

    def decide(self, view: View, point: DecisionPoint) -> Choice:
        reviewer = hole_card_views(view.rules.game).get(self.sight) if view.rules.game in REVIEWERS else None
        if reviewer is None or self.rng.random() >= self.sees:
            return super().decide(view, point)
        review = reviewer(point, view.rules)
        best = review.optimal & review.informed or review.informed
        return self.choice(view, sorted(best)[0])


class Counter(PerfectPlayer):
    """Bets 1 unit up to a true count of 1, then 2, 4, 6 and 8 units at true counts 2, 3, 4, 5+."""

    RAMP = ((5, 8), (4, 6), (3, 4), (2, 2))

    def bet(self, table: Table) -> int:
        limit = table.rules.limit(MAIN_BET[table.rules.game])
        units = next((u for tc, u in self.RAMP if table.true_count >= tc), 1)
        return min(limit.minimum * units, limit.maximum)


class TableSession:
    """Deals rounds at one table through a tracker, for seated simulated players."""

    def __init__(self, tracker: Tracker, players: Mapping[int, PerfectPlayer], rng: random.Random) -> None:
        self.tracker = tracker
        self.rules = tracker.rules
        self.table = tracker.table
        self.players = dict(players)
        self.rng = rng
        self.shoe: list[Card] = []
        self.running = 0
        self.seen = 0

    def _send(self, event: ev.Event) -> None:
        self.tracker.handle(event)

    def _cards(self) -> list[Card]:
        """This round's cards: a fresh deck each round, or what is left of a multi-deck shoe."""
        deck = self.rules.deck
        if deck.size <= 53:
            cards = deck.cards()
            self.rng.shuffle(cards)
            return cards
        if len(self.shoe) < deck.size * CUT_FRACTION:
            self.shoe = deck.cards()
            self.rng.shuffle(self.shoe)
            self.running = self.seen = 0
            self._send(Meta(table=self.table, data=dict(SHUFFLE)))
        return self.shoe

    def true_count(self) -> float:
        decks_left = max((self.rules.deck.size - self.seen) / DECK, 0.5)
        return self.running / decks_left

    def play_round(self) -> None:
        main = MAIN_BET[self.rules.game]
        cards = self._cards()
        table = Table(self.rules, self.true_count())
        self._send(ev.RoundOpen(table=self.table, user=DEALER_USER))
        for seat, player in sorted(self.players.items()):
            amount = player.bet(table)
            self._send(ev.Wager(table=self.table, seat=seat, bet=main, amount=amount, user=DEALER_USER))
        self._send(ev.BettingClosed(table=self.table, user=DEALER_USER))
        while True:
            snap = self.tracker.snapshot()
            if snap["status"] != "open":
                break
            if snap["next_deal"] is not None:
                self._send(CardRead(table=self.table, source="shoe", card=cards.pop()))
            elif snap["pending_decisions"]:
                self._decide(snap)
            else:
                raise RuntimeError(f"{self.table}: round stuck in phase {snap['phase']}")
        for position in snap["positions"].values():
            for dealt in position:
                self.running += hi_lo(Card.parse(dealt["card"]))
                self.seen += 1
        self._send(ev.RoundClose(table=self.table, user=DEALER_USER))

    def _decide(self, snap: Mapping[str, object]) -> None:
        position = snap["pending_decisions"][0]  # type: ignore[index]
        positions = snap["positions"]  # type: ignore[assignment]
        seat = parse_position(position)[0]  # type: ignore[index]
        turned = TURNED_BY_RULE.get(self.rules.game, frozenset())
        dealer = positions.get(DEALER, [])  # type: ignore[attr-defined]
        up = tuple(Card.parse(c["card"]) for c in dealer if c["face_up"] or c["index"] in turned)
        hidden = tuple(Card.parse(c["card"]) for c in dealer if not (c["face_up"] or c["index"] in turned))
        own = tuple(Card.parse(c["card"]) for c in positions.get(position, []))  # type: ignore[attr-defined]
        wagers = snap["wagers"].get(str(seat), {})  # type: ignore[attr-defined]
        view = View(
            position=position,
            actions=tuple(snap["legal_actions"].get(position, ())),  # type: ignore[attr-defined]
            cards=own,
            dealer_up=up,
            wagers=wagers,
            rules=self.rules,
        )
        split = f"{position.split('.')[0]}.2" in positions  # type: ignore[operator]
        point = DecisionPoint(
            self.table,
            int(snap["round_id"]),
            seat,
            position,
            own,
            up,
            hidden,
            wagers,
            "",  # type: ignore[call-overload]
            split_hand=split,
        )
        choice = self.players[seat].decide(view, point)
        if choice.action not in view.actions:
            choice = decide(self.rules.game, view)
        self._send(
            ev.PlayerDecision(
                table=self.table,
                position=position,
                action=choice.action,
                amount=choice.amount,
                choice=choice.choice,
                user=DEALER_USER,
            )
        )


def seated(kind: str, rng: random.Random, sees: float = 1.0) -> PerfectPlayer:
    """A player by name: ``perfect``, ``hole-carder``, ``one-card-hole-carder`` or ``counter``."""
    if kind == "perfect":
        return PerfectPlayer(rng)
    if kind == "hole-carder":
        return HoleCarder(rng, sees)
    if kind == "one-card-hole-carder":
        return HoleCarder(rng, sees, ONE_CARD_SIGHT)
    if kind == "counter":
        return Counter(rng)
    raise ValueError(
        f"unknown simulated player {kind!r} (perfect, hole-carder, one-card-hole-carder, counter)"
    )


def play_rounds(tracker: Tracker, players: Mapping[int, PerfectPlayer], rounds: int, seed: int) -> None:
    session = TableSession(tracker, players, random.Random(seed))
    for _ in range(rounds):
        session.play_round()
