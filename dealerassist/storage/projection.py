"""Round summaries: a projection of the log, rebuilt from the records whenever it is asked for.

Nothing here is stored; the log stays the only record. A summary says how a round ended (the last
settlement wins, so a supervisor's correction after settlement is what counts), what it paid and
which alarms and refusals it had.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from dealerassist.storage.eventlog import LogRecord


@dataclass
class RoundSummary:
    table: str
    round_id: int
    opened_at: str = ""
    ended_at: str = ""
    closed_at: str = ""
    outcome: str = "open"
    reason: str = ""
    results: list[dict[str, Any]] = field(default_factory=list)
    hands: dict[str, str] = field(default_factory=dict)
    alarms: list[str] = field(default_factory=list)
    refused: int = 0
    corrected: bool = False
    first_seq: int = 0
    last_seq: int = 0

    @property
    def staked(self) -> int:
        return sum(int(r["stake"]) for r in self.results)

    @property
    def paid(self) -> int:
        """Chips handed to players: stakes returned plus winnings."""
        return sum(int(r["win"]) + int(r["returned"]) for r in self.results)

    @property
    def house_net(self) -> int:
        return self.staked - self.paid

    def to_dict(self) -> dict[str, Any]:
        return {
            "table": self.table,
            "round_id": self.round_id,
            "opened_at": self.opened_at,
            "ended_at": self.ended_at,
            "closed_at": self.closed_at,
            "outcome": self.outcome,
            "reason": self.reason,
            "staked": self.staked,
            "paid": self.paid,
            "house_net": self.house_net,
            "results": self.results,
            "hands": self.hands,
            "alarms": self.alarms,
            "refused": self.refused,
            "corrected": self.corrected,
            "first_seq": self.first_seq,
            "last_seq": self.last_seq,
        }


def round_summaries(records: Iterable[LogRecord]) -> list[RoundSummary]:
    """Fold records (of any tables, in log order) into one summary per table and round."""
    rounds: dict[tuple[str, int], RoundSummary] = {}
    for record in records:
        event = record.event
        round_id = getattr(event, "round_id", None)
        if not isinstance(round_id, int):
            continue
        key = (event.table, round_id)
        summary = rounds.get(key)
        if summary is None:
            summary = rounds[key] = RoundSummary(event.table, round_id, first_seq=record.seq)
        summary.last_seq = record.seq
        data = event.to_dict()
        match event.kind:
            case "phase" if data["phase"] == "betting" and not summary.opened_at:
                summary.opened_at = record.recorded_at
            case "phase" if data["phase"] == "closed":
                summary.closed_at = record.recorded_at
            case "round-settled":
                summary.outcome, summary.ended_at = "settled", record.recorded_at
                summary.results, summary.hands = list(data["results"]), dict(data["hands"])
                summary.corrected = summary.corrected or bool(data.get("corrected"))
            case "round-voided":
                summary.outcome, summary.ended_at = "voided", record.recorded_at
                summary.results, summary.reason = list(data["results"]), data["reason"]
            case "alarm":
                summary.alarms.append(data["code"])
            case "refused":
                summary.refused += 1
    return sorted(rounds.values(), key=lambda s: s.first_seq)
