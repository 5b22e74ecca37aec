"""``dealerassist users add`` and ``dealerassist web serve`` as an operator runs them."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

from dealerassist.core.configfiles import bundled_dir
from dealerassist.web.users import UserStore

DEALERASSIST = [sys.executable, "-m", "dealerassist"]
TCP_TABLE = str(bundled_dir() / "tables" / "three-card-poker.toml")


def cli(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*DEALERASSIST, *args], input=stdin, capture_output=True, text=True, timeout=60)


def with_admin(tmp_path: Path) -> None:
    """Put one admin in ``tmp_path``'s accounts file, as an operator does before serving."""
    users = str(tmp_path / "users.sqlite3")
    done = cli("users", "add", "ada", "--role", "admin", "--users", users, stdin="a-strong-password\n")
    assert done.returncode == 0, done.stderr


def serve(tmp_path: Path, *tables: str, port: int = 0) -> list[str]:
    """``web serve`` arguments over ``tmp_path``'s log and accounts file."""
    return [
        "web",
        "serve",
        "--db",
        str(tmp_path / "log.sqlite3"),
        *(arg for table in tables for arg in ("--table", table)),
        "--users",
        str(tmp_path / "users.sqlite3"),
        "--port",
        str(port),
    ]


def test_first_admin_is_created_with_a_password_from_stdin(tmp_path: Path) -> None:
    users = str(tmp_path / "users.sqlite3")
    done = cli("users", "add", "ada", "--role", "admin", "--users", users, stdin="a-strong-password\n")
    assert done.returncode == 0, done.stderr
    assert "created admin account 'ada'" in done.stdout
    store = UserStore(users)
    assert store.authenticate("ada", "a-strong-password").role == "admin"
    listing = cli("users", "list", "--users", users)
    assert re.search(r"^ada\s+admin\s+active$", listing.stdout, re.M)


def test_no_password_no_account(tmp_path: Path) -> None:
    users = str(tmp_path / "users.sqlite3")
    empty = cli("users", "add", "ada", "--role", "admin", "--users", users, stdin="")
    assert empty.returncode == 1 and "password: nothing on standard input" in empty.stderr
    short = cli("users", "add", "ada", "--role", "admin", "--users", users, stdin="short\n")
    assert short.returncode == 1 and "password: must be at least 10 characters" in short.stderr
    role = cli("users", "add", "ada", "--role", "boss", "--users", users, stdin="a-strong-password\n")
    assert role.returncode == 2 and "invalid choice" in role.stderr
    assert UserStore(users).count() == 0


def test_serve_refuses_to_start_without_an_account(tmp_path: Path) -> None:
    done = cli(*serve(tmp_path, TCP_TABLE))
    assert done.returncode == 1
    assert "no accounts yet" in done.stderr and "dealerassist users add" in done.stderr


def test_serve_runs_the_dashboard_for_a_table(tmp_path: Path) -> None:
    with_admin(tmp_path)
    server = subprocess.Popen(
        [*DEALERASSIST, *serve(tmp_path, TCP_TABLE)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        line = server.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + server.stderr.read()
        with urllib.request.urlopen(f"http://127.0.0.1:{found.group(1)}/healthz", timeout=10) as response:
            assert json.loads(response.read())["ok"] is True
        with urllib.request.urlopen(
            f"http://127.0.0.1:{found.group(1)}/api/openapi.json", timeout=10
        ) as response:
            assert "/api/tables/{table}/actions/wager" in json.loads(response.read())["paths"]
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert server.returncode == 0, server.stderr.read()  # SIGTERM closes the log and stops cleanly
    bad = cli(*serve(tmp_path, str(tmp_path / "nope.toml")))
    assert bad.returncode == 1 and "nope.toml" in bad.stderr


def test_serve_on_a_port_in_use_names_it_and_closes_what_it_opened(tmp_path: Path) -> None:
    with_admin(tmp_path)
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = cli(*serve(tmp_path, TCP_TABLE, port=port))
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr
    audit = cli("audit", "verify", "--db", str(tmp_path / "log.sqlite3"))
    assert audit.returncode == 0, audit.stdout + audit.stderr


def test_an_accounts_file_that_cannot_be_opened_is_named_without_a_traceback(tmp_path: Path) -> None:
    not_sqlite = tmp_path / "notes.sqlite3"
    not_sqlite.write_text("shift notes, not accounts\n", encoding="utf-8")
    listing = cli("users", "list", "--users", str(not_sqlite))
    assert listing.returncode == 1 and "Traceback" not in listing.stderr
    assert f"{not_sqlite}: not a usable accounts file" in listing.stderr
    under_a_file = tmp_path / "notes.sqlite3" / "users.sqlite3"
    added = cli("users", "add", "ada", "--role", "admin", "--users", str(under_a_file), stdin="a-strong-pw\n")
    assert added.returncode == 1 and "Traceback" not in added.stderr
    assert f"{under_a_file}: not a usable accounts file" in added.stderr
    assert not_sqlite.read_text(encoding="utf-8") == "shift notes, not accounts\n"  # left untouched


def test_serve_refuses_two_tables_with_one_id_before_opening_the_log(tmp_path: Path) -> None:
    with_admin(tmp_path)
    done = cli(*serve(tmp_path, TCP_TABLE, TCP_TABLE))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert f"{TCP_TABLE}: table.id: 'tcp-1' is already the id of {TCP_TABLE}" in done.stderr
    assert not (tmp_path / "log.sqlite3").exists()


def test_a_trusted_proxy_that_is_no_address_is_named(tmp_path: Path) -> None:
    with_admin(tmp_path)
    done = cli(*serve(tmp_path, TCP_TABLE), "--trusted-proxy", "nginx.local")
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "--trusted-proxy: 'nginx.local' is not an IP address or network" in done.stderr
