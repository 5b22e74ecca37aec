"""What each role may see of the log and of a table: the one filter every dashboard output uses.

Pages, panels, the snapshot API, ``/api/records``, the event streams and the exports never hand a
log record or a tracker snapshot to a browser themselves: they ask an ``Audience`` (who is looking,
and at which table) for its view of it. The rules (docs/dashboard.md, "What each role may see"):

* Roles that ``audit`` (surveillance, admin) see every record and every field, live: watching the
  game is their job, and what they see is read-only.
* Every other role (dealer, supervisor) never sees a card the table keeps hidden: a face-down
  dealer card has no code until it is turned up, and no card is named by a raw read, a refused
  input or a correction that could be one. These roles see no pit-wide record (logins, exports,
  chain checks, account changes), and of the table records they do see, no client address and no
  echoed request body.
* Game protection's reviews (who looked at or cleared a hole-card, counting or dealer flag) are for
  the roles that ``audit`` only, whatever table they name: a dealer or supervisor never learns that
  a player or a dealer is being watched.
* A dealer sees one table: the one its screen is for. Without a table (the status page) it sees
  only device records.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from dealerassist.web.events import PIT_WIDE
from dealerassist.web.security import allowed

DEALER: Final = "dealer"
HIDDEN_CARD: Final = ""
# Records a dealer's table-less stream (the status page) carries: links and shoe states, no cards.
DEVICE_KINDS: Final = frozenset({"device-link", "shoe-status"})
# Records only the roles that audit ever receive, at any table.
AUDIT_ONLY_KINDS: Final = frozenset({"protection-review"})
# Records that may name a card nobody at the table has seen yet: their card goes for most roles.
_RAW_READS: Final = frozenset({"card-read", "card-removed", "confirm-read"})


@dataclass(frozen=True)
class Audience:
    """``role`` looking at ``table`` (``None``: every table it may see)."""

    role: str | None
    table: str | None = None

    @property
    def sees_hidden_cards(self) -> bool:
        return allowed(self.role, "audit")

    @property
    def sees_every_table(self) -> bool:
        return self.role is not None and self.role != DEALER

    @property
    def sees_whole_records(self) -> bool:
        """Every record of every table, every field: the stored record is this audience's view."""
        return self.sees_hidden_cards and self.table is None

    def admits(self, table: str, kind: str) -> bool:
        """Whether a record of ``kind`` at ``table`` reaches this audience at all (cheap: no body)."""
        if self.role is None:
            return False
        if self.sees_hidden_cards:
            return self.table is None or table == self.table
        if table == PIT_WIDE or kind in AUDIT_ONLY_KINDS:
            return False
        if self.table is not None:
            return table == self.table
        return self.sees_every_table or kind in DEVICE_KINDS

    def record(self, record: Any) -> dict[str, Any] | None:
        """The record as this audience may see it (``{seq, recorded_at, hash, event}``), or None."""
        event = record.event
        if not self.admits(str(event.table), str(event.kind)):
            return None
        body = event.to_dict()
        if not self.sees_hidden_cards:
            body = _without_secrets(body)
        return {"seq": record.seq, "recorded_at": record.recorded_at, "hash": record.hash, "event": body}

    def export(self, record: Any) -> dict[str, Any] | None:
        """The record in the log's own export form (with ``prev_hash``), or None when not visible."""
        seen = self.record(record)
        if seen is None:
            return None
        return {**record.to_dict(), "event": seen["event"]}

    def snapshot(self, snapshot: Mapping[str, Any]) -> dict[str, Any]:
        """A tracker snapshot with what this audience may not see taken out."""
        snap = dict(snapshot)
        if self.sees_hidden_cards or _turned_up(snap):
            return snap
        positions = snap.get("positions") or {}
        snap["positions"] = {
            position: [
                card if card.get("face_up", True) or position != DEALER else {**card, "card": HIDDEN_CARD}
                for card in cards
            ]
            for position, cards in positions.items()
        }
        snap["pending_reads"] = [
            {**read, "candidates": []} if read.get("hidden", True) else read
            for read in snap.get("pending_reads") or []
        ]
        return snap


def _turned_up(snapshot: Mapping[str, Any]) -> bool:
    """A settled round's dealer hand has been turned up and compared; a voided one may never be."""
    settlement = snapshot.get("settlement") or {}
    return snapshot.get("status") == "settled" and not settlement.get("void", False)


def _without_secrets(event: dict[str, Any]) -> dict[str, Any]:
    """An event dict without hidden card codes, client addresses or echoed inputs."""
    kind = event.get("kind")
    out = dict(event)
    if kind == "card-dealt" and not out.get("face_up", True) and out.get("position") == DEALER:
        out["card"] = HIDDEN_CARD
    elif kind in _RAW_READS:
        out["card"] = HIDDEN_CARD
    elif kind == "correct-card" and out.get("position") == DEALER:
        out["card"] = HIDDEN_CARD
    elif kind == "read-needs-confirmation" and out.get("position") in (None, DEALER):
        out["candidates"] = []
    elif kind == "refused":
        out.pop("input", None)
    elif kind == "user-action":
        out.pop("client", None)
        out.pop("detail", None)
    return out
