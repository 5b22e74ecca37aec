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

PROTOCOL_VERSION: Final = 2
SUPPORTED_VERSIONS: Final = frozenset({1, 2})

T_HELLO: Final = 0x01
T_HEARTBEAT: Final = 0x02
T_ACK: Final = 0x06
T_NAK: Final = 0x15
T_REFUSE: Final = 0x16
T_CARD: Final = 0x10
T_BUTTON: Final = 0x11
T_STATUS: Final = 0x12

STATUS_CODES: Final = {0: "ok", 1: "empty", 2: "jam", 3: "cover-open", 4: "card-unreadable"}
STATUS_BY_NAME: Final = {name: code for code, name in STATUS_CODES.items()}
# Why the host refused a frame it received whole (REFUSE ``reason``): the shoe must not resend it.
REFUSE_REASONS: Final = {1: "unknown-type", 2: "bad-payload", 3: "unknown-status", 4: "unsupported-version"}
REFUSE_BY_NAME: Final = {name: code for code, name in REFUSE_REASONS.items()}
UNREADABLE_RANK: Final = 0
NO_SUIT: Final = ord("-")

_CARD: Final = struct.Struct(">IBBQ")
_BOOT: Final = struct.Struct(">I")
_REFUSE: Final = struct.Struct(">BB")
_BUTTON: Final = struct.Struct(">BQ")
_STATUS: Final = struct.Struct(">BQ")
_HELLO: Final = struct.Struct(">BI")
_HEARTBEAT: Final = struct.Struct(">I")


@dataclass(frozen=True, slots=True)
class CardDrawn:
    """A card; ``boot_id`` is in every card frame from version 2 on (``None`` from version 1)."""

    shoe_sequence: int
    card: Card | None
    device_ms: int
    link_seq: int = 0
    boot_id: int | None = None


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
    """The shoe's card counter; ``boot_id`` from version 2 on, so a missed HELLO is noticed."""

    cards_drawn: int
    link_seq: int = 0
    boot_id: int | None = None


@dataclass(frozen=True, slots=True)
class Malformed:
    """A whole frame (good CRC) the host understood but cannot take: unknown type or status code,
    a payload that does not fit its type. Refused once with ``refusal`` (never NAKed: resending it
    would not help) and raised as a device alarm; the messages behind it flow on."""

    reason: str
    link_seq: int = 0
    refusal: str = "bad-payload"
    frame_type: int = 0


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
        """Bytes to send after a damaged frame (``FrameProblem``: resend it) or a whole frame the
        host refuses (``Malformed``: do not resend it); b'' if the format has no answer for it."""
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


def card_payload_v2(shoe_sequence: int, card: Card | None, device_ms: int, boot_id: int) -> bytes:
    return card_payload(shoe_sequence, card, device_ms) + _BOOT.pack(boot_id)


def hello_payload(boot_id: int, model: str, version: int = PROTOCOL_VERSION) -> bytes:
    return _HELLO.pack(version, boot_id) + model.encode("ascii", "replace")[:32]


def heartbeat_payload(cards_drawn: int, boot_id: int | None = None) -> bytes:
    return _HEARTBEAT.pack(cards_drawn) + (b"" if boot_id is None else _BOOT.pack(boot_id))


def refuse_payload(reason: str, frame_type: int) -> bytes:
    return _REFUSE.pack(REFUSE_BY_NAME[reason], frame_type)


def host_hello_payload(version: int = PROTOCOL_VERSION) -> bytes:
    """The host's HELLO names the highest version it speaks (a version-1 shoe ignores it)."""
    return bytes((version,))


def decode_message(frame: Frame) -> ShoeMessage:
    """One checked frame to a message; one the host cannot take becomes ``Malformed``.

    Payload sizes tell the versions apart: a version-2 CARD and HEARTBEAT end with the boot id.
    """
    seq, payload, kind = frame.seq, frame.payload, frame.type
    try:
        if kind == T_CARD:
            boot = _boot(payload, _CARD.size)
            shoe_sequence, rank, suit, ms = _CARD.unpack(payload[: _CARD.size])
            return CardDrawn(shoe_sequence, _card(rank, suit), ms, seq, boot)
        if kind == T_BUTTON:
            button, ms = _BUTTON.unpack(payload)
            return ButtonPressed(button, ms, seq)
        if kind == T_STATUS:
            code, ms = _STATUS.unpack(payload[: _STATUS.size])
            if code not in STATUS_CODES:
                return Malformed(f"unknown status code {code}", seq, "unknown-status", kind)
            return StatusReport(STATUS_CODES[code], ms, _text(payload[_STATUS.size :]), seq)
        if kind == T_HELLO:
            version, boot_id = _HELLO.unpack(payload[: _HELLO.size])
            return Hello(version, boot_id, _text(payload[_HELLO.size :]), seq)
        if kind == T_HEARTBEAT:
            boot = _boot(payload, _HEARTBEAT.size)
            (drawn,) = _HEARTBEAT.unpack(payload[: _HEARTBEAT.size])
            return Heartbeat(drawn, seq, boot)
    except struct.error:
        return Malformed(
            f"type 0x{kind:02X} payload of {len(payload)} bytes has the wrong size", seq, frame_type=kind
        )
    except ValueError as exc:
        return Malformed(str(exc), seq, frame_type=kind)
    return Malformed(f"unknown message type 0x{kind:02X}", seq, "unknown-type", kind)


def _boot(payload: bytes, v1_size: int) -> int | None:
    """The boot id a version-2 frame appends to its version-1 layout; any other size is an error."""
    if len(payload) == v1_size:
        return None
    if len(payload) != v1_size + _BOOT.size:
        raise struct.error("wrong size")
    (boot,) = _BOOT.unpack(payload[v1_size:])
    return int(boot)


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
    """Our framed protocol (docs/protocols/shoe-reader.md), host side.

    ``version`` is what the shoe's HELLO said (1 until one arrives): a version-1 shoe knows no
    REFUSE, so a frame refused to it is ACKed instead (it is dropped all the same, never resent).
    """

    name = "dealerassist-shoe/2"

    def __init__(self) -> None:
        self._decoder = FrameDecoder()
        self.version = 1

    def feed(self, data: bytes) -> list[ShoeMessage | FrameProblem]:
        out: list[ShoeMessage | FrameProblem] = []
        for item in self._decoder.feed(data):
            out.append(item if isinstance(item, FrameProblem) else decode_message(item))
        return out

    def acknowledge(self, message: ShoeMessage) -> bytes:
        if isinstance(message, Hello):
            return self._answer_hello(message)
        if message.link_seq == 0:
            return b""
        return encode_frame(Frame(message.link_seq, T_ACK))

    def _answer_hello(self, hello: Hello) -> bytes:
        """ACK SEQ 0 with the version both speak, or REFUSE it (the shoe should fall back to ours)."""
        if hello.version not in SUPPORTED_VERSIONS:
            return encode_frame(Frame(0, T_REFUSE, refuse_payload("unsupported-version", T_HELLO)))
        self.version = hello.version
        return encode_frame(Frame(0, T_ACK, bytes((hello.version,))))

    def reject(self, problem: FrameProblem | Malformed) -> bytes:
        if isinstance(problem, FrameProblem):
            return encode_frame(Frame(0, T_NAK)) if problem.wants_retransmit else b""
        if self.version < 2:
            return encode_frame(Frame(problem.link_seq, T_ACK)) if problem.link_seq else b""
        return encode_frame(
            Frame(problem.link_seq, T_REFUSE, refuse_payload(problem.refusal, problem.frame_type))
        )

    def greeting(self) -> bytes:
        return encode_frame(Frame(0, T_HELLO, host_hello_payload()))
