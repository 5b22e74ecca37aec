"""A named, explicit list of plug-ins: games, analyses, CLI commands.

Every entry is written down where its registry is made, so reading that one list tells what
exists; nothing is found by scanning packages or walking subclasses. An entry may be the object
itself or a ``"module:attribute"`` reference, imported on first use, so a table running one game
never imports (or is stopped by a broken copy of) another game's module.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator
from typing import Generic, TypeVar

T = TypeVar("T")


class Registry(Generic[T]):
    """``name -> T``. ``add`` refuses a name twice; ``get`` names the known entries when it fails."""

    def __init__(self, what: str) -> None:
        self.what = what
        self._entries: dict[str, T | str] = {}

    def add(self, name: str, entry: T | str) -> None:
        if name in self._entries:
            raise ValueError(f"{self.what} {name!r} registered twice")
        self._entries[name] = entry

    def discard(self, name: str) -> None:
        self._entries.pop(name, None)

    def names(self) -> list[str]:
        return sorted(self._entries)

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[str]:
        return iter(self.names())

    def get(self, name: str) -> T:
        try:
            entry = self._entries[name]
        except KeyError:
            raise KeyError(f"unknown {self.what} {name!r} (known: {', '.join(self.names())})") from None
        if isinstance(entry, str):
            module, _, attribute = entry.partition(":")
            loaded = importlib.import_module(module)
            entry = getattr(loaded, attribute) if attribute else loaded
            self._entries[name] = entry
        return entry  # type: ignore[return-value]

    def loaded(self) -> dict[str, T]:
        """Every entry, imported."""
        return {name: self.get(name) for name in self.names()}
