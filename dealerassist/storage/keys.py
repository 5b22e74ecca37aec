"""Per-table secret keys for the keyed chain, kept outside the log the operator must not trust.

A table's key file (``<keys dir>/<table>.key``, TOML, mode 0600, owned by the service user) holds
every key the table ever used, the last one current, and the *anchor*: the log record (sequence
and hash) the table's keying starts after. Records of the table past the anchor must carry a MAC;
records up to it are the table's unkeyed history, pinned by the anchor's hash.

A record's MAC is HMAC-SHA-256 under the key of ``"<key id>:<record hash>"``; the hash already
covers the sequence, time, previous hash and event, so the MAC covers them too. A key's id is
derived from its secret, so it can be shown and stored in the log without revealing anything.
"""

from __future__ import annotations

import hashlib
import hmac
import os
import secrets
import stat
import tomllib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from dealerassist.errors import DealerAssistError
from dealerassist.storage.chain import GENESIS_HASH

DEFAULT_KEYS_DIR = "/etc/dealerassist/keys"
KEY_SUFFIX = ".key"


class KeyFileError(DealerAssistError):
    """A key file is missing, unsafe (readable by others) or not a key file."""


def keys_dir(option: str | None = None) -> Path:
    """``--keys`` if given, else ``$DEALERASSIST_KEYS``, else ``/etc/dealerassist/keys``."""
    return Path(option or os.environ.get("DEALERASSIST_KEYS") or DEFAULT_KEYS_DIR)


def key_id(secret: bytes) -> str:
    return "k-" + hashlib.sha256(b"dealerassist key id\x00" + secret).hexdigest()[:16]


def record_mac(secret: bytes, kid: str, digest: str) -> str:
    """The MAC of a record (its hash) under a key."""
    return hmac.new(secret, f"{kid}:{digest}".encode(), hashlib.sha256).hexdigest()


def head_mac(secret: bytes, kid: str, table: str, seq: int, digest: str) -> str:
    """The MAC of the log's head as a keyed table last saw it (catches a cut-back tail)."""
    return hmac.new(secret, f"{kid}:head:{table}:{seq}:{digest}".encode(), hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class TableKey:
    id: str
    secret: bytes = field(repr=False)
    created: str


@dataclass(frozen=True)
class KeyFile:
    """One table's keys (oldest first, the last current) and the anchor keying starts after."""

    table: str
    anchor_seq: int
    anchor_hash: str
    keys: tuple[TableKey, ...]

    @property
    def current(self) -> TableKey:
        return self.keys[-1]

    def by_id(self, kid: str) -> TableKey | None:
        return next((k for k in self.keys if k.id == kid), None)


def key_path(directory: Path, table: str) -> Path:
    return directory / f"{table}{KEY_SUFFIX}"


def load_key_file(path: Path) -> KeyFile:
    """Read a key file, refusing one that others could read or that another user owns."""
    try:
        info = path.stat()
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot read the key file ({exc.strerror})") from None
    if stat.S_IMODE(info.st_mode) & 0o077:
        raise KeyFileError(
            f"{path}: key file is readable by others (mode {stat.S_IMODE(info.st_mode):o}); "
            f"run 'chmod 600 {path}'"
        )
    if info.st_uid != os.geteuid():
        raise KeyFileError(f"{path}: key file belongs to another user; it must be the service user's")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        keys = tuple(
            TableKey(str(k["id"]), bytes.fromhex(str(k["secret"])), str(k["created"])) for k in data["keys"]
        )
        found = KeyFile(str(data["table"]), int(data["anchor_seq"]), str(data["anchor_hash"]), keys)
    except (OSError, UnicodeError, tomllib.TOMLDecodeError, KeyError, TypeError, ValueError) as exc:
        raise KeyFileError(f"{path}: not a dealerassist key file ({exc})") from None
    if not keys:
        raise KeyFileError(f"{path}: the key file holds no key")
    for k in keys:
        if key_id(k.secret) != k.id:
            raise KeyFileError(f"{path}: key {k.id} does not match its secret (file damaged)")
    return found


def write_key_file(path: Path, keys: KeyFile) -> None:
    """Write atomically, created 0600 from the start (never briefly readable by others)."""
    lines = [
        "# dealerassist table key: keep this file mode 0600, owned by the service user, and a copy",
        "# in the key safe. Losing it loses the MAC check of this table's records, not the records.",
        f'table = "{keys.table}"',
        f"anchor_seq = {keys.anchor_seq}",
        f'anchor_hash = "{keys.anchor_hash}"',
    ]
    for k in keys.keys:
        lines += [
            "",
            "[[keys]]",
            f'id = "{k.id}"',
            f'secret = "{k.secret.hex()}"',
            f'created = "{k.created}"',
        ]
    tmp = path.with_name(path.name + ".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write("\n".join(lines) + "\n")
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as exc:
        raise KeyFileError(f"{path}: cannot write the key file ({exc.strerror or exc})") from None


def new_key() -> TableKey:
    secret = secrets.token_bytes(32)
    return TableKey(key_id(secret), secret, datetime.now(UTC).isoformat(timespec="seconds"))


def create_key_file(path: Path, table: str, anchor: tuple[int, str] = (0, GENESIS_HASH)) -> KeyFile:
    """A new table key; refuses to overwrite one (that would orphan every record it signed)."""
    if path.exists():
        raise KeyFileError(f"{path}: a key for {table} already exists; use 'dealerassist keys rotate'")
    keys = KeyFile(table, anchor[0], anchor[1], (new_key(),))
    write_key_file(path, keys)
    return keys


def rotate_key_file(path: Path) -> tuple[KeyFile, TableKey]:
    """Add a new current key; the old ones stay to check the records they signed."""
    old = load_key_file(path)
    keys = KeyFile(old.table, old.anchor_seq, old.anchor_hash, (*old.keys, new_key()))
    write_key_file(path, keys)
    return keys, old.current


class Keyring:
    """The key files of a directory, by table; re-read when a file changes (a rotation)."""

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._files: dict[str, KeyFile] = {}
        self._stamp: tuple[tuple[str, float], ...] | None = None
        self.refresh()

    def refresh(self) -> None:
        paths = sorted(self.directory.glob(f"*{KEY_SUFFIX}")) if self.directory.is_dir() else []
        stamp = tuple((p.name, p.stat().st_mtime) for p in paths)
        if stamp == self._stamp:
            return
        files = {}
        for path in paths:
            keys = load_key_file(path)
            if keys.table != path.name.removesuffix(KEY_SUFFIX):
                raise KeyFileError(f"{path}: holds the key of table {keys.table!r}, not of its file name")
            files[keys.table] = keys
        self._files, self._stamp = files, stamp

    def get(self, table: str) -> KeyFile | None:
        return self._files.get(table)

    def tables(self) -> list[str]:
        return sorted(self._files)
