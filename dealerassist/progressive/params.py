"""A progressive's parameters, read from a table config's ``[progressive]`` section.

```toml
[progressive]
name = "fortune-link"     # meter name; tables with the same name and link share one meter
bet = "progressive"       # the game's bet that feeds this progressive
wager = "1"               # the one wager amount that qualifies, dollars
base = "10000"            # the house's seed when the progressive opens
reset = "10000"           # the house's seed after a top award
increment = "15"          # % of each qualifying wager onto the meter
reserve = "5"             # % of each qualifying wager into the hidden reserve
limit = "250000"          # optional cap; increments above it go to the overflow meter
link = "postgresql://..." # optional shared meter; absent = this table's own event log
[progressive.awards]      # optional; must equal the table's pay table for the bet when it has one
seven-card-straight-flush = "100% meter"
five-aces = "$1,000"      # fixed amounts are paid from the reserve
```
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from fractions import Fraction
from typing import Any

from dealerassist.core.money import MoneyError, format_amount
from dealerassist.core.paytables import FixedAward, MeterAward, parse_award
from dealerassist.errors import ConfigError
from dealerassist.progressive.meter import MeterRates
from dealerassist.tablefiles.tables import config_amount

ProgressiveAward = MeterAward | FixedAward


@dataclass(frozen=True)
class ProgressiveParams:
    name: str
    bet: str
    wager: int
    rates: MeterRates
    awards: Mapping[str, ProgressiveAward] = field(default_factory=dict)
    link: str | None = None
    # A supervisor's change waiting for the next jackpot: it takes over at the next reset.
    next: ProgressiveParams | None = None

    def award(self, hand: str) -> ProgressiveAward | None:
        return self.awards.get(hand)

    def to_dict(self) -> dict[str, Any]:
        """The logged form of the parameters in force (a ``progressive-params`` event's old/new
        values); a change waiting for the next jackpot is not part of it."""
        r = self.rates
        return {
            "name": self.name,
            "bet": self.bet,
            "wager": format_amount(self.wager),
            "base": format_amount(r.base),
            "reset": format_amount(r.reset),
            "increment": _percent_text(r.increment),
            "reserve": _percent_text(r.reserve),
            "limit": None if r.limit is None else format_amount(r.limit),
            "awards": {hand: award_text(a) for hand, a in sorted(self.awards.items())},
            "link": self.link,
        }


def award_text(award: ProgressiveAward) -> str:
    if isinstance(award, MeterAward):
        return f"{_percent_text(award.percent)}% meter"
    return format_amount(award.cents)


def _percent_text(value: Fraction) -> str:
    dec = Decimal(value.numerator) / Decimal(value.denominator)
    return format(dec.normalize(), "f")


def _percent(source: str, key: str, value: object) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, str | int):
        raise ConfigError(source, key, f"must be a percentage as text like '4.5', got {value!r}")
    try:
        pct = Fraction(Decimal(str(value).strip().removesuffix("%")))
    except (InvalidOperation, ValueError):
        raise ConfigError(source, key, f"cannot read percentage {value!r}") from None
    if not 0 <= pct <= 100:
        raise ConfigError(source, key, f"must be within 0..100%, got {value!r}")
    return pct


def params_from_section(
    section: Mapping[str, Any],
    source: str,
    *,
    paytable_awards: Mapping[str, object] | None = None,
    default_name: str = "progressive",
) -> ProgressiveParams:
    """Validate a ``[progressive]`` section; every error names the file, the key and the problem."""
    known = {"name", "bet", "wager", "base", "reset", "increment", "reserve", "limit", "link", "awards"}
    unknown = set(section) - known
    if unknown:
        raise ConfigError(
            source, f"progressive.{sorted(unknown)[0]}", f"unknown key (known: {sorted(known)})"
        )
    for required in ("wager", "base", "increment"):
        if required not in section:
            raise ConfigError(source, f"progressive.{required}", "missing")
    name = section.get("name", default_name)
    if not isinstance(name, str) or not name.strip():
        raise ConfigError(source, "progressive.name", "must be a non-empty name")
    bet = section.get("bet", "progressive")
    if not isinstance(bet, str) or not bet:
        raise ConfigError(source, "progressive.bet", "must name the game's progressive bet")
    wager = config_amount(source, "progressive.wager", section["wager"])
    if wager <= 0:
        raise ConfigError(source, "progressive.wager", "the qualifying wager must be above zero")
    base = config_amount(source, "progressive.base", section["base"])
    reset = config_amount(source, "progressive.reset", section.get("reset", section["base"]))
    limit = config_amount(source, "progressive.limit", section["limit"]) if "limit" in section else None
    increment = _percent(source, "progressive.increment", section["increment"])
    reserve = _percent(source, "progressive.reserve", section.get("reserve", "0"))
    try:
        rates = MeterRates(base=base, reset=reset, increment=increment, reserve=reserve, limit=limit)
    except MoneyError as exc:
        raise ConfigError(source, "progressive", str(exc)) from None
    link = section.get("link")
    if link is not None and (not isinstance(link, str) or not link.startswith(("postgresql:", "postgres:"))):
        raise ConfigError(source, "progressive.link", "must be a postgresql:// connection URL")
    awards = _awards(source, section.get("awards"), paytable_awards)
    return ProgressiveParams(name.strip(), bet, wager, rates, awards, link)


def _awards(
    source: str, inline: object, paytable_awards: Mapping[str, object] | None
) -> dict[str, ProgressiveAward]:
    if inline is None:
        if not paytable_awards:
            raise ConfigError(source, "progressive.awards", "no awards here and no pay table for the bet")
        raw: Mapping[str, object] = paytable_awards
        where = "paytable"
    elif isinstance(inline, Mapping) and inline:
        raw, where = inline, "progressive.awards"
    else:
        raise ConfigError(source, "progressive.awards", "must list hand class = award")
    awards: dict[str, ProgressiveAward] = {}
    for hand, value in raw.items():
        try:
            award = parse_award(value) if isinstance(value, str | int) else value
        except ValueError as exc:
            raise ConfigError(source, f"{where}.{hand}", str(exc)) from None
        if not isinstance(award, MeterAward | FixedAward):
            raise ConfigError(source, f"{where}.{hand}", "a progressive pays '% meter' or a fixed '$' amount")
        awards[str(hand)] = award
    return awards


def params_from_table(config: Any) -> ProgressiveParams | None:
    """The progressive of a loaded ``TableConfig``, or ``None`` when the table has none."""
    section = getattr(config, "progressive", None)
    if not section:
        return None
    bet = section.get("bet", "progressive") if isinstance(section, Mapping) else "progressive"
    paytable = config.rules.paytables.get(bet) if isinstance(bet, str) else None
    pays = dict(paytable.pays) if paytable is not None else None
    params = params_from_section(
        section, str(config.path), paytable_awards=pays, default_name=f"{config.table_id}-progressive"
    )
    # The game's settlement pays by the pay table: other awards here would pay twice, or never.
    for hand in sorted(set(params.awards) | set(pays or {})):
        if pays is not None and pays.get(hand) != params.awards.get(hand):
            raise ConfigError(
                str(config.path),
                f"progressive.awards.{hand}",
                f"differs from the {bet} pay table, which the game pays",
            )
    return params


def params_from_dict(data: Mapping[str, Any]) -> ProgressiveParams:
    """Read back ``ProgressiveParams.to_dict()`` (the shared meter row and the params events)."""
    section = {k: v for k, v in data.items() if v is not None}
    return params_from_section(section, "<logged parameters>")
