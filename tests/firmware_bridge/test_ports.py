"""DeviceConfig validation and opening ports by URL (loop://, emu://, a missing device)."""

from __future__ import annotations

import pytest
import serial

from dealerassist.errors import ConfigError
from firmware_bridge.emulators import registry
from firmware_bridge.ports import URL_HANDLER_PACKAGE, DeviceConfig, PortError, open_port

from .conftest import wait_for


def test_full_config_and_defaults() -> None:
    config = DeviceConfig.from_mapping(
        {
            "url": " /dev/ttyUSB0 ",
            "baudrate": 19200,
            "bytesize": 7,
            "parity": "Even",
            "stopbits": 2,
            "dtr": False,
        },
        "tables/t.toml",
    )
    assert config == DeviceConfig("/dev/ttyUSB0", 19200, 7, "even", 2, False, None)
    assert DeviceConfig.from_mapping({"url": "loop://"}, "x") == DeviceConfig("loop://")
    # 7E2: start + 7 data + parity + 2 stop = 11 bits a character
    assert config.byte_time == pytest.approx(11 / 19200)


@pytest.mark.parametrize(
    ("data", "key", "words"),
    [
        ({}, "url", "pyserial URL"),
        ({"url": ""}, "url", "pyserial URL"),
        ({"url": "loop://", "baud": 9600}, "baud", "unknown device setting"),
        ({"url": "loop://", "baudrate": "9600"}, "baudrate", "bits per second"),
        ({"url": "loop://", "baudrate": True}, "baudrate", "bits per second"),
        ({"url": "loop://", "bytesize": 9}, "bytesize", "5 6 7 8"),
        ({"url": "loop://", "parity": "N"}, "parity", "none, even"),
        ({"url": "loop://", "stopbits": 3}, "stopbits", "1, 1.5 or 2"),
        ({"url": "loop://", "stopbits": [1]}, "stopbits", "1, 1.5 or 2"),
        ({"url": "loop://", "bytesize": [8]}, "bytesize", "5 6 7 8"),
        ({"url": "loop://", "rts": "yes"}, "rts", "true or false"),
    ],
)
def test_bad_settings_name_file_key_and_problem(data: dict[str, object], key: str, words: str) -> None:
    with pytest.raises(ConfigError) as info:
        DeviceConfig.from_mapping(data, "config/tables/tcp-1.toml [devices.shoe]")
    assert info.value.file == "config/tables/tcp-1.toml [devices.shoe]"
    assert info.value.key == key
    assert words in info.value.problem


def test_not_a_table() -> None:
    with pytest.raises(ConfigError, match="must be a table"):
        DeviceConfig.from_mapping("loop://", "t.toml")  # type: ignore[arg-type]


def test_open_loop_and_line_settings() -> None:
    port = open_port(DeviceConfig.from_mapping({"url": "loop://", "baudrate": 115200, "parity": "odd"}, "x"))
    try:
        assert (port.baudrate, port.parity) == (115200, serial.PARITY_ODD)
        port.write(b"\x7e\x01")
        assert port.read(2) == b"\x7e\x01"
    finally:
        port.close()


def test_scheme_is_registered_and_bad_urls_are_port_errors() -> None:
    assert URL_HANDLER_PACKAGE in serial.protocol_handler_packages
    with pytest.raises(PortError, match="cannot open /nonexistent/ttyUSB9"):
        open_port(DeviceConfig.for_url("/nonexistent/ttyUSB9"))
    with pytest.raises(PortError, match="unknown emulated device 'toaster'"):
        open_port(DeviceConfig.for_url("emu://toaster"))
    with pytest.raises(PortError, match="unknown option 'colour'"):
        open_port(DeviceConfig.for_url("emu://sign?colour=red"))
    with pytest.raises(PortError, match="seed must be a whole number"):
        open_port(DeviceConfig.for_url("emu://shoe?name=s1&seed=abc"))
    with pytest.raises(ConfigError, match="protocol 'nosuch' not known"):
        DeviceConfig.for_url("nosuch://x")


def test_emu_port_reaches_the_same_device_twice() -> None:
    first = open_port(DeviceConfig.for_url("emu://sign?name=twice"))
    first.close()
    second = open_port(DeviceConfig.for_url("emu://sign?name=twice"))
    try:
        # STX 2 + 'A' 65 + 'A' 65 + 'H' 72 + 'I' 73 + ETX 3 = 280 = 0x0118
        second.write(b"\x00\x00\x00\x00\x00\x01Z00\x02AAHI\x030118\x04")
        emu = registry.lookup("sign", "twice")
        assert emu is not None
        wait_for(lambda: emu.text() == "HI", what="text on the emulated sign")  # type: ignore[attr-defined]
    finally:
        second.close()


def test_a_url_no_retry_can_cure_is_refused_up_front() -> None:
    """An unknown scheme is a config error at load time; a device node that is missing now is not
    (it may be plugged in later, so the driver keeps retrying it)."""
    with pytest.raises(ConfigError) as refused:
        DeviceConfig.from_mapping({"url": "nope://x"}, "tables/t.toml [devices.shoe]")
    assert refused.value.key == "url" and "protocol 'nope' not known" in refused.value.problem
    assert DeviceConfig.from_mapping({"url": "/dev/not-plugged-in-yet"}, "t").url == "/dev/not-plugged-in-yet"
