"""pyserial handler for ``emu://``: a serial port wired by a socket pair to an in-process emulator.

pyserial finds it because ``firmware_bridge.ports`` appends this package to
``serial.protocol_handler_packages``; line settings are accepted and ignored, as on ``socket://``.
"""

from __future__ import annotations

import contextlib
import socket

from serial.serialutil import SerialException
from serial.urlhandler import protocol_socket


class Serial(protocol_socket.Serial):
    def open(self) -> None:
        from firmware_bridge.emulators.registry import emulator_for_url

        self.logger = None
        if self._port is None:
            raise SerialException("Port must be configured before it can be used.")
        if self.is_open:  # type: ignore[has-type]  # pyserial sets it untyped in SerialBase
            raise SerialException("Port is already open.")
        try:
            emulator = emulator_for_url(self.portstr)
        except (ValueError, OSError) as exc:
            raise SerialException(f"could not open {self.portstr}: {exc}") from None
        if not emulator.plugged:
            raise SerialException(f"could not open {self.portstr}: the emulated cable is unplugged")
        ours, theirs = socket.socketpair()
        emulator.attach(theirs)
        ours.setblocking(False)
        self._socket = ours
        self._reconfigure_port()
        self.is_open = True
        self.reset_input_buffer()

    def close(self) -> None:
        """Close without the TCP handler's reconnect pause: there is no server to be kind to."""
        if self.is_open:
            if self._socket is not None:
                with contextlib.suppress(OSError):
                    self._socket.close()
                self._socket = None  # type: ignore[assignment]  # pyserial's own "closed" marker
            self.is_open = False
