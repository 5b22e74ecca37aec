"""Pay tables as data (``config/paytables/<game>.toml``).

Each game's file holds named tables, one bet each, and the default table per bet. A line maps a
hand class (the evaluators' class names) to an award:

* ``"N to M"`` — odds on the stake (``OddsAward``);
* ``"$5,000"`` — a fixed amount whatever the stake (``FixedAward``; Envy, progressive fixed prizes);
* ``"10% meter"`` — a share of a progressive meter (``MeterAward``);
* ``"push"`` — the stake comes back (``PushAward``).

Loading checks every line and names the file, the key and the problem.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from functools import cache
from pathlib import Path

from dealerassist.core.decks import CONFIG_DIR
from dealerassist.core.money import MoneyError, Odds, Payout, parse_amount, pay_odds, percent_of
from dealerassist.core.tomlfile import read_toml, reject_unknown_keys
from dealerassist.errors import ConfigError, DealerAssistError

PAYTABLES_DIR = CONFIG_DIR / "paytables"


class AwardError(DealerAssistError, ValueError):
    """An award that cannot be paid as asked (a meter award without a meter)."""


@dataclass(frozen=True)
class OddsAward:
    odds: Odds

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return pay_odds(stake, self.odds, chip)

    def __str__(self) -> str:
        return str(self.odds)


@dataclass(frozen=True)
class FixedAward:
    cents: int

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return Payout(self.cents)

    def __str__(self) -> str:
        from dealerassist.core.money import format_amount

        return format_amount(self.cents)


@dataclass(frozen=True)
class MeterAward:
    percent: Fraction

    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        if meter is None:
            raise AwardError("a share of the progressive meter needs the meter amount")
        return percent_of(meter, self.percent, chip)

    def __str__(self) -> str:
        return f"{float(self.percent):g}% meter"


@dataclass(frozen=True)
class PushAward:
    def pay(self, stake: int, chip: int = 1, meter: int | None = None) -> Payout:
        return Payout(0)

    def __str__(self) -> str:
        return "push"


Award = OddsAward | FixedAward | MeterAward | PushAward


def parse_award(text: object) -> Award:
    """Read one pay line's award; raises ``ValueError`` with the reason."""
    if isinstance(text, int) and not isinstance(text, bool):
        return OddsAward(Odds(text))
    if not isinstance(text, str):
        raise ValueError(f"an award must be text like '3 to 1', '$500', '10% meter' or 'push', got {text!r}")
    cleaned = text.strip().lower()
    if cleaned == "push":
        return PushAward()
    if cleaned.endswith("meter"):
        number = cleaned.removesuffix("meter").strip().removesuffix("%").strip()
        try:
            pct = Fraction(Decimal(number))
        except (InvalidOperation, ValueError):
            raise ValueError(f"cannot read meter share {text!r}: expected like '10% meter'") from None
        if not 0 < pct <= 100:
            raise ValueError(f"meter share {text!r} must be above 0% and at most 100%")
        return MeterAward(pct)
    if cleaned.startswith("$"):
        try:
            return FixedAward(parse_amount(cleaned))
        except MoneyError as exc:
            raise ValueError(str(exc)) from None
    try:
        return OddsAward(Odds.parse(cleaned))
    except MoneyError as exc:
        raise ValueError(str(exc)) from None


@dataclass(frozen=True)
class PayTable:
    name: str
    game: str
    bet: str
    label: str
    pays: Mapping[str, Award]
    example: bool = False

    def award(self, hand_class: str) -> Award | None:
        return self.pays.get(hand_class)


@dataclass(frozen=True)
class PayTableSet:
    """All pay tables of one game, from one file."""

    game: str
    source: str
    tables: Mapping[str, PayTable]
    defaults: Mapping[str, str] = field(default_factory=dict)

    def names(self) -> list[str]:
        return sorted(self.tables)

    def get(self, name: str) -> PayTable:
        try:
            return self.tables[name]
        except KeyError:
            known = ", ".join(self.names())
            raise ConfigError(self.source, name, f"no such pay table (known: {known})") from None

    def default(self, bet: str) -> PayTable:
        name = self.defaults.get(bet)
        if name is None:
            raise ConfigError(self.source, f"defaults.{bet}", f"no default pay table for bet {bet!r}")
        return self.get(name)

    def for_bet(self, bet: str) -> list[PayTable]:
        return [t for t in self.tables.values() if t.bet == bet]


FILE_KEYS = ("game", "defaults", "tables")
TABLE_KEYS = ("bet", "label", "example", "pays")


def paytables_from_mapping(data: Mapping[str, object], source: str) -> PayTableSet:
    from dealerassist.games import registry

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
    """The pay tables shipped for ``game`` (``config/paytables/<game>.toml``)."""
    found = load_paytable_file(PAYTABLES_DIR / f"{game}.toml")
    if found.game != game:
        raise ConfigError(found.source, "game", f"says {found.game!r} but the file is named for {game!r}")
    return found
