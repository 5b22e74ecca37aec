"""Where configuration files come from: the site's folders first, then the bundled defaults.

A file is named by its kind and name (``tables``/``three-card-poker.toml``) and looked up in
this order, the first folder that holds it winning:

1. ``--config DIR`` on the command line (``use_config_dir``),
2. ``$DEALERASSIST_CONFIG``,
3. ``/etc/dealerassist``,
4. the defaults bundled in the package (``dealerassist/data``, read with ``importlib.resources``).

So a site overrides one pay table or adds one table file without copying the rest, and an
installed wheel works with no configuration at all. ``dealerassist config show`` prints where
each file came from.
"""

from __future__ import annotations

import importlib.resources
import os
from dataclasses import dataclass
from pathlib import Path

from dealerassist.errors import ConfigError

ENVIRONMENT = "DEALERASSIST_CONFIG"
SYSTEM_DIR = Path("/etc/dealerassist")
KINDS = ("decks", "paytables", "tables", "house-ways")

_command_line_dir: Path | None = None


def bundled_dir() -> Path:
    """The package's own data folder. Wheels install as plain files, so it is a real path."""
    return Path(str(importlib.resources.files("dealerassist") / "data"))


def use_config_dir(path: str | Path | None) -> None:
    """The folder named by ``--config`` (None: none); it must exist."""
    global _command_line_dir
    if path is not None and not Path(path).is_dir():
        raise ConfigError(str(path), "-", "no such configuration folder (--config)")
    _command_line_dir = Path(path) if path is not None else None


@dataclass(frozen=True)
class ConfigFolder:
    origin: str  # "--config", "$DEALERASSIST_CONFIG", "/etc/dealerassist" or "bundled"
    path: Path


def search_path() -> list[ConfigFolder]:
    """The folders looked in, first first; site folders that do not exist are left out."""
    folders = []
    if _command_line_dir is not None:
        folders.append(ConfigFolder("--config", _command_line_dir))
    from_environment = os.environ.get(ENVIRONMENT, "")
    if from_environment:
        folders.append(ConfigFolder(f"${ENVIRONMENT}", Path(from_environment)))
    folders.append(ConfigFolder(str(SYSTEM_DIR), SYSTEM_DIR))
    site = [f for f in folders if f.path.is_dir()]
    return [*site, ConfigFolder("bundled", bundled_dir())]


def find(kind: str, filename: str) -> Path | None:
    """The first ``<folder>/<kind>/<filename>`` that exists, or None."""
    for folder in search_path():
        candidate = folder.path / kind / filename
        if candidate.is_file():
            return candidate
    return None


def available(kind: str, suffix: str = ".toml") -> dict[str, tuple[Path, str]]:
    """Every file of ``kind`` by stem: its path and the origin of the folder it came from."""
    found: dict[str, tuple[Path, str]] = {}
    for folder in search_path():
        for path in sorted((folder.path / kind).glob(f"*{suffix}")):
            found.setdefault(path.stem, (path, folder.origin))
    return dict(sorted(found.items()))


def named_file(kind: str, name: str, what: str) -> Path:
    """``<name>.toml`` of ``kind``, or a ConfigError that lists the known names and folders."""
    path = find(kind, f"{name}.toml")
    if path is None:
        known = ", ".join(available(kind)) or "none"
        where = ", ".join(str(f.path / kind) for f in search_path())
        raise ConfigError(f"{kind}/{name}.toml", "-", f"no such {what} (known: {known}; looked in {where})")
    return path
