"""Decision quality and the hole-card signature of one player session.

A ``DecisionPoint`` is one decision as the record holds it: the seat's cards, the dealer's cards the
players could see, the dealer's cards still hidden, the wagers and what the player did. A game's
``DecisionReviewer`` prices every option exactly over the cards the player could not see
(``values``), the best options with the hidden cards known (``informed``), and the chance that a
player who did *not* see them would still have landed on an informed-best option with the choice
they made (``follow_chance``).

That last number is what makes the hole-card test fair to every honest player, good or bad: an
uninformed player's choice cannot depend on the hidden cards, so given the visible cards and the
choice, whether it also happens to be informed-best is a coin with a known bias. Over a session the
number of matches is then a Poisson-binomial count whatever the player's strategy, and its upper
tail is the p-value. A hole-carder matches every time and drifts above the expected count fast.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, Protocol

from dealerassist.core.cards import Card
from dealerassist.games.base import TableRules
from dealerassist.protection.stats import PoissonBinomial


@dataclass(frozen=True)
class DecisionPoint:
    """One recorded decision with everything the dealer's cards and the wagers said at that time."""

    table: str
    round_id: int
    seat: int
    position: str
    cards: tuple[Card, ...]
    dealer_up: tuple[Card, ...]
    dealer_hidden: tuple[Card, ...]
    wagers: Mapping[str, int]
    action: str
    amount: int | None = None
    choice: str | None = None
    split_hand: bool = False  # a hand made by a split (blackjack: no second split)
    # Cards out of a multi-deck shoe before this round (dealt since the shuffle), where known.
    shoe_out: tuple[Card, ...] = ()


@dataclass(frozen=True)
class Review:
    """One decision priced exactly: option values in cents over the unseen cards."""

    point: DecisionPoint
    values: Mapping[str, Fraction]
    chosen: str
    informed: frozenset[str]
    follow_chance: float

    @property
    def optimal(self) -> frozenset[str]:
        best = max(self.values.values())
        return frozenset(option for option, value in self.values.items() if value == best)

    @property
    def cost(self) -> Fraction:
        """Cents of expected value given up against the best choice without hidden cards."""
        return max(self.values.values()) - self.values[self.chosen]

    @property
    def followed_informed(self) -> bool:
        return self.chosen in self.informed

    @property
    def discordant(self) -> bool:
        """Knowing the hidden cards changes the best choice here (no option is best both ways)."""
        return not (self.optimal & self.informed)

    def to_dict(self) -> dict[str, Any]:
        return {
            "round_id": self.point.round_id,
            "seat": self.point.seat,
            "cards": [c.code for c in self.point.cards],
            "dealer_hidden": [c.code for c in self.point.dealer_hidden],
            "chosen": self.chosen,
            "optimal": sorted(self.optimal),
            "informed": sorted(self.informed),
            "cost_cents": float(self.cost),
            "follow_chance": self.follow_chance,
        }


class DecisionReviewer(Protocol):
    def __call__(self, point: DecisionPoint, rules: TableRules) -> Review: ...


@dataclass
class HoleCardTest:
    """The hole-card signature of one session, grown one reviewed decision at a time."""

    null: PoissonBinomial = field(default_factory=PoissonBinomial)
    matches: int = 0
    discordant: int = 0
    followed: int = 0  # discordant decisions where the player took the informed choice
    expected_followed: float = 0.0  # the same, expected of an uninformed player with those choices
    cost: Fraction = Fraction(0)
    evidence: list[int] = field(
        default_factory=list
    )  # rounds where the informed choice was taken against the odds

    def add(self, review: Review) -> None:
        self.null.add(review.follow_chance)
        self.matches += review.followed_informed
        self.cost += review.cost
        if review.chosen not in review.optimal:
            self.expected_followed += review.follow_chance
        if review.discordant:
            self.discordant += 1
            if review.followed_informed:
                self.followed += 1
                self.evidence.append(review.point.round_id)

    @property
    def decisions(self) -> int:
        return self.null.trials

    @property
    def p_value(self) -> float:
        return self.null.upper_tail(self.matches)

    def summary(self) -> dict[str, Any]:
        return {
            "decisions": self.decisions,
            "matches": self.matches,
            "expected_matches": round(self.null.mean, 2),
            "discordant": self.discordant,
            "followed_informed": self.followed,
            "expected_followed": round(self.expected_followed, 2),
            "p_value": self.p_value,
            "cost_cents": float(self.cost),
        }


FULL_VIEW = "all"  # the alternative of a player who sees every hidden dealer card


@dataclass
class HoleCardTests:
    """The hole-card test under each alternative of what a player may have seen (every hidden
    card, or one of them), run side by side on the same decisions. Flagging when any is
    significant is corrected by Bonferroni: ``p_value`` is the smallest alternative's p-value
    times the number of alternatives, so an honest player's chance of a flag stays at most the
    significance whatever the dependence between them."""

    tests: dict[str, HoleCardTest]

    @classmethod
    def of(cls, views: Sequence[str]) -> HoleCardTests:
        return cls({view: HoleCardTest() for view in views})

    def add(self, view: str, review: Review) -> None:
        self.tests[view].add(review)

    @property
    def strongest(self) -> str:
        return min(self.tests, key=lambda view: self.tests[view].p_value)

    @property
    def decisions(self) -> int:
        return self.tests[FULL_VIEW].decisions

    @property
    def p_value(self) -> float:
        return min(1.0, self.tests[self.strongest].p_value * len(self.tests))

    @property
    def evidence(self) -> list[int]:
        return self.tests[self.strongest].evidence

    def summary(self) -> dict[str, Any]:
        """The strongest alternative's statistic with the corrected p-value, then each alternative's
        own p-value (``p_value_all``, ``p_value_card-1``...). With one alternative, that test's
        statistic as it is."""
        if len(self.tests) == 1:
            return self.tests[FULL_VIEW].summary()
        return {
            **self.tests[self.strongest].summary(),
            "p_value": self.p_value,
            "alternative": self.strongest,
            **{f"p_value_{view}": test.p_value for view, test in self.tests.items()},
        }


def review_all(
    reviewer: DecisionReviewer, points: Sequence[DecisionPoint], rules: TableRules
) -> list[Review]:
    return [reviewer(point, rules) for point in points]
