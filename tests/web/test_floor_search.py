"""The floor search's edges without a floor database, over real HTTP: a station with no floor store
says so (404) and shows no link to it; a floor address that accepts connections and never answers
is a 503 within the connect timeout, not a hung request; only ``audit`` roles get that far."""

from __future__ import annotations

import json
import socket
import threading
import time
import urllib.error
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from dashboard_fixtures import PASSWORDS, make_dashboard
from dashboard_http import HttpUser

from dealerassist.commands.web import serve_in_thread
from dealerassist.floor.config import FloorConfig
from dealerassist.tablefiles.tables import load_table
from dealerassist.web.floorsearch import CONNECT_TIMEOUT_S


def _get(user: HttpUser, path: str) -> tuple[int, str]:
    try:
        response = user.opener.open(user.base + path, timeout=30)
    except urllib.error.HTTPError as exc:
        response = exc
    return response.status, response.read().decode()


def _signed_in(base: str, name: str) -> HttpUser:
    user = HttpUser(base)
    user.login(name, PASSWORDS[name][1])
    return user


@pytest.fixture
def silent_floor() -> Iterator[int]:
    """A port that accepts connections and never says a word (a floor host behind a dead link)."""
    listener = socket.create_server(("127.0.0.1", 0))
    held: list[socket.socket] = []
    stop = threading.Event()

    def accept() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                held.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    yield listener.getsockname()[1]
    stop.set()
    thread.join()
    for conn in held:
        conn.close()
    listener.close()


@contextmanager
def _served(tmp_path: Path, floor: FloorConfig | None) -> Iterator[str]:
    board = make_dashboard(tmp_path, [load_table("three-card-poker")], floor=floor)
    server = serve_in_thread(board.app, "127.0.0.1", 0)
    try:
        yield f"http://127.0.0.1:{server.port}"
    finally:
        server.shutdown()
        board.log.close()
        board.users.close()


def test_without_a_floor_store_the_search_says_so_and_is_not_offered(tmp_path: Path) -> None:
    with _served(tmp_path, None) as base:
        sue = _signed_in(base, "sue")
        status, page = _get(sue, "/surveillance/floor")
        assert status == 404 and "no floor store to search" in page
        status, body = _get(sue, "/api/floor/rounds?seat=2")
        assert status == 404 and json.loads(body)["field"] == "floor"
        status, history = _get(sue, "/surveillance/")
        assert status == 200 and "/surveillance/floor" not in history


def test_a_floor_that_never_answers_is_a_503_within_the_connect_timeout(
    tmp_path: Path, silent_floor: int
) -> None:
    floor = FloorConfig("host=127.0.0.1", "pit-a", f"postgresql://auditor@127.0.0.1:{silent_floor}/floor")
    with _served(tmp_path, floor) as base:
        sue = _signed_in(base, "sue")
        status, history = _get(sue, "/surveillance/")
        assert status == 200 and 'href="/surveillance/floor"' in history
        started = time.monotonic()
        status, body = _get(sue, "/api/floor/rounds?table=tcp-1")
        took = time.monotonic() - started
        answer = json.loads(body)
        assert status == 503 and answer["message"].startswith("floor store unreachable"), answer
        assert CONNECT_TIMEOUT_S - 0.5 < took < CONNECT_TIMEOUT_S + 5
        status, page = _get(sue, "/surveillance/floor?seat=3")
        assert status == 503 and "floor store unreachable" in page
        status, page = _get(sue, "/surveillance/floor")  # the form alone asks the floor nothing
        assert status == 200 and 'id="floor-filters"' in page
        for name in ("dana", "sam"):
            who = _signed_in(base, name)
            for path in ("/surveillance/floor", "/api/floor/rounds", "/surveillance/floor/rounds/tcp-1/1"):
                status, _ = _get(who, path)
                assert status == 403, (name, path)
            status, page = _get(who, "/tables" if name == "dana" else "/supervisor")
            assert status == 200 and "/surveillance/floor" not in page
