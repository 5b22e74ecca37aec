"""Reading one TOML configuration file, with every way it can fail turned into a ``ConfigError``."""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from dealerassist.errors import ConfigError


def read_toml(path: Path) -> dict[str, Any]:
    """The parsed file; a file that is unreadable, not UTF-8 text or not TOML names itself and why."""
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as exc:
        problem = f"not UTF-8 text (byte {exc.start}): save it as UTF-8 TOML"
    except tomllib.TOMLDecodeError as exc:
        problem = f"not valid TOML: {exc}"
    except OSError as exc:
        problem = f"cannot be read: {exc.strerror or exc}"
    raise ConfigError(str(path), "-", problem)


def reject_unknown_keys(body: Mapping[str, Any], source: str, where: str, known: tuple[str, ...]) -> None:
    """A misspelt key would otherwise be ignored and its default used without anyone noticing."""
    stray = [key for key in body if key not in known]
    if stray:
        key = f"{where}.{stray[0]}" if where else str(stray[0])
        raise ConfigError(source, key, f"unknown key (known: {', '.join(known)})")
