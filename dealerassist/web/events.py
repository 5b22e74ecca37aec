"""Events the dashboard itself writes to the log: who logged in, who did what from which screen.

Tracker inputs that carry a ``user`` field already name who sent them; for the rest (a dealer
closing betting, pressing reveal) and for account activity, the dashboard logs a ``user-action``
first so every change made through the dashboard is attributable in the hash-chained log.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, ClassVar

from dealerassist.events import PIT_WIDE, Event

__all__ = ["PIT_WIDE", "UserAction"]


@dataclass(frozen=True, kw_only=True)
class UserAction(Event):
    """``user`` did ``action`` (login, login-failed, logout, user-added, table action ...)."""

    kind: ClassVar[str] = "user-action"
    user: str
    action: str
    role: str = ""
    client: str = ""
    detail: dict[str, Any] = field(default_factory=dict)
