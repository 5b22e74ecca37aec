"""Events the storage layer itself writes into a table's log."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from dealerassist.events import Event


@dataclass(frozen=True, kw_only=True)
class KeyRotated(Event):
    """From this record on the table's records are MACed under ``key_id`` (``previous`` is the key
    it replaces, empty for the table's first key). Only ids are logged, never a secret."""

    kind: ClassVar[str] = "key-rotated"
    key_id: str
    previous: str = ""
