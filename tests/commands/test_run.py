"""``dealerassist run`` as a process: config errors before anything starts; real emulators by URL,
``/healthz`` following a pulled shoe cable; plain log lines; SIGTERM ends it cleanly."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from firmware_bridge.emulators.shoe import ShoeEmulator
from firmware_bridge.emulators.sign import SignEmulator
from tests.station.helpers import table_data, wait_for, write_table

CLI = [sys.executable, "-m", "dealerassist"]


def _healthz(url: str) -> tuple[int, dict]:
    try:
        with urllib.request.urlopen(url + "healthz", timeout=5) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as exc:
        return exc.code, json.load(exc)


class Process:
    """A running ``dealerassist run`` whose standard output is collected line by line."""

    def __init__(self, args: list[str]) -> None:
        self.proc = subprocess.Popen(
            [*CLI, "run", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
        )
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.append(line.rstrip("\n"))

    def url(self) -> str:
        line = wait_for(
            lambda: next((x for x in self.lines if "dashboard on http" in x), None), what="the dashboard line"
        )
        return line.split("dashboard on ", 1)[1].split(",", 1)[0]

    def stop(self) -> tuple[int, str]:
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=20)
        self._reader.join(timeout=5)
        assert self.proc.stderr is not None
        return code, self.proc.stderr.read()


@pytest.fixture
def emulators(tmp_path: Path) -> Iterator[tuple[ShoeEmulator, SignEmulator]]:
    shoe = ShoeEmulator(deck="pairs-and-up-52", seed=2, heartbeat=0.2, state=tmp_path / "shoe.json")
    shoe.serve_tcp("127.0.0.1", 0)
    sign = SignEmulator()
    sign.serve_tcp("127.0.0.1", 0)
    shoe.start()
    sign.start()
    yield shoe, sign
    shoe.stop()
    sign.stop()


def test_a_bad_table_file_stops_run_before_anything_starts(tmp_path: Path) -> None:
    good = write_table(tmp_path / "good.toml", table_data("three-card-poker", "socket://127.0.0.1:9"))
    data = table_data("four-card-poker", "socket://127.0.0.1:9")
    data["devices"]["shoe"]["parity"] = "sometimes"
    bad = write_table(tmp_path / "bad.toml", data)
    data_dir = tmp_path / "data"
    done = subprocess.run(
        [*CLI, "run", "--table", str(good), str(bad), "--data-dir", str(data_dir), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"{bad}: devices.shoe.parity: must be one of" in done.stderr
    assert "Traceback" not in done.stderr
    assert not data_dir.exists()  # no log, no accounts: nothing started


def test_check_lists_the_tables_and_their_devices(tmp_path: Path) -> None:
    write_table(tmp_path / "tcp.toml", table_data("three-card-poker", "/dev/dealerassist/shoe-tcp-1"))
    done = subprocess.run([*CLI, "run", "--check", str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "tcp-1 (three-card-poker) ok: shoe=/dev/dealerassist/shoe-tcp-1" in done.stdout


def test_run_against_emulators_reports_health_through_a_cable_pull(
    tmp_path: Path, emulators: tuple[ShoeEmulator, SignEmulator]
) -> None:
    shoe, sign = emulators
    table = write_table(tmp_path / "pu.toml", table_data("pairs-and-up", shoe.url, sign.url))
    data_dir = tmp_path / "data"
    process = Process([str(table), "--data-dir", str(data_dir), "--host", "127.0.0.1", "--port", "0"])
    try:
        url = process.url()
        _, body = wait_for(lambda: (r := _healthz(url))[0] == 200 and r, what="healthy")
        assert body["tables"]["pu-1"]["devices"]["shoe"]["up"] is True
        assert body["tables"]["pu-1"]["devices"]["shoe"]["url"] == shoe.url
        assert body["tables"]["pu-1"]["devices"]["shoe"]["line"]["naks"] == 0
        assert body["tables"]["pu-1"]["devices"]["sign"] == {"up": True, "url": sign.url}
        assert body["log"]["ok"] is True

        shoe.unplug()
        _, body = wait_for(lambda: (r := _healthz(url))[0] == 503 and r, what="unhealthy")
        assert body["tables"]["pu-1"]["devices"]["shoe"]["up"] is False
        assert body["tables"]["pu-1"]["open_alarms"] == 1
        shoe.replug()
        _, body = wait_for(lambda: (r := _healthz(url))[0] == 200 and r, what="healthy again")
        assert body["tables"]["pu-1"]["open_alarms"] == 0
    finally:
        code, stderr = process.stop()
    assert code == 0, stderr
    assert "Traceback" not in stderr
    out = "\n".join(process.lines)
    assert "WARNING dealerassist.station: pu-1" in out and "shoe link DOWN" in out
    assert "\x1b[" not in out  # no colours for the journal
    assert f"dealerassist audit verify --db {data_dir / 'events.sqlite3'}" in out
    assert _audit_ok(data_dir / "events.sqlite3")
    backups = tmp_path / "backups"
    copied = subprocess.run(
        [*CLI, "backup", "--data-dir", str(data_dir), "--out", str(backups)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert copied.returncode == 0, copied.stderr
    [event_copy] = backups.glob("events-*.sqlite3")  # the backup timer's command finds the run's log
    assert _audit_ok(event_copy)


def _audit_ok(db: Path) -> bool:
    done = subprocess.run(
        [*CLI, "audit", "verify", "--db", str(db)], capture_output=True, text=True, timeout=60
    )
    return done.returncode == 0 and done.stdout.startswith("ok:")


def test_a_port_in_use_is_named_and_nothing_is_left_running(tmp_path: Path) -> None:
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", None))
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [*CLI, "run", str(table), "--data-dir", str(tmp_path / "data"), "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
        )
    assert done.returncode == 1
    assert f"cannot listen on 127.0.0.1:{port}" in done.stderr and "Traceback" not in done.stderr
    assert _audit_ok(tmp_path / "data" / "events.sqlite3")  # the log it opened was closed cleanly


@pytest.mark.parametrize("command", [["run", "TABLE"], ["demo", "--no-camera"]])
def test_a_data_dir_that_cannot_be_made_is_named_without_a_traceback(
    tmp_path: Path, command: list[str]
) -> None:
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", None))
    blocker = tmp_path / "not-a-dir"
    blocker.write_text("a file where the data directory should go\n", encoding="utf-8")
    args = [str(table) if a == "TABLE" else a for a in command]
    done = subprocess.run(
        [*CLI, *args, "--data-dir", str(blocker / "data"), "--port", "0"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1
    assert f"--data-dir {blocker / 'data'}: cannot create the data directory" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_port_out_of_range_is_named_without_a_traceback(tmp_path: Path) -> None:
    table = write_table(tmp_path / "tcp.toml", table_data("three-card-poker", None))
    done = subprocess.run(
        [*CLI, "run", str(table), "--data-dir", str(tmp_path / "data"), "--port", "70000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 1 and "Traceback" not in done.stderr
    assert "cannot listen on 127.0.0.1:70000: port 70000 is not 0-65535 (try --port)" in done.stderr


def test_run_behind_a_trusted_proxy_throttles_each_browser_and_marks_cookies_secure(tmp_path: Path) -> None:
    import dealerassist.web.events  # noqa: F401  (the dashboard's user-action records)
    from dealerassist.storage.eventlog import EventLog
    from dealerassist.web.users import UserStore

    data = table_data("three-card-poker", None)
    data["dashboard"] = {"trusted_proxies": ["127.0.0.1"]}
    table = write_table(tmp_path / "tcp.toml", data)
    data_dir = tmp_path / "data"
    users = UserStore(data_dir / "users.sqlite3", scrypt_n=2**10)
    users.add("dana", "dealer", "dealer-pass-1")
    users.add("sam", "supervisor", "super-pass-1")
    users.close()
    process = Process([str(table), "--data-dir", str(data_dir), "--port", "0"])
    try:
        url = process.url()
        status, body = _healthz(url)
        assert status == 200 and str(data_dir) not in json.dumps(body) and "path" not in body["log"]

        class Keep(urllib.request.HTTPRedirectHandler):
            def redirect_request(self, *args: object, **kwargs: object) -> None:
                return None

        plain = urllib.request.build_opener(Keep)

        def login(name: str, password: str, client: str) -> tuple[int, str]:
            """As nginx forwards it: the browser's address and https. The cookie is carried by
            hand, since a Secure cookie is (rightly) never sent back over plain HTTP by a jar."""
            proxy = {"X-Forwarded-For": client, "X-Forwarded-Proto": "https"}
            with plain.open(urllib.request.Request(url + "login", headers=proxy), timeout=10) as page:
                cookie = page.headers["Set-Cookie"].split(";", 1)[0]
                token = page.read().decode().split('name="csrf-token" content="', 1)[1].split('"', 1)[0]
            form = urllib.parse.urlencode({"name": name, "password": password, "csrf_token": token}).encode()
            request = urllib.request.Request(url + "login", data=form, headers={**proxy, "Cookie": cookie})
            try:
                with plain.open(request, timeout=10) as response:
                    return response.status, response.headers.get("Set-Cookie", "")
            except urllib.error.HTTPError as exc:
                return exc.code, exc.headers.get("Set-Cookie", "")

        for _ in range(5):
            assert login("dana", "wrong-password", "203.0.113.5")[0] == 401
        assert login("dana", "dealer-pass-1", "203.0.113.5")[0] == 429  # that name from that browser
        status, cookie = login("sam", "super-pass-1", "203.0.113.5")  # a colleague at the same address
        assert status == 302 and "Secure" in cookie and "HttpOnly" in cookie
        assert login("dana", "dealer-pass-1", "198.51.100.7")[0] == 302  # dana elsewhere is not held
    finally:
        code, stderr = process.stop()
    assert code == 0 and "Traceback" not in stderr
    log = EventLog(data_dir / "events.sqlite3", readonly=True)
    failed = [r.event for r in log.records() if getattr(r.event, "action", "") == "login-failed"]
    log.close()
    assert {e.client for e in failed} == {"203.0.113.5"}
