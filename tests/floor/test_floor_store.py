"""The floor store's guarantees on real PostgreSQL: append-only roles, checks on ingest, audits."""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from dealerassist.cli import main
from dealerassist.errors import ConfigError
from dealerassist.floor.config import FloorConfig
from dealerassist.floor.shipper import INSERT, Shipper, parse_recorded_at, wait_until_shipped
from dealerassist.station.tables import load_tables
from dealerassist.storage.eventlog import EventLog
from dealerassist.storage.seal import SEALED_ROWS, open_sealed
from dealerassist.tracker.events import RoundSettled, Wager
from tests.floor.conftest import Floor, Played, copy_log
from tests.floor.tampering import append_forged
from tests.station.helpers import table_data, wait_for, write_table

pytestmark = pytest.mark.postgres


def _run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    capsys.readouterr()
    code = main(list(args))
    return code, capsys.readouterr().out


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE floor_records SET body = '{}'",
        "DELETE FROM floor_records",
        "TRUNCATE floor_records",
        "UPDATE floor_streams SET head_seq = 0",
        "DELETE FROM floor_alarms",
        "SELECT secret FROM floor_keys",
    ],
)
def test_a_station_role_is_refused_everything_but_insert(
    floor: Floor, played: Played, statement: str
) -> None:
    with psycopg.connect(floor.station) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(statement)


@pytest.mark.parametrize("statement", ["UPDATE floor_records SET body = '{}'", "DELETE FROM floor_records"])
def test_even_the_owner_cannot_change_floor_records(floor: Floor, played: Played, statement: str) -> None:
    with psycopg.connect(floor.admin) as conn, pytest.raises(psycopg.Error, match="append-only"):
        conn.execute(statement)
    with psycopg.connect(floor.admin) as conn:
        assert conn.execute("SELECT count(*) FROM floor_records WHERE stream = 'demo'").fetchone()[0] > 0


def test_the_floor_copy_verifies_alone(
    floor: Floor, played: Played, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out = _run(
        capsys, "audit", "verify", "--floor", floor.auditor, "--table", "tcp-1", "--keys", str(played.keys)
    )
    assert code == 0, out
    assert "records on the floor, chain intact (stream demo)" in out and "NOT CHECKED" not in out
    code, out = _run(
        capsys, "audit", "verify", "--floor", floor.auditor, "--table", "tcp-1", "--keys", "/nonexistent"
    )
    assert code == 0 and "MAC NOT CHECKED for tcp-1" in out


def _keyed_log(tmp_path: Path, floor: Floor, table: str, count: int) -> tuple[Path, Path]:
    keys = tmp_path / "keys"
    assert main(["keys", "create", "--table", table, "--keys", str(keys)]) == 0
    assert main(["floor", "add-keys", "--floor", floor.admin, "--table", table, "--keys", str(keys)]) == 0
    db = tmp_path / "events.sqlite3"
    with EventLog(db, keys=keys) as log:
        for i in range(count):
            log.append(Wager(table=table, round_id=1, seat=1 + i % 3, bet="ante", amount=500 + i, user="ana"))
    return db, keys


def _rows(db: Path) -> list[list]:
    conn = open_sealed(db)
    try:
        return [list(r) for r in conn.execute(SEALED_ROWS, (0, 1000))]
    finally:
        conn.close()


def _alarms(floor: Floor, stream: str) -> list[tuple]:
    with psycopg.connect(floor.admin) as conn:
        return conn.execute(
            "SELECT seq, problem FROM floor_alarms WHERE stream = %s ORDER BY id", (stream,)
        ).fetchall()


def _ship(conn: psycopg.Connection, stream: str, row: list) -> None:
    conn.execute(INSERT, (stream, row[0], row[1], parse_recorded_at(row[1]), *row[2:]))


def test_ingest_refuses_gaps_forks_and_bad_macs_and_records_an_alarm(
    floor: Floor, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db, _keys = _keyed_log(tmp_path, floor, "alarm-1", 6)
    rows = _rows(db)
    stream = "alarm-station"
    with psycopg.connect(floor.station, autocommit=True) as conn:
        for row in rows[:5]:
            _ship(conn, stream, row)
        _ship(conn, stream, rows[2])  # shipped again after a lost acknowledgement: skipped, no alarm
        _ship(conn, stream, [8, *rows[5][1:]])  # records 6 and 7 never sent
        _ship(conn, stream, [*rows[5][:6], "a" * 64, *rows[5][7:]])  # does not link to record 5
        forged = list(rows[5])
        forged[9] = "0" * 64  # right place, right hash, MAC made without the key
        _ship(conn, stream, forged)
        head = conn.execute("SELECT head_seq FROM floor_streams WHERE stream = %s", (stream,)).fetchone()[0]
    assert head == 5
    problems = _alarms(floor, stream)
    with psycopg.connect(floor.admin) as conn:
        stored = conn.execute("SELECT count(*) FROM floor_records WHERE stream = %s", (stream,)).fetchone()[0]
    assert problems == [(8, "gap"), (6, "fork"), (6, "mac")]
    assert stored == 5
    code, out = _run(capsys, "floor", "alarms", "--floor", floor.auditor, "--table", "alarm-1")
    assert code == 1 and "record 8 (alarm-1): gap" in out and "record 6 (alarm-1): mac" in out
    code, out = _run(capsys, "audit", "verify", "--floor", floor.auditor, "--stream", stream)
    assert code == 1
    assert "ok: 5 records on the floor" in out and out.count("ALARM") == 3


def test_a_forged_record_in_a_station_log_is_refused_by_the_floor(floor: Floor, tmp_path: Path) -> None:
    db, _keys = _keyed_log(tmp_path, floor, "forge-1", 4)
    shipper = Shipper(db, FloorConfig(floor.station, "forge-station"), poll_s=0.05).start()
    try:
        assert wait_until_shipped(shipper, 20)
        with EventLog(db, keys=_keys) as log:  # a real settlement to copy from
            result = {
                "seat": 1,
                "position": "seat-1",
                "bet": "ante",
                "stake": 500,
                "outcome": "win",
                "win": 500,
            }
            log.append(RoundSettled(table="forge-1", round_id=1, results=(result,)))
        assert wait_until_shipped(shipper, 20)
        forged_seq = append_forged(db)  # written into the file without the key
        shipper.wake()
        wait_for(lambda: "refused record" in shipper.status()["last_error"], 20, "the floor's refusal")
        status = shipper.status()
        assert (
            status["ok"] is False and status["lag_records"] == 1 and status["shipped_seq"] == forged_seq - 1
        )
    finally:
        shipper.stop()
    assert _alarms(floor, "forge-station") == [(forged_seq, "mac")]


def test_a_batch_shipped_again_is_stored_once(floor: Floor, tmp_path: Path) -> None:
    db, _keys = _keyed_log(tmp_path, floor, "twice-1", 7)
    shipper = Shipper(db, FloorConfig(floor.station, "twice-station"), batch=3)
    try:
        assert shipper.ship_once() is True
        shipper.shipped = 0  # the acknowledgement was lost: the same batch goes again
        while shipper.ship_once():
            pass
    finally:
        shipper.stop()
    with psycopg.connect(floor.admin) as conn:
        seqs = conn.execute(
            "SELECT seq FROM floor_records WHERE stream = 'twice-station' ORDER BY seq"
        ).fetchall()
    alarms = len(_alarms(floor, "twice-station"))
    assert [seq for (seq,) in seqs] == list(range(1, 8)) and alarms == 0


@pytest.mark.parametrize("key", ["url", "search_url"])
def test_a_password_in_the_floor_url_is_refused_and_not_repeated(tmp_path: Path, key: str) -> None:
    data = table_data("three-card-poker", None)
    data["floor"] = {"url": "postgresql://station@floor-db/floor"}
    data["floor"][key] = "postgresql://station:hunter2@floor-db/floor"
    path = write_table(tmp_path / "t.toml", data)
    with pytest.raises(ConfigError) as caught:
        load_tables([path])
    assert f"floor.{key}" in str(caught.value)
    assert "PGPASSWORD" in str(caught.value) and "hunter2" not in str(caught.value)


def test_a_station_copy_with_the_floor_alongside_names_records_not_shipped(
    floor: Floor, played: Played, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = copy_log(played.db, tmp_path)
    with EventLog(copy, keys=played.keys) as log:  # a real, keyed record the floor has not received
        last = log.append(Wager(table="tcp-1", round_id=99, seat=1, bet="ante", amount=500, user="ana"))
    code, out = _run(
        capsys, "audit", "verify", "--db", str(copy), "--against", floor.auditor, "--keys", str(played.keys)
    )
    assert code == 1 and "MAC ok" in out
    assert f"first differing record {last.seq}: records from {last.seq} on are not on the floor copy" in out


def test_a_floor_without_its_schema_pauses_shipping_with_a_clear_error_and_loses_nothing(
    floor: Floor, tmp_path: Path
) -> None:
    with psycopg.connect(floor.admin, autocommit=True) as conn:
        conn.execute("CREATE DATABASE not_yet_a_floor")
    url = floor.admin.rsplit("/", 1)[0] + "/not_yet_a_floor"
    db, _keys = _keyed_log(tmp_path, floor, "early-1", 3)
    shipper = Shipper(db, FloorConfig(url, "early-station"), poll_s=0.05, retry_s=0.2).start()
    try:
        wait_for(lambda: "shipping failed" in shipper.status()["last_error"], 20, "the paused shipper")
        assert "floor_streams" in shipper.status()["last_error"] and shipper.status()["lag_records"] == 3
        assert main(["floor", "init", "--floor", url]) == 0
        assert wait_until_shipped(shipper, 20)
    finally:
        shipper.stop()
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT count(*) FROM floor_records").fetchone()[0] == 3
