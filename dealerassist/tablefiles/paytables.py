"""Pay-table files (``paytables/<game>.toml`` in the configuration folders): read, checked against
the game's bets and hand classes, and turned into ``PayTable`` objects.

This sits above ``games`` (it asks the game registry which bets and hands exist), so ``core``
keeps knowing no game.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from pathlib import Path

from dealerassist.core.configfiles import named_file
from dealerassist.core.paytables import Award, PayTable, PayTableSet, parse_award
from dealerassist.core.tomlfile import read_toml, reject_unknown_keys
from dealerassist.errors import ConfigError

FILE_KEYS = ("game", "defaults", "tables")
TABLE_KEYS = ("bet", "label", "example", "pays")


def paytables_from_mapping(data: Mapping[str, object], source: str) -> PayTableSet:
    from dealerassist.games import registry  # the registry imports game modules that use PayTable

    reject_unknown_keys(data, source, "", FILE_KEYS)
    game = data.get("game")
    if not isinstance(game, str) or not game:
        raise ConfigError(source, "game", "must name the game (its slug)")
    games = registry()
    if game not in games:
        raise ConfigError(source, "game", f"unknown game {game!r} (known: {', '.join(games)})")
    raw_tables = data.get("tables")
    if not isinstance(raw_tables, Mapping) or not raw_tables:
        raise ConfigError(source, "tables", "must hold at least one [tables.NAME] section")
    tables: dict[str, PayTable] = {}
    for name, body in raw_tables.items():
        key = f"tables.{name}"
        if not isinstance(body, Mapping):
            raise ConfigError(source, key, "must be a table")
        reject_unknown_keys(body, source, key, TABLE_KEYS)
        bet = body.get("bet")
        if not isinstance(bet, str) or not bet:
            raise ConfigError(source, f"{key}.bet", "must name the bet this table pays")
        if bet not in games[game].paid_bets():
            bets = ", ".join(games[game].paid_bets())
            raise ConfigError(source, f"{key}.bet", f"{game} has no bet {bet!r} (bets: {bets})")
        pays_raw = body.get("pays")
        if not isinstance(pays_raw, Mapping) or not pays_raw:
            raise ConfigError(source, f"{key}.pays", "must list at least one hand class = award")
        pays: dict[str, Award] = {}
        named = games[game].pay_classes.get(bet)
        for hand_class, text in pays_raw.items():
            if named and hand_class not in named:
                raise ConfigError(
                    source,
                    f"{key}.pays.{hand_class}",
                    f"no {bet} hand is called {hand_class!r}, so it would never be paid "
                    f"(hands: {', '.join(named)})",
                )
            try:
                pays[hand_class] = parse_award(text)
            except ValueError as exc:
                raise ConfigError(source, f"{key}.pays.{hand_class}", str(exc)) from None
        example = body.get("example", False)
        if not isinstance(example, bool):
            raise ConfigError(source, f"{key}.example", "must be true or false")
        tables[name] = PayTable(
            name=name, game=game, bet=bet, label=str(body.get("label", name)), pays=pays, example=example
        )
    defaults_raw = data.get("defaults", {})
    if not isinstance(defaults_raw, Mapping):
        raise ConfigError(source, "defaults", "must be a table of bet = pay-table name")
    defaults: dict[str, str] = {}
    for bet, name in defaults_raw.items():
        if name not in tables:
            raise ConfigError(source, f"defaults.{bet}", f"names unknown pay table {name!r}")
        if tables[name].bet != bet:
            raise ConfigError(source, f"defaults.{bet}", f"table {name!r} pays bet {tables[name].bet!r}")
        defaults[bet] = name
    return PayTableSet(game=game, source=source, tables=tables, defaults=defaults)


def load_paytable_file(path: str | Path) -> PayTableSet:
    path = Path(path)
    if not path.is_file():
        raise ConfigError(str(path), "-", "no such pay-table file")
    data = read_toml(path)
    return paytables_from_mapping(data, str(path))


@cache
def load_paytables(game: str) -> PayTableSet:
    """The pay tables for ``game`` (``paytables/<game>.toml`` from the configuration folders)."""
    found = load_paytable_file(named_file("paytables", game, "pay-table file"))
    if found.game != game:
        raise ConfigError(found.source, "game", f"says {found.game!r} but the file is named for {game!r}")
    return found
