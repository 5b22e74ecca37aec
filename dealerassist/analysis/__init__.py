"""Exact game mathematics by complete enumeration.

A game's analysis is a module here exposing ``BETS: dict[str, Callable[[AnalysisRequest],
BetAnalysis]]``, listed by the game's slug in ``ANALYSES`` below. The analyses count hand classes with
the same evaluators that settle live rounds and price them through the same ``PayTable`` awards, so
the printed house edge is the edge of the code that pays real players.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from types import ModuleType
from typing import Any

from dealerassist.errors import DealerAssistError
from dealerassist.registry import Registry

Progress = Callable[[int, int], None]

ANALYSES: Registry[ModuleType] = Registry("analysis")
ANALYSES.add("face-up-pai-gow", "dealerassist.analysis.face_up_pai_gow")
ANALYSES.add("four-card-poker", "dealerassist.analysis.four_card_poker")
ANALYSES.add("pairs-and-up", "dealerassist.analysis.pairs_and_up")
ANALYSES.add("perfect-pairs-blackjack", "dealerassist.analysis.perfect_pairs_blackjack")
ANALYSES.add("three-card-poker", "dealerassist.analysis.three_card_poker")


class AnalysisError(DealerAssistError):
    """An analysis that cannot be run as asked (unknown game, bet or pay table)."""


def _no_progress(done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class AnalysisRequest:
    """What to analyse. ``paytables`` (bet -> pay-table name) and ``options`` come from a table
    file (``analyze --table``), so the analysis prices the table as it is configured."""

    game: str
    paytable: str | None = None
    decks: int | None = None
    progress: Progress = _no_progress
    paytables: Mapping[str, str] = field(default_factory=dict)
    options: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class BetAnalysis:
    """One bet's exact result. ``house_edge`` is the expected loss per unit of initial wager."""

    bet: str
    house_edge: Fraction | float
    hit_frequency: Fraction | float
    combinations: Mapping[str, int]
    total: int
    paytable: str = ""
    notes: str = ""
    extra: Mapping[str, Any] = field(default_factory=dict)

    def as_json(self) -> dict[str, Any]:
        return {
            "house_edge": float(self.house_edge),
            "hit_frequency": float(self.hit_frequency),
            "combinations": dict(self.combinations),
            "total": self.total,
            **self.extra,
        }


Analyzer = Callable[[AnalysisRequest], BetAnalysis]


def _modules() -> dict[str, ModuleType]:
    """Game slug -> its analysis module."""
    return ANALYSES.loaded()


def analyzers() -> dict[str, dict[str, Analyzer]]:
    """Game slug -> bet -> analyzer, for every game that has an analysis module."""
    return {slug: dict(module.BETS) for slug, module in _modules().items()}


def analyze(request: AnalysisRequest, bets: list[str] | None = None) -> dict[str, BetAnalysis]:
    """Run the asked bets' analyses; an option the game cannot use is refused, never ignored.

    An analysis module that reads ``request.decks`` says so with ``TAKES_DECKS = True``.
    """
    modules = _modules()
    if request.game not in modules:
        raise AnalysisError(f"no analysis for game {request.game!r} (have: {', '.join(modules)})")
    game_bets = dict(modules[request.game].BETS)
    wanted = bets or list(game_bets)
    unknown = [b for b in wanted if b not in game_bets]
    if unknown:
        raise AnalysisError(
            f"{request.game} has no analysis for bet(s) {', '.join(unknown)} (have: {', '.join(game_bets)})"
        )
    if request.decks is not None and not getattr(modules[request.game], "TAKES_DECKS", False):
        shoe_games = [slug for slug, m in modules.items() if getattr(m, "TAKES_DECKS", False)]
        raise AnalysisError(
            f"{request.game} is dealt from its own deck, --decks does not apply "
            f"(it does for: {', '.join(shoe_games) or 'no game'}); leave it out"
        )
    results = {bet: game_bets[bet](request) for bet in wanted}
    if request.paytable and all(r.paytable != request.paytable for r in results.values()):
        from dealerassist.tablefiles.paytables import load_paytables

        paid = load_paytables(request.game).get(request.paytable).bet
        raise AnalysisError(
            f"pay table {request.paytable!r} pays the {paid!r} bet, which none of the analysed bets "
            f"({', '.join(wanted)}) uses: drop --bet or pick a pay table for those bets"
        )
    return results
