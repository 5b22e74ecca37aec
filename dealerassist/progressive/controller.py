"""The progressive controller: turns a table's round records into meter events.

It subscribes to the tracker (``controller.on_record``) and keeps, per open round, the progressive
wagers it saw. What each round owes the progressive is then *derived* from the log, never from
memory of what was already done:

* betting closed -> one contribution per qualifying wager (key ``table:round:seat``);
* round settled -> a hit per qualifying progressive hand, in seat order from the dealer's left
  (seat 1 first), each paid from the meter as the previous hit and its reset left it;
* round voided after betting closed -> every contribution of the round given back (a correction).

Because every one of those events has an idempotency key and the store commits a key once, the
same derivation runs at start-up over the log (``recover``) and after a lost link comes back:
whatever a kill -9 or an outage interrupted is done exactly once, nothing twice. A start from a
checkpoint (``resume``) restores the books of the rounds still open and reads only the records after
it; a shared (linked) meter then compares only the ledger's events of those rounds with the log, as
the finished rounds' events were in the log when the checkpoint was taken.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealerassist.core.money import format_amount
from dealerassist.errors import DealerAssistError, RuleViolation
from dealerassist.events import DeviceLink, Event
from dealerassist.progressive import meter, plans
from dealerassist.progressive.events import (
    PROGRESSIVE_KINDS,
    ProgressiveContribution,
    ProgressiveCorrection,
    ProgressiveHit,
    ProgressivePaid,
    ProgressiveParamsChanged,
    ProgressiveReset,
    key_round,
)
from dealerassist.progressive.params import ProgressiveParams, params_from_dict
from dealerassist.progressive.store import EventSink, LinkDown, LocalStore, MeterStore, event_key
from dealerassist.tracker.events import SUPERVISOR_ROLES

log = logging.getLogger(__name__)
FAULT_TEXT = "LINK DOWN"
StateListener = Callable[[dict[str, Any]], None]
# Tracker inputs that may leave ``round_id`` out, meaning the table's current round.
ROUND_INPUTS = frozenset({"wager", "correct-wager", "betting-closed", "round-close"})


@dataclass
class RoundBook:
    """What one round owes the progressive, rebuilt from the log."""

    wagers: dict[int, int] = field(default_factory=dict)
    closed: bool = False
    voided: bool = False
    results: list[Mapping[str, Any]] | None = None
    hands: Mapping[str, str] = field(default_factory=dict)
    contributed: dict[int, ProgressiveContribution] = field(default_factory=dict)
    hits: set[int] = field(default_factory=set)
    refunded: set[int] = field(default_factory=set)

    def to_dict(self) -> dict[str, Any]:
        return {
            "wagers": {str(seat): amount for seat, amount in self.wagers.items()},
            "closed": self.closed,
            "voided": self.voided,
            "results": None if self.results is None else [dict(r) for r in self.results],
            "hands": dict(self.hands),
            "contributed": {str(seat): e.to_dict() for seat, e in self.contributed.items()},
            "hits": sorted(self.hits),
            "refunded": sorted(self.refunded),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RoundBook:
        contributed = {
            int(seat): ProgressiveContribution(**{k: v for k, v in event.items() if k != "kind"})
            for seat, event in data["contributed"].items()
        }
        return cls(
            wagers={int(seat): int(amount) for seat, amount in data["wagers"].items()},
            closed=bool(data["closed"]),
            voided=bool(data["voided"]),
            results=None if data["results"] is None else list(data["results"]),
            hands=dict(data["hands"]),
            contributed=contributed,
            hits={int(seat) for seat in data["hits"]},
            refunded={int(seat) for seat in data["refunded"]},
        )


class ProgressiveController:
    """One table's view of a progressive (its own meter, or a shared linked one)."""

    def __init__(
        self,
        table: str,
        params: ProgressiveParams,
        log: EventSink,
        *,
        store: MeterStore | None = None,
        clock: Callable[[], float] = time.monotonic,
        win_display_s: float = 8.0,
        poll_s: float = 0.25,
        resume: tuple[int, Mapping[str, Any]] | None = None,
    ) -> None:
        """``resume`` is ``(seq, checkpoint_state())`` of a checkpoint taken at record ``seq``."""
        self.table = table
        self.log = log
        self.clock = clock
        self.win_display_s = win_display_s
        self.poll_s = poll_s
        self._lock = threading.RLock()
        self._books: dict[int, RoundBook] = {}
        self._local_keys: set[str] = set()
        # Round keys of rounds before this one were dropped by the checkpoint this start read:
        # those rounds are finished, and the shared ledger's copies of them are in the log already.
        self._keys_from_round = 0
        self._open_round: int | None = None
        self._last_round = 0
        self._known = False  # the meter has been read at least once (a linked one may be unreachable)
        self._recorded: int | None = None  # the amount this table's log last stated (``state()``)
        self._recorded_any = False
        self._fault: str | None = None
        self._seen_hits: dict[str, float] = {}
        self._listeners: list[StateListener] = []
        self._last_sent: dict[str, Any] | None = None
        # The shared meter's link as the table's log last recorded it (a ``device-link`` of device
        # ``meter-link``): the poller writes a record whenever the link it sees differs.
        self._link_sink: Callable[[Event], Any] | None = None
        self._link_logged_up = True
        self._stop = threading.Event()
        self._poller: threading.Thread | None = None
        foreign = resume is not None and resume[1].get("progressive") != params.name
        if resume is not None and (store is not None or foreign):
            log.warning("progressive %s: checkpoint not used; reading the table's log", params.name)
            resume = None
        self._owns_store = store is None
        self.store = store if store is not None else self._default_store(params, resume)
        self._params = params
        self._meter = meter.EMPTY
        self.recover(resume)

    def _default_store(
        self, params: ProgressiveParams, resume: tuple[int, Mapping[str, Any]] | None
    ) -> MeterStore:
        if params.link:
            from dealerassist.progressive.linked import LinkedStore

            return LinkedStore(params.link, self.table, params)
        return LocalStore(self.log, self.table, params, resume[1]["store"] if resume else None)

    # --- life cycle ---------------------------------------------------------------------------

    def recover(self, resume: tuple[int, Mapping[str, Any]] | None = None) -> None:
        """Rebuild the round books from the log (after a checkpoint's record, when given) and
        finish whatever a crash left undone."""
        with self._lock:
            after = 0
            if resume is not None:
                after, state = resume
                self._books = {int(r): RoundBook.from_dict(b) for r, b in state["books"].items()}
                self._local_keys = set(state["keys"])
                self._open_round = state["open_round"]
                self._last_round = int(state["last_round"])
                self._recorded, self._recorded_any = state["recorded"], bool(state["recorded_any"])
                self._keys_from_round = int(state.get("keys_from_round", 0))
            for record in self.log.records(after=after, table=self.table):
                self._ingest(record.event)
            self._refresh()
            self._copy_missing()
            self._act_all()

    # --- checkpoints ----------------------------------------------------------------------------

    @property
    def checkpoint_name(self) -> str:
        return checkpoint_name(self.table)

    @property
    def lock(self) -> threading.RLock:
        """Held while this controller takes in a record (a checkpoint holds it to take a state)."""
        return self._lock

    def checkpoint_state(self) -> dict[str, Any] | None:
        """The books of rounds not finished, the round counters and the meter (a standalone
        table's; a shared meter's lives in its database). None for a store handed in from outside."""
        if not self._owns_store:
            return None
        with self._lock:
            first = min([*self._books, self._last_round])
            return {
                "progressive": self.store.name,
                "open_round": self._open_round,
                "last_round": self._last_round,
                "recorded": self._recorded,
                "recorded_any": self._recorded_any,
                "books": {str(r): book.to_dict() for r, book in self._books.items()},
                "keys": sorted(k for k in self._local_keys if (key_round(k) or first) >= first),
                "keys_from_round": first,
                "store": self.store.checkpoint_state(first) if isinstance(self.store, LocalStore) else None,
            }

    def start(self) -> None:
        """Follow the other tables' changes and watch the link (a linked meter), and turn WIN into
        PENDING on the sign when its time is up."""
        if self._poller is None:
            self.store.listen()  # before the thread: a commit right after start() is not missed
            self._poller = threading.Thread(target=self._poll, name=f"progressive-{self.table}", daemon=True)
            self._poller.start()

    def stop(self) -> None:
        self._stop.set()
        if self._poller is not None:
            self.store.wake()
            self._poller.join(timeout=5)
            self._poller = None
        self.store.close()

    def _poll(self) -> None:
        while not self._stop.is_set():
            self.store.wait_for_change(self.poll_s)
            if not self._stop.is_set():
                self.refresh()
                self._report_link()

    def _report_link(self) -> None:
        """Send the table's tracker a ``meter-link`` ``device-link`` when the shared meter's link
        is not what the log last said: down raises the ``progressive`` alarm, up clears it.

        Sent outside the controller's lock: the tracker hands the record back to ``on_record``.
        A record that cannot be written now is tried again at the next poll."""
        if not self.store.shared or self._link_sink is None:
            return
        with self._lock:
            fault = self._fault
            if (fault is None) == self._link_logged_up:
                return
        event = DeviceLink(
            table=self.table,
            device="meter-link",
            up=fault is None,
            detail=fault or "the shared meter answers again",
            url=str(getattr(self.store, "url", "")),
        )
        try:
            self._link_sink(event)
        except DealerAssistError as exc:
            log.warning("%s: the shared meter's link change is not logged yet: %s", self.table, exc)

    def refresh(self) -> None:
        """Re-read the meter; after a lost link, push what waited for it."""
        with self._lock:
            was_down = self._fault is not None
            self._refresh()
            if was_down and self._fault is None:
                self._copy_missing()
                self._act_all()
            self._notify()

    def _refresh(self) -> None:
        try:
            self._adopt(self.store.snapshot())
        except LinkDown as exc:
            self._set_fault(str(exc))

    def _adopt(self, committed: tuple[meter.MeterState, ProgressiveParams] | None) -> None:
        """Take the meter as the store last read or committed it (no extra round trip)."""
        if committed is None:
            return
        self._meter, self._params = committed
        self._known = True
        self._fault = None
        now = self.clock()
        for hit_id in self._meter.pending:
            self._seen_hits.setdefault(hit_id, now)

    def _copy_missing(self) -> None:
        """Copy into this table's log what it committed to a shared meter but a crash (or a lost
        link) kept from the log: a confirmation or a parameter change made just before."""
        try:
            stored = self.store.table_events(self.table)
        except LinkDown as exc:
            self._set_fault(str(exc))
            return
        missing = [
            e for e in stored if event_key(e) not in self._local_keys and not self._before_checkpoint(e)
        ]
        if missing:
            self.log.append_many(missing)
            for event in missing:
                self._ingest_own(event)

    def _before_checkpoint(self, event: Event) -> bool:
        """Of a round the checkpoint this start read had finished (its keys were not kept)."""
        round_id = key_round(event_key(event))
        return round_id is not None and round_id < self._keys_from_round

    def _set_fault(self, detail: str) -> None:
        self._fault = detail

    # --- the tracker's records ----------------------------------------------------------------

    def attach(self, tracker: Any) -> None:
        """Follow a ``Tracker`` (or a ``Pit``): every record it logs comes to ``on_record``, and
        the table's tracker asks ``check_wager`` before it accepts a wager."""
        tracker.subscribe(self.on_record)
        table_tracker = tracker.tracker(self.table) if hasattr(tracker, "tracker") else tracker
        if hasattr(table_tracker, "add_wager_check"):
            table_tracker.add_wager_check(self.check_wager)
        self._link_sink = getattr(table_tracker, "handle", None)

    def on_record(self, record: Any) -> None:
        event = record.event
        if getattr(event, "table", None) != self.table or event.kind in PROGRESSIVE_KINDS:
            return
        with self._lock:
            round_id = self._ingest(event)
            if round_id is not None:
                self._act(round_id)
            self._notify()

    def _ingest(self, event: Event) -> int | None:
        """Note what ``event`` means for its round; returns the round it touched."""
        kind = event.kind
        if kind in PROGRESSIVE_KINDS:
            self._ingest_own(event)
            return None
        if isinstance(event, DeviceLink) and event.device == "meter-link":
            self._link_logged_up = event.up
            return None
        round_id = getattr(event, "round_id", None)
        if kind == "round-open":
            # The tracker numbers a round itself when the input names none: the next after the last.
            round_id = round_id if isinstance(round_id, int) else self._last_round + 1
            self._open_round = round_id
            self._last_round = max(self._last_round, round_id)
            self._sweep()
        elif not isinstance(round_id, int):
            if kind not in ROUND_INPUTS:
                return None
            round_id = self._last_round
        self._last_round = max(self._last_round, round_id)
        book = self._books.setdefault(round_id, RoundBook())
        if kind in ("wager", "correct-wager") and getattr(event, "bet", None) == self._params.bet:
            seat, amount = int(event.seat), int(event.amount)  # type: ignore[attr-defined]
            if amount > 0:
                book.wagers[seat] = amount
            else:
                book.wagers.pop(seat, None)
        elif kind == "betting-closed":
            book.closed = True
        elif kind == "round-settled":
            book.results = list(getattr(event, "results", ()) or ())
            book.hands = dict(getattr(event, "hands", {}) or {})
            self._round_ended(round_id)
        elif kind == "round-voided":
            book.voided = True
            self._round_ended(round_id)
        elif kind == "round-close":
            self._round_ended(round_id)
        return round_id

    def _round_ended(self, round_id: int) -> None:
        if self._open_round == round_id:
            self._open_round = None

    def _ingest_own(self, event: Event) -> None:
        if getattr(event, "progressive", None) != self.store.name:
            return
        self._local_keys.add(event_key(event))
        self._note_recorded(event)
        round_id = getattr(event, "round_id", None)
        seat = getattr(event, "seat", None)
        if round_id is None or seat is None:
            return
        book = self._books.setdefault(round_id, RoundBook())
        if isinstance(event, ProgressiveContribution):
            book.contributed[seat] = event
        elif isinstance(event, ProgressiveHit):
            book.hits.add(seat)
        elif isinstance(event, ProgressiveCorrection) and event.key.startswith("refund:"):
            book.refunded.add(seat)

    def _note_recorded(self, event: Event) -> None:
        """Follow the amount the log states: contributions and resets name it; a whole-cent step
        (an opening's base, a supervisor's correction) keeps it exact; a fractional one (a hit's
        share, a refund) loses it, because the sub-cent carry of a shared meter is not in this log."""
        if isinstance(event, ProgressiveContribution | ProgressiveReset):
            self._recorded = event.amount_after
        elif isinstance(event, ProgressiveParamsChanged) and event.opening:
            base = params_from_dict(event.new).rates.base
            self._recorded = _step(self._recorded, base) if self._recorded_any else base
        elif isinstance(event, ProgressiveCorrection):
            self._recorded = _step(self._recorded, Fraction(event.meter))
        elif isinstance(event, ProgressiveHit):
            self._recorded = _step(self._recorded, -Fraction(event.from_meter))
        self._recorded_any = True

    # --- what rounds owe -----------------------------------------------------------------------

    def _act_all(self) -> None:
        for round_id in sorted(self._books):
            self._act(round_id)
            if self._fault is not None:
                return

    def _act(self, round_id: int) -> None:
        book = self._books[round_id]
        try:
            if book.closed:
                self._contribute(round_id, book)
            self._refund(round_id, book)
            if not book.voided and book.results is not None:
                self._hits(round_id, book)
        except LinkDown as exc:
            self._set_fault(str(exc))
            return
        if round_id < self._last_round and self._finished(book):
            del self._books[round_id]

    def _sweep(self) -> None:
        """Forget finished rounds before the current one. The current round's book stays until the
        next opens, so a settlement a supervisor corrects after the fact still finds its wagers."""
        for round_id in [
            r for r, book in self._books.items() if r < self._last_round and self._finished(book)
        ]:
            del self._books[round_id]

    def _finished(self, book: RoundBook) -> bool:
        if self._withdrawn(book) - book.refunded:
            return False
        if book.voided:
            return True
        if book.results is None:
            return False
        return set(self._qualifying(book)) <= set(book.contributed) and not self._due_hits(book)

    def _withdrawn(self, book: RoundBook) -> set[int]:
        """Contributed seats whose wager is gone: the round was voided or a supervisor corrected it."""
        if book.voided:
            return set(book.contributed)
        return set(book.contributed) - set(self._qualifying(book))

    def _qualifying(self, book: RoundBook) -> dict[int, int]:
        return {seat: amount for seat, amount in book.wagers.items() if amount == self._params.wager}

    def _commit(self, keys: list[str], plan: plans.Plan) -> list[Event]:
        events = self.store.commit(keys, plan)
        fresh = [e for e in events if event_key(e) not in self._local_keys]
        if fresh and self.store.shared:
            self.log.append_many(fresh)
        for event in fresh:
            self._ingest_own(event)
        self._adopt(self.store.committed)
        return fresh

    def _contribute(self, round_id: int, book: RoundBook) -> None:
        due = {s: a for s, a in self._qualifying(book).items() if s not in book.contributed}
        if due:
            self._commit(*plans.contributions(self.table, round_id, due))

    def _winning_hands(self, book: RoundBook) -> dict[int, str]:
        """Seat -> progressive hand class, for seats that contributed and hold an awarded hand."""
        found: dict[int, str] = {}
        results = [r for r in book.results or () if r.get("bet") == self._params.bet]
        for r in results:
            seat = int(r.get("seat", 0))
            if (
                r.get("outcome") in ("void", "forfeit")
                or seat not in book.contributed
                or seat in book.refunded
            ):
                continue
            hand = str(r.get("hand") or book.hands.get(str(r.get("position") or f"seat-{seat}"), ""))
            if self._params.award(hand) is not None:
                found[seat] = hand
        if not results:
            for seat in set(book.contributed) - book.refunded:
                hand = str(book.hands.get(f"seat-{seat}", ""))
                if self._params.award(hand) is not None:
                    found[seat] = hand
        return found

    def _due_hits(self, book: RoundBook) -> dict[int, str]:
        return {s: h for s, h in self._winning_hands(book).items() if s not in book.hits}

    def _hits(self, round_id: int, book: RoundBook) -> None:
        self._contribute(round_id, book)
        winners = self._winning_hands(book)
        if set(winners) - book.hits:
            # every winner goes to the plan, not only the new ones: hit order counts them all
            self._commit(*plans.hits(self.table, round_id, winners))

    def _refund(self, round_id: int, book: RoundBook) -> None:
        due = {s: book.contributed[s] for s in self._withdrawn(book) - book.refunded}
        if due:
            why = "round voided" if book.voided else "wager corrected by a supervisor"
            self._commit(*plans.refunds(self.table, round_id, due, why))

    # --- people ---------------------------------------------------------------------------------

    def check_wager(self, seat: int, bet: str, amount: int) -> None:
        """Raise ``RuleViolation`` when the progressive cannot take this wager now (the tracker asks
        before accepting a wager on the progressive bet)."""
        with self._lock:
            if bet != self._params.bet or amount == 0:
                return
            if self._fault is not None:
                raise RuleViolation(
                    "progressive-link",
                    f"the progressive is not available: link to the shared meter lost ({self._fault})",
                )
            if self._meter.locked:
                raise RuleViolation(
                    "progressive-locked",
                    "the progressive is locked until a supervisor confirms the jackpot payment",
                )
            if amount != self._params.wager:
                raise RuleViolation(
                    "progressive-wager", f"the progressive takes exactly {format_amount(self._params.wager)}"
                )

    def confirm(self, hit_id: str, user: str, role: str) -> ProgressivePaid:
        """A supervisor confirms that a jackpot was paid; the last confirmation unlocks the meter."""
        _supervisor_only(role, "confirm a jackpot payment")
        with self._lock:
            events = self._commit(*plans.payment_confirmed(self.table, hit_id, user))
            self._notify()
            return next(e for e in events if isinstance(e, ProgressivePaid))

    def change_params(
        self, new: ProgressiveParams, user: str, role: str, reason: str = ""
    ) -> ProgressiveParamsChanged:
        """Change the parameters between rounds; logged with the old and the new values. The
        change takes effect for the next jackpot: the meter keeps its advertised rates until the
        next top award, whose reset starts the new cycle under the new values."""
        _supervisor_only(role, "change progressive parameters")
        with self._lock:
            if self._open_round is not None:
                raise RuleViolation(
                    "progressive-round-open",
                    f"round {self._open_round} is open: change parameters between rounds",
                )
            if new.name != self.store.name:
                raise RuleViolation(
                    "progressive-name", f"this table runs progressive {self.store.name!r}, not {new.name!r}"
                )
            events = self._commit(*plans.params_changed(self.table, new, user, reason))
            self._notify()
            return next(e for e in events if isinstance(e, ProgressiveParamsChanged))

    def correct(self, meter_cents: Fraction, user: str, role: str, reason: str) -> ProgressiveCorrection:
        """A supervisor's documented correction of the meter (signed cents), e.g. after an audit."""
        _supervisor_only(role, "correct the progressive meter")
        with self._lock:
            events = self._commit(*plans.meter_corrected(self.table, meter_cents, user, reason))
            self._notify()
            return next(e for e in events if isinstance(e, ProgressiveCorrection))

    # --- what the sign and the dashboard show -------------------------------------------------------

    @property
    def params(self) -> ProgressiveParams:
        """The parameters as a supervisor last set them: the change waiting for the next jackpot
        if there is one (the base for the next change), else those in force."""
        return self._params.next or self._params

    @property
    def params_in_force(self) -> ProgressiveParams:
        """What the meter runs on now (contributions, awards, the qualifying wager)."""
        return self._params

    @property
    def meter(self) -> meter.MeterState:
        return self._meter

    @property
    def last_round(self) -> int:
        """The highest round number this table's log has shown so far."""
        return self._last_round

    @property
    def round_open(self) -> bool:
        return self._open_round is not None

    def state(self) -> dict[str, Any]:
        """The sign page's and the sign driver's view (see ``docs/progressive.md``)."""
        with self._lock:
            m = self._meter
            win = None
            status = "normal"
            if m.pending:
                first = m.pending[0]
                hit = next((h for h in m.recent if h.get("hit_id") == first), {})
                win = {
                    "table": hit.get("table", ""),
                    "seat": hit.get("seat", 0),
                    "amount": hit.get("amount", 0),
                }
                win["hit_id"] = first
                shown_since = self._seen_hits.setdefault(first, self.clock())
                status = "win" if self.clock() - shown_since < self.win_display_s else "pending"
            if self._fault is not None:
                status = "fault"
            return {
                "name": self.store.name,
                "table": self.table,
                "amount": m.amount,
                "reserve": int(m.reserve // 1),
                "overflow": int(m.overflow // 1),
                "status": status,
                "win": win,
                "fault": None if self._fault is None else FAULT_TEXT,
                "fault_detail": self._fault,
                "known": self._known,
                "last_recorded": self._recorded,
                "pending": list(m.pending),
                "hits": [dict(h) for h in m.recent],
                "next_params": self._params.next.to_dict() if self._params.next else None,
                "meters": {
                    "qualifying_wagers": m.wagers,
                    "handle": m.handle,
                    "hits": m.hits,
                    "total_won": m.won,
                    "corrections": str(m.corrected),
                },
            }

    def subscribe(self, listener: StateListener) -> None:
        """``listener(state)`` runs whenever what the sign shows may have changed."""
        with self._lock:
            self._listeners.append(listener)

    def _notify(self) -> None:
        current = self.state()
        if current == self._last_sent:
            return
        self._last_sent = current
        for listener in list(self._listeners):
            try:
                listener(current)
            except Exception:
                log.exception("progressive %s: a state listener failed", self.store.name)


def _step(amount: int | None, delta: Fraction | int) -> int | None:
    """``amount`` (a meter rounded down to the cent) after a change of ``delta`` cents, when exact."""
    if amount is None or Fraction(delta).denominator != 1:
        return None
    return amount + int(delta)


def checkpoint_name(table: str) -> str:
    """The name of a table's progressive in a station's checkpoint."""
    return f"progressive:{table}"


def _supervisor_only(role: str, what: str) -> None:
    if role not in SUPERVISOR_ROLES:
        raise RuleViolation("supervisor-only", f"only a supervisor may {what}")
