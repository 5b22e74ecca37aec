"""Everything game protection finds in a set of rounds: sessions reviewed, tests run, flags raised.

A flag is a test whose p-value fell below the configured significance: the chance that an honest
player (or an ordinary dealer) shows a signature this strong. Each carries its statistic and the
rounds to look at.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from dealerassist.core.cards import Card
from dealerassist.games.base import TableRules
from dealerassist.protection import blackjack, four_card_poker, pairs_and_up, three_card_poker
from dealerassist.protection.counting import counting_test, counts_before, shoes_before
from dealerassist.protection.dealers import DEFAULT_SHIFT_HOURS, dealer_tests
from dealerassist.protection.decisions import (
    FULL_VIEW,
    DecisionPoint,
    DecisionReviewer,
    HoleCardTests,
    Review,
)
from dealerassist.protection.records import RoundRecord
from dealerassist.protection.sessions import DEFAULT_GAP, Session, sessions_of

# Games whose decisions are priced exactly, and how (explicit: one line per game).
REVIEWERS: Mapping[str, Callable[[DecisionPoint, TableRules], Review]] = {
    "three-card-poker": three_card_poker.review,
    "pairs-and-up": pairs_and_up.review,
    "four-card-poker": four_card_poker.review,
    "perfect-pairs-blackjack": blackjack.review,
}
# Partial views of the dealer's hidden cards, each tested as an alternative of its own beside the
# player who sees them all (the reviewer above): a Three Card Poker player who sees one card of the
# dealer's three, in the order dealt.
PARTIAL_VIEWS: Mapping[str, Mapping[str, DecisionReviewer]] = {
    "three-card-poker": {f"card-{i + 1}": three_card_poker.one_card_reviewer(i) for i in range(3)},
}
# The decisions each reviewer prices; others (Four Card Poker's ``same-player`` declaration) are
# not choices against the dealer's cards.
PRICED: Mapping[str, frozenset[str]] = {
    "three-card-poker": frozenset({"play", "fold"}),
    "pairs-and-up": frozenset({"play", "fold"}),
    "four-card-poker": frozenset({"play", "fold"}),
    "perfect-pairs-blackjack": frozenset(
        {"hit", "stand", "double", "split", "insurance", "even-money", "decline"}
    ),
}
# Games dealt from a multi-deck shoe whose count a player can follow, and the bet that follows it.
COUNTED: Mapping[str, str] = {"perfect-pairs-blackjack": "main"}
MIN_DECISIONS = 10
MIN_COUNTED_ROUNDS = 20


@dataclass(frozen=True)
class Settings:
    """Significance of each test: the false-alarm chance per session (per dealer, corrected)."""

    hole_card_alpha: float = 1e-4
    counting_alpha: float = 1e-4
    dealer_alpha: float = 1e-3
    gap: int = DEFAULT_GAP
    shift_hours: float = DEFAULT_SHIFT_HOURS


@dataclass(frozen=True)
class Flag:
    kind: str  # hole-card | counting | dealer
    subject: str
    table: str
    p_value: float
    statistic: dict[str, Any]
    rounds: list[int]
    # A session flag's seat and its session's first and last round (what a review names).
    seat: int | None = None
    span: tuple[int, int] | None = None

    def to_dict(self) -> dict[str, Any]:
        out = {
            "kind": self.kind,
            "subject": self.subject,
            "table": self.table,
            "p_value": self.p_value,
            "statistic": self.statistic,
            "rounds": self.rounds,
        }
        if self.seat is not None and self.span is not None:
            out["seat"], out["span"] = self.seat, list(self.span)
        return out


@dataclass
class ProtectionReport:
    sessions: list[dict[str, Any]] = field(default_factory=list)
    flags: list[Flag] = field(default_factory=list)
    dealers: list[dict[str, Any]] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {
            "flags": [f.to_dict() for f in self.flags],
            "sessions": self.sessions,
            "dealers": self.dealers,
        }


def hole_card_views(game: str) -> dict[str, DecisionReviewer]:
    """The alternatives the hole-card test runs for ``game``: every hidden card, then the partial views."""
    return {FULL_VIEW: REVIEWERS[game], **PARTIAL_VIEWS.get(game, {})}


def hole_card_steps(
    session: Session, shoes: Mapping[int, Counter[Card]] | None = None
) -> Iterator[tuple[RoundRecord, HoleCardTests]]:
    """The session's hole-card tests as they stand after each settled round (one set, grown).

    ``shoes``: the cards out of the table's shoe before each round (``counting.shoes_before``),
    priced out of a shoe game's decisions."""
    views = hole_card_views(session.game)
    tests = HoleCardTests.of(list(views))
    shoe_game = session.game in COUNTED
    for round_ in session.rounds:
        if round_.outcome != "settled" or round_.rules is None:
            continue
        seats = session.seats(round_)
        out = (
            tuple(shoes[round_.round_id].elements())
            if shoe_game and shoes and round_.round_id in shoes
            else ()
        )
        for point in round_.decisions:
            if point.seat in seats and point.action in PRICED[session.game]:
                point = dataclasses.replace(point, shoe_out=out) if out else point
                for view, reviewer in views.items():
                    tests.add(view, reviewer(point, round_.rules))
        yield round_, tests


def hole_card_test(
    session: Session, shoes: Mapping[int, Counter[Card]] | None = None
) -> HoleCardTests | None:
    """Review every decision of a session's settled rounds; None when the game is not priced."""
    if session.game not in REVIEWERS:
        return None
    last = HoleCardTests.of(list(hole_card_views(session.game)))
    for _, grown in hole_card_steps(session, shoes):
        last = grown
    return last


def protect(rounds: Sequence[RoundRecord], settings: Settings = Settings()) -> ProtectionReport:
    report = ProtectionReport()
    by_table: dict[str, list[RoundRecord]] = {}
    for round_ in rounds:
        by_table.setdefault(round_.table, []).append(round_)
    ordered = {table: sorted(rs, key=lambda r: r.round_id) for table, rs in by_table.items()}
    counts = {table: counts_before(rs) for table, rs in ordered.items()}
    shoes = {table: shoes_before(rs) for table, rs in ordered.items()}
    for session in sessions_of(rounds, settings.gap):
        entry: dict[str, Any] = {
            "table": session.table,
            "seat": session.seat,
            **({"player": session.player, "seats": session.all_seats} if session.player else {}),
            "game": session.game,
            "rounds": [session.first_round, session.last_round],
        }
        holes = hole_card_test(session, shoes[session.table])
        if holes is not None:
            entry["hole_card"] = holes.summary()
            if holes.decisions >= MIN_DECISIONS and holes.p_value < settings.hole_card_alpha:
                report.flags.append(
                    Flag(
                        "hole-card",
                        session.name,
                        session.table,
                        holes.p_value,
                        holes.summary(),
                        holes.evidence,
                        session.seat,
                        (session.first_round, session.last_round),
                    )
                )
        bet = COUNTED.get(session.game)
        if bet is not None:
            counted = counting_test(session.rounds, counts[session.table], session.seats, bet)
            entry["counting"] = counted.summary()
            if len(counted.rounds) >= MIN_COUNTED_ROUNDS and counted.p_value < settings.counting_alpha:
                report.flags.append(
                    Flag(
                        "counting",
                        session.name,
                        session.table,
                        counted.p_value,
                        counted.summary(),
                        counted.evidence(),
                        session.seat,
                        (session.first_round, session.last_round),
                    )
                )
        report.sessions.append(entry)
    tests = dealer_tests(rounds, settings.shift_hours)
    for test in tests:
        report.dealers.append(test.summary())
        if test.count and test.p_value * len(tests) < settings.dealer_alpha:
            tables = sorted({table for table, _ in test.evidence})
            report.flags.append(
                Flag(
                    "dealer",
                    test.subject,
                    ",".join(tables),
                    test.p_value,
                    {**test.summary(), "tests": len(tests)},
                    [round_id for _, round_id in test.evidence],
                )
            )
    report.flags.sort(key=lambda f: f.p_value)
    return report
