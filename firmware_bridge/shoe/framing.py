"""Byte framing of the shoe protocol: start/end flags, byte stuffing and the CRC (see shoe-reader.md).

``FrameDecoder`` is fed whatever bytes the port delivers (garbage, split frames, several frames at
once) and returns every complete frame plus a ``FrameProblem`` for each thing it had to throw away,
so the driver can NAK and count; it never raises on input.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from firmware_bridge.shoe.crc import crc16_ccitt_false

SOF: Final = 0x7E
EOF_BYTE: Final = 0x7F
ESC: Final = 0x7D
ESC_XOR: Final = 0x20
SPECIAL: Final = frozenset({SOF, EOF_BYTE, ESC})
MAX_PAYLOAD: Final = 64
_MAX_BODY: Final = 2 + MAX_PAYLOAD + 2


@dataclass(frozen=True, slots=True)
class Frame:
    """One checked frame: link sequence number (0 = unsequenced), message type, payload."""

    seq: int
    type: int
    payload: bytes = b""


@dataclass(frozen=True, slots=True)
class FrameProblem:
    """Bytes the decoder discarded and why: garbage, truncated, too-long, bad-escape, short, bad-crc."""

    reason: str
    raw: bytes

    @property
    def wants_retransmit(self) -> bool:
        """A frame arrived whole but damaged: worth a NAK so the sender repeats it at once."""
        return self.reason in {"bad-crc", "bad-escape", "short"}


def stuff(body: bytes) -> bytes:
    out = bytearray()
    for byte in body:
        if byte in SPECIAL:
            out += bytes((ESC, byte ^ ESC_XOR))
        else:
            out.append(byte)
    return bytes(out)


def encode_frame(frame: Frame) -> bytes:
    """SOF, stuffed(seq, type, payload, CRC big-endian), EOF."""
    if not 0 <= frame.seq <= 255 or not 0 <= frame.type <= 255:
        raise ValueError(f"seq and type must be bytes, got seq={frame.seq} type={frame.type}")
    if len(frame.payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(frame.payload)} bytes exceeds the {MAX_PAYLOAD}-byte limit")
    body = bytes((frame.seq, frame.type)) + frame.payload
    crc = crc16_ccitt_false(body)
    return bytes((SOF,)) + stuff(body + crc.to_bytes(2, "big")) + bytes((EOF_BYTE,))


class FrameDecoder:
    """Incremental decoder; keeps partial frames between ``feed`` calls."""

    def __init__(self) -> None:
        self._body: bytearray | None = None
        self._raw = bytearray()
        self._escaped = False
        self._garbage = bytearray()

    def feed(self, data: bytes) -> list[Frame | FrameProblem]:
        out: list[Frame | FrameProblem] = []
        for byte in data:
            self._step(byte, out)
        if self._garbage and self._body is None:
            out.append(FrameProblem("garbage", bytes(self._garbage)))
            self._garbage.clear()
        return out

    def _step(self, byte: int, out: list[Frame | FrameProblem]) -> None:
        if self._body is None:
            if byte == SOF:
                if self._garbage:
                    out.append(FrameProblem("garbage", bytes(self._garbage)))
                    self._garbage.clear()
                self._start()
            else:
                self._garbage.append(byte)
            return
        if byte == SOF:
            out.append(FrameProblem("truncated", bytes(self._raw)))
            self._start()
            return
        self._raw.append(byte)
        if byte == EOF_BYTE:
            out.append(self._finish())
            return
        if self._escaped:
            self._escaped = False
            if byte ^ ESC_XOR not in SPECIAL:
                self._abandon("bad-escape", out)
                return
            self._body.append(byte ^ ESC_XOR)
        elif byte == ESC:
            self._escaped = True
        else:
            self._body.append(byte)
        if len(self._body) > _MAX_BODY:
            self._abandon("too-long", out)

    def _start(self) -> None:
        self._body = bytearray()
        self._raw = bytearray((SOF,))
        self._escaped = False

    def _abandon(self, reason: str, out: list[Frame | FrameProblem]) -> None:
        out.append(FrameProblem(reason, bytes(self._raw)))
        self._body = None
        self._raw = bytearray()

    def _finish(self) -> Frame | FrameProblem:
        body, raw = self._body or bytearray(), bytes(self._raw)
        escaped = self._escaped
        self._body = None
        self._raw = bytearray()
        if escaped:
            return FrameProblem("bad-escape", raw)
        if len(body) < 4:
            return FrameProblem("short", raw)
        if crc16_ccitt_false(bytes(body[:-2])) != int.from_bytes(body[-2:], "big"):
            return FrameProblem("bad-crc", raw)
        return Frame(seq=body[0], type=body[1], payload=bytes(body[2:-2]))
