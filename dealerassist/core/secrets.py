"""Secrets stay out of table files: a table file is copied into the tamper-evident log.

The log records the rules a table ran with (``table-config`` keeps the parsed file) and a linked
progressive's parameters (``progressive-params``, the shared meter's ledger), and what is in the
chain can never be removed without breaking it. So a URL carrying a password is refused where it is
read; PostgreSQL gets its credentials from libpq's own places instead (``PGPASSWORD``, a password
file, a service file), which ``docs/operations.md`` describes.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import parse_qs, urlsplit

PASSWORD_PARAMETERS = frozenset({"password", "pass", "pwd", "passwd", "secret", "token"})


def url_holds_password(text: str) -> bool:
    """True for ``scheme://user:password@host`` and for a ``password=`` (or alike) query parameter."""
    if "://" not in text:
        return False
    try:
        parts = urlsplit(text)
        password = parts.password
    except ValueError:
        return False
    query = {key.lower() for key in parse_qs(parts.query, keep_blank_values=True)}
    return bool(password) or bool(query & PASSWORD_PARAMETERS)


def password_keys(data: Any, prefix: str = "") -> Iterator[str]:
    """The dotted key of every text value in ``data`` (nested tables, lists) that holds a password."""
    if isinstance(data, Mapping):
        for key, value in data.items():
            yield from password_keys(value, f"{prefix}{key}.")
    elif isinstance(data, list | tuple):
        for index, value in enumerate(data):
            yield from password_keys(value, f"{prefix.rstrip('.')}[{index}].")
    elif isinstance(data, str) and url_holds_password(data):
        yield prefix.rstrip(".")


def password_problem(key: str) -> str:
    """What to say about the password found at ``key``, and where it belongs instead."""
    where = (
        "give PostgreSQL its password through PGPASSWORD, a password file (~/.pgpass or PGPASSFILE) "
        "or a service file (postgresql:///?service=NAME), never in the URL"
        if key.endswith("link") or key.startswith("floor.")
        else "a device that needs a password must get it from outside the table file"
    )
    return f"holds a password, and table files are copied into the tamper-evident log: {where}"
