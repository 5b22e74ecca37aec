"""``Pit``: several tables' trackers in one process, each with its own stream in the shared log."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from dealerassist.events import Event, EventError
from dealerassist.games.base import Game
from dealerassist.storage.eventlog import EventLog, LogRecord
from dealerassist.tracker.engine import refusal
from dealerassist.tracker.tracker import Tracker


class Pit:
    """Routes each event to its table's tracker; subscribers see every table's records."""

    def __init__(self, log: EventLog, tables: Iterable[Any] = ()) -> None:
        self.log = log
        self._trackers: dict[str, Tracker] = {}
        self._subscribers: list[Callable[[LogRecord], None]] = []
        for config in tables:
            self.add_table(config)

    def add_table(self, table_config: Any, *, game: type[Game] | None = None) -> Tracker:
        tracker = Tracker(table_config, self.log, game=game)
        if tracker.table in self._trackers:
            raise EventError(f"table: {tracker.table!r} is already in this pit")
        tracker.subscribe(self._fan_out)
        self._trackers[tracker.table] = tracker
        return tracker

    def tracker(self, table_id: str) -> Tracker:
        try:
            return self._trackers[table_id]
        except KeyError:
            known = ", ".join(sorted(self._trackers)) or "none"
            raise EventError(f"table: unknown table {table_id!r} (tables in this pit: {known})") from None

    def tables(self) -> list[str]:
        return sorted(self._trackers)

    def handle(self, table_id: str, event: Event) -> list[Event]:
        """Hand ``event`` to its table; one for no table here is refused and still logged."""
        try:
            if event.table != table_id:
                raise EventError(f"table: the event names table {event.table!r} but was sent to {table_id!r}")
            tracker = self.tracker(table_id)
        except EventError as exc:
            self.log.append(refusal(event.table, event.kind, event.to_dict(), exc, None))
            raise
        return tracker.handle(event)

    def subscribe(self, callback: Callable[[LogRecord], None]) -> Callable[[], None]:
        self._subscribers.append(callback)
        return lambda: self._subscribers.remove(callback)

    def _fan_out(self, record: LogRecord) -> None:
        for callback in list(self._subscribers):
            callback(record)
