"""Dashboard accounts: names, roles and scrypt password hashes in their own SQLite file.

Accounts are deliberately kept out of the hash-chained event log (a password hash has no place in
an audit trail that surveillance exports), but every change made here is logged as an event by the
caller. There is no default account: the first admin is created from the command line.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Final

from dealerassist.errors import DealerAssistError, StorageUnavailable
from dealerassist.storage.media import storage_problem

ROLES: Final = ("dealer", "supervisor", "surveillance", "admin")
MIN_PASSWORD_LENGTH: Final = 10

# scrypt work factors (RFC 7914): n=2**15, r=8 costs ~32 MiB and tens of milliseconds per check.
_SCRYPT_N: Final = 2**15
_SCRYPT_R: Final = 8
_SCRYPT_P: Final = 1
_SCRYPT_MAXMEM: Final = 64 * 1024 * 1024
_NAME = re.compile(r"^[a-z][a-z0-9._-]{1,31}$")

_SCHEMA = """
CREATE TABLE IF NOT EXISTS users (
    name TEXT PRIMARY KEY,
    role TEXT NOT NULL,
    password TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE TABLE IF NOT EXISTS settings (name TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS sessions (
    key TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    expires REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS sessions_by_name ON sessions (name);
"""
DEFAULT_SESSION_SECONDS: Final = 12 * 3600


def session_key(token: str) -> str:
    """What the accounts file keeps of a session token: its SHA-256, so the file holds no cookie."""
    return hashlib.sha256(token.encode("utf-8", "surrogatepass")).hexdigest()


class UserError(DealerAssistError, ValueError):
    """An account request that cannot be carried out; ``field`` names the offending input."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class User:
    name: str
    role: str
    active: bool = True


def hash_password(password: str, *, salt: bytes | None = None, n: int = _SCRYPT_N) -> str:
    """``scrypt$n$r$p$salt_hex$hash_hex`` with a fresh 16-byte salt per call.

    The cost ``n`` is stored with the hash, so it can be raised later without breaking old hashes.
    """
    salt = salt if salt is not None else secrets.token_bytes(16)
    digest = hashlib.scrypt(
        password.encode("utf-8"), salt=salt, n=n, r=_SCRYPT_R, p=_SCRYPT_P, maxmem=_SCRYPT_MAXMEM
    )
    return f"scrypt${n}${_SCRYPT_R}${_SCRYPT_P}${salt.hex()}${digest.hex()}"


def check_password(password: str, stored: str) -> bool:
    """Constant-time comparison against a stored ``hash_password`` string."""
    try:
        scheme, n, r, p, salt_hex, digest_hex = stored.split("$")
        if scheme != "scrypt":
            return False
        digest = hashlib.scrypt(
            password.encode("utf-8"),
            salt=bytes.fromhex(salt_hex),
            n=int(n),
            r=int(r),
            p=int(p),
            maxmem=_SCRYPT_MAXMEM,
        )
    except ValueError:
        return False
    return hmac.compare_digest(digest.hex(), digest_hex)


def validate_password(password: str, name: str) -> None:
    if not isinstance(password, str) or len(password) < MIN_PASSWORD_LENGTH:
        raise UserError("password", f"must be at least {MIN_PASSWORD_LENGTH} characters")
    if password.strip().lower() == name.lower():
        raise UserError("password", "must not be the account name")


def _open(path: str) -> sqlite3.Connection:
    """The accounts database, or a ``UserError`` naming the file and what is wrong with it."""
    db: sqlite3.Connection | None = None
    try:
        if path != ":memory:":
            Path(path).parent.mkdir(parents=True, exist_ok=True)
        db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        db.execute("PRAGMA journal_mode=WAL")
        db.executescript(_SCHEMA)
    except (OSError, sqlite3.Error) as exc:
        if db is not None:
            db.close()
        problem = None if path == ":memory:" else storage_problem(exc, Path(path))
        if problem:
            raise StorageUnavailable(
                f"{path}: cannot write the accounts file: {problem}; free space or choose a writable "
                "folder (the file was left untouched)"
            ) from None
        raise UserError(
            path,
            f"not a usable accounts file ({exc}): give a writable path for a new one, "
            "or move this file aside if it is not a dealerassist accounts file",
        ) from None
    return db


class UserStore:
    """Thread-safe access to the accounts file (one connection guarded by a lock).

    ``scrypt_n`` is the cost of new hashes; only tests lower it (to keep hundreds of logins fast).
    """

    def __init__(self, path: str | Path, *, scrypt_n: int = _SCRYPT_N) -> None:
        self.path = Path(path)
        self._n = scrypt_n
        self._lock = threading.Lock()
        self._db = _open(str(path))
        # A dummy hash so a login for an unknown name costs as much time as a real check.
        self._dummy_hash = hash_password(secrets.token_hex(8), n=scrypt_n)

    def add(self, name: str, role: str, password: str) -> User:
        name = name.strip().lower() if isinstance(name, str) else name
        if not isinstance(name, str) or not _NAME.match(name):
            raise UserError("name", "2-32 characters: a lower-case letter, then letters, digits, . _ -")
        if role not in ROLES:
            raise UserError("role", f"must be one of {', '.join(ROLES)}, got {role!r}")
        validate_password(password, name)
        with self._lock:
            if self._db.execute("SELECT 1 FROM users WHERE name = ?", (name,)).fetchone():
                raise UserError("name", f"an account named {name!r} already exists")
            self._db.execute(
                "INSERT INTO users (name, role, password) VALUES (?, ?, ?)",
                (name, role, hash_password(password, n=self._n)),
            )
        return User(name, role)

    def set_password(self, name: str, password: str) -> list[str]:
        """Set a new password and end every session of the account; returns the ended session keys."""
        validate_password(password, name)
        with self._lock:
            cur = self._db.execute(
                "UPDATE users SET password = ? WHERE name = ?", (hash_password(password, n=self._n), name)
            )
            ended = self._end_sessions(name) if cur.rowcount else []
        if cur.rowcount == 0:
            raise UserError("name", f"no account named {name!r}")
        return ended

    def set_active(self, name: str, active: bool) -> list[str]:
        """Enable or disable the account; disabling ends its sessions (their keys are returned), so
        enabling it again brings no old cookie back."""
        with self._lock:
            cur = self._db.execute("UPDATE users SET active = ? WHERE name = ?", (int(active), name))
            ended = self._end_sessions(name) if cur.rowcount and not active else []
        if cur.rowcount == 0:
            raise UserError("name", f"no account named {name!r}")
        return ended

    # --- sessions: the cookie only names one; whether it is still valid is decided here ----------

    def open_session(self, name: str, lifetime: float = DEFAULT_SESSION_SECONDS) -> str:
        """A new session token for ``name``, valid ``lifetime`` seconds or until ended."""
        token = secrets.token_urlsafe(32)
        now = time.time()
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE expires < ?", (now,))
            self._db.execute(
                "INSERT INTO sessions (key, name, expires) VALUES (?, ?, ?)",
                (session_key(token), name, now + lifetime),
            )
        return token

    def session_user(self, token: str) -> User | None:
        """The active account of a live session, or None (unknown, ended, expired or disabled)."""
        with self._lock:
            row = self._db.execute(
                "SELECT u.name, u.role FROM sessions s JOIN users u ON u.name = s.name "
                "WHERE s.key = ? AND s.expires >= ? AND u.active = 1",
                (session_key(token), time.time()),
            ).fetchone()
        return User(row[0], row[1], True) if row else None

    def session_alive(self, key: str) -> bool:
        with self._lock:
            row = self._db.execute(
                "SELECT 1 FROM sessions WHERE key = ? AND expires >= ?", (key, time.time())
            ).fetchone()
        return row is not None

    def end_session(self, token: str) -> str:
        """End one session (signing out); returns its key."""
        key = session_key(token)
        with self._lock:
            self._db.execute("DELETE FROM sessions WHERE key = ?", (key,))
        return key

    def end_sessions(self, name: str) -> list[str]:
        """End every session of ``name``; returns their keys."""
        with self._lock:
            return self._end_sessions(name)

    def _end_sessions(self, name: str) -> list[str]:
        keys = [r[0] for r in self._db.execute("SELECT key FROM sessions WHERE name = ?", (name,))]
        self._db.execute("DELETE FROM sessions WHERE name = ?", (name,))
        return keys

    def get(self, name: str) -> User | None:
        with self._lock:
            row = self._db.execute("SELECT name, role, active FROM users WHERE name = ?", (name,)).fetchone()
        return User(row[0], row[1], bool(row[2])) if row else None

    def authenticate(self, name: str, password: str) -> User | None:
        """The active account when the password matches, else ``None`` (same cost either way)."""
        key = name.strip().lower() if isinstance(name, str) else ""
        with self._lock:
            row = self._db.execute(
                "SELECT name, role, active, password FROM users WHERE name = ?", (key,)
            ).fetchone()
        stored = row[3] if row else self._dummy_hash
        ok = check_password(password, stored)
        if not row or not ok or not row[2]:
            return None
        return User(row[0], row[1], True)

    def all(self) -> list[User]:
        with self._lock:
            rows = self._db.execute("SELECT name, role, active FROM users ORDER BY name").fetchall()
        return [User(r[0], r[1], bool(r[2])) for r in rows]

    def count(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT count(*) FROM users").fetchone()[0])

    def secret_key(self) -> str:
        """The session-signing key, made once and kept so logins survive a restart."""
        with self._lock:
            row = self._db.execute("SELECT value FROM settings WHERE name = 'secret_key'").fetchone()
            if row:
                return str(row[0])
            key = secrets.token_hex(32)
            self._db.execute("INSERT INTO settings (name, value) VALUES ('secret_key', ?)", (key,))
            return key

    def close(self) -> None:
        with self._lock:
            self._db.close()
