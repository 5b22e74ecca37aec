"""The shoe emulator's injected faults produce exactly the damage they name."""

from __future__ import annotations

from dealerassist.core.cards import Card
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.shoe.framing import Frame, FrameDecoder, FrameProblem
from firmware_bridge.shoe.messages import T_CARD, card_payload


def transmitted(fault: str, frame: Frame) -> list[bytes]:
    emu = ShoeEmulator()
    sent: list[bytes] = []
    emu.send = lambda data: sent.append(data) or True  # type: ignore[method-assign]
    emu._faults.append(fault)
    emu._transmit(frame)
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
