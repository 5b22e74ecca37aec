"""JackpotSign against the sign emulator over a real pty and a real TCP socket."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from firmware_bridge.emulators import registry
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign, SignError, SignLine
from firmware_bridge.sign.driver import PROBE_SECONDS

from .alpha_reader import ModelSign, WireTap
from .conftest import Collector, plug, wait_for


@pytest.fixture
def sign_on(sign_emulator: SignEmulator, cable: str, collector: Collector) -> Iterator[JackpotSign]:
    sign = JackpotSign(
        plug(sign_emulator, cable), on_event=collector, max_rate_hz=50.0, backoff_start=0.02, backoff_max=0.2
    )
    sign.start()
    yield sign
    sign.stop()


def test_amount_win_pending_and_fault(sign_on: JackpotSign, sign_emulator: SignEmulator) -> None:
    sign_on.show_amount(1_234_56)
    wait_for(lambda: sign_emulator.text() == "JACKPOT $1,234.56", what="meter shown")
    wait_for(lambda: sign_on.displayed()["amount_text"] == "$1,234.56", what="driver notes what it sent")
    assert sign_on.link_up
    sign_on.set_fault("CONTROLLER LINK LOST")
    wait_for(lambda: sign_emulator.text() == "CONTROLLER LINK LOST | JACKPOT $1,234.56", what="fault page")
    sign_on.set_fault(None)
    sign_on.show_pending("TCP-3")
    wait_for(lambda: sign_emulator.text() == "JACKPOT PENDING TCP-3 | $1,234.56", what="pending")
    sign_on.show_win("TCP-3", 1_234_56)
    wait_for(lambda: sign_emulator.text() == "WINNER TABLE TCP-3 | $1,234.56", what="win")
    sign_on.show_amount(100_00)
    wait_for(lambda: sign_emulator.text() == "JACKPOT $100.00", what="reset after the hit")
    wait_for(lambda: not sign_on.displayed()["pending_update"], what="driver caught up")
    shown = sign_on.displayed()
    assert shown["mode"] == "amount" and shown["fault"] is None and shown["amount_cents"] == 100_00


def test_meter_ticks_rewrite_only_the_string(sign_on: JackpotSign, sign_emulator: SignEmulator) -> None:
    sign_on.show_amount(500_00)
    wait_for(lambda: sign_emulator.text() == "JACKPOT $500.00", what="first amount and layout")
    text_writes = sign_emulator.text_writes
    for cents in range(500_01, 500_06):
        sign_on.show_amount(cents)
        time.sleep(0.05)
    wait_for(lambda: sign_emulator.string_file() == "$500.05", what="last amount")
    assert sign_emulator.text_writes == text_writes


def test_updates_are_coalesced_to_the_rate(sign_emulator: SignEmulator) -> None:
    sign = JackpotSign(plug(sign_emulator, "tcp:"), max_rate_hz=10.0)
    sign.start()
    try:
        wait_for(lambda: sign.link_up, what="link up")
        sign.show_amount(1)
        wait_for(lambda: sign_emulator.text() == "JACKPOT $0.01", what="first amount and layout")
        before = sign_emulator.packets
        started = time.monotonic()
        cents = 1
        while time.monotonic() - started < 0.5:
            cents += 1
            sign.show_amount(cents)
            time.sleep(0.002)
        wait_for(lambda: sign_emulator.string_file() == f"${cents // 100}.{cents % 100:02d}", what="latest")
        string_writes = sign_emulator.packets - before
        assert 2 <= string_writes <= 7, string_writes  # 10 Hz for 0.5 s, plus the one in flight
        assert sign.stats["coalesced"] > 50
    finally:
        sign.stop()


def test_never_goes_backwards_without_cause(sign_on: JackpotSign, sign_emulator: SignEmulator) -> None:
    sign_on.show_amount(2_000_00)
    with pytest.raises(SignError, match="no hit was recorded"):
        sign_on.show_amount(1_999_99)
    with pytest.raises(SignError, match="needs a reason"):
        sign_on.show_amount(1_999_99, allow_decrease=True)
    sign_on.show_amount(1_950_00, allow_decrease=True, reason="meter corrected after audit #12")
    assert sign_on.corrections[0]["from"] == 2_000_00 and sign_on.corrections[0]["to"] == 1_950_00
    wait_for(lambda: sign_emulator.string_file() == "$1,950.00", what="corrected amount")
    with pytest.raises(SignError):
        sign_on.show_amount(1_000_00)
    sign_on.show_win("T1", 1_950_00)
    sign_on.show_amount(1_000_00)
    with pytest.raises(SignError):
        sign_on.show_amount(999_99)
    sign_on.show_pending("T2")
    sign_on.show_amount(1_000_01)  # the hit's one step down is used by the first amount after it
    with pytest.raises(SignError):
        sign_on.show_amount(500_00)
    with pytest.raises(SignError, match="whole cents"):
        sign_on.show_amount(-1)
    with pytest.raises(SignError, match="does not fit"):
        sign_on.show_win("T1", 1_000_000_000_00)
    assert sign_on.stats["refused"] == 4


def test_cable_pull_and_recovery(
    sign_on: JackpotSign, sign_emulator: SignEmulator, collector: Collector
) -> None:
    sign_on.show_amount(10_00)
    wait_for(lambda: sign_emulator.string_file() == "$10.00", what="shown")
    sign_emulator.unplug()
    wait_for(lambda: collector.links() == [True, False], timeout=PROBE_SECONDS * 10, what="link down")
    assert not sign_on.link_up
    sign_on.show_amount(11_00)
    sign_emulator.replug()
    wait_for(lambda: collector.links() == [True, False, True], what="link back")
    wait_for(lambda: sign_emulator.string_file() == "$11.00", what="latest amount after replug")
    assert all(e.device == "sign" for e in collector.of("device-link"))  # type: ignore[attr-defined]


def _tapped(emulator: SignEmulator, cable: str, rate_hz: float) -> tuple[JackpotSign, WireTap]:
    """A started driver on ``emulator`` and a tap on every byte the emulator receives."""
    tap = WireTap()
    emulator.on_wire.append(tap)
    sign = JackpotSign(plug(emulator, cable), max_rate_hz=rate_hz)
    sign.start()
    return sign, tap


def test_nothing_is_shown_before_an_amount_is_given(sign_emulator: SignEmulator, cable: str) -> None:
    """The documented start() then show_amount(), the amount coming late: no $0.00 in between."""
    sign, tap = _tapped(sign_emulator, cable, 4.0)
    try:
        wait_for(lambda: sign.link_up, what="link up")
        sign.set_fault("PROGRESSIVE LINK DOWN")
        wait_for(lambda: sign_emulator.text() == "PROGRESSIVE LINK DOWN", what="the fault alone")
        time.sleep(0.4)  # the meter answers later than a 4 Hz sign's first write
        sign.set_fault(None)
        sign.show_amount(12_345_67)
        wait_for(lambda: sign_emulator.text() == "JACKPOT $12,345.67", what="the amount read")
    finally:
        sign.stop()
    assert set(tap.amounts()) == {"$12,345.67"}
    faces = [face for _, face in tap.faces()]
    assert faces[0] == "" and faces[-1] == "JACKPOT $12,345.67", faces
    assert sign.displayed()["amount_cents"] == 12_345_67


def test_last_known_is_marked_and_does_not_hold_the_meter_up(sign_emulator: SignEmulator) -> None:
    sign = JackpotSign(plug(sign_emulator, "tcp:"), max_rate_hz=50.0)
    sign.start()
    try:
        sign.set_fault("PROGRESSIVE LINK DOWN")
        sign.show_last_known(12_345_67)
        wait_for(
            lambda: sign_emulator.text() == "PROGRESSIVE LINK DOWN | LAST KNOWN $12,345.67",
            what="the recorded amount, marked",
        )
        sign.set_fault(None)
        sign.show_amount(12_300_00)  # the meter read later is lower: no correction needed, none shown
        wait_for(lambda: sign_emulator.text() == "JACKPOT $12,300.00", what="the meter read")
        assert sign.corrections == []
    finally:
        sign.stop()


def test_a_win_never_pairs_the_winner_with_another_amount(sign_emulator: SignEmulator, cable: str) -> None:
    """Every face between every two frames, decoded independently: the winner only beside the win."""
    sign, tap = _tapped(sign_emulator, cable, 100.0)
    try:
        for round_ in range(3):
            meter = 10_000_46 + round_
            sign.show_amount(meter)
            wait_for(
                lambda m=meter: sign_emulator.string_file() == f"${m // 100:,}.{m % 100:02d}", what="meter"
            )
            sign.show_win("t1", 1_000_05)  # a 10% award: not the meter's amount
            wait_for(lambda: sign_emulator.text() == "WINNER TABLE t1 | $1,000.05", what="win")
            sign.set_fault("LINK DOWN")
            sign.show_pending("t1", 1_000_05)
            wait_for(
                lambda: sign_emulator.text() == "LINK DOWN | JACKPOT PENDING t1 | $1,000.05", what="pending"
            )
            sign.set_fault(None)
            sign.show_amount(9_000_41 + round_)  # the reset after the hit
            wait_for(lambda r=round_: sign_emulator.text() == f"JACKPOT $9,000.{41 + r}", what="reset")
            sign.show_win("t1", 9_000_41 + round_)  # a 100% award straight from the live meter
            wait_for(lambda: sign_emulator.text().startswith("WINNER"), what="second win")
            sign.show_amount(5_000_00)
            wait_for(lambda: sign_emulator.text() == "JACKPOT $5,000.00", what="second reset")
    finally:
        sign.stop()
    faces = [face for _, face in tap.faces()]
    winner_faces = [f for f in faces if "WINNER" in f or "PENDING" in f]
    assert len(winner_faces) >= 6
    allowed = {"$1,000.05", "$9,000.41", "$9,000.42", "$9,000.43"}
    for face in winner_faces:
        amount = face.rsplit("| ", 1)[-1]
        assert amount in allowed, f"a winner's face showed {amount!r}: {faces}"


@pytest.mark.parametrize("answers", [True, False])
def test_a_sign_that_loses_its_memory_is_restored(answers: bool, collector: Collector) -> None:
    """A power glitch with the cable in: back within one refresh period (read back and compared),
    or within the configuration refresh for a sign that does not answer reads. A loss the read-back
    saw is reported as a device alarm; a silent sign's loss cannot be seen, so none is."""
    emulator = SignEmulator(answers=answers)
    sign = JackpotSign(
        plug(emulator, "tcp:"),
        table="t1",
        on_event=collector,
        max_rate_hz=20.0,
        refresh_seconds=0.5,
        config_refresh_seconds=1.5,
    )
    sign.start()
    try:
        sign.show_amount(4_321_00)
        wait_for(lambda: emulator.text() == "JACKPOT $4,321.00", what="shown")
        wait_for(lambda: sign.answers is answers, timeout=3, what="the first read-back")
        time.sleep(0.3)
        emulator.reset_memory()
        lost = time.monotonic()
        assert emulator.text() == ""
        period = sign.refresh_seconds if answers else sign.config_refresh_seconds
        wait_for(lambda: emulator.text() == "JACKPOT $4,321.00", timeout=period + 1.5, what="restored")
        assert time.monotonic() - lost <= period + 1.0  # the read-back's own wait on top, for a silent sign
        assert emulator.problems == {} or set(emulator.problems) <= {"not-for-me"}
        if answers:
            assert sign.stats["restored"] == 1 and emulator.reads >= 3
            checks = sign.stats["checks"]
            wait_for(lambda: sign.stats["checks"] >= checks + 2, what="more checks")
            assert sign.stats["restored"] == 1  # a sign that holds what was sent is left alone
            (alarm,) = collector.of("device-alarm")
            assert (alarm.table, alarm.device, alarm.code) == ("t1", "sign", "reset")
            assert "restored" in alarm.detail
        else:
            assert collector.of("device-alarm") == []
    finally:
        sign.stop()
        emulator.stop()


def test_signs_on_one_line_are_driven_apart_by_address(collector: Collector) -> None:
    first = SignEmulator(address="01")
    second = SignEmulator(address="02", type_code="a")
    first.join_line(second)
    tap = WireTap()
    first.on_wire.append(tap)
    line = SignLine(plug(first, "tcp:"), backoff_start=0.02)
    pit = JackpotSign(line, address="01", table="t1", on_event=collector, max_rate_hz=50, refresh_seconds=0.3)
    bar = JackpotSign(line, address="02", type_code="a", table="t2", max_rate_hz=50, refresh_seconds=0.3)
    with pytest.raises(SignError, match="its own address"):
        JackpotSign(line, address="02", type_code="a")
    pit.start()
    bar.start()
    try:
        pit.show_amount(1_111_11)
        bar.show_amount(2_222_22)
        wait_for(lambda: first.text() == "JACKPOT $1,111.11", what="the first sign")
        wait_for(lambda: second.text() == "JACKPOT $2,222.22", what="the second sign")
        wait_for(lambda: pit.answers and bar.answers, timeout=3, what="both answer reads from their address")
        second.reset_memory()
        wait_for(lambda: second.text() == "JACKPOT $2,222.22", timeout=2, what="only the second restored")
        assert pit.stats["restored"] == 0 and bar.stats["restored"] == 1
        assert first.text() == "JACKPOT $1,111.11"
        assert collector.links() == [True]
    finally:
        bar.stop()
        assert line.link_up  # the other sign still runs the line
        pit.stop()
        first.stop()
    faces_two = [f for _, f in tap.faces(ModelSign(address="02", type_code="a"))]
    assert "$1,111.11" not in " ".join(faces_two)
    with pytest.raises(SignError, match="two hex digits"):
        JackpotSign("loop://", address="1")
    with pytest.raises(SignError, match="type code"):
        JackpotSign("loop://", type_code="0")


def test_emu_sign_url_and_bad_urls() -> None:
    sign = JackpotSign("emu://sign?name=pit&address=05", address="05", type_code="!")
    sign.start()
    try:
        sign.show_amount(77)
        wait_for(lambda: registry.lookup("sign", "pit") is not None, what="emulator created on first open")
        emu = registry.lookup("sign", "pit")
        assert isinstance(emu, SignEmulator)
        wait_for(lambda: emu.text() == "JACKPOT $0.77", what="addressed sign")
    finally:
        sign.stop()
    with pytest.raises(SignError, match="max_rate_hz"):
        JackpotSign("loop://", max_rate_hz=0)
