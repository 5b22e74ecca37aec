"""An emulated card-reading shoe speaking our framed protocol (docs/protocols/shoe-reader.md).

It deals from a seeded shuffle of any configured deck (or a scripted list), sends one sequenced
frame at a time and repeats it until the host ACKs (stop-and-wait), keeps un-ACKed frames across
an unplug, and injects faults on command. Run standalone::

    python -m firmware_bridge.emulators.shoe --pty --link /tmp/shoe0 --deck standard-52 --seed 7
    python -m firmware_bridge.emulators.shoe --tcp 7001 --auto 2 --state /tmp/shoe0.json

With ``--state`` the shoe keeps its memory (cards left, counters, frames not yet acknowledged) in a
file, so stopping and restarting the emulator is a cable pull, not a new shoe. ``--version 1``
makes it an old-firmware shoe (no boot id in cards and heartbeats, no REFUSE).
"""

from __future__ import annotations

import argparse
import json
import random
import signal
import sys
import time
from collections import deque
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dealerassist.core.cards import Card, parse_cards
from dealerassist.core.decks import load_deck
from firmware_bridge.emulators.base import DeviceEmulator, add_cable_arguments, end_on_sigterm, plug_in
from firmware_bridge.shoe.crc import crc16_ccitt_false
from firmware_bridge.shoe.framing import EOF_BYTE, SOF, Frame, FrameDecoder, encode_frame, stuff
from firmware_bridge.shoe.messages import (
    PROTOCOL_VERSION,
    REFUSE_REASONS,
    STATUS_BY_NAME,
    T_ACK,
    T_BUTTON,
    T_CARD,
    T_HEARTBEAT,
    T_HELLO,
    T_NAK,
    T_REFUSE,
    T_STATUS,
    button_payload,
    card_payload,
    card_payload_v2,
    heartbeat_payload,
    hello_payload,
    status_payload,
)

LINE_FAULTS: Final = ("garbage", "bad-crc", "drop", "duplicate", "truncate", "disconnect", "silence")
SHOE_FAULTS: Final = ("jam", "empty", "cover-open", "unreadable")
# Firmware faults: a frame type or status code from newer firmware, the last card number sent
# again with another card, a card counted but never sent, a power cycle (its HELLO lost with
# "reboot-quiet").
FIRMWARE_FAULTS: Final = (
    "unknown-type",
    "unknown-status",
    "repeat-card",
    "lose-card",
    "reboot",
    "reboot-quiet",
)
FAULTS: Final = LINE_FAULTS + SHOE_FAULTS + FIRMWARE_FAULTS
MODEL: Final = "DA-EMU-SHOE"
T_FUTURE: Final = 0x13  # a message type this protocol version does not define
FUTURE_STATUS: Final = 9


@dataclass
class _InFlight:
    frame: Frame
    sent_at: float = 0.0
    tries: int = 0


class ShoeEmulator(DeviceEmulator):
    """Emulated shoe; every public method is safe to call from any thread."""

    def __init__(
        self,
        *,
        deck: str = "standard-52",
        seed: int | None = None,
        script: str | list[str] | None = None,
        baudrate: int | None = None,
        heartbeat: float = 1.0,
        retransmit: float = 0.25,
        state: str | Path | None = None,
        auto_deal: float = 0.0,
        version: int = PROTOCOL_VERSION,
    ) -> None:
        super().__init__(baudrate=baudrate, name="shoe")
        self.version = version  # what this firmware speaks; it falls back to the host's if lower
        self.speaking = version
        self.host_version: int | None = None  # what the host's ACK of our HELLO agreed
        self.refused: list[tuple[int, str]] = []  # (frame type, reason) of every REFUSE received
        self.deck = load_deck(deck)
        self.rng = random.Random(seed)
        self.boot_id = random.SystemRandom().getrandbits(32)  # a new power-up even with the same seed
        self.heartbeat = heartbeat
        self.retransmit = retransmit
        self._shoe: deque[Card] = deque()
        self._script: deque[Card] = deque(parse_cards(script) if script else [])
        self.shuffle()
        self.cards_drawn = 0
        self.acked: list[int] = []
        self.drawn: dict[int, Card | None] = {}  # this power-up's cards by number
        self.history: list[tuple[int, int, Card | None]] = []  # (boot id, number, card) of every card
        self.naks_received = 0
        self.retransmissions = 0
        self._outbox: deque[Frame] = deque()
        self._in_flight: _InFlight | None = None
        self._next_seq = 1
        self._faults: deque[str] = deque()
        self._last_heartbeat = 0.0
        self._silent_until = 0.0
        self._decoder = FrameDecoder()
        self.sent_at: dict[int, float] = {}
        self.auto_deal = auto_deal
        self._last_auto = time.monotonic()
        self.state_path = Path(state) if state else None
        if self.state_path is not None and self.state_path.exists():
            self._restore(self.state_path)

    # --- public API ----------------------------------------------------------------------------------

    def shuffle(self) -> None:
        """A fresh shoe: every card of the deck, shuffled with this emulator's seeded generator."""
        cards = self.deck.cards()
        self.rng.shuffle(cards)
        self._shoe = deque(cards)

    def deal(self, card: str | Card | None = None, *, unreadable: bool = False) -> int | None:
        """Draw a card (the scripted or shuffled next one, or ``card``); returns its shoe sequence."""
        return self.call(lambda: self._deal(card, unreadable))

    def press_button(self) -> None:
        self.call(lambda: self._queue(T_BUTTON, button_payload(1, _now_ms())))

    def report_status(self, status: str, detail: str = "") -> None:
        if status not in STATUS_BY_NAME:
            raise ValueError(f"unknown shoe status {status!r} (known: {', '.join(STATUS_BY_NAME)})")
        self.call(lambda: self._queue(T_STATUS, status_payload(status, _now_ms(), detail)))

    def inject(self, fault: str, seconds: float = 1.0) -> None:
        """Arm a line fault for the next frame sent (garbage, disconnect and silence act at once);
        a shoe fault (jam, empty, cover-open, unreadable) is reported at once."""
        if fault not in FAULTS:
            raise ValueError(f"unknown fault {fault!r} (known: {', '.join(FAULTS)})")
        self.call(lambda: self._inject(fault, seconds))

    def pending(self) -> int:
        """Sequenced frames not yet acknowledged by the host."""
        return self.call(lambda: len(self._outbox) + (1 if self._in_flight else 0))

    def remaining(self) -> int:
        return self.call(lambda: len(self._script) + len(self._shoe))

    # --- I/O thread ----------------------------------------------------------------------------------

    def reboot(self, *, hello: bool = True) -> None:
        """A power cycle of a shoe without memory: new boot id, counters from zero, unsent frames
        gone. ``hello=False`` loses its HELLO on the line (the host must notice by itself)."""
        self.call(lambda: self._reboot(hello))

    def _reboot(self, hello: bool) -> None:
        self.boot_id = random.SystemRandom().getrandbits(32)
        self.cards_drawn = 0
        self.drawn = {}
        self._next_seq = 1
        self._outbox.clear()
        self._in_flight = None
        self.speaking = self.version
        self._decoder = FrameDecoder()
        self._save()
        if hello:
            self._say_hello()

    def _card_payload(self, sequence: int, card: Card | None) -> bytes:
        if self.speaking >= 2:
            return card_payload_v2(sequence, card, _now_ms(), self.boot_id)
        return card_payload(sequence, card, _now_ms())

    def _deal(self, card: str | Card | None, unreadable: bool) -> int | None:
        if card is not None:
            drawn: Card | None = card if isinstance(card, Card) else Card.parse(card)
        elif self._script:
            drawn = self._script.popleft()
        elif self._shoe:
            drawn = self._shoe.popleft()
        else:
            self._queue(T_STATUS, status_payload("empty", _now_ms(), "no cards left: reshuffle"))
            return None
        self.cards_drawn += 1
        sequence = self.cards_drawn
        self.drawn[sequence] = None if unreadable else drawn
        self.history.append((self.boot_id, sequence, self.drawn[sequence]))
        self._queue(T_CARD, self._card_payload(sequence, self.drawn[sequence]))
        return sequence

    def _queue(self, kind: int, payload: bytes) -> None:
        self._outbox.append(Frame(self._next_seq, kind, payload))
        self._next_seq = self._next_seq % 255 + 1
        self._save()
        self._pump(time.monotonic())

    def _save(self) -> None:
        """Keep the shoe's memory on disk (like a real shoe's flash) so a restart loses no card."""
        if self.state_path is None:
            return
        frames = list(self._outbox)
        if self._in_flight is not None:
            frames.insert(0, self._in_flight.frame)
        state = {
            "boot_id": self.boot_id,
            "cards_drawn": self.cards_drawn,
            "next_seq": self._next_seq,
            "shoe": [c.code for c in self._shoe],
            "script": [c.code for c in self._script],
            "unacknowledged": [[f.seq, f.type, f.payload.hex()] for f in frames],
        }
        tmp = self.state_path.with_name(self.state_path.name + ".tmp")
        tmp.write_text(json.dumps(state), encoding="utf-8")
        tmp.replace(self.state_path)

    def _restore(self, path: Path) -> None:
        try:
            state = json.loads(path.read_text(encoding="utf-8"))
            self.boot_id = int(state["boot_id"])
            self.cards_drawn = int(state["cards_drawn"])
            self._next_seq = int(state["next_seq"])
            self._shoe = deque(parse_cards(state["shoe"]))
            self._script = deque(parse_cards(state["script"]))
            self._outbox = deque(Frame(s, t, bytes.fromhex(p)) for s, t, p in state["unacknowledged"])
        except (OSError, ValueError, KeyError, TypeError) as exc:
            raise ValueError(f"{path}: not a shoe emulator state file ({exc})") from None

    def _inject(self, fault: str, seconds: float) -> None:
        if fault == "unreadable":
            self._deal(None, unreadable=True)
            self._queue(T_STATUS, status_payload("card-unreadable", _now_ms(), "card passed unread"))
        elif fault in SHOE_FAULTS:
            self._queue(T_STATUS, status_payload(fault, _now_ms(), "injected"))
        elif fault == "garbage":
            self.send(bytes(self.rng.getrandbits(8) for _ in range(self.rng.randint(3, 40))))
        elif fault == "disconnect":
            self._unplug(seconds)
        elif fault == "silence":
            self._silent_until = time.monotonic() + seconds
        elif fault == "unknown-type":
            self._queue(T_FUTURE, b"\x01\x02\x03")
        elif fault == "unknown-status":
            self._queue(T_STATUS, bytes((FUTURE_STATUS,)) + _now_ms().to_bytes(8, "big") + b"future")
        elif fault == "repeat-card":
            self._repeat_with_another_card()
        elif fault == "lose-card":
            self.cards_drawn += 1  # counted, never queued: the host must notice the gap
            self._save()
        elif fault in ("reboot", "reboot-quiet"):
            self._reboot(hello=fault == "reboot")
        else:
            self._faults.append(fault)

    def _repeat_with_another_card(self) -> None:
        """Send the last card number again with a card it did not have (a firmware fault)."""
        if not self.cards_drawn:
            raise ValueError("repeat-card needs a card drawn first")
        first = self.drawn.get(self.cards_drawn)
        other = next(c for c in self.deck.cards() if c != first)
        self._queue(T_CARD, self._card_payload(self.cards_drawn, other))

    def on_connect(self) -> None:
        self._decoder = FrameDecoder()
        self._say_hello()
        if self._in_flight is not None:
            self._in_flight.sent_at = 0.0

    def on_bytes(self, data: bytes, arrived: float) -> None:
        for item in self._decoder.feed(data):
            if not isinstance(item, Frame):
                continue
            if item.type == T_ACK and item.seq == 0 and item.payload:
                self.host_version = item.payload[0]  # the host's answer to our HELLO
            elif item.type == T_ACK and self._in_flight and item.seq == self._in_flight.frame.seq:
                if self._in_flight.frame.type == T_CARD:
                    self.acked.append(int.from_bytes(self._in_flight.frame.payload[:4], "big"))
                self._in_flight = None
                self._save()
            elif item.type == T_REFUSE and self.speaking >= 2 and len(item.payload) >= 2:
                self.refused.append((item.payload[1], REFUSE_REASONS.get(item.payload[0], "?")))
                if self._in_flight is not None and item.seq == self._in_flight.frame.seq:
                    self._in_flight = None  # understood and refused: never sent again
                    self._save()
            elif item.type == T_NAK:
                self.naks_received += 1
                if self._in_flight is not None:
                    self._in_flight.sent_at = 0.0
            elif item.type == T_HELLO:
                self.speaking = min(self.version, item.payload[0] if item.payload else 1)
                self._say_hello()
                if self._in_flight is not None:
                    self._in_flight.sent_at = 0.0  # a host that just opened the port flushed it
        self._pump(time.monotonic())

    def on_tick(self, now: float) -> None:
        if self.auto_deal > 0 and now - self._last_auto >= self.auto_deal:
            self._last_auto = now
            if self._deal(None, unreadable=False) is None:
                self.shuffle()  # the unattended dealer refills an empty shoe after it reported empty
        if self.connected and now - self._last_heartbeat >= self.heartbeat and now >= self._silent_until:
            self._last_heartbeat = now
            boot = self.boot_id if self.speaking >= 2 else None
            self.send(encode_frame(Frame(0, T_HEARTBEAT, heartbeat_payload(self.cards_drawn, boot))))
        self._pump(now)

    def _say_hello(self) -> None:
        self.send(encode_frame(Frame(0, T_HELLO, hello_payload(self.boot_id, MODEL, self.speaking))))

    def _pump(self, now: float) -> None:
        """Send the head of the queue, or repeat it when its ACK is overdue (stop-and-wait)."""
        if not self.connected or now < self._silent_until:
            return
        if self._in_flight is None:
            if not self._outbox:
                return
            self._in_flight = _InFlight(self._outbox.popleft())
        flight = self._in_flight
        if flight.sent_at and now - flight.sent_at < self.retransmit:
            return
        if flight.tries:
            self.retransmissions += 1
        flight.tries += 1
        flight.sent_at = now
        self._transmit(flight.frame)

    def _transmit(self, frame: Frame) -> None:
        wire = encode_frame(frame)
        fault = self._faults.popleft() if self._faults else None
        if fault == "drop":
            return
        if fault == "bad-crc":
            body = bytes((frame.seq, frame.type)) + frame.payload
            wrong = crc16_ccitt_false(body) ^ 0x0001  # damaged before stuffing: still a clean frame
            wire = bytes((SOF,)) + stuff(body + wrong.to_bytes(2, "big")) + bytes((EOF_BYTE,))
        if fault == "truncate":
            self.send(wire[: len(wire) // 2])
        if frame.type == T_CARD:
            self.sent_at.setdefault(int.from_bytes(frame.payload[:4], "big"), time.monotonic())
        self.send(wire)
        if fault == "duplicate":
            self.send(wire)


def _now_ms() -> int:
    return int(time.time() * 1000)


HELP = """commands: deal [CARD] | unreadable | button | status STATUS [DETAIL] | fault FAULT [SECONDS]
          unplug [SECONDS] | replug | shuffle | info | quit"""


def console(emu: ShoeEmulator, lines: list[str] | None = None) -> bool:
    """Read commands (stdin by default) so a person can play dealer; True when told to quit."""
    source = lines if lines is not None else sys.stdin
    for line in source:
        words = line.split()
        if not words:
            continue
        cmd, args = words[0].lower(), words[1:]
        try:
            if cmd == "quit":
                return True
            if cmd == "deal":
                print(f"dealt #{emu.deal(args[0] if args else None)}", flush=True)
            elif cmd == "unreadable":
                print(f"dealt unreadable #{emu.deal(unreadable=True)}", flush=True)
            elif cmd == "button":
                emu.press_button()
            elif cmd == "status":
                emu.report_status(args[0], " ".join(args[1:]))
            elif cmd == "fault":
                emu.inject(args[0], float(args[1]) if len(args) > 1 else 1.0)
            elif cmd == "unplug":
                emu.unplug(float(args[0]) if args else None)
            elif cmd == "replug":
                emu.replug()
            elif cmd == "shuffle":
                emu.call(emu.shuffle)
                emu.call(emu._save)
            elif cmd == "info":
                print(
                    f"drawn {emu.cards_drawn}, acked {len(emu.acked)}, pending {emu.pending()}, "
                    f"remaining {emu.remaining()}, connected {emu.connected}",
                    flush=True,
                )
            else:
                print(HELP, flush=True)
        except (ValueError, IndexError) as exc:
            print(f"error: {exc}", flush=True)
    return False


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m firmware_bridge.emulators.shoe", description=__doc__)
    add_cable_arguments(parser)
    parser.add_argument("--deck", default="standard-52", help="deck name or file (default standard-52)")
    parser.add_argument("--seed", type=int, default=None, help="shuffle seed (repeatable shoes)")
    parser.add_argument("--script", help="cards to deal first, e.g. 'AS KD 10h'")
    parser.add_argument("--baud", type=int, default=None, help="pace output like a real line at this baud")
    parser.add_argument("--state", help="keep the shoe's memory in this file so a restart loses no card")
    parser.add_argument("--auto", type=float, default=0.0, metavar="SECONDS", help="deal a card every N s")
    parser.add_argument(
        "--version", type=int, default=PROTOCOL_VERSION, help="protocol version the firmware speaks"
    )
    args = parser.parse_args(argv)
    emu = ShoeEmulator(
        deck=args.deck,
        seed=args.seed,
        script=args.script,
        baudrate=args.baud,
        state=args.state,
        auto_deal=args.auto,
        version=args.version,
    )
    where_text = plug_in(emu, args)
    emu.start()
    print(f"shoe emulator listening on {where_text}", flush=True)
    print(HELP, flush=True)
    end_on_sigterm()
    try:
        if not console(emu):
            while True:  # the console's input ended: go on serving the host until Ctrl-C or SIGTERM
                signal.pause()
    except KeyboardInterrupt:
        pass
    finally:
        emu.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
