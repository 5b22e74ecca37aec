"""Rounds, alarms and device states read from the event log, kept up to date incrementally.

Surveillance filters and analytics would otherwise re-read the whole log on every page; the index
reads only the records after the last one it saw, under a lock, each time it is asked.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from dealerassist.web.events import PIT_WIDE

DEVICE_KINDS = frozenset({"device-link", "shoe-status"})
# Default shift start hours (UTC): day 06:00, swing 14:00, graveyard 22:00.
DEFAULT_SHIFTS: tuple[tuple[str, int], ...] = (("day", 6), ("swing", 14), ("grave", 22))


@dataclass
class RoundSummary:
    table: str
    round_id: int
    opened_at: str
    first_seq: int
    last_seq: int = 0
    closed_at: str = ""
    outcome: str = "open"
    void_reason: str = ""
    seats: set[int] = field(default_factory=set)
    wagered: int = 0
    paid: int = 0
    alarms: list[str] = field(default_factory=list)
    users: Counter[str] = field(default_factory=Counter)
    results: list[dict[str, Any]] = field(default_factory=list)
    hands: dict[str, str] = field(default_factory=dict)

    @property
    def house_net(self) -> int:
        """What the table kept: stakes in minus chips paid out (0 for an open or voided round)."""
        return self.wagered - self.paid if self.outcome == "settled" else 0

    @property
    def dealer(self) -> str:
        return self.users.most_common(1)[0][0] if self.users else ""

    def seat_outcomes(self) -> dict[int, str]:
        out: dict[int, str] = {}
        for r in self.results:
            seat = int(r.get("seat", 0))
            out[seat] = (
                "win" if r.get("outcome") == "win" or out.get(seat) == "win" else str(r.get("outcome"))
            )
        return out


@dataclass
class DeviceState:
    table: str
    device: str
    up: bool
    detail: str
    at: str
    seq: int
    last_error: str = ""
    last_error_at: str = ""


@dataclass(frozen=True)
class RoundFilter:
    """Surveillance filters; ``None``/empty means any."""

    table: str | None = None
    game: str | None = None
    seat: int | None = None
    outcome: str | None = None  # settled, voided, open, or a seat outcome (win, lose, push, forfeit)
    since: str | None = None  # ISO-8601 prefix compare (UTC)
    until: str | None = None
    voids_only: bool = False
    alarms_only: bool = False

    def matches(self, r: RoundSummary, game: str) -> bool:
        if self.table and r.table != self.table:
            return False
        if self.game and game != self.game:
            return False
        if self.seat is not None and self.seat not in r.seats:
            return False
        if self.since and r.opened_at < self.since:
            return False
        if self.until and r.opened_at > self.until:
            return False
        if self.voids_only and r.outcome != "voided":
            return False
        if self.alarms_only and not r.alarms:
            return False
        if self.outcome:
            if self.outcome in ("settled", "voided", "open"):
                return r.outcome == self.outcome
            outcomes = r.seat_outcomes()
            if self.seat is not None:
                return outcomes.get(self.seat) == self.outcome
            return self.outcome in outcomes.values()
        return True


class LogIndex:
    """Incremental summary of the event log."""

    def __init__(self, log: Any) -> None:
        self._log = log
        self._lock = threading.Lock()
        self._cursor = 0
        self.rounds: dict[tuple[str, int], RoundSummary] = {}
        self.devices: dict[tuple[str, str], DeviceState] = {}
        self._current: dict[str, tuple[str, int]] = {}

    def refresh(self) -> LogIndex:
        with self._lock:
            for record in self._log.records(after=self._cursor):
                self._take(record)
                self._cursor = record.seq
        return self

    def _take(self, record: Any) -> None:
        event = record.event.to_dict()
        kind = event["kind"]
        table = str(event.get("table", ""))
        if kind in DEVICE_KINDS:
            self._device(table, event, record)
        round_id = event.get("round_id")
        if table == PIT_WIDE:
            return
        if not isinstance(round_id, int):
            # Inputs without a round number (shoe and camera reads, buttons) belong to the round
            # in play at their table: they extend its timeline.
            current = self._current.get(table)
            if current is not None and self.rounds[current].outcome == "open":
                self.rounds[current].last_seq = record.seq
            return
        key = (table, round_id)
        self._current[table] = key
        summary = self.rounds.get(key)
        if summary is None:
            summary = self.rounds[key] = RoundSummary(table, round_id, record.recorded_at, record.seq)
        summary.last_seq = record.seq
        user = event.get("user")
        if isinstance(user, str) and user:
            summary.users[user] += 1
        seat = event.get("seat")
        if isinstance(seat, int):
            summary.seats.add(seat)
        if kind == "alarm":
            summary.alarms.append(str(event.get("code")))
        elif kind in ("round-settled", "round-voided"):
            summary.results = list(event.get("results") or [])
            summary.hands = dict(event.get("hands") or {})
            summary.wagered = sum(int(r.get("stake", 0)) for r in summary.results)
            summary.paid = sum(int(r.get("win", 0)) + int(r.get("returned", 0)) for r in summary.results)
            summary.seats.update(int(r.get("seat", 0)) for r in summary.results)
            summary.outcome = "settled" if kind == "round-settled" else "voided"
            summary.void_reason = str(event.get("reason", ""))
            summary.closed_at = record.recorded_at

    def _device(self, table: str, event: dict[str, Any], record: Any) -> None:
        if event["kind"] == "device-link":
            device, up, detail = str(event.get("device")), bool(event.get("up")), str(event.get("detail", ""))
        else:
            device, up = "shoe", event.get("status") == "ok"
            detail = f"{event.get('status')} {event.get('detail', '')}".strip()
        key = (table, device)
        prev = self.devices.get(key)
        state = DeviceState(table, device, up, detail, record.recorded_at, record.seq)
        if prev is not None:
            state.last_error, state.last_error_at = prev.last_error, prev.last_error_at
        if not up:
            state.last_error, state.last_error_at = detail or "link down", record.recorded_at
        self.devices[key] = state

    def rounds_list(self) -> list[RoundSummary]:
        """Every round read so far (a copy: the index may grow while the caller looks)."""
        with self._lock:
            return list(self.rounds.values())

    def find(self, flt: RoundFilter, game_of: dict[str, str]) -> list[RoundSummary]:
        rounds = self.rounds_list()
        found = [r for r in rounds if flt.matches(r, game_of.get(r.table, ""))]
        return sorted(found, key=lambda r: r.first_seq, reverse=True)


def round_summaries(records: Iterable[Any]) -> dict[tuple[str, int], RoundSummary]:
    """Summaries of records handed over in log order, with no log to follow (a floor search's)."""
    index = LogIndex(None)
    for record in records:
        index._take(record)
    return index.rounds


def shift_of(recorded_at: str, shifts: Iterable[tuple[str, int]] = DEFAULT_SHIFTS) -> str:
    """``"2026-11-29 day"``: the shift whose start hour is the latest one not after the time.

    Hours before the first shift's start belong to the previous day's last shift.
    """
    when = datetime.fromisoformat(recorded_at.replace("Z", "+00:00"))
    ordered = sorted(shifts, key=lambda s: s[1])
    current = [s for s in ordered if s[1] <= when.hour]
    if current:
        return f"{when.date().isoformat()} {current[-1][0]}"
    prev_day = datetime.fromordinal(when.toordinal() - 1).date()
    return f"{prev_day.isoformat()} {ordered[-1][0]}"
