"""Shared stand-ins: emulators on a real pty or TCP port and a thread-safe event collector."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from dealerassist.events import Event
from firmware_bridge.emulators import registry
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator


def wait_for(condition: Callable[[], object], timeout: float = 5.0, what: str = "condition") -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.01)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class Collector:
    """Receives driver events from the driver's thread; tests read them from theirs."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.events: list[Event] = []

    def __call__(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def of(self, kind: str) -> list[Event]:
        with self._lock:
            return [e for e in self.events if e.kind == kind]

    def cards(self) -> list[int]:
        return [e.shoe_sequence for e in self.of("card-read")]  # type: ignore[attr-defined]

    def links(self) -> list[bool]:
        return [e.up for e in self.of("device-link")]  # type: ignore[attr-defined]


@pytest.fixture
def collector() -> Collector:
    return Collector()


@pytest.fixture(params=["pty", "tcp"])
def cable(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """How the emulator is plugged in: a pty behind a stable symlink, or a TCP port."""
    return str(request.param) + ":" + str(tmp_path / "device")


def plug(emu: ShoeEmulator | SignEmulator, cable: str) -> str:
    kind, _, link = cable.partition(":")
    if kind == "pty":
        emu.serve_pty(link)
    else:
        emu.serve_tcp()
    emu.start()
    return emu.url


@pytest.fixture
def shoe_emulator() -> Iterator[ShoeEmulator]:
    emu = ShoeEmulator(seed=11, retransmit=0.1, heartbeat=0.2)
    yield emu
    emu.stop()


@pytest.fixture
def sign_emulator() -> Iterator[SignEmulator]:
    emu = SignEmulator()
    yield emu
    emu.stop()


@pytest.fixture(autouse=True)
def _no_leftover_emu_devices() -> Iterator[None]:
    yield
    registry.shutdown_all()
