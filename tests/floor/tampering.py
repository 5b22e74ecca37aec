"""Sixteen ways to alter a table's log file, as an attacker with write access to it would.

Each works on the SQLite file directly, with only what docs/events.md publishes (the record
format and hash) and no key. The first twelve leave the head alone (or change it without
rewriting the chain); the last four rewrite the chain *and* the head so that the plain hash chain
verifies again: only the MACs or the floor copy can catch those.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from pathlib import Path

from dealerassist.storage.chain import canonical_json, record_hash

Tamper = Callable[[Path], "int | None"]  # returns the first record it altered (None: head only)


def _db(path: Path) -> sqlite3.Connection:
    return sqlite3.connect(path, isolation_level=None)


def _rows(db: sqlite3.Connection) -> list[list]:
    return [list(r) for r in db.execute("SELECT * FROM events ORDER BY seq")]


def _first(db: sqlite3.Connection, kind: str) -> list:
    row = db.execute("SELECT * FROM events WHERE kind = ? ORDER BY seq LIMIT 1", (kind,)).fetchone()
    assert row is not None, f"the log has no {kind} record to tamper with"
    return list(row)


def _middle(db: sqlite3.Connection) -> int:
    return int(db.execute("SELECT max(seq) FROM events").fetchone()[0]) // 2


def _raise_payout(body: str) -> str:
    """$500 more to the first winning result (or the first result)."""
    event = json.loads(body)
    results = event["results"]
    target = next((r for r in results if int(r.get("win", 0) or 0) > 0), results[0])
    for field in ("win", "paid", "payout", "amount"):
        if field in target:
            target[field] = int(target[field]) + 50_000
            break
    else:
        target["stake"] = int(target["stake"]) + 50_000
    return canonical_json(event)


def _set_body(db: sqlite3.Connection, seq: int, body: str) -> None:
    db.execute("UPDATE events SET body = ? WHERE seq = ?", (body, seq))


def _set_head(db: sqlite3.Connection, seq: int, digest: str) -> None:
    db.execute("UPDATE log_meta SET value = ? WHERE key = 'head_seq'", (str(seq),))
    db.execute("UPDATE log_meta SET value = ? WHERE key = 'head_hash'", (digest,))


def _rehash_from(db: sqlite3.Connection, start: int) -> None:
    """Recompute every hash from ``start`` on and move the head: the chain verifies again."""
    rows = _rows(db)
    prev = rows[start - 2][7] if start > 1 else "0" * 64
    for row in rows[start - 1 :]:
        seq, recorded_at, body = row[0], row[1], row[5]
        digest = record_hash(seq, recorded_at, prev, body)
        db.execute("UPDATE events SET prev_hash = ?, hash = ? WHERE seq = ?", (prev, digest, seq))
        prev = digest
    _set_head(db, rows[-1][0], prev)


# --- the twelve that leave the head alone ------------------------------------------------------


def change_payout(path: Path) -> int:
    db = _db(path)
    row = _first(db, "round-settled")
    _set_body(db, row[0], _raise_payout(row[5]))
    return row[0]


def change_wager(path: Path) -> int:
    db = _db(path)
    row = _first(db, "wager")
    event = json.loads(row[5])
    event["amount"] += 10_000
    _set_body(db, row[0], canonical_json(event))
    return row[0]


def change_card(path: Path) -> int:
    db = _db(path)
    row = _first(db, "card-dealt")
    event = json.loads(row[5])
    event["card"] = "AS" if event["card"] != "AS" else "KS"
    _set_body(db, row[0], canonical_json(event))
    return row[0]


def _at_middle(path: Path, statement: str) -> int:
    """Run ``statement`` (its one parameter: a sequence number) on the middle record."""
    db = _db(path)
    seq = _middle(db)
    db.execute(statement, (seq,))
    return seq


def delete_middle(path: Path) -> int:
    return _at_middle(path, "DELETE FROM events WHERE seq = ?")


def delete_last(path: Path) -> int:
    db = _db(path)
    seq = int(db.execute("SELECT max(seq) FROM events").fetchone()[0])
    db.execute("DELETE FROM events WHERE seq = ?", (seq,))
    return seq


def swap_two(path: Path) -> int:
    db = _db(path)
    seq = _middle(db)
    a = db.execute("SELECT body, kind, round_id FROM events WHERE seq = ?", (seq,)).fetchone()
    b = db.execute("SELECT body, kind, round_id FROM events WHERE seq = ?", (seq + 1,)).fetchone()
    db.execute("UPDATE events SET body = ?, kind = ?, round_id = ? WHERE seq = ?", (*b, seq))
    db.execute("UPDATE events SET body = ?, kind = ?, round_id = ? WHERE seq = ?", (*a, seq + 1))
    return seq


def change_time(path: Path) -> int:
    return _at_middle(path, "UPDATE events SET recorded_at = '2020-01-01T00:00:00.000000Z' WHERE seq = ?")


def change_column(path: Path) -> int:
    db = _db(path)
    seq = _first(db, "round-settled")[0]
    db.execute("UPDATE events SET kind = 'phase' WHERE seq = ?", (seq,))
    return seq


def change_link(path: Path) -> int:
    return _at_middle(path, f"UPDATE events SET prev_hash = '{'f' * 64}' WHERE seq = ?")


def change_hash(path: Path) -> int:
    """Edit a record and give it its new hash; the next record still links to the old one."""
    db = _db(path)
    row = _first(db, "round-settled")
    body = _raise_payout(row[5])
    db.execute(
        "UPDATE events SET body = ?, hash = ? WHERE seq = ?",
        (body, record_hash(row[0], row[1], row[6], body), row[0]),
    )
    return row[0]


def append_no_head(path: Path) -> int:
    return _append_forged(_db(path), move_head=False)


def change_head(path: Path) -> None:
    _db(path).execute("UPDATE log_meta SET value = ? WHERE key = 'head_hash'", ("e" * 64,))


# --- the four that rewrite the head too --------------------------------------------------------


def truncate_tail(path: Path) -> int:
    """Drop the last tenth of the records and move the head back to the new last one."""
    db = _db(path)
    rows = _rows(db)
    keep = rows[: len(rows) - max(2, len(rows) // 10)]
    db.execute("DELETE FROM events WHERE seq > ?", (keep[-1][0],))
    _set_head(db, keep[-1][0], keep[-1][7])
    return keep[-1][0] + 1


def append_forged(path: Path) -> int:
    return _append_forged(_db(path), move_head=True)


def _append_forged(db: sqlite3.Connection, *, move_head: bool) -> int:
    """A copy of the first settlement, paying more, as a new last record with a correct hash."""
    last = _rows(db)[-1]
    settled = _first(db, "round-settled")
    body = _raise_payout(settled[5])
    seq, recorded_at = last[0] + 1, last[1]
    digest = record_hash(seq, recorded_at, last[7], body)
    db.execute(
        "INSERT INTO events (seq, recorded_at, table_id, kind, round_id, body, prev_hash, hash) "
        "VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
        (seq, recorded_at, settled[2], settled[3], settled[4], body, last[7], digest),
    )
    if move_head:
        _set_head(db, seq, digest)
    return seq


def rehash_from(path: Path) -> int:
    """The issue's attack: raise a payout, recompute every later hash, rewrite the head."""
    db = _db(path)
    row = _first(db, "round-settled")
    _set_body(db, row[0], _raise_payout(row[5]))
    _rehash_from(db, row[0])
    return row[0]


def delete_renumber(path: Path) -> int:
    """Remove a middle record, shift the later ones down by one, re-hash them, rewrite the head."""
    db = _db(path)
    seq = _middle(db)
    db.execute("DELETE FROM events WHERE seq = ?", (seq,))
    if "event_macs" in {r[0] for r in db.execute("SELECT name FROM sqlite_master")}:
        db.execute("DELETE FROM event_macs WHERE seq = ?", (seq,))
        db.execute("UPDATE event_macs SET seq = -(seq - 1) WHERE seq > ?", (seq,))
        db.execute("UPDATE event_macs SET seq = -seq WHERE seq < 0")
    db.execute("UPDATE events SET seq = -(seq - 1) WHERE seq > ?", (seq,))
    db.execute("UPDATE events SET seq = -seq WHERE seq < 0")
    _rehash_from(db, seq)
    return seq


HEAD_KEPT: dict[str, Tamper] = {
    "change-payout": change_payout,
    "change-wager": change_wager,
    "change-card": change_card,
    "delete-middle": delete_middle,
    "delete-last": delete_last,
    "swap-two": swap_two,
    "change-time": change_time,
    "change-column": change_column,
    "change-link": change_link,
    "change-hash": change_hash,
    "append-no-head": append_no_head,
    "change-head": change_head,
}
HEAD_REWRITTEN: dict[str, Tamper] = {
    "truncate-tail": truncate_tail,
    "append-forged": append_forged,
    "rehash-from": rehash_from,
    "delete-renumber": delete_renumber,
}
ALL: dict[str, Tamper] = {**HEAD_KEPT, **HEAD_REWRITTEN}
