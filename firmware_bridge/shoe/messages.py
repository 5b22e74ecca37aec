"""Shoe messages independent of any wire format, and our own wire format's payload layouts.

A vendor's shoe plugs in as one more ``ShoeProtocol``: it turns bytes into these messages and
says what to answer; the driver does the rest (dedupe, events, link supervision).
"""

from __future__ import annotations

import struct
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Final, Protocol

from dealerassist.core.cards import JOKER, JOKER_RANK, SUITS, Card
from firmware_bridge.shoe.framing import Frame, FrameDecoder, FrameProblem, encode_frame

PROTOCOL_VERSION: Final = 1

T_HELLO: Final = 0x01
T_HEARTBEAT: Final = 0x02
T_ACK: Final = 0x06
T_NAK: Final = 0x15
T_CARD: Final = 0x10
T_BUTTON: Final = 0x11
T_STATUS: Final = 0x12

STATUS_CODES: Final = {0: "ok", 1: "empty", 2: "jam", 3: "cover-open", 4: "card-unreadable"}
STATUS_BY_NAME: Final = {name: code for code, name in STATUS_CODES.items()}
UNREADABLE_RANK: Final = 0
NO_SUIT: Final = ord("-")

_CARD: Final = struct.Struct(">IBBQ")
_BUTTON: Final = struct.Struct(">BQ")
_STATUS: Final = struct.Struct(">BQ")
_HELLO: Final = struct.Struct(">BI")
_HEARTBEAT: Final = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class CardDrawn:
    shoe_sequence: int
    card: Card | None
    device_ms: int
    link_seq: int = 0


@dataclass(frozen=True, slots=True)
class ButtonPressed:
    button: int
    device_ms: int
    link_seq: int = 0


@dataclass(frozen=True, slots=True)
class StatusReport:
    status: str
    device_ms: int
    detail: str = ""
    link_seq: int = 0


@dataclass(frozen=True, slots=True)
class Hello:
    version: int
    boot_id: int
    model: str
    link_seq: int = 0


@dataclass(frozen=True, slots=True)
class Heartbeat:
    cards_drawn: int
    link_seq: int = 0


@dataclass(frozen=True, slots=True)
class Malformed:
    """A frame with a good CRC whose type or payload makes no sense; answered with a NAK."""

    reason: str
    link_seq: int = 0


ShoeMessage = CardDrawn | ButtonPressed | StatusReport | Hello | Heartbeat | Malformed


def device_time(ms: int) -> str:
    """Device milliseconds since the Unix epoch as ISO-8601 UTC (what ``CardRead.device_time`` holds)."""
    return datetime.fromtimestamp(ms / 1000, UTC).isoformat(timespec="milliseconds")


class ShoeProtocol(Protocol):
    """What the driver needs from one wire format."""

    name: str

    def feed(self, data: bytes) -> list[ShoeMessage | FrameProblem]:
        """Decode whatever arrived; never raises."""
        ...

    def acknowledge(self, message: ShoeMessage) -> bytes:
        """Bytes to send after accepting (or recognising a duplicate of) ``message``."""
        ...

    def reject(self, problem: FrameProblem | Malformed) -> bytes:
        """Bytes to send after a damaged frame (b'' if the format has no NAK)."""
        ...

    def greeting(self) -> bytes:
        """Bytes to send after opening the port so the device introduces itself."""
        ...


# --- our format: encode (the emulator and tests) and decode (the driver) --------------------------


def card_payload(shoe_sequence: int, card: Card | None, device_ms: int) -> bytes:
    if card is None:
        rank, suit = UNREADABLE_RANK, NO_SUIT
    elif card.is_joker:
        rank, suit = JOKER_RANK, NO_SUIT
    else:
        rank, suit = card.rank, ord(str(card.suit))
    return _CARD.pack(shoe_sequence, rank, suit, device_ms)


def button_payload(button: int, device_ms: int) -> bytes:
    return _BUTTON.pack(button, device_ms)


def status_payload(status: str, device_ms: int, detail: str = "") -> bytes:
    return _STATUS.pack(STATUS_BY_NAME[status], device_ms) + detail.encode("ascii", "replace")[:40]


def hello_payload(boot_id: int, model: str) -> bytes:
    return _HELLO.pack(PROTOCOL_VERSION, boot_id) + model.encode("ascii", "replace")[:32]


def heartbeat_payload(cards_drawn: int) -> bytes:
    return _HEARTBEAT.pack(cards_drawn)


def decode_message(frame: Frame) -> ShoeMessage:
    """One checked frame to a message; a payload that does not fit its type becomes ``Malformed``."""
    seq, payload = frame.seq, frame.payload
    try:
        if frame.type == T_CARD:
            shoe_sequence, rank, suit, ms = _CARD.unpack(payload)
            return CardDrawn(shoe_sequence, _card(rank, suit), ms, seq)
        if frame.type == T_BUTTON:
            button, ms = _BUTTON.unpack(payload)
            return ButtonPressed(button, ms, seq)
        if frame.type == T_STATUS:
            code, ms = _STATUS.unpack(payload[: _STATUS.size])
            if code not in STATUS_CODES:
                return Malformed(f"unknown status code {code}", seq)
            return StatusReport(STATUS_CODES[code], ms, _text(payload[_STATUS.size :]), seq)
        if frame.type == T_HELLO:
            version, boot_id = _HELLO.unpack(payload[: _HELLO.size])
            return Hello(version, boot_id, _text(payload[_HELLO.size :]), seq)
        if frame.type == T_HEARTBEAT:
            (drawn,) = _HEARTBEAT.unpack(payload)
            return Heartbeat(drawn, seq)
    except struct.error:
        return Malformed(f"type 0x{frame.type:02X} payload of {len(payload)} bytes has the wrong size", seq)
    except ValueError as exc:
        return Malformed(str(exc), seq)
    return Malformed(f"unknown message type 0x{frame.type:02X}", seq)


def _card(rank: int, suit: int) -> Card | None:
    if rank == UNREADABLE_RANK:
        return None
    if rank == JOKER_RANK:
        return JOKER
    letter = chr(suit)
    if letter not in SUITS:
        raise ValueError(f"unknown suit byte 0x{suit:02X}")
    return Card(rank, letter)


def _text(raw: bytes) -> str:
    return raw.decode("ascii", "replace")


class DaShoeProtocol:
    """Our framed protocol (docs/protocols/shoe-reader.md), host side."""

    name = "dealerassist-shoe/1"

    def __init__(self) -> None:
        self._decoder = FrameDecoder()

    def feed(self, data: bytes) -> list[ShoeMessage | FrameProblem]:
        out: list[ShoeMessage | FrameProblem] = []
        for item in self._decoder.feed(data):
            out.append(item if isinstance(item, FrameProblem) else decode_message(item))
        return out

    def acknowledge(self, message: ShoeMessage) -> bytes:
        if message.link_seq == 0:
            return b""
        return encode_frame(Frame(message.link_seq, T_ACK))

    def reject(self, problem: FrameProblem | Malformed) -> bytes:
        if isinstance(problem, FrameProblem) and not problem.wants_retransmit:
            return b""
        return encode_frame(Frame(0, T_NAK))

    def greeting(self) -> bytes:
        return encode_frame(Frame(0, T_HELLO))
