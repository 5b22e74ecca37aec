"""The optional ``[floor]`` section of a table file: where this station ships its log.

``url`` is a libpq connection string or URL without a password (the password comes from
``PGPASSWORD``, ``~/.pgpass`` or a service file, so it is never in a table file, a record or a
log line); ``stream`` names this station's log on the floor (default: the table id, when the
station runs one table); ``search_url``, optional, is what the dashboard's floor search reads with
(a ``floor_reader`` role: the station's own role may only insert). Every table file of one station
must say the same: they share one log.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dealerassist.errors import ConfigError

KEYS = ("url", "stream", "search_url")


@dataclass(frozen=True)
class FloorConfig:
    url: str
    stream: str
    search_url: str | None = None

    @property
    def display(self) -> str:
        """Where the floor is, for logs and the status page: host, port, database, user; no secret."""
        return describe_url(self.url)


def _conninfo(url: str) -> dict[str, Any]:
    """The URL's parts (``ValueError`` if it has none); psycopg loads here, so only a station
    with a floor needs the driver."""
    try:
        import psycopg
    except ImportError:
        raise ConfigError(
            "<install>", "floor", "the floor store needs psycopg: pip install 'dealerassist[postgres]'"
        ) from None
    try:
        return psycopg.conninfo.conninfo_to_dict(url)
    except psycopg.ProgrammingError:
        raise ValueError("unparsable") from None


def describe_url(url: str) -> str:
    try:
        parts = _conninfo(url)
    except ValueError:
        return "<unparsable floor url>"
    if "service" in parts:
        return f"service={parts['service']}"
    host = parts.get("host", "localhost")
    port = f":{parts['port']}" if "port" in parts else ""
    user = f"{parts['user']}@" if "user" in parts else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname', '')}"


def check_url(url: str, source: str, key: str) -> str:
    """Refuse an unparsable URL or one that carries a password (the URL itself is never repeated:
    it may hold one)."""
    try:
        parts = _conninfo(url)
    except ValueError:
        raise ConfigError(
            source, key, "not a PostgreSQL connection string (postgresql://user@host/db or key=value pairs)"
        ) from None
    if "password" in parts:
        raise ConfigError(
            source,
            key,
            "a password in the url would be written wherever the table file is: "
            "use PGPASSWORD, ~/.pgpass or a pg_service.conf entry instead",
        )
    return url


def station_floor(tables: Sequence[Any]) -> FloorConfig | None:
    """The floor of a station's tables (``StationTable``s), from their ``[floor]`` sections."""
    return floor_config([(str(t.config.path), t.table_id, t.config.raw.get("floor") or {}) for t in tables])


def floor_config(tables: Sequence[tuple[str, str, Mapping[str, Any]]]) -> FloorConfig | None:
    """From each table's (file, id, [floor] section): the station's floor, or None if none is set."""
    found: dict[tuple[str, str, str | None], str] = {}
    for source, table_id, section in tables:
        if not section:
            continue
        if not isinstance(section, Mapping):
            raise ConfigError(source, "floor", "must be a section ([floor] with url = ...)")
        unknown = sorted(set(section) - set(KEYS))
        if unknown:
            raise ConfigError(source, f"floor.{unknown[0]}", f"unknown key (known: {', '.join(KEYS)})")
        url = section.get("url")
        if not isinstance(url, str) or not url:
            raise ConfigError(source, "floor.url", "the floor section needs a url")
        stream = section.get("stream", table_id if len(tables) == 1 else None)
        if not isinstance(stream, str) or not stream:
            raise ConfigError(
                source, "floor.stream", "a station of several tables ships one log: name it with stream"
            )
        search_url = section.get("search_url")
        if search_url is not None and (not isinstance(search_url, str) or not search_url):
            raise ConfigError(source, "floor.search_url", "must be a PostgreSQL URL (a floor_reader role)")
        if search_url is not None:
            check_url(search_url, source, "floor.search_url")
        found[(check_url(url, source, "floor.url"), stream, search_url)] = source
    if not found:
        return None
    if len(found) > 1 or any(not section for _, _, section in tables):
        raise ConfigError(
            tables[0][0], "floor", "every table file of one station must have the same [floor] section"
        )
    (url, stream, search_url), _ = next(iter(found.items()))
    return FloorConfig(url, stream, search_url)
