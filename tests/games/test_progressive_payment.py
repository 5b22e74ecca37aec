"""A progressive award is paid exactly once: the game's settlement tells the dealer what to pay
(a fixed award included), and the progressive controller only accounts that fixed award against
its reserve; a share of the meter is the controller's to pay once a supervisor confirms.

Both tests run the shipped Face Up Pai Gow table through the real tracker, event log and
controller, cards from the shoe."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from dealerassist.commands.progressive import table_params
from dealerassist.core.paytables import FixedAward
from dealerassist.errors import ConfigError, RuleViolation
from dealerassist.events import event_from_dict
from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.params import params_from_table
from dealerassist.storage.eventlog import EventLog
from dealerassist.tablefiles.tables import load_table
from dealerassist.tracker.tracker import Tracker

TABLE = "fupg-1"
# Dice total 9 counts round to the dealer's place: the dealer's hand is dealt first, then seat 1.
DICE_DEALER_FIRST = 9
DEALER_KING_HIGH = "2C 3D 5H 7S 9C JD KH".split()


class Table:
    def __init__(self, path: Path) -> None:
        self.log = EventLog(path)
        self.tracker = Tracker(load_table("face-up-pai-gow"), self.log)
        _, params = table_params("face-up-pai-gow")
        self.controller = ProgressiveController(TABLE, params, self.log)
        self.controller.attach(self.tracker)

    def send(self, **data: Any) -> list:
        return self.tracker.handle(event_from_dict({"table": TABLE, **data}))

    def play(self, seat_cards: list[str]) -> None:
        """Seat 1 bets $10 and the $1 progressive, is dealt ``seat_cards`` and sets the house way."""
        self.send(kind="round-open")
        self.send(kind="wager", seat=1, bet="wager", amount=1000, user="dee")
        self.send(kind="wager", seat=1, bet="progressive", amount=100, user="dee")
        self.send(kind="betting-closed")
        self.send(kind="dice", total=DICE_DEALER_FIRST)
        for card in DEALER_KING_HIGH + seat_cards:
            self.send(kind="card-read", source="shoe", card=card)
        self.send(kind="decision", position="seat-1", action="house-way")

    def events(self, kind: str) -> list:
        return [r.event for r in self.log.records() if r.event.kind == kind]

    def seat_results(self, seat: int) -> list[dict[str, Any]]:
        [settled] = self.events("round-settled")
        return [r for r in settled.results if r["seat"] == seat]

    def close(self) -> None:
        self.controller.stop()
        self.log.close()


@pytest.fixture
def table(tmp_path: Path) -> Any:
    t = Table(tmp_path / "events.db")
    yield t
    t.close()


def test_a_fixed_award_is_in_the_dealers_pay_once_and_only_accounted_by_the_controller(table: Table) -> None:
    before = table.controller.meter
    table.play("4S 4H 4D 4C 8S TD QC".split())
    results = {r["bet"]: r for r in table.seat_results(1)}
    progressive = results["progressive"]
    # The pay table's four of a kind is a fixed $25: the dealer pays it with the round.
    assert (progressive["outcome"], progressive["win"], progressive["returned"]) == ("win", 2500, 0)
    to_pay = sum(r["win"] + r["returned"] for r in results.values())
    assert to_pay == results["wager"]["win"] + results["wager"]["returned"] + 2500

    [hit] = table.events("progressive-hit")
    assert (hit.seat, hit.hand, hit.paid, hit.locks) == (1, "four-of-a-kind", 2500, False)
    # Accounted against the reserve (the house covers the rest); the meter pays nothing of it.
    assert hit.from_meter == "0"
    assert int(hit.from_reserve) + int(hit.from_house) == 2500
    contributed = sum(Fraction(c.to_meter) for c in table.events("progressive-contribution"))
    assert table.controller.meter.meter == before.meter + contributed
    # Nothing waits for a supervisor and no second payment is asked for.
    state = table.controller.state()
    assert state["status"] == "normal" and not state.get("pending")
    assert not table.events("progressive-paid")


def test_a_meter_share_is_paid_by_the_controller_not_by_the_settlement(table: Table) -> None:
    table.play("8S 9S TS JS QS KS AS".split())  # seven-card straight flush: 100% of the meter
    [progressive] = [r for r in table.seat_results(1) if r["bet"] == "progressive"]
    assert (progressive["outcome"], progressive["win"], progressive["returned"]) == ("win", 0, 0)
    assert progressive["note"] == "meter award 100%"
    [hit] = table.events("progressive-hit")
    assert hit.locks and hit.paid == table.controller.state()["win"]["amount"] > 0
    assert table.controller.state()["status"] in ("win", "pending")
    table.send(kind="round-close")
    table.controller.confirm(hit.hit_id, "sam", "supervisor")
    assert table.controller.state()["status"] == "normal"
    assert len(table.events("progressive-paid")) == 1


def test_a_locked_meter_refuses_the_progressive_wager_at_the_table(table: Table) -> None:
    """While a jackpot waits for a supervisor the tracker refuses the progressive bet (asked of the
    controller), logs the refusal with its rule, and still takes the main wager."""
    table.play("8S 9S TS JS QS KS AS".split())
    table.send(kind="round-close")
    table.send(kind="round-open")
    table.send(kind="wager", seat=2, bet="wager", amount=1000, user="dee")
    with pytest.raises(RuleViolation) as refused:
        table.send(kind="wager", seat=2, bet="progressive", amount=100, user="dee")
    assert refused.value.rule == "progressive-locked"
    [logged] = table.events("refused")
    assert "progressive-locked" in logged.to_dict()["rule"]
    [hit] = table.events("progressive-hit")
    table.controller.confirm(hit.hit_id, "sam", "supervisor")
    table.send(kind="wager", seat=2, bet="progressive", amount=100, user="dee")


PROGRESSIVE_SECTION = """
[progressive]
wager = "1"
base = "1000"
increment = "15"
reserve = "5"
"""


def test_a_table_whose_progressive_awards_differ_from_the_game_pay_table_is_refused(tmp_path: Path) -> None:
    """The game pays by its pay table; a ``[progressive.awards]`` line that says otherwise (here four
    of a kind as a meter share where the pay table pays a fixed $25) would pay the hand twice."""
    text = Path(load_table("face-up-pai-gow").path).read_text(encoding="utf-8")
    shipped = text[: text.index("\n[progressive]")]
    plain = tmp_path / "plain.toml"
    plain.write_text(shipped + PROGRESSIVE_SECTION, encoding="utf-8")
    params = params_from_table(load_table(plain))
    assert params is not None and params.award("four-of-a-kind") == FixedAward(2500)

    clash = tmp_path / "clash.toml"
    clash.write_text(
        shipped + PROGRESSIVE_SECTION + '\n[progressive.awards]\nfour-of-a-kind = "10% meter"\n',
        encoding="utf-8",
    )
    with pytest.raises(ConfigError) as refused:
        params_from_table(load_table(clash))
    assert refused.value.file == str(clash)
    assert refused.value.key.startswith("progressive.awards.")
    assert "pay table" in refused.value.problem
