"""A real PostgreSQL floor store, set up as docs/floor.md says, and a station log played into it."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import psycopg
import pytest

from dealerassist.cli import main
from dealerassist.floor import schema
from tests.pgserver import ThrowawayPostgres

TABLE = "tcp-1"  # the example Three Card Poker table the demo plays


@dataclass(frozen=True)
class Floor:
    pg: ThrowawayPostgres
    admin: str  # the owner, who ran 'floor init'
    station: str  # a station's role: INSERT only
    auditor: str  # a floor_reader role: SELECT only


def role_url(pg: ThrowawayPostgres, role: str) -> str:
    return pg.url.replace("postgres@", f"{role}@")


@pytest.fixture(scope="session")
def floor() -> Iterator[Floor]:
    with ThrowawayPostgres(durable=False) as pg:
        assert main(["floor", "init", "--floor", pg.url]) == 0
        assert main(["floor", "add-station", "--floor", pg.url, "station_pit1"]) == 0
        with psycopg.connect(pg.url, autocommit=True) as conn:
            conn.execute(f"CREATE ROLE auditor LOGIN IN ROLE {schema.READER_ROLE}")
        yield Floor(pg, pg.url, role_url(pg, "station_pit1"), role_url(pg, "auditor"))


@dataclass(frozen=True)
class Played:
    db: Path
    keys: Path
    stream: str


@pytest.fixture(scope="session")
def played(floor: Floor, tmp_path_factory: pytest.TempPathFactory) -> Played:
    """A keyed station (the real ``dealerassist demo`` process: shoe emulator, tracker, log) that
    shipped its whole log to the floor."""
    root = tmp_path_factory.mktemp("played")
    keys = root / "keys"
    assert main(["keys", "create", "--table", TABLE, "--keys", str(keys)]) == 0
    assert main(["floor", "add-keys", "--floor", floor.admin, "--table", TABLE, "--keys", str(keys)]) == 0
    env = {**os.environ, "DEALERASSIST_KEYS": str(keys)}
    done = subprocess.run(
        [sys.executable, "-m", "dealerassist", "demo", "--game", "three-card-poker", "--pace", "fast",
         "--rounds", "5", "--no-camera", "--port", "0", "--seed", "11", "--floor", floor.station,
         "--data-dir", str(root / "data")],
        env=env, capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    return Played(root / "data" / "events.sqlite3", keys, "demo")


def copy_log(source: Path, target_dir: Path) -> Path:
    """A consistent copy of a log file (WAL included), as an attacker's working copy."""
    target = target_dir / "copy.sqlite3"
    with sqlite3.connect(source) as src, sqlite3.connect(target) as dst:
        src.backup(dst)
    return target
