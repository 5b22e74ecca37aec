"""MACs on the log's records and head: written in the append transaction, checked by ``audit verify``.

Two tables beside ``events`` in the same file: ``event_macs`` (one MAC per record of a keyed table)
and ``log_seals`` (per keyed table, the log head it last saw, MACed). Whoever rewrites records
without the key cannot make new MACs, so re-hashing from a record on, renumbering after a
deletion or appending a forged record fails the check even when the head is rewritten too; and
the sealed head names a record the file must still hold, so cutting the tail back fails as well.
A copy of an older whole file (seals included) passes this check: that is what the floor copy is
for (``dealerassist.floor``).
"""

from __future__ import annotations

import hmac
import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from dealerassist.storage.keys import KeyFile, Keyring, head_mac, record_mac

SCHEMA = (
    "CREATE TABLE IF NOT EXISTS event_macs (seq INTEGER PRIMARY KEY, key_id TEXT NOT NULL, "
    "mac TEXT NOT NULL)",
    "CREATE TABLE IF NOT EXISTS log_seals (table_id TEXT PRIMARY KEY, seq INTEGER NOT NULL, "
    "hash TEXT NOT NULL, key_id TEXT NOT NULL, mac TEXT NOT NULL)",
)


class Sealer:
    """Adds MACs to what one append transaction writes, for the tables the keyring holds keys of."""

    def __init__(self, keyring: Keyring) -> None:
        self.keyring = keyring
        self._ready = False

    def seal(self, db: sqlite3.Connection, rows: Sequence[tuple]) -> None:
        """``rows`` are the ``events`` rows just inserted (seq first, table third, hash last)."""
        self.keyring.refresh()
        tables = self.keyring.tables()
        if not tables:
            return
        if not self._ready:
            for statement in SCHEMA:
                db.execute(statement)
            self._ready = True
        macs = []
        for row in rows:
            keys = self.keyring.get(row[2])
            if keys is not None:
                key = keys.current
                macs.append((row[0], key.id, record_mac(key.secret, key.id, row[-1])))
        db.executemany("INSERT INTO event_macs (seq, key_id, mac) VALUES (?, ?, ?)", macs)
        head_seq, head_hash = rows[-1][0], rows[-1][-1]
        seals = []
        for table in tables:
            key = self.keyring.get(table).current  # type: ignore[union-attr]
            seals.append(
                (table, head_seq, head_hash, key.id, head_mac(key.secret, key.id, table, head_seq, head_hash))
            )
        db.executemany(
            "INSERT INTO log_seals (table_id, seq, hash, key_id, mac) VALUES (?, ?, ?, ?, ?) "
            "ON CONFLICT(table_id) DO UPDATE SET seq = excluded.seq, hash = excluded.hash, "
            "key_id = excluded.key_id, mac = excluded.mac",
            seals,
        )


@dataclass
class MacReport:
    """``status``: ok (every keyed record checked), failed, unchecked (MACs but no key), none."""

    status: str
    checked: int = 0
    first_bad: int | None = None
    problem: str = ""
    keyed_tables: list[str] = field(default_factory=list)
    unkeyed_tables: list[str] = field(default_factory=list)
    key_ids: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def line(self, keys_dir: Path) -> str:
        if self.status == "failed":
            return f"MAC FAILED: first bad record {self.first_bad}: {self.problem}"
        if self.status == "none":
            return (
                "MAC: none in this log (written before keys were installed): only the hash chain was checked"
            )
        text = ""
        if self.keyed_tables:
            text = (
                f"MAC ok: {self.checked} records of {', '.join(self.keyed_tables)} "
                f"under key(s) {', '.join(self.key_ids) or '-'}, head sealed"
            )
        if self.unkeyed_tables:
            missing = (
                f"MAC NOT CHECKED for {', '.join(self.unkeyed_tables)}: no key in {keys_dir} "
                "(only the hash chain was checked)"
            )
            text = f"{text}; {missing}" if text else missing
        return text


SEALED_ROWS = (
    "SELECT e.seq, e.recorded_at, e.table_id, e.kind, e.round_id, e.body, e.prev_hash, e.hash, "
    "m.key_id, m.mac FROM events e LEFT JOIN event_macs m ON m.seq = e.seq "
    "WHERE e.seq > ? ORDER BY e.seq LIMIT ?"
)


def open_sealed(path: str | Path) -> sqlite3.Connection:
    """A read-only connection on which ``event_macs`` and ``log_seals`` exist (empty if the file
    has none), so ``SEALED_ROWS`` reads any log: records with their key id and MAC, or NULLs."""
    from dealerassist.storage.eventlog import connect_readonly  # the log imports this module

    db = connect_readonly(Path(path))  # also on read-only media, as the log's own readers
    db.execute("PRAGMA busy_timeout = 5000")
    tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    for name, statement in zip(("event_macs", "log_seals"), SCHEMA, strict=True):
        if name not in tables:  # an unkeyed log, or a table an attacker dropped
            db.execute(statement.replace("CREATE TABLE IF NOT EXISTS", "CREATE TEMP TABLE"))
    return db


def verify_macs(path: str | Path, keyring: Keyring, head_seq: int) -> MacReport:
    """Check MACs of records ``1..head_seq`` and the head seals, against the keys of ``keyring``."""
    db = open_sealed(path)
    try:
        seals = {
            row[0]: row[1:] for row in db.execute("SELECT table_id, seq, hash, key_id, mac FROM log_seals")
        }
        in_log = {
            row[0] for row in db.execute("SELECT DISTINCT table_id FROM events WHERE seq <= ?", (head_seq,))
        }
        keyed = {t: keyring.get(t) for t in sorted(in_log | set(seals)) if keyring.get(t) is not None}
        report = MacReport("ok", keyed_tables=sorted(keyed))
        has_macs = db.execute("SELECT count(*) FROM event_macs").fetchone()[0] > 0
        if not keyed and not has_macs:
            return MacReport("none")
        anchors = {k.anchor_seq: (t, k.anchor_hash) for t, k in keyed.items() if k.anchor_seq}  # type: ignore[union-attr]
        used: set[str] = set()
        unkeyed: set[str] = set()
        rows = db.execute(
            "SELECT e.seq, e.table_id, e.hash, m.key_id, m.mac FROM events e "
            "LEFT JOIN event_macs m ON m.seq = e.seq WHERE e.seq <= ? ORDER BY e.seq",
            (head_seq,),
        )
        for seq, table, digest, kid, mac in rows:
            anchor = anchors.get(seq)
            if anchor is not None and digest != anchor[1]:
                return _failed(seq, f"record {seq} is not the one {anchor[0]}'s key was installed after")
            keys = keyed.get(table)
            if keys is None:
                if mac is not None:
                    unkeyed.add(table)
                continue
            problem = record_problem(keys, seq, digest, kid, mac)
            if problem:
                return _failed(seq, problem)
            if kid is not None:
                used.add(kid)
                report.checked += 1
        for table, keys in keyed.items():
            problem = _seal_problem(db, table, keys, seals.get(table), head_seq)  # type: ignore[arg-type]
            if problem:
                return _failed(head_seq, problem)
        report.key_ids = sorted(used)
        report.unkeyed_tables = sorted(unkeyed)
        if not keyed:
            report.status = "unchecked"
        return report
    finally:
        db.close()


def _failed(seq: int, problem: str) -> MacReport:
    return MacReport("failed", first_bad=seq, problem=problem)


def record_problem(keys: KeyFile, seq: int, digest: str, kid: str | None, mac: str | None) -> str:
    """Why record ``seq`` fails the MAC check of its table's keys, or "" (up to the anchor: no MAC due)."""
    if seq <= keys.anchor_seq:
        return ""
    if mac is None or kid is None:
        return f"record {seq} of keyed table {keys.table} has no MAC (written or rewritten without the key)"
    key = keys.by_id(kid)
    if key is None:
        return f"record {seq} names key {kid}, which is not one of {keys.table}'s keys"
    if not hmac.compare_digest(record_mac(key.secret, kid, digest), mac):
        return f"record {seq}: MAC does not match (record rewritten without the key)"
    return ""


def _seal_problem(
    db: sqlite3.Connection, table: str, keys: KeyFile, seal: tuple | None, head_seq: int
) -> str:
    if head_seq <= keys.anchor_seq:
        if head_seq < keys.anchor_seq:
            return f"the log ends at {head_seq}, before record {keys.anchor_seq} {table}'s key was made after"
        return ""
    if seal is None:
        return f"the log head is not sealed for {table} (seal removed, or written without the key)"
    seq, digest, kid, mac = seal
    key = keys.by_id(kid)
    if key is None or not hmac.compare_digest(head_mac(key.secret, kid, table, seq, digest), mac):
        return f"the sealed head for {table} does not match its MAC (rewritten without the key)"
    if seq < head_seq:
        return f"records after {seq} were added without the key (sealed head {seq}, log head {head_seq})"
    row = db.execute("SELECT hash FROM events WHERE seq = ?", (seq,)).fetchone()
    if row is None or row[0] != digest:
        return f"the sealed head is record {seq}, which the log no longer holds as sealed (tail cut back)"
    return ""
