"""``rfc2217://`` (a terminal server that forwards line settings) in front of an emulated shoe.

The server side is pyserial's own RFC 2217 ``PortManager`` bridging one TCP client to the shoe
through our ``emu://`` port, so the whole path is real Telnet/RFC 2217 negotiation on loopback.
"""

from __future__ import annotations

import contextlib
import socket
import threading
from collections.abc import Iterator

import pytest
import serial
from serial import rfc2217

from firmware_bridge.emulators import registry
from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.ports import DeviceConfig, open_port
from firmware_bridge.shoe import ShoeReader

from .conftest import Collector, wait_for

# pyserial's RFC 2217 client still names its reader thread the pre-3.10 way
pytestmark = pytest.mark.filterwarnings(r"ignore:set(Daemon|Name)\(\) is deprecated:DeprecationWarning")


class _Connection:
    """What PortManager writes Telnet replies through: a thread-safe socket writer."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.lock = threading.Lock()

    def write(self, data: bytes) -> None:
        with self.lock:
            self.sock.sendall(data)


@pytest.fixture
def terminal_server() -> Iterator[int]:
    device = open_port(DeviceConfig.for_url("emu://shoe?name=behind-rfc2217&seed=3"), timeout=0)
    listener = socket.create_server(("127.0.0.1", 0))
    stop = threading.Event()

    def serve() -> None:
        client, _ = listener.accept()
        client.settimeout(0.005)
        manager = rfc2217.PortManager(device, _Connection(client))
        while not stop.is_set():
            with contextlib.suppress(TimeoutError):
                data = client.recv(4096)
                if not data:
                    break
                device.write(b"".join(manager.filter(data)))
            from_shoe = device.read(4096)  # timeout 0: whatever the shoe has sent so far
            if from_shoe:
                client.sendall(b"".join(manager.escape(from_shoe)))
        client.close()

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join(2)
    listener.close()
    device.close()


def test_shoe_through_an_rfc2217_terminal_server(terminal_server: int, collector: Collector) -> None:
    url = f"rfc2217://127.0.0.1:{terminal_server}"
    reader = ShoeReader(DeviceConfig.for_url(url, 19200), "TCP-1", collector, backoff_start=0.05)
    reader.start()
    try:
        wait_for(lambda: reader.link_up, what="link up through the terminal server")
        emu = registry.lookup("shoe", "behind-rfc2217")
        assert isinstance(emu, ShoeEmulator)
        emu.deal("AD")
        emu.inject("bad-crc")
        emu.deal("KS")
        wait_for(lambda: emu.acked == [1, 2], what="both cards acknowledged through RFC 2217")
        assert [e.card.code for e in collector.of("card-read")] == ["AD", "KS"]  # type: ignore[attr-defined]
        assert reader.stats["bad-crc"] == 1
    finally:
        reader.stop()


def test_rfc2217_port_takes_the_configured_line_settings(terminal_server: int) -> None:
    port = open_port(DeviceConfig.for_url(f"rfc2217://127.0.0.1:{terminal_server}", 19200))
    try:
        assert isinstance(port, rfc2217.Serial) and port.baudrate == 19200
        assert port.parity == serial.PARITY_NONE
    finally:
        port.close()
