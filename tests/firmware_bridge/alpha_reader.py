"""An Alpha sign reader written from the protocol description alone (no ``firmware_bridge.sign``).

The sign tests tap every byte the driver puts on the wire, decode every frame with this reader and
replay it on a model sign, so each face the sign showed between two frames can be checked: the
driver's own encoder and the emulator's decoder cannot hide a mistake they share.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass, field

SOH, STX, ETX, EOT, ESC = 0x01, 0x02, 0x03, 0x04, 0x1B
CALL_STRING, SELECT_COLOUR, SELECT_CHARSET = 0x10, 0x1C, 0x1A
AMOUNT = re.compile(rb"\$[0-9,]+\.[0-9]{2}")


@dataclass(frozen=True)
class Frame:
    type_code: str
    address: str
    command: str
    data: bytes


@dataclass
class ModelSign:
    """A sign at ``address``: files by label, the faces shown after each frame addressed to it."""

    address: str = "01"
    type_code: str = "!"
    texts: dict[str, bytes] = field(default_factory=dict)
    strings: dict[str, bytes] = field(default_factory=dict)
    faces: list[tuple[str, str]] = field(default_factory=list)  # (frame command, face after it)

    def hears(self, frame: Frame) -> bool:
        return frame.type_code in ("Z", "?", self.type_code) and frame.address in ("00", self.address)

    def apply(self, frame: Frame) -> None:
        if not self.hears(frame):
            return
        if frame.command == "E" and frame.data[:1] == b"$":
            self.texts, self.strings = {}, {}  # a memory table replaces every file
        elif frame.command == "A":
            self.texts[chr(frame.data[0])] = frame.data[1:]
        elif frame.command == "G":
            self.strings[chr(frame.data[0])] = frame.data[1:]
        else:
            return  # reads change nothing
        self.faces.append((frame.command, self.face()))

    def face(self) -> str:
        """The running pages of TEXT file A, `` | `` between pages, called strings filled in."""
        content = self.texts.get("A", b"")
        pages: list[str] = [""]
        i = 0
        while i < len(content):
            byte = content[i]
            if byte == ESC:
                pages.append("")
                i += 3  # ESC, display position, mode
            elif byte == CALL_STRING:
                pages[-1] += self.strings.get(chr(content[i + 1]), b"").decode("ascii")
                i += 2
            elif byte in (SELECT_COLOUR, SELECT_CHARSET):
                i += 2
            else:
                if 0x20 <= byte <= 0x7E:
                    pages[-1] += chr(byte)
                i += 1
        return " | ".join(p.strip() for p in pages if p.strip())


def frames(wire: bytes) -> list[Frame]:
    """Every complete frame of ``wire``; a bad checksum or a broken frame fails the test."""
    found: list[Frame] = []
    i = 0
    while True:
        start = wire.find(bytes((SOH,)), i)
        if start < 0:
            return found
        end = wire.find(bytes((EOT,)), start)
        if end < 0:
            return found  # the last frame is still on its way
        raw = wire[start:end]
        assert raw[4] == STX, f"no STX after the header: {raw!r}"
        etx = raw.rindex(bytes((ETX,)))
        section = raw[4 : etx + 1]
        assert raw[etx + 1 :] == b"%04X" % (sum(section) & 0xFFFF), f"bad checksum: {raw!r}"
        found.append(Frame(raw[1:2].decode(), raw[2:4].decode(), chr(raw[5]), raw[6:etx]))
        i = end + 1


class WireTap:
    """Collects the bytes an emulator receives (``emulator.on_wire.append(tap)``)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.wire = bytearray()

    def __call__(self, arrived: float, data: bytes) -> None:
        with self._lock:
            self.wire += data

    def faces(self, sign: ModelSign | None = None) -> list[tuple[str, str]]:
        """Every face ``sign`` (default: address 01, type !) showed, frame by frame."""
        model = sign or ModelSign()
        with self._lock:
            wire = bytes(self.wire)
        for frame in frames(wire):
            model.apply(frame)
        return model.faces

    def changes(self, sign: ModelSign | None = None) -> list[str]:
        """The faces in the order shown, a face repeated by a write that changed nothing seen once."""
        faces = [face for _, face in self.faces(sign)]
        return [face for i, face in enumerate(faces) if i == 0 or face != faces[i - 1]]

    def amounts(self) -> list[str]:
        """Every dollar amount that appeared on the wire in a write, in order."""
        with self._lock:
            wire = bytes(self.wire)
        found: list[str] = []
        for frame in frames(wire):
            if frame.command in ("A", "G"):
                found += [m.decode() for m in AMOUNT.findall(frame.data[1:])]
        return found
