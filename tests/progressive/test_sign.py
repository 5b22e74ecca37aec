"""The controller driving the real sign driver against the sign emulator over a TCP socket."""

from __future__ import annotations

import socket
from fractions import Fraction
from pathlib import Path

from dealerassist.progressive.controller import ProgressiveController
from dealerassist.progressive.sign import SignFeed
from dealerassist.storage.eventlog import EventLog
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign
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

    def show_win(self, table: str, cents: int) -> None:
        self.calls.append(("win", table, cents))

    def show_pending(self, table: str) -> None:
        self.calls.append(("pending", table))

    def set_fault(self, text: str | None) -> None:
        self.calls.append(("fault", text))


def test_a_meter_never_read_is_not_shown_while_the_link_is_down(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    link = f"postgresql://postgres@127.0.0.1:{port}/postgres"
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
