"""The subset of the Alpha Sign Communications Protocol we use (docs/protocols/jackpot-sign.md).

Encoding builds complete transmissions (sync NULs, SOH, type code, address, STX, command, data,
ETX, checksum, EOT); ``AlphaDecoder`` reads them back for the sign emulator and the tests and,
like the shoe decoder, reports damage instead of raising.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Final, Literal

NUL: Final = 0x00
SOH: Final = 0x01
STX: Final = 0x02
ETX: Final = 0x03
EOT: Final = 0x04
ESC: Final = 0x1B
CALL_STRING: Final = 0x10
SELECT_CHARSET: Final = 0x1A
SELECT_COLOR: Final = 0x1C
SYNC_NULS: Final = 5

TYPE_ALL_SIGNS: Final = "Z"
TYPE_RESPONSE: Final = "0"  # the type code of a sign's answer to a read command
ADDRESS_BROADCAST: Final = "00"

WRITE_TEXT: Final = "A"
READ_TEXT: Final = "B"
WRITE_SPECIAL: Final = "E"
READ_SPECIAL: Final = "F"
WRITE_STRING: Final = "G"
READ_STRING: Final = "H"
SPECIAL_MEMORY: Final = "$"
# A read command is answered with the matching write command carrying the file.
ANSWERS: Final = {READ_TEXT: WRITE_TEXT, READ_SPECIAL: WRITE_SPECIAL, READ_STRING: WRITE_STRING}
HEX_DIGITS: Final = frozenset("0123456789ABCDEF")

POSITIONS: Final = {"middle": " ", "top": '"', "bottom": "&", "fill": "0"}
MODES: Final = {
    "rotate": "a",
    "hold": "b",
    "flash": "c",
    "roll-up": "e",
    "roll-down": "f",
    "roll-left": "g",
    "roll-right": "h",
    "wipe-up": "i",
    "wipe-down": "j",
    "wipe-left": "k",
    "wipe-right": "l",
    "scroll": "m",
    "automode": "o",
    "roll-in": "p",
    "roll-out": "q",
    "wipe-in": "r",
    "wipe-out": "s",
    "compressed-rotate": "t",
}
COLORS: Final = {
    "red": "1",
    "green": "2",
    "amber": "3",
    "dim-red": "4",
    "dim-green": "5",
    "brown": "6",
    "orange": "7",
    "yellow": "8",
}
FILE_TYPES: Final = {"text": "A", "string": "B", "dots": "D"}
MAX_PACKET: Final = 4096

FileKind = Literal["text", "string"]


def checksum(section: bytes) -> bytes:
    """Four upper-case hex digits of the 16-bit sum of every byte from STX through ETX."""
    return b"%04X" % (sum(section) & 0xFFFF)


def address_problem(address: object) -> str | None:
    """Why ``address`` is no sign address (two upper-case hex digits, ``00`` = every sign), else None."""
    if not isinstance(address, str) or len(address) != 2 or not set(address) <= HEX_DIGITS:
        return f"a sign address is two hex digits 00..FF (00 = every sign on the line), got {address!r}"
    return None


def type_code_problem(type_code: object) -> str | None:
    """Why ``type_code`` is no sign type code (one printable character, ``0`` is kept for answers)."""
    if (
        not isinstance(type_code, str)
        or len(type_code) != 1
        or not 0x21 <= ord(type_code) <= 0x7E
        or type_code == TYPE_RESPONSE
    ):
        return (
            f"a sign type code is one printable character other than '0' (Z = every type), got {type_code!r}"
        )
    return None


def header_problem(type_code: object, address: object) -> str | None:
    return type_code_problem(type_code) or address_problem(address)


def packet(
    command: str, data: bytes, *, type_code: str = TYPE_ALL_SIGNS, address: str = ADDRESS_BROADCAST
) -> bytes:
    """One complete transmission carrying ``command`` + ``data``."""
    if len(type_code) != 1 or len(address) != 2 or len(command) != 1:
        raise ValueError(f"bad header: type {type_code!r}, address {address!r}, command {command!r}")
    if any(b in (SOH, STX, ETX, EOT) for b in data):
        raise ValueError("sign data must not contain the framing bytes SOH, STX, ETX or EOT")
    section = bytes((STX,)) + command.encode("ascii") + data + bytes((ETX,))
    head = bytes((NUL,)) * SYNC_NULS + bytes((SOH,)) + (type_code + address).encode("ascii")
    return head + section + checksum(section) + bytes((EOT,))


def mode(name: str = "hold", position: str = "middle") -> bytes:
    """Start a new message (page) inside a TEXT file: ESC, display position, mode code."""
    return bytes((ESC,)) + (POSITIONS[position] + MODES[name]).encode("ascii")


def color(name: str) -> bytes:
    return bytes((SELECT_COLOR,)) + COLORS[name].encode("ascii")


def call_string(label: str) -> bytes:
    """Show the current contents of STRING file ``label`` at this point of a TEXT file."""
    return bytes((CALL_STRING,)) + _label(label)


def write_text(label: str, content: bytes, **header: str) -> bytes:
    return packet(WRITE_TEXT, _label(label) + content, **header)


def write_string(label: str, content: bytes, **header: str) -> bytes:
    return packet(WRITE_STRING, _label(label) + content, **header)


def read_file(command: str, label: str, **header: str) -> bytes:
    """Ask a sign for a file: ``READ_TEXT``/``READ_STRING`` + label, or ``READ_SPECIAL`` + ``$``
    (the memory table). The sign answers with the matching write command (``ANSWERS``)."""
    if command not in ANSWERS:
        raise ValueError(f"not a read command: {command!r}")
    return packet(command, _label(label), **header)


def answer(command: str, data: bytes, address: str) -> bytes:
    """A sign's answer to a read: type code ``0`` and the answering sign's own address."""
    return packet(command, data, type_code=TYPE_RESPONSE, address=address)


@dataclass(frozen=True)
class MemoryEntry:
    """One file in the sign's memory table; TEXT files run always (start FF, stop 00)."""

    label: str
    kind: FileKind
    size: int
    locked: bool = False

    def encode(self) -> bytes:
        if not 0 < self.size <= 0xFFFF:
            raise ValueError(f"file {self.label!r}: size must be 1..65535 bytes, got {self.size}")
        times = "FF00" if self.kind == "text" else "0000"
        lock = "L" if self.locked else "U"
        return _label(self.label) + f"{FILE_TYPES[self.kind]}{lock}{self.size:04X}{times}".encode("ascii")


def memory_table(entries: list[MemoryEntry]) -> bytes:
    """The data of a memory configuration after the ``$``: one 11-byte entry per file."""
    return b"".join(e.encode() for e in entries)


def memory_config(entries: list[MemoryEntry], **header: str) -> bytes:
    """Write SPECIAL FUNCTION '$': replace the sign's whole memory table (clears all files)."""
    return packet(WRITE_SPECIAL, SPECIAL_MEMORY.encode("ascii") + memory_table(entries), **header)


def _label(label: str) -> bytes:
    raw = label.encode("ascii")
    if len(raw) != 1 or not 0x20 <= raw[0] <= 0x7E:
        raise ValueError(f"a file label is one printable character, got {label!r}")
    return raw


# --- decoding -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AlphaPacket:
    type_code: str
    address: str
    command: str
    data: bytes


@dataclass(frozen=True, slots=True)
class AlphaProblem:
    """Discarded bytes and why: garbage, truncated, bad-header, bad-checksum, no-checksum, too-long."""

    reason: str
    raw: bytes


class AlphaDecoder:
    """Incremental decoder of transmissions; partial packets wait for the next ``feed``."""

    def __init__(self) -> None:
        self._buf: bytearray | None = None
        self._garbage = 0

    def feed(self, data: bytes) -> list[AlphaPacket | AlphaProblem]:
        out: list[AlphaPacket | AlphaProblem] = []
        for byte in data:
            if byte == SOH:
                if self._buf is not None:
                    out.append(AlphaProblem("truncated", bytes(self._buf)))
                self._flush_garbage(out)
                self._buf = bytearray((SOH,))
            elif self._buf is None:
                if byte != NUL:
                    self._garbage += 1
            else:
                self._buf.append(byte)
                if byte == EOT:
                    out.append(_parse(bytes(self._buf)))
                    self._buf = None
                elif len(self._buf) > MAX_PACKET:
                    out.append(AlphaProblem("too-long", bytes(self._buf[:64])))
                    self._buf = None
        self._flush_garbage(out)
        return out

    def _flush_garbage(self, out: list[AlphaPacket | AlphaProblem]) -> None:
        if self._garbage:
            out.append(AlphaProblem("garbage", b"%d bytes" % self._garbage))
            self._garbage = 0


def _parse(raw: bytes) -> AlphaPacket | AlphaProblem:
    """``raw`` runs from SOH through EOT."""
    if len(raw) < 10 or raw[4] != STX:
        return AlphaProblem("bad-header", raw)
    try:
        type_code, address = raw[1:2].decode("ascii"), raw[2:4].decode("ascii")
    except UnicodeDecodeError:
        return AlphaProblem("bad-header", raw)
    end = raw.rfind(bytes((ETX,)))
    if end < 5:
        return AlphaProblem("bad-header", raw)
    tail = raw[end + 1 : -1]
    if not tail:
        return AlphaProblem("no-checksum", raw)
    section = raw[4 : end + 1]
    if tail.upper() != checksum(section):
        return AlphaProblem("bad-checksum", raw)
    command = chr(section[1]) if len(section) > 2 else ""
    if not command or not command.isprintable():
        return AlphaProblem("bad-header", raw)
    return AlphaPacket(type_code, address, command, bytes(section[2:-1]))


# --- what a TEXT file shows -----------------------------------------------------------------------

_MODE_NAMES: Final = {code: name for name, code in MODES.items()}
_POSITION_NAMES: Final = {code: name for name, code in POSITIONS.items()}
_COLOR_NAMES: Final = {code: name for name, code in COLORS.items()}


@dataclass
class Page:
    """One message of a TEXT file as a sign runs it."""

    mode: str = "automode"
    position: str = "middle"
    color: str = "amber"
    text: str = ""

    def to_dict(self) -> dict[str, str]:
        return {"mode": self.mode, "position": self.position, "color": self.color, "text": self.text}


def read_pages(content: bytes, strings: Mapping[str, bytes]) -> list[Page]:
    """Interpret TEXT file control codes: pages (ESC), colours, called STRING files; empty pages dropped."""
    pages = [Page()]
    i = 0
    while i < len(content):
        byte = content[i]
        if byte == ESC and i + 2 < len(content):
            mode_code, position_code = chr(content[i + 2]), chr(content[i + 1])
            pages.append(
                Page(
                    mode=_MODE_NAMES.get(mode_code, "automode"),
                    position=_POSITION_NAMES.get(position_code, "middle"),
                )
            )
            i += 3
        elif byte == CALL_STRING and i + 1 < len(content):
            pages[-1].text += strings.get(chr(content[i + 1]), b"").decode("ascii", "replace")
            i += 2
        elif byte == SELECT_COLOR and i + 1 < len(content):
            pages[-1].color = _COLOR_NAMES.get(chr(content[i + 1]), pages[-1].color)
            i += 2
        elif byte == SELECT_CHARSET:
            i += 2
        else:
            if 0x20 <= byte <= 0x7E:
                pages[-1].text += chr(byte)
            i += 1
    for page in pages:
        page.text = page.text.strip()
    return [p for p in pages if p.text]
