"""Which tables one process runs, checked completely before any device is opened.

``load_tables`` takes table files and directories of them (``*.toml``) and returns each
``TableConfig`` with its devices' line settings and its progressive already validated, so a typo
in the fifth table's sign baud rate stops the process at start, naming the file, the key and the
problem, rather than at three in the morning when the sign first speaks.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dealerassist.core.configfiles import named_file
from dealerassist.errors import ConfigError
from dealerassist.floor.config import station_floor
from dealerassist.progressive.params import ProgressiveParams, params_from_table
from dealerassist.tablefiles.tables import TableConfig, load_table

SERIAL_DEVICES = ("shoe", "sign")
SIGN_HEADER = {"address": "00", "type_code": "Z"}  # [devices.sign] keys beyond the line settings


@dataclass(frozen=True)
class StationTable:
    """One table as the station runs it: its config plus the validated device and progressive parts."""

    config: TableConfig
    serial: Mapping[str, Any] = field(default_factory=dict)  # device name -> DeviceConfig
    camera_url: str | None = None
    camera_deck: Path | None = None
    progressive: ProgressiveParams | None = None
    sign_header: Mapping[str, str] = field(default_factory=lambda: dict(SIGN_HEADER))
    trusted_proxies: tuple[str, ...] = ()

    @property
    def table_id(self) -> str:
        return self.config.table_id


def table_files(paths: Iterable[str | Path]) -> list[Path]:
    """Expand directories to their ``*.toml`` files (sorted) and table names (``tcp-main``) to their
    file in the configuration folders; a missing path is a config error."""
    found: list[Path] = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir():
            files = sorted(path.glob("*.toml"))
            if not files:
                raise ConfigError(str(path), "-", "directory holds no table files (*.toml)")
            found.extend(files)
        elif path.is_file():
            found.append(path)
        elif not path.suffix and len(path.parts) == 1:
            found.append(named_file("tables", str(path), "table file, directory or table name"))
        else:
            raise ConfigError(str(path), "-", "no such table file or directory")
    if not found:
        raise ConfigError("<command line>", "--table", "name at least one table file or directory")
    return found


def check_table(config: TableConfig) -> StationTable:
    """Validate the parts ``load_table`` hands on raw: device line settings, camera, progressive."""
    from firmware_bridge.ports import DeviceConfig

    source = str(config.path)
    serial: dict[str, Any] = {}
    sign_header = dict(SIGN_HEADER)
    for name in SERIAL_DEVICES:
        body = config.devices.get(name)
        if body is None:
            continue
        if name == "sign" and isinstance(body, Mapping):
            sign_header, body = _sign_header(body, source)
        try:
            serial[name] = DeviceConfig.from_mapping(body, source)
        except ConfigError as exc:
            raise ConfigError(source, f"devices.{name}.{exc.key}", exc.problem) from None
    camera = _camera(config, source)
    params = params_from_table(config)
    if params is None and config.devices.get("sign") is not None:
        raise ConfigError(source, "devices.sign", "a jackpot sign needs a [progressive] section to show")
    camera_url, camera_deck = camera if camera else (None, None)
    return StationTable(
        config, serial, camera_url, camera_deck, params, sign_header, _trusted_proxies(config, source)
    )


def _sign_header(body: Mapping[str, Any], source: str) -> tuple[dict[str, str], dict[str, Any]]:
    """Split the sign's Alpha address and type code off its line settings, checked."""
    from firmware_bridge.sign.alpha import address_problem, type_code_problem

    header = {key: body.get(key, default) for key, default in SIGN_HEADER.items()}
    for key, check in (("address", address_problem), ("type_code", type_code_problem)):
        problem = check(header[key])
        if problem:
            raise ConfigError(source, f"devices.sign.{key}", problem)
    return header, {k: v for k, v in body.items() if k not in SIGN_HEADER}


def _trusted_proxies(config: TableConfig, source: str) -> tuple[str, ...]:
    """``[dashboard] trusted_proxies = ["127.0.0.1"]``: the reverse proxies in front of the dashboard."""
    from dealerassist.core.tomlfile import reject_unknown_keys
    from dealerassist.web.proxies import parse_proxies

    body = config.raw.get("dashboard") or {}
    if not isinstance(body, Mapping):
        raise ConfigError(source, "dashboard", "must be a section")
    reject_unknown_keys(body, source, "dashboard", ("trusted_proxies",))
    values = body.get("trusted_proxies", [])
    if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
        raise ConfigError(
            source, "dashboard.trusted_proxies", 'must be a list of addresses, like ["127.0.0.1"]'
        )
    try:
        parse_proxies(values, "dashboard.trusted_proxies")
    except ValueError as exc:
        raise ConfigError(source, "dashboard.trusted_proxies", str(exc).split(": ", 1)[1]) from None
    return tuple(values)


def _camera(config: TableConfig, source: str) -> tuple[str, Path] | None:
    body = config.devices.get("camera")
    if body is None:
        return None
    from dealerassist.vision.camera import CameraError, parse_camera_url

    try:
        url = parse_camera_url(str(body["url"]))
    except CameraError as exc:
        raise ConfigError(source, "devices.camera.url", str(exc)) from None
    deck = config.vision.get("deck")
    if not isinstance(deck, str) or not deck:
        raise ConfigError(
            source, "vision.deck", "a camera needs the enrolled deck file ('vision enroll --out')"
        )
    deck_path = _resolve(config, deck)
    if not deck_path.is_file():
        raise ConfigError(source, "vision.deck", f"no enrolled deck file at {deck_path}")
    if not isinstance(config.vision.get("zones"), Mapping):
        raise ConfigError(source, "vision.zones", "a camera needs the layout's zones")
    return url, deck_path


def _resolve(config: TableConfig, path: str) -> Path:
    """A path in a table file is relative to that file."""
    candidate = Path(path)
    return candidate if candidate.is_absolute() else config.path.parent / candidate


def load_tables(paths: Iterable[str | Path]) -> list[StationTable]:
    """Every table of ``paths``, checked; two files with the same table id are refused."""
    tables: list[StationTable] = []
    seen: dict[str, Path] = {}
    for path in table_files(paths):
        table = check_table(load_table(path))
        if table.table_id in seen:
            raise ConfigError(
                str(path), "table.id", f"{table.table_id!r} is already the id of {seen[table.table_id]}"
            )
        seen[table.table_id] = path
        tables.append(table)
    station_floor(tables)  # one station, one log: every table must ship it to the same floor
    return tables
