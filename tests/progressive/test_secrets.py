"""No secret enters a record: a URL with a password in a table file is refused in one line, and a
shared meter whose server wants a password gets it from libpq's own places (environment, password
file, service file), so neither the table's log, its export nor the shared ledger ever holds it."""

from __future__ import annotations

import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from dealerassist.progressive.linked import LinkedStore
from dealerassist.progressive.params import params_from_table
from dealerassist.tablefiles.tables import load_table
from tests.commands.test_run import Process
from tests.pgserver import ThrowawayPostgres
from tests.station.helpers import table_data, wait_for, write_table

pytestmark = pytest.mark.postgres
CLI = [sys.executable, "-m", "dealerassist"]
SECRET = "s3cret-meter-pw"


@pytest.fixture(scope="module")
def pg() -> Iterator[ThrowawayPostgres]:
    """A server that asks for the password on TCP (the socket in its folder stays open for setup)."""
    with ThrowawayPostgres(durable=False) as server:
        with psycopg.connect(server.url, autocommit=True) as conn:
            conn.execute(f"ALTER USER postgres PASSWORD '{SECRET}'")
        (server.data / "pg_hba.conf").write_text(
            "local all all trust\nhost all all 127.0.0.1/32 scram-sha-256\n", encoding="utf-8"
        )
        server._run("pg_ctl", "-D", str(server.data), "reload")
        yield server


def _pu_table(path: Path, link: str) -> Path:
    data = table_data("pairs-and-up", None)
    data["progressive"]["link"] = link
    return write_table(path, data)


@pytest.mark.parametrize(
    ("key", "url", "advice"),
    [
        ("progressive.link", f"postgresql://postgres:{SECRET}@127.0.0.1:5432/meters", "PGPASSWORD"),
        ("progressive.link", f"postgresql://127.0.0.1/meters?user=p&password={SECRET}", "password file"),
        ("devices.camera.url", f"rtsp://cam:{SECRET}@10.0.0.5/stream", "from outside the table file"),
    ],
)
def test_a_url_with_a_password_in_a_table_file_is_refused_in_one_line(
    tmp_path: Path, key: str, url: str, advice: str
) -> None:
    data = table_data("pairs-and-up", None)
    if key == "progressive.link":
        data["progressive"]["link"] = url
    else:
        data["devices"]["camera"] = {"url": url}
    table = write_table(tmp_path / "pu.toml", data)
    done = subprocess.run(
        [*CLI, "run", str(table), "--data-dir", str(tmp_path / "data"), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    [line] = done.stderr.strip().splitlines()
    assert line.startswith(f"dealerassist: error: {table}: {key}: holds a password") and advice in line
    assert SECRET not in line  # the error names the key, never echoes the secret
    assert not (tmp_path / "data").exists()


def _healthz(url: str) -> dict:
    with urllib.request.urlopen(url + "healthz", timeout=5) as response:
        return json.load(response)


def test_a_station_takes_the_password_from_the_environment_and_records_none(
    pg: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    table = _pu_table(tmp_path / "pu.toml", pg.url)
    data_dir = tmp_path / "data"
    monkeypatch.setenv("PGPASSWORD", SECRET)
    process = Process([str(table), "--data-dir", str(data_dir), "--port", "0"])
    try:
        url = process.url()
        state = wait_for(
            lambda: (s := _healthz(url)["tables"]["pu-1"]["progressive"])["status"] == "normal" and s,
            what="the shared meter read",
        )
        assert state["amount"] == 100_000
    finally:
        code, stderr = process.stop()
    assert code == 0, stderr
    db = data_dir / "events.sqlite3"
    assert SECRET.encode() not in db.read_bytes()
    exported = subprocess.run([*CLI, "export", "--db", str(db)], capture_output=True, text=True, timeout=60)
    kinds = {json.loads(line)["event"]["kind"] for line in exported.stdout.splitlines()}
    assert {"table-config", "progressive-params"} <= kinds and SECRET not in exported.stdout
    with psycopg.connect(pg.url, password=SECRET) as conn:
        rows = conn.execute(
            "SELECT l.event::text, m.params::text, m.state::text FROM progressive_ledger l "
            "JOIN progressive_meter m USING (name)"
        ).fetchall()
    assert rows and all(SECRET not in text for row in rows for text in row)


@pytest.mark.parametrize("source", ["password file", "service file"])
def test_a_password_file_or_a_service_file_reaches_the_shared_meter(
    pg: ThrowawayPostgres, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, source: str
) -> None:
    monkeypatch.delenv("PGPASSWORD", raising=False)
    passfile = tmp_path / "pgpass"
    passfile.write_text(f"127.0.0.1:{pg.port}:*:postgres:{SECRET}\n", encoding="utf-8")
    passfile.chmod(0o600)
    monkeypatch.setenv("PGPASSFILE", str(passfile))
    link = pg.url
    if source == "service file":
        services = tmp_path / "pg_service.conf"
        services.write_text(
            f"[meters]\nhost=127.0.0.1\nport={pg.port}\nuser=postgres\ndbname=postgres\n", encoding="utf-8"
        )
        monkeypatch.setenv("PGSERVICEFILE", str(services))
        link = "postgresql:///?service=meters"
    params = params_from_table(load_table(_pu_table(tmp_path / "pu.toml", link)))
    assert params is not None and params.link == link
    store = LinkedStore(link, "pu-1", params)
    try:
        state, _ = store.snapshot()
    finally:
        store.close()
    assert state.amount == 100_000
