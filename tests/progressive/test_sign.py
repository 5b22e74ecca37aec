"""The controller driving the real sign driver against the sign emulator over a TCP socket."""

from __future__ import annotations

import socket
from fractions import Fraction
from pathlib import Path

import pytest

from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.sign import SignFeed
from dealerassist.storage.eventlog import EventLog
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign
from tests.firmware_bridge.alpha_reader import WireTap
from tests.pgserver import ThrowawayPostgres
from tests.progressive.support import FakeClock, TableFeed, attach, make_params, shows, wait_for


def test_a_user_watches_the_meter_climb_the_hit_the_confirmation_and_the_reset(
    tmp_path: Path, emulator: SignEmulator, sign: JackpotSign
) -> None:
    log, clock = EventLog(tmp_path / "events.db"), FakeClock()
    feed = TableFeed("fupg-1", log)
    ctl = attach(feed, ProgressiveController("fupg-1", make_params(), log, clock=clock, win_display_s=5))
    ctl.subscribe(SignFeed(sign))
    ctl.refresh()
    wait_for(shows(emulator, "JACKPOT $10,000.00"), "the opening amount")
    feed.round(1, {1: 100, 2: 100, 3: 100})
    wait_for(shows(emulator, "JACKPOT $10,000.46"), "the meter climbing")
    feed.settle(1, {2: "seven-card-straight-flush"})
    wait_for(shows(emulator, "WINNER TABLE fupg-1 | $10,000.46"), "WIN with table and amount")
    clock.now += 6
    ctl.refresh()
    wait_for(shows(emulator, "JACKPOT PENDING fupg-1 | $10,000.46"), "PENDING")
    ctl.confirm("fupg-1:1:2", "sam", "supervisor")
    wait_for(shows(emulator, "JACKPOT $5,000.12"), "the reset (reset value plus reserve)")
    feed.round(2, {1: 100})
    wait_for(shows(emulator, "JACKPOT $5,000.28"), "climbing again")
    feed.void(2)
    wait_for(shows(emulator, "JACKPOT $5,000.12"), "a voided round's contribution given back")
    assert sign.corrections and "voided" in sign.corrections[-1]["reason"]
    assert emulator.problems == {} or set(emulator.problems) <= {"not-for-me"}


class Recorder:
    """Notes what the feed asks a sign for (the decisions, without a line in between)."""

    def __init__(self) -> None:
        self.calls: list[tuple] = []

    def show_amount(self, cents: int, *, allow_decrease: bool = False, reason: str = "") -> None:
        self.calls.append(("amount", cents, allow_decrease))

    def show_last_known(self, cents: int) -> None:
        self.calls.append(("last-known", cents))

    def show_win(self, table: str, cents: int) -> None:
        self.calls.append(("win", table, cents))

    def show_pending(self, table: str, cents: int | None = None) -> None:
        self.calls.append(("pending", table, cents))

    def set_fault(self, text: str | None) -> None:
        self.calls.append(("fault", text))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_a_meter_never_read_is_not_shown_while_the_link_is_down(tmp_path: Path) -> None:
    link = f"postgresql://postgres@127.0.0.1:{_closed_port()}/postgres"
    ctl = ProgressiveController("t1", make_params(link=link), EventLog(tmp_path / "e.db"))
    recorder = Recorder()
    ctl.subscribe(SignFeed(recorder))
    ctl.refresh()
    state = ctl.state()
    assert (state["status"], state["known"]) == ("fault", False)
    assert recorder.calls == [("fault", "PROGRESSIVE LINK DOWN")]
    ctl.stop()


def test_a_supervisors_correction_lowers_the_sign_as_a_documented_decrease(
    tmp_path: Path, emulator: SignEmulator, sign: JackpotSign
) -> None:
    log = EventLog(tmp_path / "events.db")
    ctl = ProgressiveController("fupg-1", make_params(), log)
    ctl.subscribe(SignFeed(sign))
    ctl.refresh()
    wait_for(shows(emulator, "JACKPOT $10,000.00"), "the opening amount")
    ctl.correct(Fraction(-2_500), "sam", "supervisor", "audit found a double seed")
    wait_for(shows(emulator, "JACKPOT $9,975.00"), "the corrected amount")
    assert sign.corrections[-1]["from"] == 1_000_000 and sign.corrections[-1]["to"] == 997_500
    assert "supervisor" in sign.corrections[-1]["reason"]


def test_the_amount_the_log_recorded_follows_whole_cent_steps_only(tmp_path: Path) -> None:
    log = EventLog(tmp_path / "events.db")
    feed = TableFeed("fupg-1", log)
    ctl = attach(feed, ProgressiveController("fupg-1", make_params(), log))
    assert ctl.state()["last_recorded"] == 10_000_00  # the opening's base
    feed.round(1, {1: 100, 2: 100})
    assert ctl.state()["last_recorded"] == ctl.state()["amount"] == 10_000_31
    ctl.correct(Fraction(-1_00), "sam", "supervisor", "audit")
    assert ctl.state()["last_recorded"] == ctl.state()["amount"] == 9_999_31  # a whole-cent step
    feed.void(1)  # the contributions given back: 15.5 cents each, the carry is not in the log
    assert ctl.state()["last_recorded"] is None
    feed.round(2, {1: 100})
    assert ctl.state()["last_recorded"] == ctl.state()["amount"]
    again = ProgressiveController("fupg-1", make_params(), log)
    assert again.state()["last_recorded"] == ctl.state()["amount"]  # rebuilt from the log alone


@pytest.fixture
def tap(emulator: SignEmulator) -> WireTap:
    wire = WireTap()
    emulator.on_wire.append(wire)
    return wire


def test_no_amount_on_the_wire_while_a_meter_never_read_is_down(
    tmp_path: Path, emulator: SignEmulator, sign: JackpotSign, tap: WireTap
) -> None:
    link = f"postgresql://postgres@127.0.0.1:{_closed_port()}/postgres"
    ctl = ProgressiveController("t1", make_params(link=link), EventLog(tmp_path / "e.db"))
    feed = SignFeed(sign)
    ctl.subscribe(feed)
    feed(ctl.state())
    wait_for(shows(emulator, "PROGRESSIVE LINK DOWN"), "the fault alone")
    for _ in range(3):
        ctl.refresh()
    wait_for(lambda: not sign.displayed()["pending_update"], "the driver caught up")
    assert tap.amounts() == []
    assert [face for _, face in tap.faces()] == ["", "PROGRESSIVE LINK DOWN"]
    ctl.stop()


@pytest.mark.postgres
def test_a_restart_during_a_meter_outage_shows_the_last_recorded_amount_marked(
    tmp_path: Path, emulator: SignEmulator, tap: WireTap
) -> None:
    """The issue's story: the sign showed the meter, the meter went down, the station restarted."""
    with ThrowawayPostgres(durable=False) as pg:
        log = EventLog(tmp_path / "events.db")
        params = make_params(link=pg.url, name="restart")
        before = JackpotSign(emulator.url, max_rate_hz=20.0)
        before.start()
        feed = TableFeed("fupg-1", log)
        ctl = attach(feed, ProgressiveController("fupg-1", params, log))
        ctl.subscribe(SignFeed(before))
        feed.round(1, {1: 100})
        wait_for(shows(emulator, "JACKPOT $10,000.15"), "the meter before the outage")
        ctl.stop()
        before.stop()
        pg.kill()
        tap.wire.clear()
        after = JackpotSign(emulator.url, max_rate_hz=20.0)  # the restarted station's driver
        after.start()
        try:
            ctl = ProgressiveController("fupg-1", params, log)
            sign_feed = SignFeed(after)
            ctl.subscribe(sign_feed)
            sign_feed(ctl.state())
            assert (ctl.state()["status"], ctl.state()["known"]) == ("fault", False)
            wait_for(
                shows(emulator, "PROGRESSIVE LINK DOWN | LAST KNOWN $10,000.15"),
                "the recorded amount, marked",
            )
            pg.start()
            ctl.refresh()
            wait_for(shows(emulator, "JACKPOT $10,000.15"), "the meter read again")
            ctl.stop()
        finally:
            after.stop()
    assert set(tap.amounts()) == {"$10,000.15"}
    # the STRING written before the live face leaves the marked face as it was: no unmarked moment
    assert tap.changes() == ["", "PROGRESSIVE LINK DOWN | LAST KNOWN $10,000.15", "JACKPOT $10,000.15"]
