"""JackpotSign against the sign emulator over a real pty and a real TCP socket."""

from __future__ import annotations

import time
from collections.abc import Iterator

import pytest

from firmware_bridge.emulators import registry
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign, SignError
from firmware_bridge.sign.driver import PROBE_SECONDS

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


def test_refresh_rewrites_the_amount(sign_emulator: SignEmulator) -> None:
    sign = JackpotSign(plug(sign_emulator, "tcp:"), refresh_seconds=0.1, max_rate_hz=50.0)
    sign.start()
    try:
        sign.show_amount(42)
        wait_for(lambda: sign_emulator.string_file() == "$0.42", what="shown")
        writes = sign_emulator.packets
        time.sleep(0.35)
        assert sign_emulator.packets >= writes + 2
    finally:
        sign.stop()


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
