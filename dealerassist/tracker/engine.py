"""The tracker's logic for one table, free of I/O: an accepted input in, the events it causes out.

``TableEngine.apply`` either raises (the input is refused and nothing changed) or returns the
events the input caused. The state is a function of the accepted inputs alone, so replaying the
logged inputs rebuilds it exactly (crash recovery, replay files, exports).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.errors import DealerAssistError, RuleViolation
from dealerassist.events import (
    CardRead,
    CardRemoved,
    CardSource,
    DealerButton,
    DeviceAlarm,
    DeviceLink,
    Event,
    EventError,
    Meta,
    ShoeStatus,
)
from dealerassist.games.base import DEALER, Decision, Game, Settlement, parse_position
from dealerassist.tracker import events as ev
from dealerassist.tracker.alarms import AlarmBook
from dealerassist.tracker.roundbook import (
    CloseBetting,
    DealCard,
    DealtCard,
    Decide,
    ForfeitSeat,
    PlaceWager,
    RoundBook,
    SetDice,
    settlement_dicts,
)
from dealerassist.tracker.shoeposition import ShoePosition

DEFAULT_RECOGNITION_THRESHOLD = 0.9


@dataclass
class ShoeSlot:
    """A position-less read waiting for its turn: cards are dealt strictly in the order read."""

    read_id: str | None
    card: Card | None
    source: CardSource
    confidence: float


@dataclass
class PendingRead:
    """A read the dealer must confirm (unreadable, or below the recognition threshold)."""

    read_id: str
    read: CardRead


class TableEngine:
    """State of one table: the open round, alarms, reads awaiting confirmation."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = game.rules
        self.table = self.rules.table_id
        self.threshold = float(self.rules.option("recognition_threshold", DEFAULT_RECOGNITION_THRESHOLD))
        self.camera_checks_shoe = bool(self.rules.option("camera_must_match_shoe", True))
        self.alarms = AlarmBook(self.table)
        self.round_id = 0
        self.status = "idle"
        self.book: RoundBook | None = None
        self.settlement: Settlement | None = None
        self.reads_seen = 0
        self.shoe = ShoePosition()
        self.players: dict[int, str] = {}  # seat -> the player id the dealer entered there
        self.leading: list[Event] = []
        self._reset_round_state()
        self._handlers: dict[str, Callable[[Any], list[Event]]] = {
            "round-open": self._round_open,
            "wager": self._wager,
            "betting-closed": self._betting_closed,
            "decision": self._decision,
            "seat-player": self._seat_player,
            "new-shoe": self._new_shoe,
            "dice": self._dice,
            "dealer-reveal": self._reveal,
            "dealer-button": self._reveal,
            "ack-alarm": self._ack_alarm,
            "approve-void": self._approve_void,
            "forfeit": self._forfeit,
            "correct-card": self._correct_card,
            "correct-wager": self._correct_wager,
            "confirm-read": self._confirm_read,
            "round-close": self._round_close,
            "card-read": self._card_read,
            "card-removed": self._card_removed,
            "meta": self._nothing,
            "shoe-status": self._shoe_status,
            "device-link": self._device_link,
            "device-alarm": self._device_alarm,
        }

    def _reset_round_state(self) -> None:
        self.pending: dict[str, PendingRead] = {}
        self.shoe_queue: deque[ShoeSlot] = deque()
        self.exposed: set[int | None] = set()
        self.flags: list[str] = []
        self.revealed = False
        self.corrected = False

    # --- entry point -----------------------------------------------------------------------

    @property
    def phase(self) -> str:
        if self.status == "open" and self.book is not None:
            return self.book.round.phase
        return self.status

    def apply(self, event: Event) -> list[Event]:
        """Handle one input; raises ``EventError``/``RuleViolation`` (state unchanged) to refuse it.

        ``leading`` then holds records to be logged *before* the input: the checkpoint of a round
        that this ``round-open`` closed implicitly, which a restart must restore before the open.
        """
        handler = self._handlers.get(event.kind)
        if handler is None:
            raise EventError(f"kind: {event.kind!r} is not an input the tracker takes")
        if event.table != self.table:
            raise EventError(f"table: this event is for table {event.table!r}, not {self.table!r}")
        round_id = getattr(event, "round_id", None)
        if round_id is not None and event.kind != "round-open" and round_id != self.round_id:
            raise EventError(
                f"{event.kind}.round_id: round {round_id} is not the current round {self.round_id}"
            )
        before = (self.round_id, self.phase)
        self.leading: list[Event] = []
        out = handler(event)
        out += self._settle_if_complete()
        if (self.round_id, self.phase) != before and self.round_id:
            out.append(ev.Phase(table=self.table, round_id=self.round_id, phase=self.phase))
        if event.kind == "round-close":
            out.append(self.checkpoint())
        return out

    def checkpoint(self) -> ev.TableState:
        """The state between rounds, as a record a restart can start from."""
        return ev.TableState(
            table=self.table,
            round_id=self.round_id,
            alarms=tuple(alarm.to_dict() for alarm in self.alarms.open.values()),
            conditions=dict(self.alarms.conditions),
            alarms_raised=self.alarms.raised,
            reads_seen=self.reads_seen,
            shoe_boot=self.shoe.boot,
            shoe_sequence=self.shoe.sequence,
            shoe_recent=self.shoe.to_record(),
            players={str(seat): player for seat, player in sorted(self.players.items())},
        )

    def restore(self, state: ev.TableState) -> None:
        """Start from a checkpoint: a closed round, its alarms and counters."""
        self.round_id, self.status, self.book, self.settlement = state.round_id, "closed", None, None
        self._reset_round_state()
        self.alarms.open = {
            a["alarm_id"]: ev.Alarm(**{k: v for k, v in a.items() if k != "kind"}) for a in state.alarms
        }
        self.alarms.conditions = dict(state.conditions)
        self.alarms.raised = state.alarms_raised
        self.reads_seen = state.reads_seen
        self.shoe = ShoePosition.from_record(state.shoe_boot, state.shoe_sequence, state.shoe_recent)
        self.players = {int(seat): player for seat, player in state.players.items()}

    # --- round lifecycle -------------------------------------------------------------------

    def _round_open(self, event: ev.RoundOpen) -> list[Event]:
        if self.status == "open":
            raise RuleViolation(
                "round-in-progress", f"round {self.round_id} is still in play: settle or void it"
            )
        if event.round_id is not None and event.round_id <= self.round_id:
            raise EventError(
                f"round-open.round_id: must be above the last round {self.round_id}, got {event.round_id}"
            )
        out: list[Event] = []
        if self.status in ("settled", "voided"):
            out.append(ev.Phase(table=self.table, round_id=self.round_id, phase="closed"))
            self.leading = [self.checkpoint()]
        book = RoundBook.start(self.game)
        self.round_id = event.round_id or self.round_id + 1
        self.book, self.status, self.settlement = book, "open", None
        self._reset_round_state()
        return out

    def _round_close(self, event: ev.RoundClose) -> list[Event]:
        if self.status in ("idle", "closed"):
            raise RuleViolation("no-round-open", "there is no round to close")
        if self.status == "open":
            raise RuleViolation(
                "round-incomplete",
                f"round {self.round_id} is not settled (phase {self.phase}): "
                "finish it or have a supervisor void it",
            )
        self.status, self.book, self.settlement = "closed", None, None
        self._reset_round_state()
        return []

    def _open_book(self, what: str) -> RoundBook:
        if self.status == "open" and self.book is not None:
            return self.book
        if self.status in ("settled", "voided"):
            raise RuleViolation(
                "round-over", f"round {self.round_id} is already {self.status}: {what} not possible"
            )
        raise RuleViolation("no-round-open", f"no round is open: {what} not possible")

    def _settle_if_complete(self) -> list[Event]:
        book = self.book
        if self.status != "open" or book is None or not book.round.complete or self.shoe_queue:
            return []
        settlement = book.round.settle()
        self.status, self.settlement = "settled", settlement
        return [
            ev.RoundSettled(
                table=self.table,
                round_id=self.round_id,
                results=settlement_dicts(settlement),
                hands=dict(settlement.hands),
                settings={
                    position: {name: tuple(card.code for card in cards) for name, cards in hands.items()}
                    for position, hands in settlement.settings.items()
                },
                corrected=self.corrected,
            )
        ]

    def _void(self, reason: str) -> list[Event]:
        book = self._open_book("void")
        settlement = book.round.void(reason)
        self.status, self.settlement = "voided", settlement
        self.pending.clear()
        self.shoe_queue.clear()
        return [
            ev.RoundVoided(
                table=self.table, round_id=self.round_id, reason=reason, results=settlement_dicts(settlement)
            )
        ]

    # --- betting and decisions -------------------------------------------------------------

    def _seat(self, kind: str, seat: int) -> int:
        if not 1 <= seat <= self.rules.seats:
            raise EventError(f"{kind}.seat: this table has seats 1..{self.rules.seats}, got {seat}")
        return seat

    def _seat_player(self, event: ev.SeatPlayer) -> list[Event]:
        """Recorded as it came (the log is where protection reads it); the seat is checked, and the
        dealer's screen shows who sits there until the player leaves (an empty id)."""
        seat = self._seat(event.kind, event.seat)
        if event.player:
            self.players[seat] = event.player
        else:
            self.players.pop(seat, None)
        return []

    def _new_shoe(self, event: ev.NewShoe) -> list[Event]:
        """Recorded as it came; refused in the middle of a round (a shoe is changed between them)."""
        if self.status == "open":
            raise RuleViolation(
                "round-in-progress", f"round {self.round_id} is in play: change the shoe after it"
            )
        return []

    def _position(self, kind: str, position: str) -> str:
        try:
            place = parse_position(position)
        except ValueError as exc:
            raise EventError(f"{kind}.position: {exc}") from None
        if place is not None:
            self._seat(kind, place[0])
        return position

    def _wager(self, event: ev.Wager) -> list[Event]:
        self._seat(event.kind, event.seat)
        self._open_book("a wager is").apply(PlaceWager(event.seat, event.bet, event.amount))
        return []

    def _betting_closed(self, event: ev.BettingClosed) -> list[Event]:
        self._open_book("closing betting is").apply(CloseBetting())
        return []

    def _dice(self, event: ev.Dice) -> list[Event]:
        self._open_book("a dice total is").apply(SetDice(event.total))
        return []

    def _decision(self, event: ev.PlayerDecision) -> list[Event]:
        self._position(event.kind, event.position)
        decision = Decision(event.position, event.action, event.amount, event.choice, tuple(event.cards))
        book = self._open_book("a decision is")
        book.apply(Decide(decision))
        return [
            ev.CardMoved(
                table=self.table,
                round_id=self.round_id,
                card=dealt.card,
                from_position=position,
                from_index=index,
                position=dealt.position,
                index=dealt.index,
            )
            for dealt, position, index in book.moved
        ]

    def _reveal(self, event: ev.DealerReveal | DealerButton) -> list[Event]:
        if self.status != "open" or self.book is None:
            return []
        hidden = sorted(self.book.round.must_be_hidden())
        if hidden:
            where = ", ".join(f"{pos}[{index}]" for pos, index in hidden)
            raise RuleViolation(
                "reveal-too-early", f"dealer card(s) {where} must stay hidden in phase {self.phase}"
            )
        self.revealed = True
        return []

    # --- supervisor actions ----------------------------------------------------------------

    def _supervisor(self, event: ev.SupervisorInput) -> None:
        if event.role not in ev.SUPERVISOR_ROLES:
            raise RuleViolation(
                "supervisor-only",
                f"{event.kind} needs a supervisor or admin; {event.user or 'this user'} is {event.role}",
            )

    def _ack_alarm(self, event: ev.AckAlarm) -> list[Event]:
        self._supervisor(event)
        if event.alarm_id not in self.alarms.open:
            raise EventError(f"ack-alarm.alarm_id: no open alarm {event.alarm_id!r}")
        return [self.alarms.clear(event.alarm_id, event.user, event.reason)]

    def _approve_void(self, event: ev.ApproveVoid) -> list[Event]:
        self._supervisor(event)
        self._open_book("a void is")
        return self._void(f"supervisor {event.user}: {event.reason}")

    def _forfeit(self, event: ev.Forfeit) -> list[Event]:
        self._supervisor(event)
        self._seat(event.kind, event.seat)
        self._open_book("a forfeit is").apply(ForfeitSeat(event.seat, event.reason))
        return []

    def _correctable_book(self, what: str) -> RoundBook:
        if self.status in ("open", "settled") and self.book is not None:
            return self.book
        raise RuleViolation("not-correctable", f"round {self.round_id} is {self.status}: {what} not possible")

    def _rerun(self, book: RoundBook, actions: list[Any]) -> None:
        try:
            book.rerun(actions)
        except DealerAssistError as exc:
            raise RuleViolation(
                "correction-invalid", f"the round cannot be re-run with this correction: {exc}"
            ) from None
        if self.status == "settled":
            self.status, self.settlement = "open", None
        self.corrected = True

    def _correct_card(self, event: ev.CorrectCard) -> list[Event]:
        self._supervisor(event)
        self._position(event.kind, event.position)
        book = self._correctable_book("a card correction is")
        dealt = book.at(event.position, event.index)
        if dealt is None:
            raise EventError(
                f"correct-card.index: no card was dealt to {event.position} at index {event.index}"
            )
        if dealt.card == event.card:
            raise EventError(
                f"correct-card.card: {event.position}[{event.index}] already holds {event.card.code}"
            )
        actions = list(book.actions)
        actions[dealt.action_no] = DealCard(event.card, "manual", 1.0, None)
        self._rerun(book, actions)
        fixed = book.at(event.position, event.index)
        assert fixed is not None
        return [self._dealt_event(fixed)]

    def _correct_wager(self, event: ev.CorrectWager) -> list[Event]:
        self._supervisor(event)
        self._seat(event.kind, event.seat)
        book = self._correctable_book("a wager correction is")
        placed = [
            i
            for i, a in enumerate(book.actions)
            if isinstance(a, PlaceWager) and (a.seat, a.bet) == (event.seat, event.bet)
        ]
        # The corrected amount takes the first placing's place, so a side bet placed after its
        # main bet still finds it there when the round is re-run.
        at = placed[0] if placed else None
        actions = [a for i, a in enumerate(book.actions) if i not in placed]
        if event.amount:
            if at is None:
                at = next((i for i, a in enumerate(actions) if isinstance(a, CloseBetting)), len(actions))
            actions.insert(at, PlaceWager(event.seat, event.bet, event.amount))
        self._rerun(book, actions)
        return []

    # --- cards -----------------------------------------------------------------------------

    def _doubtful(self, read: CardRead) -> bool:
        return read.card is None or read.confidence < self.threshold

    def _card_read(self, read: CardRead) -> list[Event]:
        if not ShoePosition.applies(read):
            return self._table_read(read)
        verdict, skipped = self.shoe.judge(read)
        if verdict == "repeat":
            raise RuleViolation(
                "shoe-repeat", f"shoe card #{read.shoe_sequence} was received before: not dealt again"
            )
        if verdict == "conflict":
            return [self._shoe_conflict(read)]
        out = self._table_read(read)  # may refuse: then the tracker notes the read (note_refused_read)
        if skipped:
            first = self.shoe.sequence + 1
            missing = f"#{first}" if skipped == 1 else f"#{first}..#{first + skipped - 1}"
            message = f"shoe card(s) {missing} were drawn but never received: check the discard rack"
            out.insert(
                0, self.alarms.raise_alarm("shoe-sequence", "critical", message, self.round_id or None)
            )
        self.shoe.advance(read)
        return out

    def note_refused_read(self, read: CardRead) -> None:
        """A shoe read the game refused (no round open, say) still moves the shoe's position."""
        if ShoePosition.applies(read):
            self.shoe.advance(read)

    def _shoe_conflict(self, read: CardRead) -> ev.Alarm:
        return self.alarms.raise_alarm(  # neither card is named: one of them may be a hidden dealer card
            "shoe-sequence",
            "critical",
            f"shoe card #{read.shoe_sequence} arrived again as a different card than first received "
            "under that number: not dealt; check the shoe and the cards on the layout",
            self.round_id or None,
        )

    def _table_read(self, read: CardRead) -> list[Event]:
        if read.position is not None:
            self._position(read.kind, read.position)
            if self.status not in ("open", "settled") or (read.card is None and not read.face_up):
                return []
        else:
            self._open_book(f"a card from the {read.source}")
        if self._doubtful(read):
            return self._ask_confirmation(read)
        if read.position is None:
            self.shoe_queue.append(ShoeSlot(None, read.card, read.source, read.confidence))
            return self._drain_shoe()
        assert read.card is not None
        return self._sighting(read, read.card, read.confidence, None)

    def _ask_confirmation(self, read: CardRead) -> list[Event]:
        if self.status != "open":
            return []
        self.reads_seen += 1
        read_id = f"{self.table}:R{self.reads_seen}"
        self.pending[read_id] = PendingRead(read_id, read)
        if read.position is None:
            self.shoe_queue.append(ShoeSlot(read_id, None, read.source, read.confidence))
        candidates = (read.card.code,) if read.card is not None else ()
        return [
            ev.ReadNeedsConfirmation(
                table=self.table,
                round_id=self.round_id,
                read_id=read_id,
                position=read.position,
                candidates=candidates,
                confidence=read.confidence,
                source=read.source,
            )
        ]

    def _confirm_read(self, event: ev.ConfirmRead) -> list[Event]:
        pending = self.pending.get(event.read_id)
        if pending is None:
            raise EventError(f"confirm-read.read_id: no read {event.read_id!r} is waiting for confirmation")
        read = pending.read
        if read.position is not None:
            out = self._sighting(read, event.card, 1.0, event.read_id)
        else:
            slot = next(s for s in self.shoe_queue if s.read_id == event.read_id)
            slot.card, slot.confidence = event.card, 1.0
            out = []
        self.pending.pop(event.read_id, None)
        if read.position is None:
            out += self._drain_shoe()
        if read.card is not None and read.card != event.card:
            shown = self._shown(event.read_id, read.position)
            said, seen = (event.card.code, read.card.code) if shown else ("??", "??")
            message = (
                f"{event.user} confirmed {said} where the {read.source} read {seen} "
                f"at confidence {read.confidence:.2f}"
            )
            out.insert(0, self.alarms.raise_alarm("low-confidence", "warning", message, self.round_id))
        return out

    def _shown(self, read_id: str, position: str | None) -> bool:
        """May the card of this read be named in an alarm (it is not a dealer card still hidden)?"""
        if self.status != "open" or self.book is None or position not in (None, DEALER):
            return True
        dealt = next((d for d in self.book.dealt if d.read_id == read_id), None)
        hidden = self.book.round.must_be_hidden()
        if dealt is not None:
            return (dealt.position, dealt.index) not in hidden
        return not any(place == DEALER for place, _ in hidden)

    def _read_hidden(self, read_id: str, position: str | None, step: Any) -> bool:
        """Whether a read waiting for confirmation may be a dealer card still face down.

        A shoe read first in the queue fills the next deal step, so that step decides; one further
        back could be any card still to come, so it counts as hidden while any dealer card is.
        """
        if (
            position is None
            and step is not None
            and self.shoe_queue
            and self.shoe_queue[0].read_id == read_id
        ):
            return step.position == DEALER and not step.face_up
        return not self._shown(read_id, position)

    def _drain_shoe(self) -> list[Event]:
        out: list[Event] = []
        while self.shoe_queue and self.shoe_queue[0].card is not None:
            slot = self.shoe_queue.popleft()
            if self.status != "open":
                continue
            assert slot.card is not None
            out += self._deal(slot.card, slot.source, slot.confidence, slot.read_id)
        return out

    def _deal(self, card: Card, source: CardSource, confidence: float, read_id: str | None) -> list[Event]:
        book = self._open_book("dealing")
        if book.round.next_deal() is None:
            return self._misdeal(f"{card.code} was dealt but no card is expected in phase {self.phase}")
        try:
            dealt = book.apply(DealCard(card, source, confidence, read_id))
        except DealerAssistError as exc:
            return self._misdeal(f"{card.code} cannot be dealt: {exc}")
        assert dealt is not None
        return [self._dealt_event(dealt)]

    def _dealt_event(self, dealt: DealtCard) -> ev.CardDealt:
        return ev.CardDealt(
            table=self.table,
            round_id=self.round_id,
            position=dealt.position,
            index=dealt.index,
            card=dealt.card,
            face_up=dealt.face_up,
            source=dealt.source,
            confidence=dealt.confidence,
            read_id=dealt.read_id,
        )

    def _misdeal(self, message: str) -> list[Event]:
        alarm = self.alarms.raise_alarm(
            "misdeal", "critical", f"misdeal: {message}; all hands void", self.round_id
        )
        return [alarm, *self._void(f"misdeal: {message}")]

    def _sighting(self, read: CardRead, card: Card, confidence: float, read_id: str | None) -> list[Event]:
        """A card seen in a known position: check it against the deal, exposure, or deal it.

        ``card`` is what the read says, or what the dealer confirmed it to be.
        """
        book = self.book
        if book is None or self.status not in ("open", "settled"):
            return []
        position, face_up, source = read.position, read.face_up, read.source
        assert position is not None
        match = self._seen_card(book, position, card, read.track)
        step = book.round.next_deal() if self.status == "open" else None
        deals = match is None and step is not None and step.position == position
        deals = deals and (source == "manual" or (source == "camera" and not self.camera_checks_shoe))
        if match is None and not deals and source == "manual":
            expected = step.position if step else "no position"
            raise RuleViolation("deal-order", f"the next card goes to {expected}, not {position}")
        out: list[Event] = []
        if position == DEALER and face_up and self._exposes(book, match):
            out += self._exposure(match, card, source)
            if self.status != "open":
                return out
        if match is not None:
            match.camera_checked = match.camera_checked or source == "camera"
            match.seen_face_up = match.seen_face_up or face_up
            if match.camera_track is None:
                match.camera_track = read.track
        elif deals:
            out += self._deal(card, source, confidence, read_id)
            if self.status == "open" and book.dealt:
                book.dealt[-1].camera_track = read.track
        else:
            hidden = book.round.must_be_hidden() if self.status == "open" else frozenset()
            shown = [
                "??" if (d.position, d.index) in hidden else d.card.code
                for d in book.dealt
                if d.position == position
            ]
            dealt_there = " ".join(shown) or "nothing"
            message = f"the {source} saw {card.code} at {position} but the shoe dealt {dealt_there} there"
            out.append(self.alarms.raise_alarm("read-mismatch", "critical", message, self.round_id))
        return out

    def _seen_card(self, book: RoundBook, position: str, card: Card, track: str | None) -> DealtCard | None:
        """Which card dealt to ``position`` a read of ``card`` is: it matters when two share a code.

        A camera track stays with the card it was first matched to. A new track takes a card of
        that code no live track holds, and of those one that may be seen before one that must stay
        hidden: the up card read again under a new track is still the up card, while its hidden
        twin turned face up is the twin. Reads without a track (manual entries) take a card that may
        be seen when there is one.
        """
        same = [d for d in book.dealt if d.position == position and d.card == card]
        held = next((d for d in same if track is not None and d.camera_track == track), None)
        if held is not None:
            return held
        free = [d for d in same if d.camera_track is None] if track is not None else same
        hidden = book.round.must_be_hidden() if self.status == "open" else frozenset()
        return min(free or same, key=lambda d: (d.position, d.index) in hidden, default=None)

    def _exposes(self, book: RoundBook, match: DealtCard | None) -> bool:
        """Is a face-up sighting in the dealer's zone an exposed dealer card?

        A known card is exposed when its place must be hidden now. A card that matches nothing
        dealt is exposure only when no dealer card may be face up at all: otherwise the camera more
        likely misread the up card, which the read-mismatch check reports.
        """
        hidden = book.round.must_be_hidden() if self.status == "open" else frozenset()
        if not hidden:
            return False
        if match is not None:
            return (DEALER, match.index) in hidden
        return not any(d.position == DEALER and (DEALER, d.index) not in hidden for d in book.dealt)

    def _exposure(self, match: DealtCard | None, card: Card, source: CardSource) -> list[Event]:
        key = match.index if match is not None else None
        if key in self.exposed or self.status != "open":
            return []
        self.exposed.add(key)
        what = f"dealer card {card.code} seen face up ({source}) in phase {self.phase}"
        self.flags.append(f"exposed-dealer-card: {what}")
        if self.rules.exposure_policy == "void":
            alarm = self.alarms.raise_alarm(
                "exposed-dealer-card", "critical", f"{what}; round void", self.round_id
            )
            return [alarm, *self._void(f"exposed-dealer-card: {what}")]
        message = f"{what}; play continues (table policy: flag)"
        return [self.alarms.raise_alarm("exposed-dealer-card", "warning", message, self.round_id)]

    # --- devices ---------------------------------------------------------------------------

    def _card_removed(self, event: CardRemoved) -> list[Event]:
        """The camera lost a card: free it, so the card coming back under a new track matches it."""
        if self.book is not None and event.track is not None:
            for dealt in self.book.dealt:
                if dealt.camera_track == event.track:
                    dealt.camera_track = None
        return []

    def _nothing(self, event: Meta) -> list[Event]:
        return []

    def _shoe_status(self, event: ShoeStatus) -> list[Event]:
        if event.status == "ok":
            out: list[Event] = []
            for condition in [c for c in self.alarms.conditions if c.startswith("shoe-status:")]:
                out += self.alarms.clear_condition(condition, "the shoe reports ok")
            return out
        condition = f"shoe-status:{event.status}"
        if self.alarms.has_condition(condition):
            return []
        message = f"shoe reports {event.status}" + (f": {event.detail}" if event.detail else "")
        return [self.alarms.raise_alarm("shoe-status", "warning", message, self.round_id or None, condition)]

    def _device_link(self, event: DeviceLink) -> list[Event]:
        condition = f"device-link:{event.device}"
        if event.up:
            return self.alarms.clear_condition(condition, f"the {event.device} link is back")
        if self.alarms.has_condition(condition):
            return []
        message = f"{event.device} link down" + (f": {event.detail}" if event.detail else "")
        # The shared meter's link is the progressive's own alarm: its bet is refused until it is back.
        code = "progressive" if event.device == "meter-link" else "device-link"
        return [self.alarms.raise_alarm(code, "critical", message, self.round_id or None, condition)]

    def _device_alarm(self, event: DeviceAlarm) -> list[Event]:
        condition = f"device-alarm:{event.device}:{event.code}"
        if self.alarms.has_condition(condition):
            return []
        message = f"{event.device} {event.code}" + (f": {event.detail}" if event.detail else "")
        return [self.alarms.raise_alarm("device-alarm", "warning", message, self.round_id or None, condition)]

    # --- views -----------------------------------------------------------------------------

    def snapshot(self) -> dict[str, Any]:
        """JSON-able view of the table and its open round (dashboard, tests, crash checks)."""
        book = self.book
        round_ = book.round if book is not None else None
        positions: dict[str, list[dict[str, Any]]] = {}
        for dealt in book.dealt if book is not None else []:
            shown = dealt.face_up or dealt.seen_face_up or (self.revealed and dealt.position == DEALER)
            positions.setdefault(dealt.position, []).append(
                {
                    "index": dealt.index,
                    "card": dealt.card.code,
                    "face_up": shown,
                    "confidence": dealt.confidence,
                    "source": dealt.source,
                    "camera_checked": dealt.camera_checked,
                }
            )
        for cards in positions.values():
            cards.sort(key=lambda c: c["index"])
        in_play = self.status == "open" and round_ is not None
        pending = list(round_.pending_decisions()) if in_play and round_ is not None else []
        step = round_.next_deal() if in_play and round_ is not None else None
        settlement = self.settlement
        return {
            "table": self.table,
            "game": self.rules.game,
            "round_id": self.round_id,
            "status": self.status,
            "phase": self.phase,
            "positions": positions,
            "wagers": {str(seat): bets for seat, bets in (book.wagers() if book else {}).items()},
            "players": {str(seat): player for seat, player in sorted(self.players.items())},
            "next_deal": None
            if step is None
            else {"position": step.position, "index": step.index, "face_up": step.face_up},
            "pending_decisions": pending,
            "legal_actions": {p: list(round_.legal_actions(p)) for p in pending}
            if round_ is not None
            else {},
            "hands": dict(settlement.hands) if settlement else {},
            "settlement": None
            if settlement is None
            else {
                "void": settlement.void,
                "reason": settlement.reason,
                "results": list(settlement_dicts(settlement)),
            },
            "alarms": [a.to_dict() for a in self.alarms.open.values()],
            "pending_reads": [
                {
                    "read_id": p.read_id,
                    "position": p.read.position,
                    "source": p.read.source,
                    "candidates": [p.read.card.code] if p.read.card else [],
                    "confidence": p.read.confidence,
                    # A read that may be a dealer card still face down: the dashboard hides its card.
                    "hidden": self._read_hidden(p.read_id, p.read.position, step),
                }
                for p in self.pending.values()
            ],
            "queued_reads": len(self.shoe_queue),
            "flags": list(self.flags),
            "revealed": self.revealed,
        }


def refusal(table: str, kind: str, data: dict[str, Any], exc: Exception, round_id: int | None) -> ev.Refused:
    """Turn the error that refused an input into its ``refused`` record (rule, field, message)."""
    if isinstance(exc, RuleViolation):
        rule, field, message = exc.rule, "", exc.message
    else:
        message = str(exc)
        head, sep, _ = message.partition(": ")
        field = head.split(".", 1)[-1] if sep and " " not in head else ""
        rule = "invalid-event" if isinstance(exc, EventError) else type(exc).__name__
    return ev.Refused(
        table=table, input_kind=kind, rule=rule, field=field, message=message, input=data, round_id=round_id
    )
