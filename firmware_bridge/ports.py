"""Serial ports opened by URL, with the line settings a table's config gives them.

Every device is named by a pyserial URL so the same driver code runs against a USB adapter
(``/dev/ttyUSB0`` or a udev name), a terminal server (``socket://``, ``rfc2217://``), a loopback
(``loop://``) or one of our in-process emulators (``emu://shoe?...``, see ``docs/protocols``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any, Final

import serial

from dealerassist.errors import ConfigError, DealerAssistError

log = logging.getLogger(__name__)

URL_HANDLER_PACKAGE: Final = "firmware_bridge.urlhandler"
WRITE_TIMEOUT: Final = 2.0
NO_WRITE_TIMEOUT: Final = ("rfc2217://",)  # pyserial's RFC 2217 client refuses any write timeout

PARITIES: Final = {
    "none": serial.PARITY_NONE,
    "even": serial.PARITY_EVEN,
    "odd": serial.PARITY_ODD,
    "mark": serial.PARITY_MARK,
    "space": serial.PARITY_SPACE,
}
BYTESIZES: Final = (5, 6, 7, 8)
STOPBITS: Final = {1: serial.STOPBITS_ONE, 1.5: serial.STOPBITS_ONE_POINT_FIVE, 2: serial.STOPBITS_TWO}


class PortError(DealerAssistError):
    """A device URL that cannot be opened; the message names the URL and the reason."""


def register_url_handlers() -> None:
    """Teach pyserial our ``emu://`` scheme (idempotent; done on import of this module)."""
    if URL_HANDLER_PACKAGE not in serial.protocol_handler_packages:
        serial.protocol_handler_packages.append(URL_HANDLER_PACKAGE)


register_url_handlers()


def url_problem(url: str) -> str | None:
    """Why ``url`` can never be opened (an unknown scheme, a malformed address), else None.

    Only what no retry can cure is refused here: a device node that is missing now may be plugged
    in later, and a server that refuses now may come back, so those stay the driver's to retry."""
    try:
        serial.serial_for_url(url, do_not_open=True)
    except (ValueError, serial.SerialException) as exc:
        return f"{url!r} cannot be used: {exc}"
    return None


@dataclass(frozen=True)
class DeviceConfig:
    """One device's URL and line settings, as written in a table's ``[devices.<name>]`` section."""

    url: str
    baudrate: int = 9600
    bytesize: int = 8
    parity: str = "none"
    stopbits: float = 1
    dtr: bool | None = None
    rts: bool | None = None
    line_alarm_per_minute: int = 60  # line troubles per minute that raise a line-health alarm

    @classmethod
    def from_mapping(cls, data: Mapping[str, Any], source: str) -> DeviceConfig:
        """Validate a parsed TOML table; ``source`` names the file (and section) in every error."""
        if not isinstance(data, Mapping):
            raise ConfigError(source, "-", "a device must be a table with at least url = '...'")
        known = {"url", "baudrate", "bytesize", "parity", "stopbits", "dtr", "rts", "line_alarm_per_minute"}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ConfigError(
                source, unknown[0], f"unknown device setting (known: {', '.join(sorted(known))})"
            )
        url = data.get("url")
        if not isinstance(url, str) or not url.strip():
            raise ConfigError(
                source, "url", "must be a device path or pyserial URL such as socket://host:port"
            )
        problem = url_problem(url.strip())
        if problem:
            raise ConfigError(source, "url", problem)
        baudrate = data.get("baudrate", 9600)
        if not isinstance(baudrate, int) or isinstance(baudrate, bool) or not 50 <= baudrate <= 4_000_000:
            raise ConfigError(
                source, "baudrate", f"must be a whole number of bits per second, got {baudrate!r}"
            )
        bytesize = data.get("bytesize", 8)
        if bytesize not in BYTESIZES or isinstance(bytesize, bool):
            raise ConfigError(source, "bytesize", f"must be one of 5 6 7 8, got {bytesize!r}")
        parity = data.get("parity", "none")
        if not isinstance(parity, str) or parity.lower() not in PARITIES:
            raise ConfigError(source, "parity", f"must be one of {', '.join(PARITIES)}, got {parity!r}")
        stopbits = data.get("stopbits", 1)
        if isinstance(stopbits, bool) or not isinstance(stopbits, int | float) or stopbits not in STOPBITS:
            raise ConfigError(source, "stopbits", f"must be 1, 1.5 or 2, got {stopbits!r}")
        lines = {}
        for key in ("dtr", "rts"):
            value = data.get(key)
            if value is not None and not isinstance(value, bool):
                raise ConfigError(source, key, f"must be true or false (or left out), got {value!r}")
            lines[key] = value
        threshold = data.get("line_alarm_per_minute", 60)
        if not isinstance(threshold, int) or isinstance(threshold, bool) or threshold < 1:
            raise ConfigError(
                source, "line_alarm_per_minute", f"must be a whole number of 1 or more, got {threshold!r}"
            )
        return cls(
            url=url.strip(),
            baudrate=baudrate,
            bytesize=bytesize,
            parity=parity.lower(),
            stopbits=stopbits,
            dtr=lines["dtr"],
            rts=lines["rts"],
            line_alarm_per_minute=threshold,
        )

    @classmethod
    def for_url(cls, url: str, baudrate: int = 9600) -> DeviceConfig:
        """A config with default line settings (the command line's ``URL [--baud N]``)."""
        return cls.from_mapping({"url": url, "baudrate": baudrate}, "<command line>")

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def byte_time(self) -> float:
        """Seconds one character occupies on the wire: start bit, data, parity, stop bits."""
        bits = 1 + self.bytesize + (0 if self.parity == "none" else 1) + self.stopbits
        return bits / self.baudrate


def open_port(config: DeviceConfig, *, timeout: float = 0.05) -> serial.SerialBase:
    """Open ``config.url`` with its line settings; any failure becomes a ``PortError`` naming the URL."""
    try:
        port = serial.serial_for_url(
            config.url,
            baudrate=config.baudrate,
            bytesize=config.bytesize,
            parity=PARITIES[config.parity],
            stopbits=STOPBITS[config.stopbits],
            timeout=timeout,
            write_timeout=None if config.url.lower().startswith(NO_WRITE_TIMEOUT) else WRITE_TIMEOUT,
            do_not_open=True,
        )
        if config.dtr is not None:
            port.dtr = config.dtr
        if config.rts is not None:
            port.rts = config.rts
        port.open()
    except (serial.SerialException, ValueError, OSError) as exc:
        raise PortError(f"cannot open {config.url}: {exc}") from None
    return port


def close_port(port: serial.SerialBase) -> None:
    """Close a port the device loop is leaving; a port already failing may fail to close, which
    must not stop the loop from reopening it."""
    try:
        port.close()
    except (serial.SerialException, OSError):
        log.debug("closing %s failed", port.port)
