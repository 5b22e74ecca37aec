"""Dealer patterns: exposures, misdeals, voids and corrections per dealer against the floor's rate.

A dealer is the user who entered the round's wagers (the dealer's screen). For each incident the
dealer's count in their rounds is tested against the rate of every other dealer in the same
records (exact binomial upper tail), Bonferroni-corrected over dealers and incidents, so a busy
floor with many dealers does not flag someone by the sheer number of tests.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from dealerassist.protection.records import RoundRecord
from dealerassist.protection.stats import binomial_upper

INCIDENTS: dict[str, Callable[[RoundRecord], bool]] = {
    "exposure": lambda r: "exposed-dealer-card" in r.alarms,
    "misdeal": lambda r: "misdeal" in r.alarms,
    "void": lambda r: r.outcome == "voided",
    "correction": lambda r: r.corrections > 0,
}
EVIDENCE_ROUNDS = 20


@dataclass(frozen=True)
class DealerTest:
    dealer: str
    incident: str
    rounds: int
    count: int
    floor_rate: float
    p_value: float  # one-sided, before the correction for the number of tests
    evidence: list[tuple[str, int]]

    def summary(self) -> dict[str, object]:
        return {
            "dealer": self.dealer,
            "incident": self.incident,
            "rounds": self.rounds,
            "count": self.count,
            "rate": round(self.count / self.rounds, 4) if self.rounds else 0.0,
            "floor_rate": round(self.floor_rate, 4),
            "p_value": self.p_value,
        }


def dealer_tests(rounds: Sequence[RoundRecord]) -> list[DealerTest]:
    """One test per dealer and incident kind, where other dealers' rounds give a floor rate."""
    dealt = [r for r in rounds if r.dealer]
    dealers = sorted({r.dealer for r in dealt})
    tests = []
    for incident, happened in INCIDENTS.items():
        hits = {r.dealer: 0 for r in dealt}
        totals = {d: 0 for d in dealers}
        for r in dealt:
            totals[r.dealer] += 1
            hits[r.dealer] += happened(r)
        all_rounds, all_hits = sum(totals.values()), sum(hits.values())
        for dealer in dealers:
            others = all_rounds - totals[dealer]
            if others == 0:
                continue
            # A floor with no incident of this kind still has some rate: half an event, not zero.
            rate = max(all_hits - hits[dealer], 0.5) / others
            evidence = [(r.table, r.round_id) for r in dealt if r.dealer == dealer and happened(r)]
            tests.append(
                DealerTest(
                    dealer=dealer,
                    incident=incident,
                    rounds=totals[dealer],
                    count=hits[dealer],
                    floor_rate=rate,
                    p_value=binomial_upper(hits[dealer], totals[dealer], rate),
                    evidence=evidence[:EVIDENCE_ROUNDS],
                )
            )
    return tests
