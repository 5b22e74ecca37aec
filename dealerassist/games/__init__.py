"""Game registry: every module in this package that defines a ``Game`` subclass with a ``slug``
is a game. Adding a game is adding one module (and its pay-table file); nothing else changes.

The helper modules define no ``Game``: ``table_round`` (betting within limits, one decision per
seat, forfeit, void, settle once), ``ante_round`` (the ante games' flow and Ante/Play/Ante Bonus
schedule), ``settling`` (how a wager's result is written, pay-table and progressive results),
``option_values`` (checks of option values whose type matters) and ``house_way`` (pai gow hand
setting)."""

from __future__ import annotations

import importlib
import pkgutil
from functools import cache

from dealerassist.games.base import Game


@cache
def registry() -> dict[str, type[Game]]:
    for info in pkgutil.iter_modules(__path__):
        importlib.import_module(f"{__name__}.{info.name}")
    found: dict[str, type[Game]] = {}
    stack = list(Game.__subclasses__())
    while stack:
        cls = stack.pop()
        stack.extend(cls.__subclasses__())
        slug = getattr(cls, "slug", None)
        if slug and not getattr(cls, "__abstractmethods__", None):
            found[slug] = cls
    return dict(sorted(found.items()))


def game_class(slug: str) -> type[Game]:
    games = registry()
    try:
        return games[slug]
    except KeyError:
        raise KeyError(f"unknown game {slug!r} (known: {', '.join(games)})") from None
