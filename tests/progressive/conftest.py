"""A sign emulator on a real TCP socket and the real sign driver talking to it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.sign import JackpotSign


@pytest.fixture
def emulator() -> Iterator[SignEmulator]:
    emu = SignEmulator()
    emu.serve_tcp()
    emu.start()
    yield emu
    emu.stop()


@pytest.fixture
def sign(emulator: SignEmulator) -> Iterator[JackpotSign]:
    driver = JackpotSign(emulator.url, max_rate_hz=20.0, backoff_start=0.02, backoff_max=0.2)
    driver.start()
    yield driver
    driver.stop()
