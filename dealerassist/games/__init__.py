"""The game registry: every game the tracker can run, listed here by slug.

A new game is a module defining a ``Game`` subclass (and its pay-table file), plus one line in
``GAMES`` below; a test's own game is added the same way (``GAMES.add(slug, cls)``). Entries are
imported on first use, so one broken game module cannot stop a table running another game.

The helper modules define no ``Game``: ``table_round`` (betting within limits, one decision per
seat, forfeit, void, settle once), ``ante_round`` (the ante games' flow and Ante/Play/Ante Bonus
schedule), ``settling`` (how a wager's result is written, pay-table and progressive results),
``option_values`` (checks of option values whose type matters) and ``house_way`` (pai gow hand
setting)."""

from __future__ import annotations

from dealerassist.games.base import Game
from dealerassist.registry import Registry

GAMES: Registry[type[Game]] = Registry("game")
GAMES.add("face-up-pai-gow", "dealerassist.games.face_up_pai_gow:FaceUpPaiGow")
GAMES.add("four-card-poker", "dealerassist.games.four_card_poker:FourCardPoker")
GAMES.add("pairs-and-up", "dealerassist.games.pairs_and_up:PairsAndUp")
GAMES.add("perfect-pairs-blackjack", "dealerassist.games.perfect_pairs_blackjack:PerfectPairsBlackjack")
GAMES.add("three-card-poker", "dealerassist.games.three_card_poker:ThreeCardPoker")


def registry() -> dict[str, type[Game]]:
    """Every registered game, imported, by slug."""
    return GAMES.loaded()


def game_class(slug: str) -> type[Game]:
    return GAMES.get(slug)
