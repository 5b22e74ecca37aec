"""``dealerassist cards`` and ``dealerassist decks``: check card texts and deck files."""

from __future__ import annotations

import argparse

from dealerassist.core.cards import parse_cards
from dealerassist.core.configfiles import available
from dealerassist.core.decks import load_deck


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("cards", help="parse card texts and print their canonical codes")
    p.add_argument("cards", nargs="+", help="card texts such as As 10h JK")
    p.set_defaults(handler=_cards)
    p = sub.add_parser("decks", help="list the configured deck compositions")
    p.set_defaults(handler=_decks)


def _cards(args: argparse.Namespace) -> int:
    for card in parse_cards(args.cards):
        print(card.code)
    return 0


def _decks(args: argparse.Namespace) -> int:
    for path, _origin in available("decks").values():
        deck = load_deck(path)
        kind = "single copy of each card" if deck.single_copy else "duplicate faces"
        print(f"{deck.name:20} {deck.size:4} cards  {kind:26} {deck.description}")
    return 0
