"""An emulated Alpha sign: checks every transmission, keeps its files and shows what a sign would.

Run standalone (``--png`` rewrites a picture of the face after every change, for the dashboard)::

    python -m firmware_bridge.emulators.sign --pty --link /tmp/sign0 --png /tmp/sign.png
    python -m firmware_bridge.emulators.sign --tcp 7002
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from firmware_bridge.emulators.base import DeviceEmulator, add_cable_arguments, end_on_sigterm, plug_in
from firmware_bridge.sign import alpha

DEFAULT_MEMORY = {"A": alpha.MemoryEntry("A", "text", 256)}
LED_BGR = {
    "red": (40, 40, 255),
    "green": (60, 230, 60),
    "amber": (0, 180, 255),
    "dim-red": (30, 30, 150),
    "dim-green": (40, 140, 40),
    "brown": (30, 80, 140),
    "orange": (0, 130, 255),
    "yellow": (0, 230, 255),
}


@dataclass
class SignMemory:
    table: dict[str, alpha.MemoryEntry] = field(default_factory=lambda: dict(DEFAULT_MEMORY))
    texts: dict[str, bytes] = field(default_factory=dict)
    strings: dict[str, bytes] = field(default_factory=dict)


class SignEmulator(DeviceEmulator):
    """Emulated sign answering to ``type_code``/``address`` and to the broadcast forms.

    It answers read commands (memory table, TEXT, STRING) as an Alpha sign does, unless built with
    ``answers=False`` (a sign on a one-way line). ``join_line`` puts further signs on its line: they
    hear every byte it hears and answer over its cable, so tests can drive several addresses apart.
    """

    def __init__(
        self,
        *,
        address: str = "01",
        type_code: str = "!",
        baudrate: int | None = None,
        answers: bool = True,
    ) -> None:
        super().__init__(baudrate=baudrate, name="sign")
        self.address = address
        self.type_code = type_code
        self.answers = answers
        self.reads = 0
        self.neighbours: list[SignEmulator] = []
        self.on_wire: list[Callable[[float, bytes], None]] = []
        self._cable: SignEmulator | None = None
        self.memory = SignMemory()
        self.problems: Counter[str] = Counter()
        self.packets = 0
        self.text_writes = 0
        self.last_packet_at = 0.0
        self.history: list[tuple[float, str, bytes]] = []
        self.png_path: Path | None = None
        self.on_packet: list[Callable[[float, alpha.AlphaPacket], None]] = []
        self._decoder = alpha.AlphaDecoder()

    # --- API for tests, the demo and the dashboard --------------------------------------------------

    def pages(self) -> list[alpha.Page]:
        return self.call(self._pages)

    def text(self) -> str:
        """The running messages as one line, pages separated by `` | ``."""
        return " | ".join(p.text for p in self.pages())

    def string_file(self, label: str = "1") -> str | None:
        raw = self.call(lambda: self.memory.strings.get(label))
        return None if raw is None else raw.decode("ascii", "replace")

    def reset_memory(self) -> None:
        """A power glitch with the cable in: the memory table back to the factory one, files gone."""
        self.call(self._reset_memory)

    def _reset_memory(self) -> None:
        self.memory = SignMemory()

    def join_line(self, other: SignEmulator) -> None:
        """Put ``other`` on this sign's line (multi-drop): it hears what this one hears."""
        other._cable = self
        self.call(lambda: self.neighbours.append(other))

    def snapshot(self) -> dict[str, Any]:
        return self.call(
            lambda: {
                "pages": [p.to_dict() for p in self._pages()],
                "packets": self.packets,
                "problems": dict(self.problems),
                "files": sorted(self.memory.table),
            }
        )

    def render_png(self, width: int = 480) -> bytes:
        """A picture of the sign face: one row of LED-coloured text per page."""
        pages = self.pages() or [alpha.Page(text="")]
        row = 56
        image = np.zeros((row * len(pages) + 16, width, 3), np.uint8)
        image[:] = (12, 12, 12)
        for index, page in enumerate(pages):
            colour = LED_BGR.get(page.color, LED_BGR["amber"])
            scale = min(1.2, (width - 24) / max(1, 22 * len(page.text)))
            y = 8 + row * index + row - 18
            cv2.putText(image, page.text, (12, y), cv2.FONT_HERSHEY_SIMPLEX, scale, colour, 2, cv2.LINE_AA)
            if page.mode == "flash":
                cv2.circle(image, (width - 14, y - 8), 5, colour, -1)
        image[::3, :] = (image[::3, :] * 0.55).astype(np.uint8)
        ok, png = cv2.imencode(".png", image)
        if not ok:
            raise RuntimeError("OpenCV could not encode the sign picture")
        return png.tobytes()

    # --- I/O thread ----------------------------------------------------------------------------------

    def on_connect(self) -> None:
        self._decoder = alpha.AlphaDecoder()

    def on_bytes(self, data: bytes, arrived: float) -> None:
        for hook in self.on_wire:
            hook(arrived, data)
        for other in self.neighbours:
            other.on_bytes(data, arrived)
        changed = False
        for item in self._decoder.feed(data):
            if isinstance(item, alpha.AlphaProblem):
                self.problems[item.reason] += 1
                continue
            if not self._for_me(item):
                self.problems["not-for-me"] += 1
                continue
            self.packets += 1
            self.last_packet_at = arrived
            self.history.append((arrived, item.command, item.data))
            del self.history[:-200]
            changed = self._apply(item) or changed
            for hook in self.on_packet:
                hook(arrived, item)
        if changed and self.png_path is not None:
            self.png_path.write_bytes(self.render_png())

    def _for_me(self, packet: alpha.AlphaPacket) -> bool:
        type_ok = packet.type_code in ("Z", "?", self.type_code)
        address_ok = packet.address in ("00", self.address)
        return type_ok and address_ok

    def _apply(self, packet: alpha.AlphaPacket) -> bool:
        data = packet.data
        if packet.command == alpha.WRITE_SPECIAL and data[:1] == b"$":
            return self._configure(data[1:])
        if packet.command in alpha.ANSWERS:
            self._answer(packet)
            return False
        if packet.command in (alpha.WRITE_TEXT, alpha.WRITE_STRING) and data:
            label, content = chr(data[0]), data[1:]
            entry = self.memory.table.get(label)
            kind = "text" if packet.command == alpha.WRITE_TEXT else "string"
            if entry is None or entry.kind != kind:
                self.problems[f"no-{kind}-file"] += 1
                return False
            if len(content) > entry.size:
                self.problems["file-too-long"] += 1
                content = content[: entry.size]
            if kind == "text":
                self.text_writes += 1
                self.memory.texts[label] = content
            else:
                self.memory.strings[label] = content
            return True
        self.problems[f"unsupported-{packet.command}"] += 1
        return False

    def _answer(self, packet: alpha.AlphaPacket) -> None:
        """Answer a read with the file as the matching write command, from this sign's address."""
        self.reads += 1
        label = chr(packet.data[0]) if packet.data else ""
        if packet.command == alpha.READ_SPECIAL and label == alpha.SPECIAL_MEMORY:
            content = alpha.memory_table(list(self.memory.table.values()))
        elif packet.command == alpha.READ_STRING:
            content = self.memory.strings.get(label, b"")
        elif packet.command == alpha.READ_TEXT:
            content = self.memory.texts.get(label, b"")
        else:
            self.problems[f"unsupported-{packet.command}"] += 1
            return
        if self.answers:
            reply = alpha.answer(alpha.ANSWERS[packet.command], packet.data[:1] + content, self.address)
            (self._cable or self).send(reply)

    def _configure(self, table: bytes) -> bool:
        if len(table) % 11:
            self.problems["bad-memory-table"] += 1
            return False
        entries: dict[str, alpha.MemoryEntry] = {}
        kinds = {code: name for name, code in alpha.FILE_TYPES.items()}
        for start in range(0, len(table), 11):
            item = table[start : start + 11].decode("ascii", "replace")
            kind = kinds.get(item[1])
            try:
                size = int(item[3:7], 16)
            except ValueError:
                size = -1
            if kind not in ("text", "string") or item[2] not in "UL" or size <= 0:
                self.problems["bad-memory-table"] += 1
                return False
            entries[item[0]] = alpha.MemoryEntry(item[0], kind, size, item[2] == "L")  # type: ignore[arg-type]
        self.memory = SignMemory(table=entries, texts={}, strings={})
        return True

    def _pages(self) -> list[alpha.Page]:
        pages: list[alpha.Page] = []
        for label in sorted(self.memory.texts):
            pages.extend(alpha.read_pages(self.memory.texts[label], self.memory.strings))
        return [p for p in pages if p.text]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.emulators.sign", description=__doc__)
    add_cable_arguments(parser)
    parser.add_argument("--address", default="01", help="this sign's two-character address (default 01)")
    parser.add_argument("--type", default="!", help="this sign's type code (default !)")
    parser.add_argument(
        "--no-answer", action="store_true", help="never answer read commands (a one-way line)"
    )
    parser.add_argument("--png", help="rewrite this PNG with the sign face after every change")
    parser.add_argument("--baud", type=int, default=None, help="model a real line at this baud")
    args = parser.parse_args(argv)
    emu = SignEmulator(
        address=args.address, type_code=args.type, baudrate=args.baud, answers=not args.no_answer
    )
    emu.png_path = Path(args.png) if args.png else None
    where_text = plug_in(emu, args)
    emu.start()
    print(f"sign emulator listening on {where_text}", flush=True)
    end_on_sigterm()
    shown = ""
    try:
        while True:
            time.sleep(0.2)
            now = emu.text()
            if now != shown:
                shown = now
                print(f"{time.strftime('%H:%M:%S')} sign shows: {now}", flush=True)
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
