"""What one dashboard process holds: the running table objects and the dashboard's own parts."""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from flask import current_app

from dealerassist.web.events import PIT_WIDE, UserAction
from dealerassist.web.fanout import Fanout
from dealerassist.web.history import DEFAULT_SHIFTS, LogIndex
from dealerassist.web.protection import MAX_ROUNDS, ProtectionWatch
from dealerassist.web.security import LoginThrottle
from dealerassist.web.users import User, UserStore


@dataclass
class Runtime:
    pit: Any
    log: Any
    progressive: Any | None
    users: UserStore
    fanout: Fanout
    throttle: LoginThrottle
    tables: dict[str, Any]
    devices: dict[str, Callable[[], Mapping[str, Any]]] = field(default_factory=dict)
    snapshot_dir: Path | None = None
    shifts: tuple[tuple[str, int], ...] = DEFAULT_SHIFTS
    last_verification: dict[str, Any] | None = None
    # What surveillance reads from (history, round timelines, chain checks, record exports): a
    # read-only connection to the log when the station gives one, else the writer's ``log``.
    reader: Any = None
    # The station's ``FloorConfig`` when its tables name a floor store; its ``search_url`` turns on
    # the surveillance floor search.
    floor: Any = None
    protection_rounds: int = MAX_ROUNDS
    _log_lock: threading.Lock = field(default_factory=threading.Lock)
    _index: LogIndex = field(init=False)
    protection: ProtectionWatch = field(init=False)

    def __post_init__(self) -> None:
        # Built here, not on first use: two first requests on the threaded server would otherwise
        # each build an index and read the whole log, and one of the two would be thrown away.
        if self.reader is None:
            self.reader = self.log
        self._index = LogIndex(self.reader)
        self.protection = ProtectionWatch(self.reader, self._index, max_rounds=self.protection_rounds)

    def index(self) -> LogIndex:
        """The shared incremental summary of the log (rounds, alarms, devices)."""
        return self._index

    def verify_chain(self) -> dict[str, Any]:
        """Check the log's hash chain now and remember the answer for the status page."""
        report = self.reader.verify()
        self.last_verification = {
            "ok": bool(report.ok),
            "checked": int(report.checked),
            "first_bad": report.first_bad,
            "problem": report.problem,
            "at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        }
        return self.last_verification

    @property
    def floor_search_url(self) -> str | None:
        return getattr(self.floor, "search_url", None)

    def progressives(self) -> dict[str, Any]:
        """Table id -> progressive controller (``create_app`` takes one controller or a mapping)."""
        if self.progressive is None:
            return {}
        if isinstance(self.progressive, Mapping):
            return dict(self.progressive)
        return {str(getattr(self.progressive, "table", "")): self.progressive}

    def progressive_for(self, table: str | None = None) -> Any | None:
        found = self.progressives()
        if table:
            return found.get(table)
        return next(iter(found.values()), None)

    def table_ids(self) -> list[str]:
        return sorted(self.tables)

    def table_name(self, table_id: str) -> str:
        cfg = self.tables.get(table_id)
        return str(getattr(cfg, "name", table_id))

    def game_of(self, table_id: str) -> str:
        cfg = self.tables.get(table_id)
        return str(cfg.rules.game) if cfg is not None else ""

    def end_streams(self, session_keys: list[str]) -> None:
        """Close the live streams of sessions that were just ended."""
        if session_keys:
            self.fanout.end_owners(set(session_keys))

    def record_user_action(
        self, user: User | None, action: str, *, table: str = PIT_WIDE, client: str = "", **detail: Any
    ) -> Any:
        """Append a ``user-action`` to the log and push it to live browsers."""
        event = UserAction(
            table=table,
            user=user.name if user else str(detail.pop("name", "")),
            role=user.role if user else "",
            action=action,
            client=client,
            detail=detail,
        )
        return self.record(event)

    def record(self, event: Any) -> Any:
        """Append one of the dashboard's own records to the log and push it to live browsers."""
        with self._log_lock:
            record = self.log.append(event)
        self.fanout.publish(record)
        return record


def runtime() -> Runtime:
    """The ``Runtime`` of the app handling the current request."""
    return current_app.extensions["dealerassist"]
