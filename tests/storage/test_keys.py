"""Per-table keys and the MACs they make: install, rotate, refuse unsafe files, keep old logs readable."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.storage.eventlog import EventLog
from dealerassist.storage.keys import KeyFileError, Keyring, key_path, load_key_file
from dealerassist.tracker.events import Wager


def _play(db: Path, keys: Path | None, count: int, table: str = "t1") -> None:
    with EventLog(db, keys=keys or db.parent / "no-keys") as log:
        for i in range(count):
            log.append(Wager(table=table, round_id=1, seat=1 + i % 3, bet="ante", amount=500 + i, user="ana"))


def _keyed(tmp_path: Path, count: int) -> tuple[Path, Path]:
    """A key for t1 from the first record on, and ``count`` records under it."""
    keys, db = tmp_path / "keys", tmp_path / "events.sqlite3"
    assert main(["keys", "create", "--table", "t1", "--keys", str(keys)]) == 0
    _play(db, keys, count)
    return keys, db


def _verify(capsys: pytest.CaptureFixture[str], db: Path, keys: Path) -> tuple[int, str]:
    capsys.readouterr()
    code = main(["audit", "verify", "--db", str(db), "--keys", str(keys)])
    return code, capsys.readouterr().out


def test_a_key_file_is_made_private_and_an_unsafe_one_is_refused(tmp_path: Path) -> None:
    keys = tmp_path / "keys"
    assert main(["keys", "create", "--table", "t1", "--keys", str(keys)]) == 0
    path = key_path(keys, "t1")
    assert path.stat().st_mode & 0o777 == 0o600
    assert main(["keys", "create", "--table", "t1", "--keys", str(keys)]) == 1  # never overwritten
    path.chmod(0o644)
    with pytest.raises(KeyFileError, match=r"readable by others.*chmod 600"):
        Keyring(keys)
    path.chmod(0o600)
    path.rename(key_path(keys, "t2"))
    with pytest.raises(KeyFileError, match="not of its file name"):
        Keyring(keys)


def test_show_id_prints_ids_never_secrets(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    keys = tmp_path / "keys"
    main(["keys", "create", "--table", "t1", "--keys", str(keys)])
    capsys.readouterr()
    assert main(["keys", "show-id", "--table", "t1", "--keys", str(keys)]) == 0
    out = capsys.readouterr().out
    key = load_key_file(key_path(keys, "t1")).current
    assert key.id in out and "current" in out and key.secret.hex() not in out


def test_rotation_is_a_record_and_both_keys_verify(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys, db = _keyed(tmp_path, 5)
    first = load_key_file(key_path(keys, "t1")).current.id
    assert main(["keys", "rotate", "--table", "t1", "--keys", str(keys), "--db", str(db)]) == 0
    second = load_key_file(key_path(keys, "t1")).current.id
    _play(db, keys, 5)
    with EventLog(db, readonly=True) as log:
        rotation = log.latest("t1", "key-rotated")
    assert rotation is not None and rotation.seq == 6
    assert rotation.event.to_dict()["previous"] == first and rotation.event.to_dict()["key_id"] == second
    code, out = _verify(capsys, db, keys)
    assert code == 0 and "MAC ok: 11 records of t1" in out and first in out and second in out


def test_a_log_older_than_its_key_keeps_verifying_and_is_pinned_by_the_anchor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys, db = tmp_path / "keys", tmp_path / "events.sqlite3"
    _play(db, None, 4)
    code, out = _verify(capsys, db, keys)
    assert code == 0 and "MAC: none in this log" in out
    assert main(["keys", "create", "--table", "t1", "--keys", str(keys), "--db", str(db)]) == 0
    _play(db, keys, 3)
    code, out = _verify(capsys, db, keys)
    assert code == 0 and "MAC ok: 4 records of t1" in out  # the rotation record and the three after it
    with sqlite3.connect(db) as conn:  # rewrite the unkeyed history: the anchor's hash no longer matches
        conn.execute("UPDATE events SET hash = 'x' WHERE seq = 4")
    code, out = _verify(capsys, db, keys)
    assert code == 1 and "MAC FAILED: first bad record 4" in out


def test_stripping_the_macs_does_not_turn_a_keyed_log_into_an_old_one(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys, db = _keyed(tmp_path, 4)
    with sqlite3.connect(db) as conn:
        conn.execute("DROP TABLE event_macs")
        conn.execute("DROP TABLE log_seals")
    code, out = _verify(capsys, db, keys)
    assert code == 1 and "record 1 of keyed table t1 has no MAC" in out
