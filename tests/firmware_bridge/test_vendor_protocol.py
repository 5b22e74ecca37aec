"""A second wire format behind ShoeProtocol: the driver's de-duplication and events work unchanged.

The format here is a made-up ASCII one (``C <seq> <card>`` lines, no ACKs, ``?`` to ask for
output), the shape many simple readers have; the peer is a real TCP socket.
"""

from __future__ import annotations

import socket
import threading

from dealerassist.core.cards import Card
from firmware_bridge.shoe import ShoeReader
from firmware_bridge.shoe.framing import FrameProblem
from firmware_bridge.shoe.messages import CardDrawn, Heartbeat, Malformed, ShoeMessage

from .conftest import Collector, wait_for


class AsciiLines:
    name = "ascii-lines"

    def __init__(self) -> None:
        self._buffer = b""

    def feed(self, data: bytes) -> list[ShoeMessage | FrameProblem]:
        self._buffer += data
        *lines, self._buffer = self._buffer.split(b"\n")
        out: list[ShoeMessage | FrameProblem] = []
        for line in lines:
            words = line.decode("ascii", "replace").split()
            if words == ["H"]:
                out.append(Heartbeat(0))
            elif len(words) == 3 and words[0] == "C" and words[1].isdigit():
                try:
                    out.append(CardDrawn(int(words[1]), Card.parse(words[2]), 0))
                except ValueError as exc:
                    out.append(Malformed(str(exc)))
            else:
                out.append(FrameProblem("garbage", line))
        return out

    def acknowledge(self, message: ShoeMessage) -> bytes:
        return b""

    def reject(self, problem: FrameProblem | Malformed) -> bytes:
        return b""

    def greeting(self) -> bytes:
        return b"?\n"


def test_vendor_format_with_repeats_and_noise(collector: Collector) -> None:
    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def vendor_shoe() -> None:
        conn, _ = server.accept()
        with conn:
            assert conn.recv(2) == b"?\n"  # the reader has opened (and flushed) its port
            conn.sendall(b"H\nC 1 AS\nC 2 KD\nC 2 KD\n\x00\x7e??\nC 3 ZZ\nC 4 10h\nH\n")
            conn.recv(1)  # stay plugged in until the reader hangs up

    peer = threading.Thread(target=vendor_shoe, daemon=True)
    peer.start()
    reader = ShoeReader(f"socket://127.0.0.1:{port}", "T", collector, protocol=AsciiLines)
    reader.start()
    try:
        wait_for(lambda: collector.cards() == [1, 2, 4], what="vendor cards")
        assert [e.card for e in collector.of("card-read")] == [  # type: ignore[attr-defined]
            Card.parse("AS"),
            Card.parse("KD"),
            Card.parse("10h"),
        ]
        wait_for(lambda: reader.stats["heartbeats"] == 2, what="second heartbeat")
        assert reader.stats["duplicates"] == 1
        assert reader.stats["garbage"] == 1 and reader.stats["malformed"] == 1
        assert collector.links() == [True]
    finally:
        reader.stop()
        server.close()
