"""Table files (``tables/*.toml`` in the configuration folders): which game a table runs and how.

``load_table`` checks everything before anything starts and names the file, key and problem. The
game-independent sections become a ``TableRules`` for the game; the device, progressive and vision
sections are handed to their subsystems as validated mappings.

```toml
[table]
id = "tcp-1"              # id used in every event of this table
name = "Three Card Poker 1"
game = "three-card-poker"
seats = 6
deck = "standard-52"
chip = "1.00"             # smallest chip, dollars
exposure_policy = "void"  # or "flag"
[limits]                  # per bet, dollars
ante = { min = "5", max = "500" }
[paytables]               # bet -> pay-table name (else the game file's default)
pair-plus = "pair-plus-1-3-6-30-40"
[options]                 # names from the game's ``Game.options`` and ``base.TABLE_OPTIONS``
[devices.shoe]            # pyserial URL and line settings
url = "socket://127.0.0.1:7001"
```
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerassist.core.configfiles import named_file
from dealerassist.core.decks import load_deck
from dealerassist.core.money import MoneyError, decimal_to_cents, format_amount, parse_amount
from dealerassist.core.paytables import PayTable
from dealerassist.core.secrets import password_keys, password_problem
from dealerassist.core.tomlfile import read_toml, reject_unknown_keys
from dealerassist.errors import ConfigError, DealerAssistError, RuleViolation
from dealerassist.games.base import BetLimit, Game, TableRules
from dealerassist.games.option_values import fraction_of_one, yes_no
from dealerassist.tablefiles.paytables import load_paytables

_TABLE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,39}$")
KNOWN_SECTIONS = frozenset(
    {"table", "limits", "paytables", "options", "devices", "progressive", "vision", "floor", "dashboard"}
)
# The tracker reads these with float() and bool(): a quoted "false" would be true there.
TRACKER_OPTION_CHECKS: Mapping[str, Callable[[str, object], object]] = {
    "recognition_threshold": fraction_of_one,
    "camera_must_match_shoe": yes_no,
}
DEVICE_NAMES = frozenset({"shoe", "sign", "camera"})
TABLE_KEYS = ("id", "name", "game", "seats", "deck", "chip", "exposure_policy")
LIMIT_KEYS = ("min", "max")


@dataclass(frozen=True)
class TableConfig:
    path: Path
    rules: TableRules
    name: str
    devices: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    progressive: Mapping[str, Any] = field(default_factory=dict)
    vision: Mapping[str, Any] = field(default_factory=dict)
    raw: Mapping[str, Any] = field(default_factory=dict)

    @property
    def table_id(self) -> str:
        return self.rules.table_id


def config_amount(source: str, key: str, value: object) -> int:
    """A dollar amount from a config file (text like '5' or '0.50', or a whole number) in cents."""
    try:
        if isinstance(value, str):
            return parse_amount(value)
        if isinstance(value, int) and not isinstance(value, bool):
            return decimal_to_cents(value)
    except MoneyError as exc:
        raise ConfigError(source, key, str(exc)) from None
    raise ConfigError(source, key, f"must be dollars as text like '5' or '0.50', got {value!r}")


def _section(data: Mapping[str, Any], source: str, name: str) -> Mapping[str, Any]:
    value = data.get(name, {})
    if not isinstance(value, Mapping):
        raise ConfigError(source, name, "must be a table ([section])")
    return value


def table_from_mapping(data: Mapping[str, Any], source: str) -> TableConfig:
    from dealerassist.games import registry

    unknown = set(data) - KNOWN_SECTIONS
    if unknown:
        raise ConfigError(source, ", ".join(sorted(unknown)), "unknown section(s)")
    secret = next(password_keys(data), None)
    if secret is not None:
        raise ConfigError(source, secret, password_problem(secret))
    table = _section(data, source, "table")
    reject_unknown_keys(table, source, "table", TABLE_KEYS)
    table_id = table.get("id")
    if not isinstance(table_id, str) or not _TABLE_ID.match(table_id):
        raise ConfigError(source, "table.id", "must be 1-40 letters, digits, '-', '_' or '.'")
    slug = table.get("game")
    games = registry()
    if slug not in games:
        raise ConfigError(source, "table.game", f"unknown game {slug!r} (known: {', '.join(games)})")
    game_cls = games[slug]
    seats = table.get("seats")
    if not isinstance(seats, int) or isinstance(seats, bool) or not 1 <= seats <= 9:
        raise ConfigError(source, "table.seats", f"must be a whole number 1..9, got {seats!r}")
    deck_name = table.get("deck", game_cls.default_deck)
    try:
        deck = load_deck(str(deck_name))
    except ConfigError as exc:
        raise ConfigError(source, "table.deck", exc.problem) from None
    chip = config_amount(source, "table.chip", table.get("chip", "1.00"))
    if chip <= 0:
        raise ConfigError(source, "table.chip", "the smallest chip must be above zero")
    policy = table.get("exposure_policy", "void")
    if policy not in ("void", "flag"):
        raise ConfigError(source, "table.exposure_policy", f"must be 'void' or 'flag', got {policy!r}")

    limits: dict[str, BetLimit] = {}
    for bet, body in _section(data, source, "limits").items():
        key = f"limits.{bet}"
        if bet in game_cls.retired_bets:
            raise ConfigError(source, key, game_cls.retired_bets[bet])
        if bet not in game_cls.bets:
            raise ConfigError(source, key, f"{slug} has no bet {bet!r} (bets: {', '.join(game_cls.bets)})")
        if not isinstance(body, Mapping):
            raise ConfigError(source, key, "must be { min = '...', max = '...' }")
        reject_unknown_keys(body, source, key, LIMIT_KEYS)
        if "min" not in body or "max" not in body:
            raise ConfigError(source, key, "must be { min = '...', max = '...' }")
        low = config_amount(source, f"{key}.min", body["min"])
        high = config_amount(source, f"{key}.max", body["max"])
        if not 0 < low <= high:
            raise ConfigError(
                source,
                key,
                f"needs 0 < min <= max, got min {format_amount(low)} and max {format_amount(high)}",
            )
        limits[bet] = BetLimit(low, high)

    shipped = load_paytables(slug)
    chosen = dict(_section(data, source, "paytables"))
    paytables: dict[str, PayTable] = {}
    for bet in game_cls.paid_bets():
        name = chosen.pop(bet, shipped.defaults.get(bet))
        if name is None:
            continue
        if name not in shipped.tables:
            raise ConfigError(source, f"paytables.{bet}", f"no pay table {name!r} in {shipped.source}")
        if shipped.tables[name].bet != bet:
            raise ConfigError(source, f"paytables.{bet}", f"{name!r} pays bet {shipped.tables[name].bet!r}")
        paytables[bet] = shipped.tables[name]
    if chosen:
        raise ConfigError(source, f"paytables.{next(iter(chosen))}", f"{slug} has no such bet")

    devices: dict[str, Mapping[str, Any]] = {}
    for name, body in _section(data, source, "devices").items():
        if name not in DEVICE_NAMES:
            known = ", ".join(sorted(DEVICE_NAMES))
            raise ConfigError(source, f"devices.{name}", f"unknown device (known: {known})")
        if not isinstance(body, Mapping) or not isinstance(body.get("url"), str | int):
            raise ConfigError(source, f"devices.{name}.url", "each device needs a url")
        devices[name] = dict(body)

    options = _section(data, source, "options")
    _reject_unknown_options(game_cls, options, source)
    rules = TableRules(
        table_id=table_id,
        game=slug,
        seats=seats,
        deck=deck,
        chip=chip,
        limits=limits,
        paytables=paytables,
        options=dict(options),
        exposure_policy=policy,
    )
    _check_options(game_cls, rules, source)
    return TableConfig(
        path=Path(source),
        rules=rules,
        name=str(table.get("name", table_id)),
        devices=devices,
        progressive=dict(_section(data, source, "progressive")),
        vision=dict(_section(data, source, "vision")),
        raw=data,
    )


def _reject_unknown_options(game_cls: type[Game], options: Mapping[str, Any], source: str) -> None:
    """A misspelt option would be ignored and its default dealt all shift: refuse it, naming the
    names this game and the tracker read (and the nearest one, the likely intended spelling)."""
    known = sorted(game_cls.known_options())
    for name in options:
        if name not in known:
            problem = f"unknown option (known: {', '.join(known)})"
            nearest = difflib.get_close_matches(str(name), known, n=1)
            if nearest:
                problem += f"; did you mean {nearest[0]!r}?"
            raise ConfigError(source, f"options.{name}", problem)


def _check_options(game_cls: type[Game], rules: TableRules, source: str) -> None:
    """Check the tracker's option values and open a trial round, so an option value the game
    refuses stops the file now, not mid-shift."""
    for name, check in TRACKER_OPTION_CHECKS.items():
        if name in rules.options:
            try:
                check(name, rules.options[name])
            except RuleViolation as exc:
                raise ConfigError(source, f"options.{name}", exc.message) from None
    try:
        game_cls(rules).new_round()
    except (DealerAssistError, ValueError, TypeError) as exc:
        raise ConfigError(source, "options", str(exc)) from None


def load_table(path: str | Path) -> TableConfig:
    """Load a table file, or a table by name (``tables/<name>.toml`` in the configuration folders)."""
    path = Path(path)
    if path.suffix != ".toml":
        if path.suffix or len(path.parts) != 1:  # a file, not a configured table's name
            raise ConfigError(str(path), "-", "not a table file: give a .toml file or a table's name")
        path = named_file("tables", str(path), "table file")
    if not path.is_file():
        raise ConfigError(str(path), "-", "no such table file")
    data = read_toml(path)
    return table_from_mapping(data, str(path))
