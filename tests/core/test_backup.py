"""Online backup copies a database that is being written to, and refuses what it cannot copy."""

import sqlite3
import threading
import time
from pathlib import Path

import pytest

from dealerassist.cli import main
from dealerassist.commands.backup import BackupError, backup_database


def test_backup_while_another_connection_keeps_writing(tmp_path: Path) -> None:
    db = tmp_path / "tcp-1.sqlite3"
    writer = sqlite3.connect(db, check_same_thread=False)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("CREATE TABLE events (seq INTEGER PRIMARY KEY, body TEXT)")
    writer.executemany("INSERT INTO events (body) VALUES (?)", [("x" * 200,)] * 100)
    writer.commit()
    stop = threading.Event()

    def keep_writing() -> None:
        while not stop.is_set():
            writer.execute("INSERT INTO events (body) VALUES (?)", ("x" * 200,))
            writer.commit()
            time.sleep(0.001)

    thread = threading.Thread(target=keep_writing)
    thread.start()
    try:
        copy = backup_database(db, tmp_path / "backups", stamp="t1")
    finally:
        stop.set()
        thread.join()
    rows = sqlite3.connect(copy).execute("SELECT count(*), max(seq) FROM events").fetchone()
    assert rows[0] == rows[1] and rows[0] >= 100
    # one self-contained file in rollback-journal mode (bytes 18-19 say 1, WAL would say 2)
    assert copy.read_bytes()[18:20] == b"\x01\x01"
    assert sorted(p.name for p in copy.parent.iterdir()) == [copy.name]
    writer.close()


def test_backup_of_a_file_that_is_not_a_database_fails_clearly(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite3"
    junk.write_bytes(b"not a database at all" * 100)
    with pytest.raises(BackupError, match=r"junk\.sqlite3"):
        backup_database(junk, tmp_path / "out")
    assert not list((tmp_path / "out").glob("*.sqlite3"))


def test_cli_reports_an_empty_data_dir(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["backup", "--data-dir", str(tmp_path), "--out", str(tmp_path / "o")]) == 1
    assert "no *.sqlite3 event logs" in capsys.readouterr().err
