"""Table files pointed at emulators on loopback, and polling, for the station and run tests."""

from __future__ import annotations

import time
import tomllib
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from dealerassist.core.configfiles import bundled_dir
from firmware_bridge.emulators.shoe import ShoeEmulator

PROGRESSIVE = {"wager": "1", "base": "1000", "increment": "15", "reserve": "5"}


def table_data(slug: str, shoe_url: str | None, sign_url: str | None = None) -> dict[str, Any]:
    """The example table of ``slug`` with its devices (and a progressive when a sign is given)."""
    data = tomllib.loads((bundled_dir() / "tables" / f"{slug}.toml").read_text(encoding="utf-8"))
    data["devices"] = {}
    if shoe_url:
        data["devices"]["shoe"] = {"url": shoe_url, "baudrate": 115200}
    if sign_url:
        data["devices"]["sign"] = {"url": sign_url}
        data["progressive"] = dict(PROGRESSIVE)
    return data


def toml_text(data: dict[str, Any]) -> str:
    """Just enough TOML for table files: sections of strings, numbers, booleans, lists and inline tables."""
    lines: list[str] = []

    def value(v: Any) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, int | float):
            return repr(v)
        if isinstance(v, str):
            return '"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"'
        if isinstance(v, list):
            return "[" + ", ".join(value(x) for x in v) + "]"
        if isinstance(v, dict):
            return "{ " + ", ".join(f'"{k}" = {value(x)}' for k, x in v.items()) + " }"
        raise TypeError(f"cannot write {v!r} as TOML")

    def section(name: str, body: dict[str, Any]) -> None:
        lines.append(f"[{name}]")
        nested = {k: v for k, v in body.items() if isinstance(v, dict) and name == "devices"}
        for key, v in body.items():
            if key not in nested:
                lines.append(f'"{key}" = {value(v)}')
        for key, v in nested.items():
            section(f"{name}.{key}", v)

    for name, body in data.items():
        section(name, body)
    return "\n".join(lines) + "\n"


def write_table(path: Path, data: dict[str, Any]) -> Path:
    path.write_text(toml_text(data), encoding="utf-8")
    return path


def wait_for(condition: Callable[[], object], timeout: float = 10.0, what: str = "condition") -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        result = condition()
        if result:
            return result
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


@contextmanager
def shoe_on_tcp(state: Path, seed: int, deck: str = "pairs-and-up-52") -> Iterator[ShoeEmulator]:
    """A shoe emulator served on a loopback port, its state kept in ``state``."""
    emulator = ShoeEmulator(deck=deck, seed=seed, heartbeat=0.2, state=state)
    emulator.serve_tcp("127.0.0.1", 0)
    emulator.start()
    try:
        yield emulator
    finally:
        emulator.stop()
