"""The event log: durable settings, the hash chain, and every tampering ``audit verify`` must catch."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from dealerassist.core.cards import Card
from dealerassist.events import CardRead, EventError, Meta
from dealerassist.storage.chain import GENESIS_HASH, canonical_json, record_hash
from dealerassist.storage.eventlog import EventLog, LogError
from dealerassist.tracker.events import Wager


def _fill(path: Path, count: int = 10) -> None:
    with EventLog(path) as log:
        for i in range(count):
            log.append(Wager(table="t1", seat=1 + i % 3, bet="ante", amount=500 + i, user="ana"))


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    for statement in statements:
        db.execute(statement)
    db.commit()
    db.close()


def _verify(path: Path):
    with EventLog(path, readonly=True) as log:
        return log.verify()


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "dealerassist", *args], capture_output=True, text=True, timeout=60
    )


def test_records_chain_and_round_trip(tmp_path: Path) -> None:
    path = tmp_path / "events.db"
    with EventLog(path) as log:
        first = log.append(CardRead(table="t1", source="camera", card=Card.parse("As"), confidence=0.93))
        rest = log.append_many(
            [Meta(table="t2", data={"note": "café"}), Wager(table="t1", seat=2, bet="ante", amount=5)]
        )
        assert [first.seq, *(r.seq for r in rest)] == [1, 2, 3]
        assert first.prev_hash == GENESIS_HASH
        assert rest[0].prev_hash == first.hash and rest[1].prev_hash == rest[0].hash
        assert first.recorded_at.endswith("Z")
        assert log.last_seq() == 3
        events = [r.event for r in log.records()]
        assert events == [first.event, *(r.event for r in rest)]
        assert [r.seq for r in log.records(table="t1")] == [1, 3]
        assert [r.seq for r in log.records(after=1)] == [2, 3]
        assert log.verify().ok and log.verify().checked == 3


def test_hash_is_sha256_of_canonical_record_json() -> None:
    event = {"kind": "wager", "table": "t1", "amount": 500, "note": "ñ"}
    body = canonical_json(event)
    expected = hashlib.sha256(
        canonical_json(
            {"seq": 7, "recorded_at": "2026-01-01T00:00:00Z", "prev_hash": "ab", "event": event}
        ).encode()
    ).hexdigest()
    assert record_hash(7, "2026-01-01T00:00:00Z", "ab", body) == expected
    assert body == '{"amount":500,"kind":"wager","note":"ñ","table":"t1"}'


def test_wal_and_full_sync_are_in_force(tmp_path: Path) -> None:
    with EventLog(tmp_path / "e.db") as log:
        assert log._db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert log._db.execute("PRAGMA synchronous").fetchone()[0] == 2


def test_unstorable_event_is_refused_and_nothing_written(tmp_path: Path) -> None:
    with EventLog(tmp_path / "e.db") as log:
        log.append(Meta(table="t1", data={"ok": 1}))
        with pytest.raises(EventError, match="cannot be stored as JSON"):
            log.append_many(
                [Meta(table="t1", data={"fine": 1}), Meta(table="t1", data={"bad": float("nan")})]
            )
        assert log.last_seq() == 1 and log.verify().ok


def test_two_writers_on_one_file_keep_one_chain(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    a, b = EventLog(path), EventLog(path)
    for i in range(5):
        a.append(Meta(table="a", data={"i": i}))
        b.append(Meta(table="b", data={"i": i}))
    a.close()
    b.close()
    report = _verify(path)
    assert report.ok and report.checked == 10


TAMPERING = {
    "edit a field": (
        ["UPDATE events SET body = replace(body, '\"amount\":503', '\"amount\":99503') WHERE seq = 4"],
        4,
    ),
    "delete a row": (["DELETE FROM events WHERE seq = 6"], 6),
    "swap two rows": (
        [
            "UPDATE events SET seq = -3 WHERE seq = 3",
            "UPDATE events SET seq = 3 WHERE seq = 7",
            "UPDATE events SET seq = 7 WHERE seq = -3",
        ],
        3,
    ),
    "truncate the tail": (["DELETE FROM events WHERE seq > 8"], 9),
    "edit the kind column only": (["UPDATE events SET kind = 'meta' WHERE seq = 5"], 5),
}


@pytest.mark.parametrize("name", sorted(TAMPERING))
def test_verify_names_the_first_bad_record(tmp_path: Path, name: str) -> None:
    path = tmp_path / "e.db"
    _fill(path)
    assert _verify(path).ok
    statements, first_bad = TAMPERING[name]
    _sql(path, *statements)
    report = _verify(path)
    assert not report.ok
    assert report.first_bad == first_bad, report.problem


def _rehash(path: Path, seq: int, new_body: str) -> None:
    db = sqlite3.connect(path)
    recorded_at, prev = db.execute(
        "SELECT recorded_at, prev_hash FROM events WHERE seq = ?", (seq,)
    ).fetchone()
    digest = record_hash(seq, recorded_at, prev, new_body)
    db.execute("UPDATE events SET body = ?, hash = ? WHERE seq = ?", (new_body, digest, seq))
    db.commit()
    db.close()


def test_recomputing_one_hash_is_caught_at_that_record(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _fill(path)
    with EventLog(path, readonly=True) as log:
        body = json.loads(next(r for r in log.rows() if r[0] == 5)[5])
    body["amount"] = 1_000_000
    _rehash(path, 5, canonical_json(body))
    report = _verify(path)
    assert (report.ok, report.first_bad) == (False, 5)
    assert "changed" in report.problem


def test_recomputing_the_last_hash_is_caught_by_the_head(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _fill(path)
    _rehash(path, 10, canonical_json({"kind": "meta", "table": "t1", "data": {}}))
    _sql(path, "UPDATE events SET kind = 'meta' WHERE seq = 10")
    report = _verify(path)
    assert (report.ok, report.first_bad) == (False, 10)


def test_writer_refuses_a_truncated_log_and_changes_nothing(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _fill(path)
    _sql(path, "DELETE FROM events WHERE seq = 10")
    before = path.read_bytes()
    with pytest.raises(LogError, match="ends at record 9 but its head says 10"):
        EventLog(path)
    assert path.read_bytes() == before


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (lambda data: b"garbage!" * 64, "not an SQLite database"),
        (lambda data: data[:100], "truncated"),
        (lambda data: data[:4096] + b"\x00\xff" * 2048 + data[8192:], "damaged|not a readable event log"),
    ],
    ids=["foreign bytes", "cut short", "scrambled page"],
)
def test_corrupted_file_is_detected_at_start_and_left_alone(tmp_path: Path, damage, message: str) -> None:
    path = tmp_path / "e.db"
    _fill(path, 200)
    damaged = damage(path.read_bytes())
    path.write_bytes(damaged)
    with pytest.raises(LogError, match=message):
        EventLog(path)
    assert path.read_bytes() == damaged


def test_foreign_sqlite_file_is_not_taken_over(tmp_path: Path) -> None:
    path = tmp_path / "other.db"
    _sql(path, "CREATE TABLE customers (id INTEGER)")
    with pytest.raises(LogError, match="not a dealerassist event log"):
        EventLog(path)


def test_audit_verify_command_exit_codes(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _fill(path)
    good = _cli("audit", "verify", "--db", str(path))
    assert good.returncode == 0 and "ok: 10 records" in good.stdout
    _sql(path, "DELETE FROM events WHERE seq = 2")
    bad = _cli("audit", "verify", "--db", str(path))
    assert bad.returncode == 1
    assert "first bad record 2" in bad.stdout
    missing = _cli("audit", "verify", "--db", str(tmp_path / "nope.db"))
    assert missing.returncode == 1 and "no such event log" in missing.stderr


def test_an_exported_segment_can_be_checked_on_its_own(tmp_path: Path) -> None:
    path = tmp_path / "e.db"
    _fill(path, 8)
    export = tmp_path / "segment.jsonl"
    lines = _cli("export", "--db", str(path)).stdout.splitlines()[2:]
    export.write_text("\n".join(lines) + "\n", encoding="utf-8")
    good = _cli("audit", "verify-export", str(export))
    assert good.returncode == 0 and "ok: 6 exported records" in good.stdout

    edited = [line.replace('"amount": 505', '"amount": 9505') for line in lines]
    export.write_text("\n".join(edited) + "\n", encoding="utf-8")
    bad = _cli("audit", "verify-export", str(export))
    assert bad.returncode == 1 and "record 6 does not match its hash" in bad.stdout

    export.write_text("\n".join(lines[:2] + lines[3:]) + "\n", encoding="utf-8")
    gap = _cli("audit", "verify-export", str(export))
    assert gap.returncode == 1 and "record 6 does not follow record 4" in gap.stdout
