"""Memory per live stream is bounded: ``dealerassist web serve`` (a real process on the production
server) on a 100,000-record log serves 50 dealer streams that replay from the start and never read,
grows by less than 20 MiB, and drops every stream when they close."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from dashboard_http import HttpUser

from dealerassist.events import Meta
from dealerassist.storage.eventlog import EventLog
from dealerassist.web.users import UserStore

pytestmark = pytest.mark.slow

RECORDS = 100_000
STREAMS = 50
SESSIONS = 10  # five streams each: under the cap of streams per session
LIMIT_MIB = 20


def _rss_mib(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    return int(re.search(r"VmRSS:\s+(\d+)", status).group(1)) / 1024  # type: ignore[union-attr]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[subprocess.Popen, str]]:
    tmp = tmp_path_factory.mktemp("memory")
    log = EventLog(tmp / "log.sqlite3")
    for start in range(0, RECORDS, 5000):
        log.append_many(
            [Meta(table="tcp-1", data={"n": n, "note": "x" * 120}) for n in range(start, start + 5000)]
        )
    log.close()
    users = UserStore(tmp / "users.sqlite3", scrypt_n=2**10)
    for n in range(SESSIONS):
        users.add(f"dealer{n}", "dealer", "dealer-pass-1")
    users.close()
    command = [sys.executable, "-m", "dealerassist", "web", "serve", "--db", str(tmp / "log.sqlite3")]
    command += ["--table", "three-card-poker", "--users", str(tmp / "users.sqlite3")]
    proc = subprocess.Popen([*command, "--port", "0"], stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()  # type: ignore[union-attr]
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line
        yield proc, f"http://127.0.0.1:{found.group(1)}"
    finally:
        proc.terminate()
        proc.wait(timeout=30)


def _streams_open(base: str) -> int:
    return int(json.loads(urllib.request.urlopen(base + "/healthz", timeout=10).read())["sse_clients"])


def _wait_for(base: str, count: int, timeout: float = 30) -> None:
    end = time.monotonic() + timeout
    while _streams_open(base) != count:
        assert time.monotonic() < end, f"{_streams_open(base)} streams open, expected {count}"
        time.sleep(0.2)


def _stalled_stream(port: int, cookie: str) -> socket.socket:
    """A dealer stream replaying from seq 0 whose reader never reads a byte."""
    sock = socket.create_connection(("127.0.0.1", port))
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    sock.sendall(
        f"GET /stream?table=tcp-1&after=0 HTTP/1.1\r\nHost: pit\r\n"
        f"Cookie: dealerassist_session={cookie}\r\n\r\n".encode()
    )
    return sock


def test_fifty_stalled_dealer_streams_on_a_100k_log(served: tuple[subprocess.Popen, str]) -> None:
    proc, base = served
    port = int(base.rsplit(":", 1)[1])
    cookies = []
    for n in range(SESSIONS):
        user = HttpUser(base)
        user.login(f"dealer{n}", "dealer-pass-1")
        cookies.append(next(c.value for c in user.jar if c.name == "dealerassist_session"))
    # A stream that reads: the replay starts at the log's first record and pages on.
    reader = HttpUser(base)
    reader.login("dealer0", "dealer-pass-1")
    stream = reader.get("/stream?table=tcp-1&after=0", timeout=10)
    seqs = []
    for raw in stream:
        if raw.startswith(b"id: "):
            seqs.append(int(raw[4:]))
            if len(seqs) == 300:
                break
    stream.close()
    assert seqs == list(range(1, 301))
    _wait_for(base, 0)
    baseline = _rss_mib(proc.pid)
    for _round in range(2):  # twice: a second crowd must not add to what the first left
        crowd = [_stalled_stream(port, cookies[n % SESSIONS]) for n in range(STREAMS)]
        _wait_for(base, STREAMS)
        time.sleep(2)  # every stream has filled its socket and waits
        grown = _rss_mib(proc.pid) - baseline
        assert grown < LIMIT_MIB, f"{STREAMS} stalled streams grew the process by {grown:.1f} MiB"
        for sock in crowd:
            sock.close()
        _wait_for(base, 0)
        left = _rss_mib(proc.pid) - baseline
        assert left < LIMIT_MIB / 2, f"{left:.1f} MiB still held after the streams closed"
