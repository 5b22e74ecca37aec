"""``Tracker``: one table's engine bound to the durable log.

Every accepted input and everything it caused are appended in one transaction before ``handle``
returns; a refused input is logged as a ``refused`` record and the error is raised to the caller.
At start the tracker re-applies its table's logged inputs, so after a crash (or a restart) the open
round is exactly what the log says it is.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import threading
from collections.abc import Callable, Mapping
from typing import Any

from dealerassist.errors import ConfigError, DealerAssistError, StorageUnavailable
from dealerassist.events import CardRead, Event, EventError, event_from_dict
from dealerassist.games import game_class
from dealerassist.games.base import Game, TableRules
from dealerassist.storage.eventlog import EventLog, LogRecord
from dealerassist.tracker.engine import TableEngine, refusal
from dealerassist.tracker.events import (
    INPUT_KINDS,
    Refused,
    RoundOpen,
    TableConfigured,
    TableState,
    Wager,
)

log = logging.getLogger(__name__)
Subscriber = Callable[[LogRecord], None]
WagerCheck = Callable[[int, str, int], None]


class TrackerError(DealerAssistError):
    """The log cannot be replayed into this table's tracker (it was written under other rules)."""


def resolve_game(rules: TableRules) -> type[Game]:
    """The game class for ``rules.game`` from the game registry (``dealerassist.games.GAMES``)."""
    try:
        return game_class(rules.game)
    except KeyError as exc:
        raise ConfigError(rules.table_id, "table.game", str(exc.args[0])) from None


def describe_rules(rules: TableRules) -> dict[str, Any]:
    """The rules a tracker runs with, as plain data for the ``table-config`` record."""
    data = {
        "table_id": rules.table_id,
        "game": rules.game,
        "seats": rules.seats,
        "deck": rules.deck.name,
        "chip": rules.chip,
        "limits": {bet: [limit.minimum, limit.maximum] for bet, limit in rules.limits.items()},
        "paytables": {bet: str(getattr(table, "name", table)) for bet, table in rules.paytables.items()},
        "options": dict(rules.options),
        "exposure_policy": rules.exposure_policy,
    }
    return json.loads(json.dumps(data, default=str))


class Tracker:
    """Runs one table: validates inputs, logs them with their consequences, notifies subscribers."""

    def __init__(self, table_config: Any, log: EventLog, *, game: type[Game] | None = None) -> None:
        self.config = table_config
        self.rules: TableRules = getattr(table_config, "rules", table_config)
        self.table = self.rules.table_id
        self.game_class = game or resolve_game(self.rules)
        self.log = log
        self._lock = threading.RLock()
        self._subscribers: list[Subscriber] = []
        self._wager_checks: list[WagerCheck] = []
        self.engine = self._rebuild()
        last = self.log.latest(self.table, "table-config")
        self._record_config(last.event.config if last and isinstance(last.event, TableConfigured) else None)

    # --- start-up ----------------------------------------------------------------------------

    def _rebuild(self) -> TableEngine:
        """The table as its log says: the last checkpoint, then every input logged after it."""
        engine = TableEngine(self.game_class(self.rules))
        checkpoint = self.log.latest(self.table, "table-state")
        after = 0
        if checkpoint is not None and isinstance(checkpoint.event, TableState):
            engine.restore(checkpoint.event)
            after = checkpoint.seq
        for record in self.log.records(after=after, table=self.table):
            event = record.event
            if isinstance(event, Refused):
                refused = _refused_read(event)
                if refused is not None:
                    engine.note_refused_read(refused)
                continue
            if event.kind not in INPUT_KINDS:
                continue
            try:
                engine.apply(event)
            except DealerAssistError as exc:
                raise TrackerError(
                    f"table {self.table}: logged record {record.seq} ({event.kind}) no longer applies "
                    f"under the current rules: {exc}. The log was not changed."
                ) from None
        return engine

    def _record_config(self, last: dict[str, Any] | None) -> None:
        config = describe_rules(self.rules)
        raw = getattr(self.config, "raw", None)
        if isinstance(raw, Mapping):
            config["raw"] = json.loads(json.dumps(raw, default=str))
        if config != last:
            source = str(getattr(self.config, "path", "") or "")
            self.log.append(
                TableConfigured(table=self.table, game=self.rules.game, config=config, source=source)
            )

    # --- inputs ------------------------------------------------------------------------------

    def handle(self, event: Event) -> list[Event]:
        """Apply one input; returns the events it caused, all already durable in the log."""
        return self._handle(event, None)

    def _handle(self, event: Event, sent: dict[str, Any] | None) -> list[Event]:
        with self._lock:
            if not isinstance(event, Event):
                raise EventError(f"an input must be an Event, got {type(event).__name__}")
            try:
                if event.kind not in INPUT_KINDS:
                    raise EventError(
                        f"kind: {event.kind!r} is an output or unknown, not an input the tracker takes"
                    )
                if isinstance(event, Wager):
                    for check in self._wager_checks:
                        check(event.seat, event.bet, event.amount)
                outputs = self.engine.apply(event)
            except DealerAssistError as exc:
                # The log is the truth: whatever a game half did before refusing is undone.
                self.engine = self._rebuild()
                data = sent if sent is not None else event.to_dict()
                self._commit([refusal(self.table, event.kind, data, exc, self.engine.round_id or None)])
                if isinstance(event, CardRead):
                    self.engine.note_refused_read(event)
                raise
            except Exception:
                self.engine = self._rebuild()
                raise
            if isinstance(event, RoundOpen) and event.round_id is None:
                event = dataclasses.replace(event, round_id=self.engine.round_id)
            leading = self.engine.leading
            try:
                self._commit([*leading, event, *outputs])
            except BaseException:
                self.engine = self._rebuild()
                raise
            return [*leading, *outputs]

    def handle_data(self, data: Any) -> list[Event]:
        """Decode a plain-data input (a replay line, an HTTP body) and handle it; bad data is logged too."""
        try:
            event = event_from_dict(data)
        except EventError as exc:
            kind = data.get("kind") if isinstance(data, dict) else None
            safe = (
                json.loads(json.dumps(data, default=repr))
                if isinstance(data, dict)
                else {"value": repr(data)}
            )
            with self._lock:
                self._commit([refusal(self.table, str(kind or "?"), safe, exc, self.engine.round_id or None)])
            raise
        return self._handle(event, json.loads(json.dumps(data, default=repr)))

    def _commit(self, events: list[Event]) -> list[LogRecord]:
        records = self.log.append_many(events)
        for record in records:
            for callback in list(self._subscribers):
                try:
                    callback(record)
                except StorageUnavailable:
                    log.debug("subscriber %r could not write after record %d", callback, record.seq)
                except Exception:
                    log.exception("subscriber %r failed on record %d", callback, record.seq)
        return records

    def add_wager_check(self, check: WagerCheck) -> None:
        """Ask ``check(seat, bet, amount)`` before accepting a live wager; it raises
        ``RuleViolation`` to refuse (the progressive refuses its bet while its meter is unreachable
        or locked). Only live inputs are checked: rebuilding from the log never asks again."""
        with self._lock:
            self._wager_checks.append(check)

    # --- views -------------------------------------------------------------------------------

    @property
    def lock(self) -> threading.RLock:
        """Held while an input is applied, logged and handed to subscribers (a checkpoint holds it
        so that no record is between the log and those who follow it)."""
        return self._lock

    def subscribe(self, callback: Subscriber) -> Callable[[], None]:
        """Call ``callback(record)`` for every record this tracker logs; returns an unsubscribe."""
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            return self.engine.snapshot()

    @property
    def round_id(self) -> int:
        return self.engine.round_id

    def shoe_position(self) -> tuple[int | None, int]:
        """The shoe power-up and card number the table last took (what a restarted driver resumes from)."""
        with self._lock:
            return self.engine.shoe.boot, self.engine.shoe.sequence


def _refused_read(event: Refused) -> CardRead | None:
    """The card read a ``refused`` record kept, if it was one (undecodable inputs were refused too)."""
    if event.input_kind != "card-read":
        return None
    try:
        read = event_from_dict(dict(event.input))
    except EventError:
        return None
    return read if isinstance(read, CardRead) else None
