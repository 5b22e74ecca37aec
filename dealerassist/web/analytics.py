"""Table analytics for surveillance: hands per hour, hold per table and shift, voids and alarms per
dealer shift. Amounts stay integer cents; hold is an exact fraction shown to two decimals."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import ROUND_HALF_EVEN, Decimal
from fractions import Fraction

from markupsafe import Markup

from dealerassist.core.money import format_amount
from dealerassist.web.charts import bar_chart
from dealerassist.web.history import DEFAULT_SHIFTS, RoundSummary, shift_of


def percent_text(value: Fraction | None) -> str:
    if value is None:
        return "–"
    dec = (Decimal(value.numerator) * 100 / Decimal(value.denominator)).quantize(
        Decimal("0.01"), rounding=ROUND_HALF_EVEN
    )
    return f"{dec}%"


@dataclass
class HoldRow:
    table: str
    shift: str
    rounds: int = 0
    wagered: int = 0
    house_net: int = 0
    bonus_paid: int = 0  # stake-less bonuses (Envy), inside house_net already

    @property
    def hold(self) -> Fraction | None:
        return Fraction(self.house_net, self.wagered) if self.wagered else None


@dataclass
class DealerShiftRow:
    dealer: str
    shift: str
    tables: set[str] = field(default_factory=set)
    rounds: int = 0
    voids: int = 0
    alarms: int = 0


@dataclass
class Report:
    hands_per_hour: list[tuple[str, str, int, int]]  # table, hour, rounds, player hands
    hold: list[HoldRow]
    dealer_shifts: list[DealerShiftRow]
    charts: dict[str, Markup]


def build(
    rounds: Sequence[RoundSummary],
    *,
    shifts: Iterable[tuple[str, int]] = DEFAULT_SHIFTS,
) -> Report:
    shifts = tuple(shifts)
    per_hour: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    hold: dict[tuple[str, str], HoldRow] = {}
    dealers: dict[tuple[str, str], DealerShiftRow] = {}
    for r in rounds:
        shift = shift_of(r.opened_at, shifts)
        dealer = dealers.setdefault(
            (r.dealer or "(unknown)", shift), DealerShiftRow(r.dealer or "(unknown)", shift)
        )
        dealer.tables.add(r.table)
        dealer.rounds += 1
        dealer.alarms += len(r.alarms)
        if r.outcome == "voided":
            dealer.voids += 1
        if r.outcome != "settled":
            continue
        hour = r.opened_at[:13].replace("T", " ") + ":00"
        counts = per_hour[(r.table, hour)]
        counts[0] += 1
        counts[1] += len({int(x.get("seat", 0)) for x in r.results})
        row = hold.setdefault((r.table, shift), HoldRow(r.table, shift))
        row.rounds += 1
        row.wagered += r.wagered
        row.house_net += r.house_net
        row.bonus_paid += sum(int(x.get("win", 0)) for x in r.results if x.get("earned_by"))
    hands = [(t, h, c[0], c[1]) for (t, h), c in sorted(per_hour.items())]
    hold_rows = sorted(hold.values(), key=lambda x: (x.shift, x.table))
    dealer_rows = sorted(dealers.values(), key=lambda x: (x.shift, x.dealer))
    charts = {
        "hands": bar_chart(
            "Rounds per hour",
            [(f"{t} {h[11:16]}", float(n), f"{n} rounds, {p} hands") for t, h, n, p in hands[-24:]],
        ),
        "hold": bar_chart(
            "Hold by table and shift",
            [
                (
                    f"{x.table} {x.shift}",
                    float(x.hold or 0),
                    f"{percent_text(x.hold)} of {format_amount(x.wagered)}",
                )
                for x in hold_rows
            ],
        ),
        "dealers": bar_chart(
            "Voids and alarms per dealer shift",
            [
                (f"{x.dealer} {x.shift}", float(x.voids + x.alarms), f"{x.voids} voids, {x.alarms} alarms")
                for x in dealer_rows
            ],
            css_class="warn",
        ),
    }
    return Report(hands, hold_rows, dealer_rows, charts)
