"""Table files for a station: every mistake is found before anything starts, naming file, key, problem."""

from __future__ import annotations

from pathlib import Path

import pytest

from dealerassist.errors import ConfigError
from dealerassist.station.tables import load_tables
from tests.station.helpers import table_data, write_table


def _error(paths: list[Path]) -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        load_tables(paths)
    return caught.value


def test_a_directory_gives_its_tables_sorted_with_devices_and_progressive(tmp_path: Path) -> None:
    write_table(tmp_path / "b.toml", table_data("pairs-and-up", "socket://127.0.0.1:7001", "/dev/ttyUSB1"))
    write_table(tmp_path / "a.toml", table_data("three-card-poker", "/dev/dealerassist/shoe-tcp-1"))
    tables = load_tables([tmp_path])
    assert [t.table_id for t in tables] == ["tcp-1", "pu-1"]
    assert tables[0].serial["shoe"].url == "/dev/dealerassist/shoe-tcp-1"
    assert tables[0].progressive is None
    assert tables[1].serial["sign"].url == "/dev/ttyUSB1"
    assert tables[1].progressive is not None and tables[1].progressive.wager == 100


def test_a_bad_line_setting_names_the_device_key(tmp_path: Path) -> None:
    data = table_data("three-card-poker", "socket://127.0.0.1:7001")
    data["devices"]["shoe"]["baudrate"] = "fast"
    path = write_table(tmp_path / "t.toml", data)
    error = _error([path])
    assert (error.file, error.key) == (str(path), "devices.shoe.baudrate")
    assert "bits per second" in error.problem


def test_an_unknown_device_setting_is_refused(tmp_path: Path) -> None:
    data = table_data("three-card-poker", "socket://127.0.0.1:7001")
    data["devices"]["shoe"]["speed"] = 9600
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "devices.shoe.speed" and "unknown device setting" in error.problem


def test_a_sign_without_a_progressive_is_refused(tmp_path: Path) -> None:
    data = table_data("three-card-poker", "socket://127.0.0.1:7001")
    data["devices"]["sign"] = {"url": "socket://127.0.0.1:7002"}
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "devices.sign" and "[progressive]" in error.problem


def test_a_bad_progressive_is_named(tmp_path: Path) -> None:
    data = table_data("pairs-and-up", "socket://127.0.0.1:7001", "socket://127.0.0.1:7002")
    data["progressive"]["increment"] = "150"
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "progressive.increment"


def test_a_camera_needs_an_enrolled_deck_and_zones(tmp_path: Path) -> None:
    data = table_data("three-card-poker", None)
    data["devices"]["camera"] = {"url": "0"}
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "vision.deck"
    data["vision"] = {"deck": "decks/missing.npz"}
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "vision.deck" and str(tmp_path / "decks" / "missing.npz") in error.problem
    data["devices"]["camera"] = {"url": "ftp://camera"}
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "devices.camera.url" and "unknown scheme" in error.problem


def test_two_files_with_one_table_id_are_refused(tmp_path: Path) -> None:
    first = write_table(tmp_path / "one.toml", table_data("three-card-poker", None))
    second = write_table(tmp_path / "two.toml", table_data("three-card-poker", None))
    error = _error([first, second])
    assert (error.file, error.key) == (str(second), "table.id")
    assert str(first) in error.problem


def test_missing_paths_and_empty_directories_are_named(tmp_path: Path) -> None:
    error = _error([tmp_path / "nope.toml"])
    assert error.file == str(tmp_path / "nope.toml") and "no such" in error.problem
    empty = tmp_path / "empty"
    empty.mkdir()
    assert "no table files" in _error([empty]).problem
    assert _error([]).key == "--table"


def test_a_signs_address_and_type_code_are_checked_and_kept(tmp_path: Path) -> None:
    data = table_data("pairs-and-up", None, "socket://127.0.0.1:7002")
    data["devices"]["sign"].update(address="0A", type_code="a", baudrate=19200)
    [table] = load_tables([write_table(tmp_path / "t.toml", data)])
    assert table.sign_header == {"address": "0A", "type_code": "a"}
    assert table.serial["sign"].baudrate == 19200
    data["devices"]["sign"]["address"] = "1"
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "devices.sign.address" and "two hex digits" in error.problem
    data["devices"]["sign"].update(address="01", type_code="0")
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "devices.sign.type_code" and "'0'" in error.problem
    data = table_data("three-card-poker", "socket://127.0.0.1:7001")
    data["devices"]["shoe"]["address"] = "01"  # only a sign has an Alpha address
    assert _error([write_table(tmp_path / "t.toml", data)]).key == "devices.shoe.address"


def test_trusted_proxies_are_read_and_a_bad_one_is_named(tmp_path: Path) -> None:
    data = table_data("three-card-poker", "socket://127.0.0.1:7001")
    data["dashboard"] = {"trusted_proxies": ["127.0.0.1", "10.1.0.0/24"]}
    [table] = load_tables([write_table(tmp_path / "t.toml", data)])
    assert table.trusted_proxies == ("127.0.0.1", "10.1.0.0/24")
    data["dashboard"] = {"trusted_proxies": ["nginx.local"]}
    error = _error([write_table(tmp_path / "t.toml", data)])
    assert error.key == "dashboard.trusted_proxies" and "'nginx.local' is not an IP address" in error.problem
