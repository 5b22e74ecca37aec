"""The shoe emulator's injected faults produce exactly the damage they name."""

from __future__ import annotations

import os

from dealerassist.core.cards import Card
from dealerassist.events import Event
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator
from firmware_bridge.shoe import ShoeReader
from firmware_bridge.shoe.framing import Frame, FrameDecoder, FrameProblem
from firmware_bridge.shoe.messages import T_CARD, card_payload
from firmware_bridge.sign import JackpotSign

from .conftest import wait_for


def transmitted(fault: str, frame: Frame) -> list[bytes]:
    emu = ShoeEmulator()
    sent: list[bytes] = []
    emu.send = lambda data: sent.append(data) or True  # type: ignore[method-assign]
    emu._faults.append(fault)
    emu._transmit(frame)
    emu.stop()
    return sent


def test_bad_crc_is_a_crc_error_whatever_the_crc_bytes() -> None:
    # some CRCs end in 7D/7E/7F, which are stuffed: damaging the stuffed bytes would give a bad
    # escape instead, so the emulator damages the CRC before stuffing
    for ms in range(600):
        frame = Frame(1, T_CARD, card_payload(1, Card.parse("AS"), ms))
        (wire,) = transmitted("bad-crc", frame)
        (problem,) = FrameDecoder().feed(wire)
        assert problem == FrameProblem("bad-crc", wire)


def test_truncate_and_duplicate_and_drop() -> None:
    frame = Frame(5, T_CARD, card_payload(9, Card.parse("2C"), 0))
    half, whole = transmitted("truncate", frame)
    assert whole.startswith(half) and len(half) < len(whole)
    assert [type(x) for x in FrameDecoder().feed(half + whole)] == [FrameProblem, Frame]
    first, second = transmitted("duplicate", frame)
    assert first == second
    assert transmitted("drop", frame) == []


def test_emulators_and_drivers_release_every_descriptor() -> None:
    """Long-running demos start and stop devices many times: nothing may leak."""

    def open_fds() -> int:
        return len(os.listdir("/proc/self/fd"))

    before = open_fds()
    for _ in range(5):
        shoe = ShoeEmulator()
        shoe.serve_pty()
        shoe.start()
        events: list[Event] = []
        reader = ShoeReader(shoe.url, "T", events.append, backoff_start=0.02)
        reader.start()
        wait_for(lambda r=reader: r.link_up, what="shoe link")
        reader.stop()
        shoe.stop()
        sign_emu = SignEmulator()
        sign_emu.serve_tcp()
        sign_emu.start()
        sign = JackpotSign(sign_emu.url, max_rate_hz=50)
        sign.start()
        wait_for(lambda s=sign: s.link_up, what="sign link")
        sign.stop()
        sign_emu.stop()
        ShoeEmulator().stop()
    assert open_fds() == before
