"""Dealer patterns: exposures, misdeals, voids, corrections and jackpot overrides per dealer and
per dealer shift, against the floor's rate.

A round's dealer is the user who entered its wagers (the dealer's screen). A **shift** is a run of
one table's consecutive rounds under one dealer: it ends when another dealer takes the table, or
when it has lasted the configured shift length (a dealer who stays on longer starts a new one).
For each incident a dealer's count over all their rounds, and a shift's count, is tested against
the rate of every round outside them in the same records (exact binomial upper tail). The report
corrects over the number of tests (Bonferroni), so a busy floor with many dealers and shifts does
not flag someone by the sheer number of tests; shifts shorter than ``MIN_SHIFT_ROUNDS`` are not
tested on their own (they could not reach significance and would only dilute the others).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from dealerassist.protection.records import RoundRecord
from dealerassist.protection.stats import binomial_upper

INCIDENTS: dict[str, Callable[[RoundRecord], bool]] = {
    "exposure": lambda r: "exposed-dealer-card" in r.alarms,
    "misdeal": lambda r: "misdeal" in r.alarms,
    "void": lambda r: r.outcome == "voided",
    "correction": lambda r: r.corrections > 0,
    "jackpot-override": lambda r: r.overrides > 0,
}
EVIDENCE_ROUNDS = 20
MIN_SHIFT_ROUNDS = 10
DEFAULT_SHIFT_HOURS = 8.0


@dataclass(frozen=True)
class Shift:
    dealer: str
    table: str
    rounds: tuple[RoundRecord, ...]

    @property
    def name(self) -> str:
        return f"{self.table} rounds {self.rounds[0].round_id}-{self.rounds[-1].round_id}"


@dataclass(frozen=True)
class DealerTest:
    dealer: str
    incident: str
    rounds: int
    count: int
    floor_rate: float
    p_value: float  # one-sided, before the correction for the number of tests
    evidence: list[tuple[str, int]]
    shift: str = ""  # the shift tested ("table rounds a-b"); "" for all the dealer's rounds

    @property
    def subject(self) -> str:
        where = f" shift {self.shift}" if self.shift else ""
        return f"dealer {self.dealer}{where}: {self.incident}"

    def summary(self) -> dict[str, object]:
        return {
            "dealer": self.dealer,
            **({"shift": self.shift} if self.shift else {}),
            "incident": self.incident,
            "rounds": self.rounds,
            "count": self.count,
            "rate": round(self.count / self.rounds, 4) if self.rounds else 0.0,
            "floor_rate": round(self.floor_rate, 4),
            "p_value": self.p_value,
        }


def shifts_of(rounds: Sequence[RoundRecord], shift_hours: float = DEFAULT_SHIFT_HOURS) -> list[Shift]:
    """Each table's rounds (with a dealer) cut where the dealer changes or a shift runs out."""
    length = timedelta(hours=shift_hours)
    by_table: dict[str, list[RoundRecord]] = {}
    for r in rounds:
        if r.dealer:
            by_table.setdefault(r.table, []).append(r)
    shifts: list[Shift] = []
    for table, table_rounds in sorted(by_table.items()):
        current: list[RoundRecord] = []
        for r in sorted(table_rounds, key=lambda r: r.round_id):
            if current and (r.dealer != current[0].dealer or _elapsed(current[0], r) >= length):
                shifts.append(Shift(current[0].dealer, table, tuple(current)))
                current = []
            current.append(r)
        if current:
            shifts.append(Shift(current[0].dealer, table, tuple(current)))
    return shifts


def _elapsed(first: RoundRecord, later: RoundRecord) -> timedelta:
    if not (first.opened_at and later.opened_at):
        return timedelta(0)
    return datetime.fromisoformat(later.opened_at) - datetime.fromisoformat(first.opened_at)


def dealer_tests(rounds: Sequence[RoundRecord], shift_hours: float = DEFAULT_SHIFT_HOURS) -> list[DealerTest]:
    """One test per dealer and incident kind, and per long enough shift and incident kind."""
    dealt = [r for r in rounds if r.dealer]
    units: list[tuple[str, str, list[RoundRecord]]] = [
        (dealer, "", [r for r in dealt if r.dealer == dealer]) for dealer in sorted({r.dealer for r in dealt})
    ]
    units += [
        (s.dealer, s.name, list(s.rounds))
        for s in shifts_of(dealt, shift_hours)
        if len(s.rounds) >= MIN_SHIFT_ROUNDS
    ]
    tests = []
    for incident, happened in INCIDENTS.items():
        all_hits = sum(happened(r) for r in dealt)
        for dealer, shift, mine in units:
            others = len(dealt) - len(mine)
            if others == 0:
                continue
            hits = sum(happened(r) for r in mine)
            # A floor with no incident of this kind still has some rate: half an event, not zero.
            rate = max(all_hits - hits, 0.5) / others
            evidence = [(r.table, r.round_id) for r in mine if happened(r)]
            tests.append(
                DealerTest(
                    dealer=dealer,
                    incident=incident,
                    rounds=len(mine),
                    count=hits,
                    floor_rate=rate,
                    p_value=binomial_upper(hits, len(mine), rate),
                    evidence=evidence[:EVIDENCE_ROUNDS],
                    shift=shift,
                )
            )
    return tests
