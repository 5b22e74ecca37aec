"""Who may do what, CSRF tokens and login throttling.

Permissions are named for the job, not the page: a dealer ``play``s the table, a supervisor also
``supervise``s (alarms, voids, corrections, jackpots, progressive parameters), surveillance
``audit``s read-only, and only an admin ``manage-users``. A dealer therefore can never clear an
integrity alarm, change a pay table or touch a meter: those actions need ``supervise``.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable, MutableMapping
from dataclasses import dataclass, field
from typing import Any, Final

PERMISSIONS: Final[dict[str, frozenset[str]]] = {
    "view-table": frozenset({"dealer", "supervisor", "admin"}),
    "play": frozenset({"dealer", "supervisor", "admin"}),
    "supervise": frozenset({"supervisor", "admin"}),
    "audit": frozenset({"surveillance", "admin"}),
    "status": frozenset({"dealer", "supervisor", "surveillance", "admin"}),
    "manage-users": frozenset({"admin"}),
}

# Where each role lands after logging in.
HOME: Final = {
    "dealer": "pages.dealer_index",
    "supervisor": "pages.supervisor",
    "surveillance": "audit.history",
    "admin": "pages.status",
}

CSRF_FIELD: Final = "csrf_token"
CSRF_HEADER: Final = "X-CSRF-Token"


def allowed(role: str | None, permission: str) -> bool:
    return role is not None and role in PERMISSIONS[permission]


def csrf_token(session: MutableMapping[str, Any]) -> str:
    """The session's CSRF token, made on first use (also before login, for the login form)."""
    token = session.get(CSRF_FIELD)
    if not isinstance(token, str):
        token = secrets.token_urlsafe(32)
        session[CSRF_FIELD] = token
    return token


def csrf_ok(session: MutableMapping[str, Any], presented: str | None) -> bool:
    expected = session.get(CSRF_FIELD)
    return (
        isinstance(expected, str) and isinstance(presented, str) and hmac.compare_digest(expected, presented)
    )


@dataclass
class _Failures:
    count: int = 0
    locked_until: float = 0.0
    last: float = 0.0


def login_keys(name: str, client: str) -> tuple[str, str, str]:
    """What a login attempt counts against: the name from this client, the client, and the name.

    Kept apart so one client cannot lock out others: its wrong passwords for a name lock only
    that name from that client; the client alone is locked after many more failures (guessing
    across names), and the name alone only after failures from many clients.
    """
    return f"account:{name}@{client}", f"client:{client}", f"name:{name}"


@dataclass
class LoginThrottle:
    """Locks a key (see ``login_keys``) after repeated failed logins.

    A key's ``limits[prefix]``-th failure (``free_attempts`` for other prefixes, such as the name
    from one client) locks it for ``base_delay`` seconds; each further failure doubles the lock, up
    to ``max_delay``. Failures are forgotten ``forget_after`` seconds after the last one, and a
    success clears the name's keys (never the client's: a valid account must not reset guessing).
    """

    free_attempts: int = 5
    base_delay: float = 30.0
    max_delay: float = 900.0
    forget_after: float = 3600.0
    clock: Callable[[], float] = time.monotonic
    limits: dict[str, int] = field(default_factory=lambda: {"client": 20, "name": 100})
    _records: dict[str, _Failures] = field(default_factory=dict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def wait_seconds(self, *keys: str) -> float:
        """Seconds until any of ``keys`` may try again (0 when none is locked)."""
        now = self.clock()
        with self._lock:
            waits = [r.locked_until - now for k in keys if (r := self._records.get(k)) is not None]
        return max([0.0, *waits])

    @property
    def remembered(self) -> int:
        """Keys with failures on record."""
        with self._lock:
            return len(self._records)

    def failed(self, *keys: str) -> None:
        now = self.clock()
        with self._lock:
            # Forgotten failures go now, or guessing through many names from many addresses would
            # grow this table for as long as the dashboard runs.
            for key in [k for k, r in self._records.items() if now - r.last > self.forget_after]:
                del self._records[key]
            for key in keys:
                rec = self._records.get(key)
                if rec is None or now - rec.last > self.forget_after:
                    rec = self._records[key] = _Failures()
                rec.count += 1
                rec.last = now
                free = self.limits.get(key.split(":", 1)[0], self.free_attempts)
                over = rec.count - free + 1
                if over > 0:
                    rec.locked_until = now + min(self.max_delay, self.base_delay * 2 ** (over - 1))

    def succeeded(self, *keys: str) -> None:
        with self._lock:
            for key in keys:
                self._records.pop(key, None)
