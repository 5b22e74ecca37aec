"""A simulated dealer running one table through the same inputs a real table produces.

Wagers, betting closed, dice, decisions, read confirmations and round close go to the pit as a
dashboard would send them; every card leaves through the shoe emulator, so the real ``ShoeReader``
driver reads it off the wire and hands it to the tracker; the camera (when there is one) looks at
the layout through the real vision pipeline. The dealer only ever waits on what the tracker says
(``snapshot()``), never on its own idea of the round, so a pulled shoe cable simply pauses it.

Now and then it makes the things happen that a floor sees: a card the shoe cannot read (the dealer
confirms it after a moment), the dealer's hidden card caught face up by the camera (the round is
void), and a stacked shoe that brings a progressive hand.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from dealerassist.core.cards import Card
from dealerassist.errors import DealerAssistError
from dealerassist.events import Meta
from dealerassist.games.base import DEALER, parse_position
from dealerassist.protection.records import SHUFFLE
from dealerassist.simulation.bets import plan_wagers
from dealerassist.simulation.strategies import View, decide
from dealerassist.tracker import events as ev

log = logging.getLogger(__name__)

DEALER_USER = "demo-dealer"
# Cards the shoe is stacked with when a round is chosen to bring the progressive's top hand.
JACKPOT_STACKS: dict[str, dict[str, list[str]]] = {
    "pairs-and-up": {"seat": ["AS", "AS"], DEALER: ["AS", "AS"]},  # four aces, one suit
    "face-up-pai-gow": {"seat": ["2S", "3S", "4S", "5S", "6S", "7S", "8S"]},  # seven-card straight flush
}
SHOE_RESHUFFLE_FRACTION = 0.25  # a multi-deck shoe is reshuffled at the cut card


class Stopped(Exception):
    """The demo is stopping: unwind the round loop."""


class Shoe(Protocol):
    """What the dealer needs from ``firmware_bridge.emulators.shoe.ShoeEmulator``."""

    def deal(self, card: str | Card | None = None, *, unreadable: bool = False) -> int | None: ...

    def press_button(self) -> None: ...


class Camera(Protocol):
    """What the dealer needs from a table camera: look at a layout, feed what it reads."""

    zones: frozenset[str]

    def look(self, layout: Mapping[str, Sequence[tuple[str, bool]]]) -> int: ...


class Supervisor(Protocol):
    def wait_for_jackpot(self, table: str, stop: threading.Event) -> None: ...

    def request_void(self, table: str, reason: str, stop: threading.Event) -> None: ...


@dataclass(frozen=True)
class Pace:
    """Seconds the dealer takes for each step (a realistic table, or as fast as the wire allows)."""

    betting: float
    card: float
    decision: float
    showdown: float
    confirm: float
    patience: float  # waiting longer than this for a device is said on the console


PACES = {
    "table": Pace(betting=2.5, card=0.2, decision=1.0, showdown=2.5, confirm=2.0, patience=5.0),
    "fast": Pace(betting=0.0, card=0.0, decision=0.0, showdown=0.0, confirm=0.05, patience=1.0),
}


@dataclass(frozen=True)
class Chances:
    """Per-round chances of the incidents the demo shows."""

    exposure: float = 0.06
    misread: float = 0.08
    jackpot: float = 0.12


@dataclass
class Tally:
    rounds: int = 0
    settled: int = 0
    voided: int = 0
    jackpots: int = 0
    misreads: int = 0
    exposures: int = 0
    refused: list[str] = field(default_factory=list)
    stopped_by: str = ""


class SimulatedDealer:
    """Deals rounds at one table until stopped (or for a given number of rounds)."""

    def __init__(
        self,
        config: Any,
        pit: Any,
        shoe: Shoe,
        *,
        rng: random.Random,
        pace: Pace,
        chances: Chances = Chances(),
        camera: Camera | None = None,
        supervisor: Supervisor | None = None,
        say: Callable[[str], None] = print,
        wait_s: float = 120.0,
    ) -> None:
        self.config = config
        self.rules = config.rules
        self.table = config.table_id
        self.game = self.rules.game
        self.pit = pit
        self.tracker = pit.tracker(self.table)
        self.shoe = shoe
        self.rng = rng
        self.pace = pace
        self.chances = chances
        self.camera = camera
        self.supervisor = supervisor
        self.say = say
        self.wait_s = wait_s
        self.tally = Tally()
        self._shoe_cards: list[Card] = []
        self._unread: list[Card] = []

    # --- the round loop -------------------------------------------------------------------------

    def run(self, stop: threading.Event, rounds: int | None = None) -> Tally:
        """Deal rounds until ``stop`` is set or ``rounds`` are done."""
        try:
            while not stop.is_set() and (rounds is None or self.tally.rounds < rounds):
                self.play_round(stop)
        except Stopped as why:
            self.tally.stopped_by = str(why)
        except Exception as exc:  # the demo goes on with the other tables; the log shows the trace
            log.exception("%s: the simulated dealer stopped", self.table)
            self.tally.stopped_by = f"error: {exc}"
        return self.tally

    def play_round(self, stop: threading.Event) -> str:
        """One whole round; returns how it ended (``settled`` or ``voided``)."""
        if self.supervisor is not None:
            self.supervisor.wait_for_jackpot(self.table, stop)
        self._finish_leftover(stop)
        jackpot = self.game in JACKPOT_STACKS and self.rng.random() < self.chances.jackpot
        exposure = self.camera is not None and self.rng.random() < self.chances.exposure
        misread_at = self.rng.randint(0, 3) if self.rng.random() < self.chances.misread else None
        if self._new_shoe_due() and self.rules.deck.size > 53:
            self._send(
                Meta(table=self.table, data=dict(SHUFFLE))
            )  # before the round: its count starts afresh
        self._send(ev.RoundOpen(table=self.table, user=DEALER_USER))
        round_id = self.tracker.round_id
        stacks = self._place_wagers(round_id, jackpot, stop)
        self._sleep(self.pace.betting, stop)
        self._send(ev.BettingClosed(table=self.table, round_id=round_id, user=DEALER_USER))
        if self.tracker.snapshot()["phase"] == "dice":
            total = sum(self.rng.randint(1, 6) for _ in range(int(self.rules.option("dice", 3))))
            self._send(ev.Dice(table=self.table, round_id=round_id, total=total, user=DEALER_USER))
        deck = self._round_deck(stacks)
        dealt = 0
        while True:
            snap = self.tracker.snapshot()
            if snap["round_id"] != round_id or snap["status"] != "open":
                break
            if snap["pending_reads"]:
                self._confirm_reads(snap, round_id, stop)
            elif snap["next_deal"] is not None:
                self._deal_one(snap, deck, stacks, unreadable=dealt == misread_at, stop=stop)
                dealt += 1
            elif snap["pending_decisions"]:
                if exposure and self._expose_hole_card(snap):
                    exposure = False
                    continue
                self._decide(snap, round_id, stop)
            else:
                self._stuck(snap, stop)
        return self._showdown(round_id, stop)

    # --- steps ------------------------------------------------------------------------------------

    def _place_wagers(self, round_id: int, jackpot: bool, stop: threading.Event) -> dict[str, list[Card]]:
        locked = self.supervisor is not None and self._progressive_locked()
        allow = None if not locked else frozenset(b for b in self.rules.limits if b != "progressive")
        stack_seat = None
        must: dict[int, list[str]] = {}
        if jackpot and not locked and "progressive" in self.rules.limits:
            stack_seat = self.rng.randint(1, min(self.rules.seats, 5))
            must[stack_seat] = ["progressive"]
        for wager in plan_wagers(self.rules, self.rng, must_bet=must, allow=allow):
            self._send(
                ev.Wager(
                    table=self.table,
                    round_id=round_id,
                    seat=wager.seat,
                    bet=wager.bet,
                    amount=wager.amount,
                    user=DEALER_USER,
                )
            )
            self._sleep(self.pace.betting / 10, stop)
        if stack_seat is None:
            return {}
        self.tally.jackpots += 1
        recipe = JACKPOT_STACKS[self.game]
        stacks = {f"seat-{stack_seat}": [Card.parse(c) for c in recipe["seat"]]}
        if DEALER in recipe:
            stacks[DEALER] = [Card.parse(c) for c in recipe[DEALER]]
        self.say(
            f"{self.table}: round {round_id}: the shoe is stacked for a progressive hand at seat {stack_seat}"
        )
        return stacks

    def _progressive_locked(self) -> bool:
        controller = getattr(self.supervisor, "progressive", {}).get(self.table)
        return controller is not None and bool(controller.state()["pending"])

    def _new_shoe_due(self) -> bool:
        """A fresh deck every round, or a multi-deck shoe shuffled at its cut card. A new shoe is
        announced to the log (``meta`` ``{"shoe": "shuffled"}``) so game protection counts from it."""
        deck = self.rules.deck
        return deck.size <= 53 or len(self._shoe_cards) < deck.size * SHOE_RESHUFFLE_FRACTION

    def _round_deck(self, stacks: Mapping[str, list[Card]]) -> list[Card]:
        """The cards this round draws from: a fresh shuffle, or what is left of a multi-deck shoe."""
        deck = self.rules.deck
        if self._new_shoe_due():
            self._shoe_cards = deck.cards()
            self.rng.shuffle(self._shoe_cards)
        cards = self._shoe_cards if deck.size > 53 else list(self._shoe_cards)
        for stacked in (c for pile in stacks.values() for c in pile):
            cards.remove(stacked)
        return cards

    def _deal_one(
        self,
        snap: Mapping[str, Any],
        deck: list[Card],
        stacks: dict[str, list[Card]],
        *,
        unreadable: bool,
        stop: threading.Event,
    ) -> None:
        step = snap["next_deal"]
        pile = stacks.get(step["position"])
        card = pile.pop(0) if pile else deck.pop()
        self._sleep(self.pace.card, stop)
        before = _dealt_count(snap)
        if unreadable:
            self.tally.misreads += 1
            self._unread.append(card)
        self.shoe.deal(card, unreadable=unreadable)
        self._wait(
            lambda s: _dealt_count(s) > before or bool(s["pending_reads"]) or s["status"] != "open",
            "the shoe's card to reach the tracker",
            stop,
        )

    def _confirm_reads(self, snap: Mapping[str, Any], round_id: int, stop: threading.Event) -> None:
        """Confirm a read the tracker doubts, as the dealer would at the touch screen."""
        for pending in snap["pending_reads"]:
            card = true_card(snap, pending, self._unread)
            if card is None:
                self._stuck(snap, stop)
                return
            self.say(
                f"{self.table}: round {round_id}: {pending['source']} misread, dealer confirms {card.code}"
            )
            self._sleep(self.pace.confirm, stop)
            confirmed = self._send(
                ev.ConfirmRead(
                    table=self.table,
                    round_id=round_id,
                    read_id=pending["read_id"],
                    card=card,
                    user=DEALER_USER,
                )
            )
            if confirmed is None:
                self._stuck(snap, stop)
                return

    def _decide(self, snap: Mapping[str, Any], round_id: int, stop: threading.Event) -> None:
        position = snap["pending_decisions"][0]
        self._sleep(self.pace.decision, stop)
        choice = decide(self.game, self._view(snap, position))
        sent = self._send(
            ev.PlayerDecision(
                table=self.table,
                round_id=round_id,
                position=position,
                action=choice.action,
                amount=choice.amount,
                choice=choice.choice,
                user=DEALER_USER,
            )
        )
        if sent is None:  # refused: a simple legal action keeps the round going
            fallback = snap["legal_actions"][position][0]
            self._send(
                ev.PlayerDecision(
                    table=self.table, round_id=round_id, position=position, action=fallback, user=DEALER_USER
                )
            )

    def _view(self, snap: Mapping[str, Any], position: str) -> View:
        positions = snap["positions"]
        dealer = positions.get(DEALER, [])
        visible = [c for c in dealer if c["face_up"] or (self.game == "pairs-and-up" and c["index"] == 0)]
        place = parse_position(position)
        wagers = snap["wagers"].get(str(place[0]), {}) if place else {}
        return View(
            position=position,
            actions=tuple(snap["legal_actions"].get(position, ())),
            cards=[Card.parse(c["card"]) for c in positions.get(position, [])],
            dealer_up=[Card.parse(c["card"]) for c in visible],
            wagers=wagers,
            rules=self.rules,
        )

    def _expose_hole_card(self, snap: Mapping[str, Any]) -> bool:
        """The camera catches a hidden dealer card face up (a careless turn): the round is void."""
        assert self.camera is not None
        hidden = [c for c in snap["positions"].get(DEALER, []) if not c["face_up"]]
        if not hidden:
            return False
        self.tally.exposures += 1
        self.say(f"{self.table}: round {snap['round_id']}: the dealer's hidden card is turned too early")
        layout = self._layout(snap, everything_up=False)
        layout[DEALER] = [(c["card"], True) for c in snap["positions"][DEALER][:4]]
        self.camera.look(layout)
        return True

    def _stuck(self, snap: Mapping[str, Any], stop: threading.Event) -> None:
        """Nothing the dealer can do moves the round on: a supervisor must void it."""
        reason = f"round stuck in phase {snap['phase']}"
        if self.supervisor is None:
            raise Stopped(reason)
        self.supervisor.request_void(self.table, reason, stop)

    def _showdown(self, round_id: int, stop: threading.Event) -> str:
        snap = self.tracker.snapshot()
        outcome = "voided" if snap["status"] == "voided" else "settled"
        self.tally.rounds += 1
        if outcome == "voided":
            self.tally.voided += 1
        else:
            self.tally.settled += 1
            before = self.pit.log.last_seq()
            self.shoe.press_button()
            self._wait_logged("dealer-button", before, stop)
            if self.camera is not None:
                self.camera.look(self._layout(snap, everything_up=True))
        self._sleep(self.pace.showdown, stop)
        self._wait(lambda s: not s["pending_reads"] or s["status"] != "open", "reads to settle", stop)
        if self.camera is not None:
            # The dealer collects the cards, and the camera sees the layout empty: without it, a
            # card of the next round lying where a card of the same code lay this round would
            # look unchanged and never be reported (a Pairs & Up deck is half aces).
            self.camera.look({})
        self._send(ev.RoundClose(table=self.table, round_id=round_id, user=DEALER_USER))
        return outcome

    def _finish_leftover(self, stop: threading.Event) -> None:
        """A round left open by an earlier run (the log is kept across restarts) is voided first."""
        snap = self.tracker.snapshot()
        if snap["status"] == "open":
            self._stuck(snap, stop)
            snap = self.tracker.snapshot()
        if snap["status"] in ("settled", "voided"):
            self._send(ev.RoundClose(table=self.table, round_id=snap["round_id"], user=DEALER_USER))

    def _layout(self, snap: Mapping[str, Any], *, everything_up: bool) -> dict[str, list[tuple[str, bool]]]:
        """What lies on the felt, as far as the camera's zones reach (a few cards per spot)."""
        assert self.camera is not None
        layout: dict[str, list[tuple[str, bool]]] = {}
        for position, cards in snap["positions"].items():
            if position in self.camera.zones:
                layout[position] = [(c["card"], everything_up or c["face_up"]) for c in cards[:4]]
        return layout

    # --- plumbing -------------------------------------------------------------------------------

    def _send(self, event: ev.Event) -> list[ev.Event] | None:
        """Hand an input to the pit; a refusal is logged by the tracker and reported here."""
        try:
            return self.pit.handle(self.table, event)
        except DealerAssistError as exc:
            self.tally.refused.append(f"{event.kind}: {exc}")
            log.warning("%s: %s refused: %s", self.table, event.kind, exc)
            return None

    def _sleep(self, seconds: float, stop: threading.Event) -> None:
        if seconds > 0 and stop.wait(seconds * self.rng.uniform(0.7, 1.3)):
            raise Stopped()
        if stop.is_set():
            raise Stopped()

    def _wait_logged(self, kind: str, after: int, stop: threading.Event) -> None:
        """Until the shoe's message has come through the driver into the log (it may lag a frame)."""

        def logged(_snap: dict[str, Any]) -> bool:
            return any(r.event.kind == kind for r in self.pit.log.records(after=after, table=self.table))

        self._wait(logged, f"the shoe's {kind} message", stop)

    def _wait(self, done: Callable[[dict[str, Any]], bool], what: str, stop: threading.Event) -> None:
        """Poll the tracker until ``done``; say once when it takes long (a pulled cable)."""
        started = time.monotonic()
        told = False
        while not done(self.tracker.snapshot()):
            if stop.wait(0.01):
                raise Stopped()
            waited = time.monotonic() - started
            if waited > self.pace.patience and not told:
                self.say(f"{self.table}: waiting for {what} (is a device link down?)")
                told = True
            if waited > self.wait_s:
                raise Stopped(f"{self.table}: gave up waiting for {what}")


def _dealt_count(snap: Mapping[str, Any]) -> int:
    return sum(len(cards) for cards in snap["positions"].values())


def true_card(snap: Mapping[str, Any], pending: Mapping[str, Any], unread: list[Card]) -> Card | None:
    """The card a doubtful read really was, as the dealer knows it.

    A shoe card the shoe could not read is the next of ``unread`` (the dealer holds it); a camera
    read is the candidate when that card lies at the spot, else the spot's first card the camera
    has not checked yet. ``None`` when the dealer cannot tell.
    """
    if pending["position"] is None:
        return unread.pop(0) if unread else None
    there = snap["positions"].get(pending["position"], [])
    codes = [c["card"] for c in there]
    if pending["candidates"] and pending["candidates"][0] in codes:
        return Card.parse(pending["candidates"][0])
    unchecked = [c["card"] for c in there if not c["camera_checked"]]
    return Card.parse((unchecked or codes)[0]) if codes else None
