"""Exact game mathematics by complete enumeration.

Each game may have a module here named like its game module (``three_card_poker.py``) exposing
``BETS: dict[str, Callable[[AnalysisRequest], BetAnalysis]]``. The analyses count hand classes with
the same evaluators that settle live rounds and price them through the same ``PayTable`` awards, so
the printed house edge is the edge of the code that pays real players.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from dealerassist.errors import DealerAssistError

Progress = Callable[[int, int], None]


class AnalysisError(DealerAssistError):
    """An analysis that cannot be run as asked (unknown game, bet or pay table)."""


def _no_progress(done: int, total: int) -> None:
    return None


@dataclass(frozen=True)
class AnalysisRequest:
    game: str
    paytable: str | None = None
    decks: int | None = None
    progress: Progress = _no_progress


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
        }


Analyzer = Callable[[AnalysisRequest], BetAnalysis]


def analyzers() -> dict[str, dict[str, Analyzer]]:
    """Game slug -> bet -> analyzer, for every game that has an analysis module."""
    from dealerassist.games import registry

    games = registry()
    by_module = {cls.__module__.rsplit(".", 1)[-1]: slug for slug, cls in games.items()}
    found: dict[str, dict[str, Analyzer]] = {}
    for info in pkgutil.iter_modules(__path__):
        slug = by_module.get(info.name)
        if slug is None:
            continue
        module = importlib.import_module(f"{__name__}.{info.name}")
        bets = getattr(module, "BETS", None)
        if bets:
            found[slug] = dict(bets)
    return dict(sorted(found.items()))


def analyze(request: AnalysisRequest, bets: list[str] | None = None) -> dict[str, BetAnalysis]:
    table = analyzers()
    if request.game not in table:
        raise AnalysisError(f"no analysis for game {request.game!r} (have: {', '.join(table)})")
    game_bets = table[request.game]
    wanted = bets or list(game_bets)
    unknown = [b for b in wanted if b not in game_bets]
    if unknown:
        raise AnalysisError(f"{request.game} has no analysis for bet(s) {', '.join(unknown)}")
    return {bet: game_bets[bet](request) for bet in wanted}
