"""Who looked at a flag and who cleared it: review records folded onto the flags they concern.

A flag is recomputed from the rounds each time, so a review is matched to it by what it names: a
session flag by its kind, table and seat and an overlapping run of rounds (a window that starts
mid-session still finds the review), a dealer flag by its dealer and incident (whatever tables
the window shows them at). A review **covers**
a flag while the flag shows nothing newer than what was reviewed: no round after the session's
reviewed last round, no incident beyond the reviewed count. New evidence opens the flag again;
the earlier reviews stay in its history, as they stay in the log.

Status: ``cleared`` when a clear covers the flag, else ``looked`` when a look covers it, else
``open``. Clearing a cleared flag, or any flag the current report does not hold, is refused
before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerassist.events import PIT_WIDE
from dealerassist.protection.events import ProtectionReview
from dealerassist.protection.report import Flag

ACTIONS = ("looked", "cleared")
MAX_NOTE = 500


class ReviewError(Exception):
    """A review that cannot be recorded; ``status`` is 404 (no such flag), 409 (stale or already
    cleared) or 422 (a bad field), ``field`` names what is wrong."""

    def __init__(self, status: int, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.status = status
        self.field = field
        self.message = message


def flag_id(flag: Flag) -> str:
    """The flag as a page shows it: stable while its evidence does not change."""
    if flag.seat is not None and flag.span is not None:
        return f"{flag.kind}:{flag.table}:seat-{flag.seat}:{flag.span[0]}-{flag.span[1]}"
    return f"{flag.kind}:{flag.statistic.get('dealer')}:{flag.statistic.get('incident')}:{_incidents(flag)}"


def _incidents(flag: Flag) -> int:
    return int(flag.statistic.get("count", 0))


@dataclass(frozen=True)
class Review:
    """One review record as the log holds it."""

    seq: int
    at: str
    event: ProtectionReview

    def concerns(self, flag: Flag) -> bool:
        e = self.event
        if e.flag_kind != flag.kind:
            return False
        if flag.span is not None:
            return (
                e.flag_table == flag.table
                and e.seat == flag.seat
                and e.first_round is not None
                and e.last_round is not None
                and e.first_round <= flag.span[1]
                and flag.span[0] <= e.last_round
            )
        return e.dealer == flag.statistic.get("dealer") and e.incident == flag.statistic.get("incident")

    def covers(self, flag: Flag) -> bool:
        if not self.concerns(flag):
            return False
        if flag.span is not None:
            return self.event.last_round is not None and flag.span[1] <= self.event.last_round
        return self.event.incidents is not None and _incidents(flag) <= self.event.incidents

    def to_dict(self) -> dict[str, Any]:
        e = self.event
        reviewed = [e.first_round, e.last_round] if e.first_round is not None else None
        return {
            "action": e.action,
            "user": e.user,
            "role": e.role,
            "at": self.at,
            "seq": self.seq,
            "note": e.note,
            "flag": e.flag,
            "p_value": e.p_value,
            "reviewed_rounds": reviewed,
            "reviewed_incidents": e.incidents,
        }


@dataclass
class ReviewedFlag:
    flag: Flag
    id: str
    history: list[Review] = field(default_factory=list)

    def _covering(self, action: str) -> Review | None:
        found = [r for r in self.history if r.event.action == action and r.covers(self.flag)]
        return found[-1] if found else None

    @property
    def cleared(self) -> Review | None:
        return self._covering("cleared")

    @property
    def status(self) -> str:
        if self.cleared is not None:
            return "cleared"
        return "looked" if self._covering("looked") is not None else "open"

    def to_dict(self) -> dict[str, Any]:
        cleared = self.cleared
        return {
            "id": self.id,
            **self.flag.to_dict(),
            "review": {
                "status": self.status,
                "cleared_by": cleared.event.user if cleared else None,
                "cleared_at": cleared.at if cleared else None,
                "history": [r.to_dict() for r in self.history],
            },
        }


class ReviewBook:
    """Every review record read so far, in log order (fed incrementally: ``take`` each record)."""

    def __init__(self) -> None:
        self.reviews: list[Review] = []

    def take(self, record: Any) -> None:
        if isinstance(record.event, ProtectionReview):
            self.reviews.append(Review(record.seq, record.recorded_at, record.event))

    def take_all(self, records: Iterable[Any]) -> ReviewBook:
        for record in records:
            self.take(record)
        return self

    def reviewed(self, flags: Sequence[Flag]) -> list[ReviewedFlag]:
        return [ReviewedFlag(f, flag_id(f), [r for r in self.reviews if r.concerns(f)]) for f in flags]

    def review(
        self, flags: Sequence[Flag], wanted: Any, action: Any, *, user: str, role: str, note: Any = ""
    ) -> ProtectionReview:
        """The record for ``user``'s ``action`` on the flag ``wanted`` (an id from ``flag_id``),
        after checking the flag is in ``flags`` as shown and the action makes sense now."""
        if action not in ACTIONS:
            raise ReviewError(422, "action", f"must be one of {', '.join(ACTIONS)}, got {str(action)[:40]!r}")
        if not isinstance(note, str) or len(note) > MAX_NOTE:
            raise ReviewError(422, "note", f"must be text of at most {MAX_NOTE} characters")
        if not isinstance(wanted, str) or not wanted:
            raise ReviewError(422, "flag", "required: the id of a flag on the page")
        shown = {flag_id(f): f for f in flags}
        flag = shown.get(wanted)
        if flag is None:
            stem = wanted.rsplit(":", 1)[0] + ":"
            if any(i.startswith(stem) for i in shown):
                raise ReviewError(
                    409, "flag", f"flag {wanted[:80]!r} has new evidence since the page was drawn: reload"
                )
            raise ReviewError(404, "flag", f"no flag {wanted[:80]!r} in this window")
        [current] = self.reviewed([flag])
        if action == "cleared" and current.cleared is not None:
            done = current.cleared
            raise ReviewError(409, "flag", f"already cleared by {done.event.user} at {done.at}")
        session = flag.span is not None
        return ProtectionReview(
            table=PIT_WIDE,
            flag=wanted,
            flag_kind=flag.kind,  # type: ignore[arg-type]
            subject=flag.subject,
            flag_table=flag.table,
            action=action,
            user=user,
            role=role,
            note=note.strip(),
            p_value=flag.p_value,
            statistic=dict(flag.statistic),
            rounds=tuple(flag.rounds),
            seat=flag.seat,
            first_round=flag.span[0] if session and flag.span else None,
            last_round=flag.span[1] if session and flag.span else None,
            dealer="" if session else str(flag.statistic.get("dealer", "")),
            incident="" if session else str(flag.statistic.get("incident", "")),
            incidents=None if session else _incidents(flag),
        )
